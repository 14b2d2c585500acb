# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The fleet's load proof, short: 5 tables, 30 s of play, every fault, every check.

Runs ``bench/bench_fleet.py`` (see its docstring) as a subprocess: a pit broker bridged to a
central broker from the shipped configurations, virtual tables on the pit, three ingest
workers into a real PostgreSQL, and the four faults (central broker stopped, pit broker and
bridge restarted, a worker killed with SIGKILL, one table's messages dropped at the central
broker) scaled to the short play. Stated outcome: every ``seq`` of every table stored exactly
once with the bytes the table published, every round's row equal to the table's journal
replayed, the dropped table's messages asked for again with ``resend``, every table and every
worker stopped cleanly (the killed one once by SIGKILL). The full run's figures (100 tables,
10 minutes) are in docs/benchmarks.md.
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
from tests.support.postgres import postgres_missing

pytestmark = [pytest.mark.broker, pytest.mark.slow]

SCRIPT: Final = Path(__file__).resolve().parents[2] / "bench" / "bench_fleet.py"
TABLES: Final = 5


async def fleet(tmp_path: Path) -> dict[str, Any]:
    require(mosquitto_missing() or postgres_missing())
    report = tmp_path / "report.json"
    process = await asyncio.create_subprocess_exec(
        sys.executable, str(SCRIPT),
        "--tables", str(TABLES), "--minutes", "0.5", "--round-interval", "2",
        "--central-outage", "5", "--drop", "4", "--gap-wait", "3", "--settle", "120",
        "--nice", "0", "--workdir", str(tmp_path / "work"), "--report", str(report),
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
    )  # fmt: skip
    out, _ = await process.communicate()
    assert report.exists(), out.decode()[-3000:]
    figures: dict[str, Any] = json.loads(report.read_text())
    assert process.returncode == 0, out.decode()[-3000:]
    return figures


@pytest.mark.timeout(420)
async def test_five_tables_through_bridged_brokers_and_faults_stored_exactly_once(
    tmp_path: Path,
) -> None:
    figures = await fleet(tmp_path)
    assert figures["tables"] == TABLES
    assert figures["every_seq_once"], (figures["missing"], figures["different_bytes"])
    assert figures["all_stored_before_stop"]
    assert figures["rounds_stored"] >= TABLES  # every table played
    assert figures["round_mismatch_count"] == 0, figures["round_mismatches"]
    assert figures["tables_whose_driver_stalled"] == []
    assert figures["table_exit_statuses"] == [0]
    # Whatever else caused gaps, the table dropped at the central broker had to be repaired.
    assert figures["resend_requests_dropped_table"] >= 1
    assert figures["permanent_gaps"] == 0
    faults = [event["what"] for event in figures["events"]]
    assert any(what.startswith("central broker stopped") for what in faults)
    assert any(what.startswith("pit broker back") for what in faults)
    assert any(what.endswith("killed (SIGKILL)") for what in faults)
    assert any(what.startswith("central broker drops") for what in faults)
    workers = figures["workers_figures"]
    assert len(workers) == 3
    killed = workers["ingest-w1"]["exit_statuses"]
    assert killed == [-9, 0]
    assert all(w["exit_statuses"] == [0] for name, w in workers.items() if name != "ingest-w1")
    assert figures["stored_per_s"] > 0
    assert figures["delay_ms_p50"] is not None
