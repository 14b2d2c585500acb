# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The systemd units: ``systemd-analyze verify`` accepts them, and they agree with the code.

``verify`` runs against a scratch root holding the system's own units, the unit under test
where the guide installs it and an executable where its ``ExecStart`` points, so the unit file
is checked exactly as shipped. Skipped where systemd is not installed, failed in CI.
"""

from __future__ import annotations

import re
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

from table_controller.cli import USAGE_ERROR, build_parser
from table_controller.cli.run import JOURNAL_FAULT, JOURNAL_IN_USE, SOFTWARE_MODIFIED
from table_controller.runtime.config import load_settings
from table_controller.screens.http_limits import descriptors_needed
from tests.deploy.conftest import (
    BACKUP_SCRIPT,
    BACKUP_TIMER,
    BACKUP_UNIT,
    EXAMPLE_TOML,
    SYSUSERS,
    UNIT,
    require_program,
    table_controller_program,
    unit_settings,
)

SYSTEM_UNITS = Path("/usr/lib/systemd/system")
#: Where docs/operations.md installs each program a unit starts.
INSTALLED_PROGRAMS = {
    "/opt/table-controller/bin/table-controller": table_controller_program(),
    "/usr/local/sbin/table-controller-backup": BACKUP_SCRIPT,
}


def scratch_root(tmp_path: Path, units: list[Path]) -> Path:
    root = tmp_path / "root"
    shutil.copytree(SYSTEM_UNITS, root / "usr/lib/systemd/system", symlinks=True)
    installed = root / "etc/systemd/system"
    installed.mkdir(parents=True)
    for unit in units:
        shutil.copy(unit, installed / unit.name)
    for target, source in INSTALLED_PROGRAMS.items():
        program = root / target.lstrip("/")
        program.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, program)
        program.chmod(0o755)
    return root


def verify(root: Path, unit: Path) -> subprocess.CompletedProcess[str]:
    analyze = require_program("systemd-analyze", "systemd")
    return subprocess.run(
        [analyze, "verify", f"--root={root}", f"/etc/systemd/system/{unit.name}"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )


@pytest.mark.parametrize("unit", [UNIT, BACKUP_UNIT, BACKUP_TIMER], ids=lambda unit: unit.name)
def test_systemd_analyze_verify_accepts_the_unit(tmp_path: Path, unit: Path) -> None:
    root = scratch_root(tmp_path, [UNIT, BACKUP_UNIT, BACKUP_TIMER])
    done = verify(root, unit)
    assert done.returncode == 0, done.stderr
    # Unknown keys and bad values are only warnings (exit 0): none is allowed.
    assert done.stderr == ""


def test_verify_catches_what_it_is_trusted_to_catch(tmp_path: Path) -> None:
    """The positive control: the same check fails a misspelt key and a missing program."""
    broken = tmp_path / "table-controller.service"
    text = UNIT.read_text(encoding="utf-8")
    broken.write_text(text.replace("NoNewPrivileges=", "NoNewPrivilege="), encoding="utf-8")
    root = scratch_root(tmp_path, [broken])
    done = verify(root, broken)
    assert "Unknown key 'NoNewPrivilege'" in done.stderr
    (root / "opt/table-controller/bin/table-controller").unlink()
    done = verify(root, broken)
    assert done.returncode != 0
    assert "is not executable" in done.stderr


def test_exec_start_is_a_command_line_the_cli_accepts() -> None:
    settings = unit_settings(UNIT)
    program, *argv = shlex.split(settings["ExecStart"][0])
    assert program == "/opt/table-controller/bin/table-controller"
    args = build_parser().parse_args(argv)
    assert args.subcommand == "run"
    assert args.config == Path("/etc/table-controller/table.toml")


def test_restart_stops_on_the_exit_statuses_restarting_cannot_fix() -> None:
    settings = unit_settings(UNIT)
    assert settings["Restart"] == ["always"]
    prevented = {int(status) for status in settings["RestartPreventExitStatus"][0].split()}
    assert prevented == {USAGE_ERROR, JOURNAL_FAULT, JOURNAL_IN_USE, SOFTWARE_MODIFIED}


def test_the_service_is_sandboxed_and_writes_only_its_state_directory() -> None:
    settings = unit_settings(UNIT)
    assert settings["User"] == ["table-controller"]
    assert settings["ProtectSystem"] == ["strict"]
    assert settings["StateDirectory"] == ["table-controller"]
    assert "ReadWritePaths" not in settings
    assert settings["NoNewPrivileges"] == ["yes"]
    assert settings["CapabilityBoundingSet"] == [""]
    # A device allow-list, explicit or implied by ProtectClock/PrivateDevices, would shut
    # out a shoe whose USB-serial driver loads after the start.
    for key in ("DevicePolicy", "DeviceAllow", "ProtectClock", "PrivateDevices"):
        assert key not in settings, key
    assert "dialout" in settings["SupplementaryGroups"][0].split()


def test_the_journal_of_the_example_config_is_in_the_writable_state_directory() -> None:
    text = EXAMPLE_TOML.read_text(encoding="utf-8")
    state = Path("/var/lib") / unit_settings(UNIT)["StateDirectory"][0]
    journal_line = next(line for line in text.splitlines() if line.startswith("journal ="))
    journal = Path(journal_line.split("=", 1)[1].strip().strip('"'))
    assert journal.parent == state
    assert unit_settings(UNIT)["WorkingDirectory"] == [str(state)]


def test_watchdog_is_on_and_the_service_notifies() -> None:
    settings = unit_settings(UNIT)
    assert settings["Type"] == ["notify"]
    assert settings["NotifyAccess"] == ["main"]
    assert settings["WatchdogSec"] == ["30s"]


def test_sysusers_creates_the_service_user_in_group_dialout(tmp_path: Path) -> None:
    sysusers = require_program("systemd-sysusers", "systemd")
    root = tmp_path / "root"
    (root / "etc").mkdir(parents=True)
    done = subprocess.run(
        [sysusers, f"--root={root}", str(SYSUSERS)],
        capture_output=True,
        text=True,
        check=False,
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    users = {
        line.split(":")[0]: line.split(":")
        for line in (root / "etc/passwd").read_text().splitlines()
    }
    user = users["table-controller"]
    assert user[5] == "/var/lib/table-controller"
    assert user[6].endswith("nologin")
    groups = {
        line.split(":")[0]: line.split(":")[3].split(",")
        for line in (root / "etc/group").read_text().splitlines()
    }
    assert "table-controller" in groups["dialout"]
    assert "table-controller" in groups


@pytest.mark.parametrize(
    ("unit", "most"),
    [(UNIT, 2.0), (BACKUP_UNIT, 1.0)],
    ids=lambda value: value.name if isinstance(value, Path) else str(value),
)
def test_systemd_rates_the_exposure_of_the_units_low(unit: Path, most: float) -> None:
    """``systemd-analyze security`` scores 0 (locked down) to 10 (unprotected)."""
    analyze = require_program("systemd-analyze", "systemd")
    done = subprocess.run(
        [analyze, "security", "--offline=yes", f"--threshold={round(most * 10)}", str(unit)],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    score = re.search(r"Overall exposure level for \S+: (\d+\.\d)", done.stdout)
    assert score is not None, done.stdout + done.stderr
    assert float(score[1]) <= most
    assert done.returncode == 0, done.stderr


@pytest.mark.usefixtures("clean_environment")
def test_the_open_file_limit_holds_the_web_caps_of_every_address() -> None:
    """Display, board and metrics at the example's caps, and the rest of the process."""
    (limit,) = unit_settings(UNIT)["LimitNOFILE"]
    web = load_settings({}, EXAMPLE_TOML).web_limits
    assert descriptors_needed([web, web, web]) <= int(limit)
