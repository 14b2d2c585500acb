# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``verify-install`` and ``run``'s check on a real wheel install, clean and then edited."""

from __future__ import annotations

import asyncio
import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.cli.run import SOFTWARE_MODIFIED
from table_controller.cli.verify_install import MODIFIED
from tests.integrity.conftest import Installed
from tests.mosquitto import Mosquitto
from tests.support.backend import listening

pytestmark = pytest.mark.timeout(600)


def table_controller(
    installed: Installed, *args: str, cwd: Path
) -> subprocess.CompletedProcess[str]:
    """``table-controller ARGS`` run from the install (never from the source tree)."""
    return subprocess.run(
        [sys.executable, "-m", "table_controller", *args],
        env=installed.env, cwd=cwd, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


def sha256sum_identity(site_packages: Path) -> str:
    """``H`` as docs/operations.md says to compute it, with the coreutils."""
    done = subprocess.run(
        "find table_controller drivers simulators -type f ! -name '*.pyc'"
        " ! -path '*/__pycache__/*' | LC_ALL=C sort | xargs sha256sum | sha256sum",
        shell=True, cwd=site_packages, capture_output=True, text=True, check=True,
    )  # fmt: skip
    return done.stdout.split()[0]


def test_a_clean_install_is_verified(installed: Installed, tmp_path: Path) -> None:
    done = table_controller(installed, "verify-install", "--json", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == "verified"
    assert Path(report["root"]) == installed.site_packages.resolve()
    assert (report["added"], report["missing"], report["changed"]) == ([], [], [])
    assert report["checked"] > 100
    assert report["software"]["sha256"] == sha256sum_identity(installed.site_packages)
    text = table_controller(installed, "verify-install", cwd=tmp_path)
    assert text.returncode == 0
    assert "verified:" in text.stdout
    assert report["software"]["sha256"] in text.stdout


def test_an_edited_an_added_and_a_removed_file_are_listed_and_fail_the_check(
    installed: Installed, tmp_path: Path
) -> None:
    site = installed.site_packages
    clean = json.loads(table_controller(installed, "verify-install", "--json", cwd=tmp_path).stdout)
    with (site / "table_controller/rules/tableau.py").open("a") as edited:
        edited.write("\n# edited after the install\n")
    (site / "drivers/extra.py").write_text("print('not shipped')\n")
    (site / "simulators/__init__.py").unlink()
    done = table_controller(installed, "verify-install", "--json", cwd=tmp_path)
    assert done.returncode == MODIFIED
    report = json.loads(done.stdout)
    assert report["status"] == "modified"
    assert report["changed"] == ["table_controller/rules/tableau.py"]
    assert report["added"] == ["drivers/extra.py"]
    assert report["missing"] == ["simulators/__init__.py"]
    assert report["software"]["sha256"] != clean["software"]["sha256"]
    assert report["software"]["sha256"] == sha256sum_identity(site)
    text = table_controller(installed, "verify-install", cwd=tmp_path)
    assert text.returncode == MODIFIED
    assert "changed  table_controller/rules/tableau.py" in text.stdout
    assert "added    drivers/extra.py" in text.stdout
    assert "MODIFIED: 3 files differ" in text.stdout


def test_run_refuses_to_start_an_edited_install_when_told_to(
    installed: Installed, tmp_path: Path
) -> None:
    with (installed.site_packages / "table_controller/rules/tableau.py").open("a") as edited:
        edited.write("\n# edited after the install\n")
    env_run = subprocess.run(
        [sys.executable, "-m", "table_controller", "run", "--table-id", "T1",
         "--card-source", "rng", "--display", "off", "--journal", str(tmp_path / "T1.journal")],
        env={**installed.env, "TABLE_CONTROLLER_SOFTWARE_CHECK": "refuse"},
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert env_run.returncode == SOFTWARE_MODIFIED
    assert "software_check is 'refuse': not starting" in env_run.stderr
    assert "software modified" in env_run.stderr  # the log line, with the file
    assert "table_controller/rules/tableau.py" in env_run.stderr
    assert not (tmp_path / "T1.journal").exists()


def test_the_editable_install_says_so_and_passes(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "table_controller", "verify-install"],
        cwd=tmp_path, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0
    assert "editable install: nothing recorded to verify against" in done.stdout


@pytest.mark.broker
async def test_an_edited_install_holds_the_table_until_a_supervisor_acknowledges(
    installed: Installed, tmp_path: Path, broker: Mosquitto
) -> None:
    with (installed.site_packages / "table_controller/rules/tableau.py").open("a") as edited:
        edited.write("\n# edited after the install\n")
    root = "baccarat/tables/V1"
    env = {**installed.env, "TABLE_CONTROLLER_SUPERVISORS": json.dumps({"sup-1": ["backend"]})}
    async with listening(broker, root, "backend-h") as backend:
        with (tmp_path / "run.log").open("ab") as log:
            process = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "table_controller", "run", "--table-id", "V1",
                "--card-source", "rng", "--display", "off", "--broker", broker.url("backend"),
                "--journal", str(tmp_path / "V1.journal"),
                env=env, cwd=tmp_path, stdout=asyncio.subprocess.DEVNULL, stderr=log,
            )  # fmt: skip
        try:
            await backend.wait_online()
            alarm = await backend.until_event("alarm", code="software_modified")
            assert alarm["changed"] == ["table_controller/rules/tableau.py"]
            refused = await backend.command("new_shoe", shoe_id="S-1")
            assert not refused["ok"]
            acknowledged = await backend.command(
                "acknowledge", operator="sup-1", alarm="software_modified"
            )
            assert acknowledged["ok"], acknowledged
            assert (await backend.command("new_shoe", shoe_id="S-1"))["ok"]
        finally:
            process.send_signal(signal.SIGTERM)
            await asyncio.wait_for(process.wait(), 15)
    assert process.returncode == 0, (tmp_path / "run.log").read_text()
    journal = str(tmp_path / "V1.journal")
    done = table_controller(installed, "journal", "export", journal, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    (started,) = [json.loads(line) for line in done.stdout.splitlines() if '"started"' in line]
    assert started["started"]["software"]["status"] == "modified"
    assert started["started"]["software"]["sha256"] == alarm["software"]["sha256"]
