# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Load: several tables (separate service processes) against one mosquitto.

Runs ``bench/load_tables.py`` (see its docstring) as a subprocess: virtual ``mini`` tables,
each its own ``table-controller run --card-source rng``, driven by one Python backend that
also receives everything. Stated outcome: no message lost (every table's ``seq`` from 1 to
the last its outbox assigned reached the backend), no duplicate its ``seq`` does not mark,
every table exits with status 0, and the broker-side message rate is reported from
mosquitto's ``$SYS`` counters. The full figure (50 tables, 10 minutes) is in
docs/reliability.md.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any, Final

import pytest

from tests.mosquitto import mosquitto_missing
from tests.support.installed import require

pytestmark = pytest.mark.broker

SCRIPT: Final = Path(__file__).resolve().parents[2] / "bench" / "load_tables.py"


async def load(tmp_path: Path, tables: int, minutes: float, interval_s: float) -> dict[str, Any]:
    require(mosquitto_missing())
    report = tmp_path / "report.json"
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(SCRIPT),
        "--tables", str(tables), "--minutes", str(minutes),
        "--round-interval", str(interval_s), "--nice", "0",
        "--workdir", str(tmp_path / "work"), "--report", str(report),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await process.communicate()
    assert process.returncode == 0, out.decode()[-3000:]
    figures: dict[str, Any] = json.loads(report.read_text())
    return figures


def check(figures: dict[str, Any], tables: int) -> None:
    assert figures["tables"] == tables
    assert figures["missing"] == 0, figures["missing_examples"]
    assert figures["unmarked_duplicates"] == 0
    assert figures["exit_statuses"] == [0]
    assert figures["rounds"] >= tables  # every table played
    rates = figures["broker_rates_per_s"]
    assert rates["publish/messages/received"] is not None
    assert rates["publish/messages/received"] > 0


@pytest.mark.timeout(120)
@pytest.mark.slow  # a load figure, not a behaviour
async def test_load_two_tables_briefly(tmp_path: Path) -> None:
    """CI subset: 2 tables, about 8 s of play, a round a second each."""
    check(await load(tmp_path, tables=2, minutes=0.13, interval_s=1.0), tables=2)


@pytest.mark.slow
@pytest.mark.timeout(300)
async def test_load_five_tables_for_thirty_seconds(tmp_path: Path) -> None:
    check(await load(tmp_path, tables=5, minutes=0.5, interval_s=2.0), tables=5)
