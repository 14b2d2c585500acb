# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A recorded journal replayed: every message the table publishes, byte for byte as recorded."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from table_controller.cli import main
from table_controller.contract.envelope import dumps, envelope
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.history.pace import Pace
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.journal.journal import Journal
from table_controller.runtime.service import TableService

VECTORS = Path(__file__).parent / "vectors" / "two_shoes"
TABLE_ID = "T-VEC"


class _Collect:
    """A message sink that keeps what it is given (the journal's replay adds; nothing stages)."""

    def __init__(self) -> None:
        self.messages: list[OutgoingMessage] = []

    def add(self, messages: list[OutgoingMessage]) -> None:
        self.messages.extend(messages)

    def stage(self, messages: list[OutgoingMessage]) -> None:
        raise AssertionError("a recovery stages nothing")


def expected(name: str) -> list[str]:
    return gzip.decompress((VECTORS / name).read_bytes()).decode().splitlines()


@pytest.fixture
def journal_path(tmp_path: Path) -> Path:
    path = tmp_path / "table.journal"
    path.write_bytes(gzip.decompress((VECTORS / "journal.sqlite.gz").read_bytes()))
    return path


def published(journal_path: Path) -> list[str]:
    """Every message the service regenerates from the journal, numbered from 1 as it stores them."""
    procedure = TableProcedure(VARIANTS["super_six"], table_id=TABLE_ID, betting_phase=True)
    sink = _Collect()
    with Journal.open_read_only(journal_path) as journal:
        TableService(
            procedure=procedure, journal=journal, sink=sink, pace=Pace()  # type: ignore[arg-type]
        ).recover()
    return [
        f"{m.key} {m.topic} {m.retain} "
        + dumps(envelope(m.event_type, m.payload, table_id=TABLE_ID, seq=seq, ts=m.ts))
        for seq, m in enumerate(sink.messages, start=1)
    ]


def test_every_message_of_a_recorded_journal_is_published_as_recorded(journal_path: Path) -> None:
    lines = published(journal_path)
    wanted = expected("messages.jsonl.gz")
    assert len(lines) == len(wanted) == 2011
    for line, want in zip(lines, wanted, strict=True):
        assert line == want


def test_replay_prints_the_recorded_events_byte_for_byte(
    journal_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["replay", "--variant", "super_six", "--inputs", str(journal_path), "--json"]
    assert main(args) == 0
    printed = capsys.readouterr().out.splitlines()
    assert printed == expected("replay.jsonl.gz")
    # The replay prints the events, roads and odds of the same numbered messages.
    shown = {"events", "roads", "odds"}
    events = [
        line.split(" ", 3)[3]
        for line in expected("messages.jsonl.gz")
        if line.split(" ", 2)[1].split("/")[0] in shown
    ]
    assert printed == events
