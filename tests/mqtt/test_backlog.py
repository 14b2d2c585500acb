# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The MQTT drainer's in-memory backlog, on its own: pure, no broker, no file."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.mqtt.backlog import Backlog
from table_controller.mqtt.outbox import OutboxRow


def row(seq: int) -> OutboxRow:
    return OutboxRow(
        seq=seq,
        key=f"k{seq}",
        topic="baccarat/tables/T07/events/card",
        payload=f'{{"seq":{seq}}}',
        qos=1,
        retain=False,
        added_at="2026-11-29T12:00:00.000Z",
        acked_at=None,
    )


def rows(first: int, last: int) -> list[OutboxRow]:
    return [row(seq) for seq in range(first, last + 1)]


def sent_all(backlog: Backlog) -> list[int]:
    out: list[int] = []
    while (next_row := backlog.next_to_send()) is not None:
        out.append(next_row.seq)
    return out


def test_a_fresh_backlog_reads_the_file_before_taking_offers() -> None:
    backlog = Backlog()
    backlog.offer(rows(4, 5))  # an earlier run may have left 1-3 unsent
    assert backlog.wants_load
    assert sent_all(backlog) == []
    backlog.loaded(rows(1, 3), file_last_seq=3, asked=500)
    assert sent_all(backlog) == [1, 2, 3]
    assert backlog.wants_load, "4 and 5 were offered but the file did not hold them yet"
    backlog.loaded(rows(4, 5), file_last_seq=5, asked=500)
    assert sent_all(backlog) == [4, 5]
    assert not backlog.wants_load


def test_offers_follow_on_in_memory_without_the_file() -> None:
    backlog = Backlog()
    backlog.loaded([], file_last_seq=10, asked=500)  # everything up to 10 was acknowledged
    backlog.offer(rows(11, 13))
    backlog.offer(rows(12, 14))  # a repeat is ignored
    assert not backlog.wants_load
    assert sent_all(backlog) == [11, 12, 13, 14]
    assert backlog.depth == 4


def test_a_missing_row_sends_the_drainer_to_the_file() -> None:
    backlog = Backlog()
    backlog.loaded([], file_last_seq=0, asked=500)
    backlog.offer(rows(1, 2))
    backlog.offer(rows(4, 4))  # 3 never offered (another writer)
    assert backlog.wants_load
    assert backlog.loaded_upto == 2
    assert sent_all(backlog) == [1, 2]
    backlog.loaded(rows(3, 4), file_last_seq=4, asked=500)
    assert sent_all(backlog) == [3, 4]


def test_memory_is_bounded_and_the_rest_is_read_back_in_pages() -> None:
    backlog = Backlog(memory_rows=3)
    backlog.loaded([], file_last_seq=0, asked=3)
    backlog.offer(rows(1, 10))
    first, second = backlog.next_to_send(), backlog.next_to_send()
    assert first is not None
    assert second is not None
    assert (first.seq, second.seq) == (1, 2)
    assert backlog.depth == 10
    assert not backlog.wants_load, "no room yet"
    backlog.acked(1)
    backlog.acked(2)
    assert backlog.wants_load
    assert backlog.room == 2
    backlog.loaded(rows(4, 5), file_last_seq=10, asked=2)  # a full page: more to come
    assert backlog.loaded_upto == 5
    assert sent_all(backlog) == [3, 4, 5]
    assert backlog.depth == 8


def test_acks_leave_in_order_and_are_recorded_only_once_the_file_holds_them() -> None:
    backlog = Backlog()
    backlog.loaded([], file_last_seq=0, asked=500)
    backlog.offer(rows(1, 4))
    assert sent_all(backlog) == [1, 2, 3, 4]
    backlog.acked(2)  # PUBACKs may complete out of order
    assert backlog.oldest_unacked == 1
    backlog.acked(1)
    assert backlog.oldest_unacked == 3
    backlog.acked(3)
    assert backlog.take_acks(stored_upto=2) == [2, 1]
    assert backlog.take_acks(stored_upto=2) == []
    assert backlog.take_acks(stored_upto=4) == [3]
    assert backlog.depth == 1


def test_a_reconnect_sends_every_unacknowledged_row_again_from_the_oldest() -> None:
    backlog = Backlog()
    backlog.loaded([], file_last_seq=0, asked=500)
    backlog.offer(rows(1, 5))
    assert sent_all(backlog) == [1, 2, 3, 4, 5]
    backlog.acked(1)
    backlog.acked(3)
    backlog.reconnected()
    assert sent_all(backlog) == [2, 4, 5], "3 was acknowledged: not sent again"


def test_acks_the_file_refused_are_tried_again() -> None:
    backlog = Backlog()
    backlog.loaded([], file_last_seq=0, asked=500)
    backlog.offer(rows(1, 2))
    sent_all(backlog)
    backlog.acked(1)
    backlog.acked(2)
    taken = backlog.take_acks(stored_upto=2)
    backlog.put_back_acks(taken)
    assert sorted(backlog.take_acks(stored_upto=2)) == [1, 2]


def test_a_backlog_needs_room_for_a_row() -> None:
    with pytest.raises(ValueError, match="at least one row"):
        Backlog(memory_rows=0)


class LinkModel:
    """The link around a backlog: the table plans rows, the writer stores them, the link sends."""

    def __init__(self, memory: int) -> None:
        self.backlog = Backlog(memory_rows=memory)
        self.planned = 0
        self.stored = 0
        self.file_acked: set[int] = set()
        self.in_flight: list[int] = []
        self.sent_ever: set[int] = set()

    def plan(self) -> None:
        self.planned += 1
        self.backlog.offer([row(self.planned)])

    def store(self) -> None:
        self.stored = self.planned

    def load(self) -> None:
        asked = min(self.backlog.room, 2)
        if asked:
            first = self.backlog.loaded_upto + 1
            found = [row(s) for s in range(first, self.stored + 1) if s not in self.file_acked]
            self.backlog.loaded(found[:asked], file_last_seq=self.stored, asked=asked)

    def send(self) -> None:
        next_row = self.backlog.next_to_send()
        if next_row is not None:
            self.in_flight.append(next_row.seq)
            self.sent_ever.add(next_row.seq)

    def ack(self) -> None:
        if self.in_flight:
            self.backlog.acked(self.in_flight.pop(0))

    def reconnect(self) -> None:
        self.in_flight.clear()
        self.backlog.reconnected()

    def record(self) -> None:
        recorded = self.backlog.take_acks(stored_upto=self.stored)
        assert all(seq <= self.stored for seq in recorded), "an ack recorded before its row"
        self.file_acked.update(recorded)


@settings(max_examples=300, deadline=None)
@given(
    memory=st.integers(1, 6),
    steps=st.lists(
        st.sampled_from(["plan", "store", "load", "send", "ack", "reconnect", "record"]),
        max_size=120,
    ),
)
def test_every_planned_row_is_sent_and_no_ack_is_recorded_before_its_row_is_stored(
    memory: int, steps: list[str]
) -> None:
    model = LinkModel(memory)
    for step in steps:
        getattr(model, step)()
    model.store()  # then the writer catches up and the link drains everything
    for _ in range(4 * model.planned + 4):
        model.load()
        model.reconnect()
        while model.backlog.depth and model.backlog.unsent:
            model.send()
            model.ack()
        model.record()
        if model.backlog.depth == 0:
            break
    assert model.backlog.depth == 0
    assert model.sent_ever == set(range(1, model.planned + 1))
    assert model.backlog.oldest_unacked is None
