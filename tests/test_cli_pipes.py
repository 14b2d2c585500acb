# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A reader of standard output that stops early (``| head -1``) ends a sub-command quietly.

The real console script runs in a shell pipeline; each command prints far more than a pipe
holds (64 KiB), so it is still writing when ``head`` has gone.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

from simulators.virtual_shoe.shuffle import seeded_order
from table_controller.cli import CLOSED_PIPE
from table_controller.runtime.journal.journal import Journal


def _into_head(*args: str) -> subprocess.CompletedProcess[str]:
    command = shlex.join([sys.executable, "-m", "table_controller", *args])
    return subprocess.run(
        ["bash", "-c", f"set -o pipefail; {command} | head -1"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _quiet_early_end(result: subprocess.CompletedProcess[str]) -> None:
    assert result.stdout.count("\n") == 1  # head's one line
    assert "Traceback" not in result.stderr
    assert "BrokenPipeError" not in result.stderr
    assert result.returncode == CLOSED_PIPE


def test_journal_export_into_head_ends_quietly(tmp_path: Path) -> None:
    path = tmp_path / "t.journal"
    with Journal.open(path, table_id="T07") as journal:
        for number in range(100):
            journal.append(
                "card",
                {"card": "5H", "pad": "x" * 2000},
                ts_utc="2026-11-29T12:00:00.000Z",
                monotonic_ns=number,
            )
    result = _into_head("journal", "export", str(path))
    _quiet_early_end(result)
    assert json.loads(result.stdout)["card"] == "5H"


def test_replay_into_head_ends_quietly(tmp_path: Path) -> None:
    inputs = tmp_path / "inputs.jsonl"
    records = [{"command": "new_shoe", "args": {"shoe_id": "S-1"}}]
    records += [{"card": card} for card in seeded_order(8, 2026)]
    inputs.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    for output in ([], ["--json"]):
        result = _into_head(
            "replay", "--variant", "commission", "--no-betting-phase", "--inputs", str(inputs),
            *output,
        )  # fmt: skip
        _quiet_early_end(result)
