# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fair shuffles raise shuffle_pattern and shoe_repeated at the configured rate: measured.

The fast test deals 2,000 seeded shoes (a few seconds); the slow one 20,000. Both print the
figures (``pytest -s``) and check them against the theory, within sampling error (4 sigma; 3
for the total): the distribution of each kind's longest run against its computed chance, the
mean number of consecutive-rank runs against its exact expectation, the combined rate against
the configured one, and the repeated-shoe rate against its bound.
"""

from __future__ import annotations

import math

import pytest

from table_controller.protection.shuffle_checks import (
    RunKind,
    expected_consecutive_runs,
    run_tail,
)
from tests.protection.measure_false_alarms import COUNTED_LENGTHS, Measurement, measure


def check(result: Measurement) -> None:
    print()
    print(result.report())
    print(result.tail_table())
    print(result.runs_table())
    limits = result.limits
    for kind in RunKind:
        theory = limits.limits[kind].false_alarm_rate
        measured = result.rate(result.by_kind[kind])
        assert abs(measured - theory) <= 4 * result.sigma(theory), kind
    # The whole distribution of the longest run, wherever it is measurable: exact chances
    # are met within error, the consecutive-ranks bound is never exceeded beyond error.
    for kind in RunKind:
        exact = limits.limits[kind].exact
        for length in range(2, 20):
            theory = run_tail(kind, limits.decks, length)
            if theory >= 0.01:
                measured = result.tail(kind, length)
                error = 4 * result.sigma(theory)
                assert measured <= theory + error, (kind, length)
                assert not exact or measured >= theory - error, (kind, length)
    # The expected number of maximal consecutive-rank runs: exact, so measured within error
    # (a count of rare events: its sigma is about the square root of its mean).
    for length in COUNTED_LENGTHS:
        expected = float(expected_consecutive_runs(limits.decks, length))
        measured_mean = result.mean_runs_at_least(length)
        assert abs(measured_mean - expected) <= 4 * math.sqrt(expected / result.shoes), length
    configured = limits.false_alarm_rate
    assert result.rate(result.any_whole) <= configured + 3 * result.sigma(configured)
    assert abs(result.rate(result.any_whole) - result.expected_any) <= 4 * result.sigma(
        result.expected_any
    )
    # The dealt cards are a prefix of the shoe: they can only raise fewer alarms.
    assert result.dealt_not_whole == 0
    assert result.any_dealt <= result.any_whole
    bound = result.repeat_bound_sum / result.shoes
    assert result.repeat_rate >= bound
    assert result.rate(result.repeated) <= bound + 4 * result.sigma(bound)


def test_false_alarm_rate_over_2000_fair_shoes() -> None:
    result = measure(2_000, rate=0.05, repeat_rate=0.05)
    check(result)
    assert result.any_whole > 0  # at 5 % some fair shoes must be flagged, or nothing is measured


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_false_alarm_rate_over_20000_fair_shoes() -> None:
    check(measure(20_000, rate=0.05, repeat_rate=0.05, seed=7))


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_false_alarm_rate_of_six_deck_shoes() -> None:
    check(measure(10_000, decks=6, rate=0.02, repeat_rate=0.02, seed=11))
