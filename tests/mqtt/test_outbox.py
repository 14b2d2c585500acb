# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The durable outbox on its own: numbering, idempotent keys, acks, restarts, two connections."""

from __future__ import annotations

import json
import sqlite3
import threading
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.contract.envelope import envelope
from table_controller.mqtt.outbox import Outbox, OutboxError, OutboxMessage, stamp
from table_controller.runtime.clock import utc_now
from table_controller.runtime.journal.journal import Journal

T0 = datetime(2026, 11, 29, 12, 0, 0, tzinfo=UTC)


class FakeClock:
    def __init__(self) -> None:
        self.now = T0

    def __call__(self) -> datetime:
        return self.now


def message(key: str, *, kind: str = "card", retain: bool = False) -> OutboxMessage:
    topic = f"baccarat/tables/T07/{'events/' + kind if not retain else kind}"
    body = envelope(kind, {"note": key}, table_id="T07", seq=0, ts="2026-11-29T12:00:00.000Z")
    return OutboxMessage(key=key, topic=topic, message=body, retain=retain)


def test_seq_rises_by_one_per_message_and_is_written_into_the_payload(tmp_path: Path) -> None:
    with Outbox.open(tmp_path / "t.db", clock=utc_now) as outbox:
        assert outbox.add([message("1:0"), message("1:1")]) == [1, 2]
        assert outbox.add([message("2:0")]) == [3]
        rows = outbox.rows()
    assert [row.seq for row in rows] == [1, 2, 3]
    payloads = [json.loads(row.payload) for row in rows]
    assert [p["seq"] for p in payloads] == [1, 2, 3]
    # the envelope keeps its key order: seq stays where envelope() put it
    assert list(payloads[0])[:5] == ["schema", "type", "table_id", "seq", "ts"]


