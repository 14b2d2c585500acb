# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The outbox sink's replay: messages of journal rows the outbox already holds are dropped.

A real outbox in a SQLite file; the sink is made afresh, as after a restart.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from table_controller.contract.codes import AlarmCode
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.contract.payloads.base import Payload
from table_controller.contract.payloads.controller import CommandReply
from table_controller.contract.payloads.pit import AlarmRaised
from table_controller.contract.payloads.round import CardPlaced
from table_controller.mqtt.outbox import Outbox, OutboxError, OutboxRow
from table_controller.rules.cards import Card
from table_controller.rules.tableau import Hand
from table_controller.runtime.clock import utc_now
from table_controller.runtime.outbox_sink import OutboxSink, journal_row

ROOT = "baccarat/tables/T07"


def messages(row: int, count: int = 2, *, payload: Payload | None = None) -> list[OutgoingMessage]:
    card = CardPlaced(
        shoe_id="S-1", round_no=row, round_id=f"S-1-{row}", card=Card.parse("5H"),
        hand=Hand.PLAYER, position=1, manual=False, dealer=None, supervisor=None,
    )  # fmt: skip
    return [
        OutgoingMessage(
            key=f"{row}.{index}",
            payload=card if payload is None else payload,
            ts="2026-11-29T19:00:00.000Z",
        )
        for index in range(count)
    ]


class NotedLink:
    """An MQTT link that notes what the sink tells it."""

    def __init__(self) -> None:
        self.offered: list[int] = []
        self.stored_upto = 0

    def offer(self, rows: Sequence[OutboxRow]) -> None:
        self.offered.extend(row.seq for row in rows)

    def stored(self, seq: int) -> None:
        self.stored_upto = seq

    def notify(self) -> None:
        pass


def sink(path: Path, link: NotedLink | None = None) -> tuple[Outbox, OutboxSink]:
    outbox = Outbox.open(path, clock=utc_now)
    return outbox, OutboxSink(outbox, link=link, table_id="T07", topic_root=ROOT)


def test_journal_row_reads_only_journal_keys() -> None:
    assert [journal_row(key) for key in ("12.0", "7.3", "cmd-1", "12", "", None, "\u0661.0")] == [
        12, 7, None, None, None, None, None,
    ]


def test_the_replay_adds_only_what_follows_the_last_stored_row(tmp_path: Path) -> None:
    path = tmp_path / "T07.journal"
    outbox, first = sink(path)
    for row in (1, 2, 3):
        first.add(messages(row))
    stored = outbox.rows()
    outbox.close()

    outbox, again = sink(path)
    # Rows 1 to 3 are stored: dropped before encoding, so even a payload that cannot be
    # encoded passes; row 4 is new and follows on in seq.
    for row in (1, 2, 3):
        unencodable = AlarmRaised(
            dealer=None, alarm_id="T07-A000001", code=AlarmCode.MISREAD, message="m",
            details={"x": object()},
        )
        again.add(messages(row, payload=unencodable))
    again.add(messages(4))
    rows = outbox.rows()
    assert rows[: len(stored)] == stored
    assert [(row.seq, row.key) for row in rows[len(stored) :]] == [(7, "4.0"), (8, "4.1")]
    outbox.close()


def test_keys_that_name_no_journal_row_are_never_taken_for_stored(tmp_path: Path) -> None:
    outbox, fresh = sink(tmp_path / "T07.journal")
    fresh.add(
        [
            OutgoingMessage(
                key="command-9",
                payload=CommandReply(id="9", ok=True, command="barrier"),
                ts=None,
            )
        ]
    )
    assert [row.key for row in outbox.rows()] == ["command-9"]
    outbox.close()


def test_after_pruning_the_replay_still_adds_nothing_twice(tmp_path: Path) -> None:
    path = tmp_path / "T07.journal"
    outbox, first = sink(path)
    for row in (1, 2, 3):
        first.add(messages(row))
    for seq in range(1, outbox.last_seq() + 1):
        outbox.mark_acked(seq)
    later = datetime.now(UTC) + timedelta(days=30)
    assert outbox.prune_acked(acked_before=later) == 5  # all but the newest
    outbox.close()

    outbox, again = sink(path)
    for row in (1, 2, 3):
        again.add(messages(row))
    again.add(messages(4))
    assert [(row.seq, row.key) for row in outbox.rows()] == [(6, "3.1"), (7, "4.0"), (8, "4.1")]
    outbox.close()


def test_an_input_staged_in_two_parts_is_stored_in_one_write(tmp_path: Path) -> None:
    """The first write stores both parts: no crash can leave half of a row's messages."""
    link = NotedLink()
    outbox, live = sink(tmp_path / "T07.journal", link)
    delivered = link.offered
    both = messages(5, count=4)
    write_first = live.stage(both[:1])
    write_rest = live.stage(both[1:])
    assert delivered == [1, 2, 3, 4], "handed to the link at once, in seq order"
    assert outbox.rows() == []
    write_first()
    assert [row.key for row in outbox.rows()] == ["5.0", "5.1", "5.2", "5.3"]
    assert link.stored_upto == 4, "the link may mark their acks now"
    write_rest()  # nothing left for it
    assert len(outbox.rows()) == 4


def test_a_refused_write_keeps_its_rows_for_the_next(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outbox, live = sink(tmp_path / "T07.journal")
    store = outbox.insert
    refusals = [OutboxError("cannot insert into the outbox: disk is full")]

    def insert(rows: Sequence[OutboxRow]) -> None:
        if refusals:
            raise refusals.pop()
        store(rows)

    monkeypatch.setattr(outbox, "insert", insert)
    with pytest.raises(OutboxError):
        live.stage(messages(1))()
    assert outbox.rows() == []
    live.stage(messages(2))()
    assert [row.key for row in outbox.rows()] == ["1.0", "1.1", "2.0", "2.1"]
