# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the floor makes of database rows: exact amounts, times, dealers' stints."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from fractions import Fraction

from table_controller.floor.records import amount_text, fraction_text, iso, stints_from


def test_amounts_are_written_exactly() -> None:
    assert amount_text(19, 20) == "0.95"
    assert amount_text(-1, 1) == "-1"
    assert amount_text(11, 1) == "11"
    assert amount_text(1, 2) == "0.5"
    assert amount_text(-3, 8) == "-0.375"
    assert amount_text(1, 3) == "1/3"
    assert amount_text(None, 1) is None
    assert fraction_text(Fraction(1, 40)) == "0.025"


def test_times_are_written_as_the_contract_writes_them() -> None:
    assert iso(datetime(2026, 11, 29, 12, 0, 0, 123456, tzinfo=UTC)) == "2026-11-29T12:00:00.123Z"
    hk = timezone(timedelta(hours=8))
    assert iso(datetime(2026, 11, 29, 20, 0, tzinfo=hk)) == "2026-11-29T12:00:00.000Z"
    naive = datetime(2026, 11, 29, 12, 0)  # noqa: DTZ001 - as SQLite gives a UTC time back
    assert iso(naive) == "2026-11-29T12:00:00.000Z"
    assert iso("not a time") is None


def change(ts: str, dealer: str | None, previous: str | None) -> dict[str, object]:
    return {"ts": ts, "dealer": dealer, "previous_dealer": previous, "staff_id": dealer or previous}


def test_stints_run_from_a_sign_in_to_the_next_change_newest_first() -> None:
    changes = [
        change("2026-11-29T10:00:00.000Z", "D-1", None),
        change("2026-11-29T10:30:00.000Z", "D-1", "D-1"),  # a supervisor signed in
        change("2026-11-29T11:00:00.000Z", "D-2", "D-1"),
        change("2026-11-29T12:00:00.000Z", None, "D-2"),
        change("2026-11-29T12:10:00.000Z", "D-1", None),
    ]
    rounds = [
        ("D-1", "2026-11-29T10:05:00.000Z"),
        ("D-1", "2026-11-29T10:55:00.000Z"),
        ("D-2", "2026-11-29T11:30:00.000Z"),
        ("D-1", "2026-11-29T12:20:00.000Z"),
        ("D-1", None),
    ]
    assert stints_from(changes, rounds) == [
        {"dealer": "D-1", "since": "2026-11-29T12:10:00.000Z", "until": None, "rounds": 1},
        {
            "dealer": "D-2",
            "since": "2026-11-29T11:00:00.000Z",
            "until": "2026-11-29T12:00:00.000Z",
            "rounds": 1,
        },
        {
            "dealer": "D-1",
            "since": "2026-11-29T10:00:00.000Z",
            "until": "2026-11-29T11:00:00.000Z",
            "rounds": 2,
        },
    ]


def test_a_stint_begun_before_the_changes_read_has_no_start() -> None:
    changes = [change("2026-11-29T11:00:00.000Z", "D-2", "D-1")]
    assert stints_from(changes, [("D-1", "2026-11-29T09:00:00.000Z")]) == [
        {"dealer": "D-2", "since": "2026-11-29T11:00:00.000Z", "until": None, "rounds": 0},
        {"dealer": "D-1", "since": None, "until": "2026-11-29T11:00:00.000Z", "rounds": 1},
    ]