def test_re_adding_an_input_adds_only_missing_rows_with_their_first_seq(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with Outbox.open(path, clock=utc_now) as outbox:
        assert outbox.add([message("7:0"), message("7:1")]) == [1, 2]
    with Outbox.open(path, clock=utc_now) as outbox:  # after a restart, the input is replayed
        assert outbox.add([message("7:0"), message("7:1"), message("7:2")]) == [1, 2, 3]
        assert outbox.add([message("7:0")]) == [1]
        assert [row.key for row in outbox.rows()] == ["7:0", "7:1", "7:2"]


def test_numbering_survives_restarts_and_pruning(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    clock = FakeClock()
    with Outbox.open(path, clock=clock) as outbox:
        outbox.add([message(f"k{i}") for i in range(5)])
        for seq in range(1, 6):
            outbox.mark_acked(seq)
        clock.now += timedelta(days=2)
        # The newest row stays: its key tells the journal's replay what the outbox holds.
        assert outbox.prune_acked(acked_before=clock.now - timedelta(days=1)) == 4
        assert [row.key for row in outbox.rows()] == ["k4"]
        outbox.add([message("k5")])  # now the newest (and unacknowledged): k4 may go
        assert outbox.prune_acked(acked_before=clock.now + timedelta(days=1)) == 1
        assert [row.key for row in outbox.rows()] == ["k5"]
    with Outbox.open(path, clock=clock) as outbox:
        assert outbox.last_seq() == 6
        assert outbox.add([message("k6")]) == [7]


def test_a_row_not_kept_leaves_once_acknowledged_but_the_newest_stays(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with Outbox.open(path, clock=utc_now) as outbox:
        outbox.add([message("1.0"), replace(message("2.0"), kept=False), message("3.0")])
        outbox.add([replace(message("4.0"), kept=False)])
        assert [(row.key, row.kept) for row in outbox.rows()] == [
            ("1.0", True), ("2.0", False), ("3.0", True), ("4.0", False),
        ]  # fmt: skip
        outbox.mark_acked(1)
        assert len(outbox.rows()) == 4  # not acknowledged yet: it waits to be sent
        outbox.mark_acked_many([2, 3, 4])
        assert [row.key for row in outbox.rows()] == ["1.0", "3.0", "4.0"]  # 4.0 is the newest
        outbox.add([message("5.0")])
        outbox.mark_acked(5)
        assert [row.key for row in outbox.rows()] == ["1.0", "3.0", "5.0"]
        assert outbox.last_seq() == 5


def test_an_outbox_made_before_rows_could_go_unkept_is_given_the_column(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with Outbox.open(path, clock=utc_now) as outbox:
        outbox.add([message("1.0")])
    connection = sqlite3.connect(path)  # as an earlier version made it
    connection.execute("DROP INDEX outbox_unkept")
    connection.execute("ALTER TABLE outbox DROP COLUMN kept")
    connection.commit()
    connection.close()
    with Outbox.open(path, clock=utc_now) as outbox:
        outbox.add([replace(message("2.0"), kept=False), message("3.0")])
        outbox.mark_acked_many([1, 2, 3])
        assert [(row.key, row.kept) for row in outbox.rows()] == [("1.0", True), ("3.0", True)]


def test_acks_depth_and_age(tmp_path: Path) -> None:
    clock = FakeClock()
    with Outbox.open(tmp_path / "t.db", clock=clock) as outbox:
        assert outbox.oldest_unacked() is None
        assert outbox.depth() == 0
        assert outbox.oldest_age() is None
        outbox.add([message("a"), message("b")])
        clock.now += timedelta(seconds=42)
        assert outbox.depth() == 2
        assert outbox.oldest_age() == timedelta(seconds=42)
        oldest = outbox.oldest_unacked()
        assert oldest is not None
        assert oldest.seq == 1
        outbox.mark_acked(1)
        outbox.mark_acked(1)  # idempotent
        after = outbox.oldest_unacked()
        assert after is not None
        assert after.seq == 2
        assert outbox.depth() == 1
        acked = outbox.rows()[0]
        assert acked.acked_at == "2026-11-29T12:00:42.000Z"


def test_retained_topics_keep_their_latest_value(tmp_path: Path) -> None:
    with Outbox.open(tmp_path / "t.db", clock=utc_now) as outbox:
        outbox.add([message("s1", kind="state", retain=True), message("e1")])
        outbox.add(
            [message("s2", kind="state", retain=True), message("r1", kind="roads", retain=True)]
        )
        retained = outbox.retained()
    assert set(retained) == {"baccarat/tables/T07/state", "baccarat/tables/T07/roads"}
    assert json.loads(retained["baccarat/tables/T07/state"])["note"] == "s2"
    assert json.loads(retained["baccarat/tables/T07/state"])["seq"] == 3


def test_session_counter_is_persistent(tmp_path: Path) -> None:
    path = tmp_path / "t.db"
    with Outbox.open(path, clock=utc_now) as outbox:
        assert outbox.session() == 0
        assert outbox.next_session() == 1
        assert outbox.next_session() == 2
    with Outbox.open(path, clock=utc_now) as outbox:
        assert outbox.next_session() == 3


def test_shares_the_journal_file(tmp_path: Path) -> None:
    path = tmp_path / "table.journal"
    with Journal.open(path, table_id="T07") as journal, Outbox.open(path, clock=utc_now) as outbox:
        journal.append("card", {"card": "KH"}, ts_utc="2026-11-29T12:00:00.000Z", monotonic_ns=1)
        outbox.add([message("1:0")])
        journal.append("card", {"card": "QH"}, ts_utc="2026-11-29T12:00:01.000Z", monotonic_ns=2)
    with Journal.open(path, table_id="T07") as journal:
        assert journal.verify().ok
        assert journal.head[0] == 2
    with Outbox.open(path, clock=utc_now) as outbox:
        assert outbox.depth() == 1


def test_a_writer_thread_and_the_drainer_share_the_file(tmp_path: Path) -> None:
    """The dealing path adds on its own connection while the drainer acks on another."""
    path = tmp_path / "t.db"
    Outbox.open(path, clock=utc_now).close()
    total = 300

    def write() -> None:
        with Outbox.open(path, clock=utc_now) as writer:
            for i in range(total):
                writer.add([message(f"w{i}")])

    thread = threading.Thread(target=write)
    thread.start()
    acked: list[int] = []
    with Outbox.open(path, clock=utc_now) as drainer:
        while len(acked) < total:
            row = drainer.oldest_unacked()
            if row is None:
                continue
            drainer.mark_acked(row.seq)
            acked.append(row.seq)
        thread.join()
        assert drainer.depth() == 0
    assert acked == list(range(1, total + 1))


@settings(max_examples=50, deadline=None)
@given(batches=st.lists(st.lists(st.integers(0, 30), max_size=5), max_size=12))
def test_any_replay_of_keys_keeps_seqs_dense_and_stable(
    tmp_path_factory: pytest.TempPathFactory, batches: list[list[int]]
) -> None:
    path = tmp_path_factory.mktemp("outbox") / "t.db"
    first_seq: dict[str, int] = {}
    with Outbox.open(path, clock=utc_now) as outbox:
        for batch in batches:
            keys = [f"k{n}" for n in batch]
            seqs = outbox.add([message(key) for key in keys])
            for key, seq in zip(keys, seqs, strict=True):
                assert first_seq.setdefault(key, seq) == seq
        stored = outbox.rows()
    assert [row.seq for row in stored] == list(range(1, len(first_seq) + 1))
    assert {row.key: row.seq for row in stored} == first_seq


def test_rows_numbered_beforehand_are_stored_only_if_they_follow_on(tmp_path: Path) -> None:
    with Outbox.open(tmp_path / "t.db", clock=utc_now) as outbox:
        outbox.add([message("1:0")])
        staged = stamp(
            [message("2:0"), message("2:1", kind="state", retain=True)],
            first_seq=2,
            added_at="2026-11-29T12:00:00.000Z",
        )
        assert [json.loads(row.payload)["seq"] for row in staged] == [2, 3]
        with pytest.raises(OutboxError, match="does not follow on"):
            outbox.insert(staged[1:])
        assert outbox.last_seq() == 1, "nothing of a refused insert is stored"
        outbox.insert(staged)
        assert [row.seq for row in outbox.rows()] == [1, 2, 3]
        assert outbox.retained() == {staged[1].topic: staged[1].payload}
        again = stamp([message("2:0")], first_seq=4, added_at="2026-11-29T12:00:00.000Z")
        with pytest.raises(OutboxError, match="a key is stored"):
            outbox.insert(again)
        assert outbox.last_seq() == 3


def test_unacked_rows_are_read_in_pages_with_the_last_seq(tmp_path: Path) -> None:
    with Outbox.open(tmp_path / "t.db", clock=utc_now) as outbox:
        outbox.add([message(f"k{i}") for i in range(6)])
        outbox.mark_acked_many([2, 3])
        outbox.mark_acked_many([2])  # idempotent
        page, last = outbox.unacked_after(0, limit=2)
        assert ([row.seq for row in page], last) == ([1, 4], 6)
        page, last = outbox.unacked_after(4, limit=10)
        assert ([row.seq for row in page], last) == ([5, 6], 6)
        assert outbox.depth() == 4


def test_retained_rows_come_with_their_seq_in_order(tmp_path: Path) -> None:
    with Outbox.open(tmp_path / "t.db", clock=utc_now) as outbox:
        outbox.add(
            [message("a", kind="state", retain=True), message("b", kind="roads", retain=True)]
        )
        outbox.add([message("c", kind="state", retain=True)])
        retained = outbox.retained_rows()
    assert [(seq, topic.rsplit("/", 1)[-1]) for seq, topic, _ in retained] == [
        (2, "roads"),
        (3, "state"),
    ]
