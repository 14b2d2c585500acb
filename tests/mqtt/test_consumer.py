# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The consumer's bookkeeping (pure): duplicates, gaps, late arrivals, stale wills."""

from __future__ import annotations

import random

from hypothesis import given
from hypothesis import strategies as st

from table_controller.mqtt.consumer import StreamTracker, read_message, seq_of


def test_in_order_stream_is_all_new() -> None:
    tracker = StreamTracker()
    verdicts = [tracker.observe("T07", seq).verdict for seq in range(100, 110)]
    assert verdicts == ["new"] * 10
    assert tracker.open_gaps("T07") == ()


def test_a_gap_is_reported_once_and_closed_by_late_messages() -> None:
    tracker = StreamTracker()
    tracker.observe("T07", 1)
    jump = tracker.observe("T07", 5)
    assert jump.verdict == "gap"
    assert jump.missing == ((2, 4),)
    assert tracker.observe("T07", 3).verdict == "late"
    assert tracker.open_gaps("T07") == ((2, 2), (4, 4))
    assert tracker.observe("T07", 3).verdict == "duplicate"
    assert tracker.observe("T07", 2).verdict == "late"
    assert tracker.observe("T07", 4).verdict == "late"
    assert tracker.open_gaps("T07") == ()
    assert tracker.observe("T07", 6).verdict == "new"


def test_tables_are_counted_separately() -> None:
    tracker = StreamTracker()
    tracker.observe("T07", 10)
    assert tracker.observe("T08", 500).verdict == "new"
    assert tracker.observe("T07", 11).verdict == "new"
    assert tracker.observe("T08", 500).verdict == "duplicate"


def test_a_will_older_than_the_latest_birth_is_stale() -> None:
    tracker = StreamTracker()
    # session takeover: online(1), online(2), then the broker delivers offline(1)
    assert tracker.observe_status("T07", online=True, session=1) == "current"
    assert tracker.observe_status("T07", online=True, session=2) == "current"
    assert tracker.observe_status("T07", online=False, session=1) == "stale"
    assert tracker.observe_status("T07", online=False, session=2) == "current"
    assert tracker.observe_status("T07", online=True, session=1) == "stale"
    assert tracker.observe_status("T07", online=True, session=3) == "current"


@given(
    count=st.integers(1, 60),
    seed=st.integers(0, 2**32),
    extra=st.lists(st.integers(0, 59), max_size=20),
    start=st.integers(1, 10_000),
)
def test_any_shuffle_with_duplicates_ends_with_no_gap_and_counts_every_copy(
    count: int, seed: int, extra: list[int], start: int
) -> None:
    """Reordered delivery never loses a seq and flags exactly the extra copies."""
    stream = [start + i for i in range(count)] + [start + i % count for i in extra]
    shuffled = stream[:]
    random.Random(seed).shuffle(shuffled)
    shuffled.remove(start)  # the consumer counts from the first message it sees,
    shuffled.insert(0, start)  # which here is the table's first
    tracker = StreamTracker()
    verdicts = [tracker.observe("T07", seq).verdict for seq in shuffled]
    assert tracker.open_gaps("T07") == ()
    assert verdicts.count("duplicate") == len(extra)
    assert tracker.highest("T07") == start + count - 1


def test_read_message_splits_topic_and_tolerates_garbage() -> None:
    got = read_message(
        "baccarat/tables/T07/events/card", b'{"seq": 3}', prefix="baccarat/tables", retained=False
    )
    assert got is not None
    assert (got.table_id, got.channel, got.message) == ("T07", "events/card", {"seq": 3})
    assert read_message("other/T07/x", b"{}", prefix="baccarat/tables", retained=False) is None
    for garbage in (b"\xff\xfe", b"[1,2]", b"not json", b"[" * 100_000):
        bad = read_message(
            "baccarat/tables/T07/state", garbage, prefix="baccarat/tables", retained=True
        )
        assert bad is not None
        assert bad.message is None
    assert seq_of({"seq": True}) is None
    assert seq_of({"seq": -1}) is None
    assert seq_of({"seq": "4"}) is None
    assert seq_of({"seq": 4}) == 4


def test_a_status_before_the_first_event_does_not_start_the_count() -> None:
    tracker = StreamTracker()
    assert tracker.observe_status("T07", online=True, session=1) == "current"
    assert tracker.highest("T07") is None
    assert tracker.observe("T07", 812).verdict == "new"
    assert tracker.open_gaps("T07") == ()


def test_a_status_last_seq_above_what_arrived_names_the_outstanding_messages() -> None:
    tracker = StreamTracker()
    assert tracker.outstanding("T07", 40) is None  # nothing counted yet: nothing to compare
    for seq in (41, 42, 43):
        tracker.observe("T07", seq)
    assert tracker.outstanding("T07", 43) is None
    assert tracker.outstanding("T07", 12) is None  # a will registered long ago: behind, fine
    assert tracker.outstanding("T07", 46) == (44, 46)
    assert tracker.outstanding("T08", 46) is None
    tracker.observe("T07", 46)  # then the gap is a gap, reported as such
    assert tracker.outstanding("T07", 46) is None
    assert tracker.open_gaps("T07") == ((44, 45),)


def test_last_seq_is_read_like_seq() -> None:
    assert seq_of({"last_seq": 0}, "last_seq") == 0
    assert seq_of({"last_seq": 7, "seq": 3}, "last_seq") == 7
    assert seq_of({"last_seq": False}, "last_seq") is None
    assert seq_of({"last_seq": 7}) is None  # a status has no seq of its own
