# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Runs of wrong PINs, counted per key: checks under way, locks, what clears them, memory."""

from __future__ import annotations

import pytest

from table_controller.screens.pin_lockout import (
    CLIENT_FAILURES_FACTOR,
    Attempt,
    FailureCounts,
    StaffGuessLimits,
)


def test_checks_under_way_count_so_parallel_ones_cannot_pass_a_lock_yet_to_be_set() -> None:
    counts = FailureCounts(max_failures=3, lockout_s=60)
    for _ in range(3):
        assert counts.wait("S-9", 0.0) is None
        counts.begin("S-9", 0.0)
    assert counts.wait("S-9", 0.0) == 60  # three checks under way: no fourth
    assert not counts.failed("S-9", 0.3)
    assert counts.wait("S-9", 0.3) == 60  # one wrong, two under way
    assert not counts.failed("S-9", 0.3)
    assert counts.failed("S-9", 0.4)  # the third wrong one locks
    assert counts.wait("S-9", 0.4) == 60
    assert counts.wait("S-9", 59.0) == 2
    assert counts.wait("S-9", 60.4) is None


def test_a_right_pin_clears_its_own_key_and_no_other() -> None:
    counts = FailureCounts(max_failures=3, lockout_s=60)
    for key in ("S-9", "D-104"):
        for _ in range(2):
            counts.begin(key, 0.0)
            counts.failed(key, 0.0)
    counts.begin("D-104", 1.0)
    counts.succeeded("D-104", 1.0)
    counts.begin("S-9", 2.0)
    assert counts.failed("S-9", 2.0)  # S-9's third in a row: D-104's right PIN cleared nothing
    for _ in range(2):
        counts.begin("D-104", 3.0)
        assert not counts.failed("D-104", 3.0)  # D-104 starts again from none


def test_a_check_released_neither_counts_nor_clears() -> None:
    counts = FailureCounts(max_failures=2, lockout_s=60)
    counts.begin("D-104", 0.0)
    counts.failed("D-104", 0.0)
    counts.begin("D-104", 1.0)
    counts.released("D-104", 1.0)  # a right PIN that could not give what was asked
    counts.begin("D-104", 2.0)
    assert counts.failed("D-104", 2.0)


def test_a_key_with_nothing_counted_is_forgotten() -> None:
    counts = FailureCounts(max_failures=2, lockout_s=60)
    counts.begin("D-104", 0.0)
    counts.failed("D-104", 0.0)
    counts.begin("D-104", 1.0)
    counts.succeeded("D-104", 1.0)
    counts.begin("D-207", 1.0)
    counts.released("D-207", 1.0)
    assert len(counts) == 0


def test_the_counts_stay_bounded_and_never_forget_a_kept_a_locked_or_a_busy_key() -> None:
    counts = FailureCounts(max_failures=2, lockout_s=60, max_keys=8, kept={"S-9"}.__contains__)
    counts.begin("S-9", 0.0)
    counts.failed("S-9", 0.0)  # one wrong, idle, but in the register
    for _ in range(2):
        counts.begin("X-locked", 0.0)
        counts.failed("X-locked", 0.0)
    counts.begin("X-busy", 0.0)  # a check under way
    for n in range(100):  # a stream of made-up ids, one wrong PIN each, within the lockout
        counts.begin(f"X-{n}", 1.0 + n / 10)
        counts.failed(f"X-{n}", 1.0 + n / 10)
    assert len(counts) <= 8
    assert counts.wait("X-locked", 50.0) is not None
    counts.begin("S-9", 200.0)
    assert counts.failed("S-9", 200.0)  # its first wrong PIN was kept
    counts.failed("X-busy", 200.0)  # its slot is still there to give back
    counts.begin("X-99", 201.0)
    assert counts.failed("X-99", 201.0)  # the newest made-up id is kept
    counts.begin("X-0", 201.0)
    assert not counts.failed("X-0", 201.0)  # the oldest was forgotten


def test_a_client_is_locked_after_a_few_wrong_pins_on_each_of_many_ids() -> None:
    limits = StaffGuessLimits(max_failures=3, lockout_s=60)
    ids = [f"X-{n}" for n in range(CLIENT_FAILURES_FACTOR * 3)]
    wrong = 0
    for staff_id in ids:
        for _ in range(2):  # never enough to lock an id
            attempt = limits.begin(staff_id, "display 10.0.0.9", 0.0)
            if not isinstance(attempt, Attempt):
                break
            limits.failed(attempt, 0.0)
            wrong += 1
    assert wrong == CLIENT_FAILURES_FACTOR * 3
    assert limits.begin("D-104", "display 10.0.0.9", 1.0) == 59
    assert isinstance(limits.begin("D-104", "display 127.0.0.1", 1.0), Attempt)


def test_an_id_no_register_could_hold_counts_against_the_client_alone() -> None:
    limits = StaffGuessLimits(max_failures=2, lockout_s=60)
    for _ in range(2):
        attempt = limits.begin(None, "mqtt kiosk", 0.0)
        assert isinstance(attempt, Attempt)
        limits.failed(attempt, 0.0)
    assert len(limits.staff) == 0
    assert len(limits.clients) == 1


@pytest.mark.parametrize(("max_failures", "lockout_s"), [(0, 60.0), (3, -1.0)])
def test_a_lock_needs_a_failure_and_a_lockout(max_failures: int, lockout_s: float) -> None:
    with pytest.raises(ValueError, match="at least one failure"):
        FailureCounts(max_failures=max_failures, lockout_s=lockout_s)
