# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Shuffle integrity: run detectors, their exact probabilities, patterned and repeated shoes."""

from __future__ import annotations

import functools
import itertools
import math
import random
from collections import Counter
from collections.abc import Iterator
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.protection import shuffle_checks
from table_controller.protection.shoe_repeats import (
    PastShoe,
    RepeatCheck,
    check_repeated,
    longest_common_run,
    repeat_bound,
    repeat_limit,
)
from table_controller.protection.shuffle_checks import (
    RunKind,
    ShufflePattern,
    check_shuffle,
    expected_consecutive_runs,
    longest_run,
    probability_all_runs_shorter,
    run_tail,
    shuffle_limits,
)
from table_controller.rules.cards import Card, all_cards
from tests.protection.shoes import cards, fair_shoe

# --- longest_run on hand-written vectors ----------------------------------------------------------

RUN_VECTORS = [
    # (cards, kind, expected run text or None)
    ("4H 5S 6S 7D 2C", RunKind.CONSECUTIVE_RANKS, "4H 5S 6S 7D"),
    ("9C 8D 7D 6H 6H", RunKind.CONSECUTIVE_RANKS, "9C 8D 7D 6H"),
    ("TS JS QS KS AS 2S", RunKind.CONSECUTIVE_RANKS, "TS JS QS KS"),  # no wrap from K to A
    ("3H 4H 3H 4H", RunKind.CONSECUTIVE_RANKS, "3H 4H"),  # a turn starts a new run
    ("5D 5S 5S 2C 5H", RunKind.ONE_RANK, "5D 5S 5S"),
    ("2H 9H KH 3S", RunKind.ONE_SUIT, "2H 9H KH"),
    ("2H 3S 4D", RunKind.ONE_SUIT, "2H"),  # the first of equal runs
]


@pytest.mark.parametrize(("text", "kind", "expected"), RUN_VECTORS)
def test_longest_run_vectors(text: str, kind: RunKind, expected: str) -> None:
    run = longest_run(cards(text), kind)
    assert run is not None
    assert " ".join(c.code for c in run.cards) == expected
    assert run.start == text.index(expected) // 3


def test_an_unread_card_breaks_every_run() -> None:
    sequence = [*cards("4H 5H 6H"), None, *cards("7H 8H")]
    for kind in (RunKind.CONSECUTIVE_RANKS, RunKind.ONE_SUIT):
        run = longest_run(sequence, kind)
        assert run is not None
        assert run.length == 3
        assert run.start == 0
    assert longest_run([None, None], RunKind.ONE_RANK) is None


def test_a_run_describes_itself_counting_cards_from_one() -> None:
    run = longest_run(cards("2C 4H 5S 6S 7D"), RunKind.CONSECUTIVE_RANKS)
    assert run is not None
    assert run.describe() == "cards 2-5 (4H 5S 6S 7D)"


# --- the exact probabilities ----------------------------------------------------------------------


def brute_force_all_runs_shorter(counts: tuple[int, ...], length: int) -> Fraction:
    letters = [letter for letter, n in enumerate(counts) for _ in range(n)]
    arrangements = set(itertools.permutations(letters))
    good = 0
    for word in arrangements:
        longest = max(len(list(group)) for _, group in itertools.groupby(word))
        good += longest < length
    return Fraction(good, len(arrangements))


@settings(max_examples=40, deadline=None)
@given(
    counts=st.lists(st.integers(1, 4), min_size=1, max_size=4).filter(lambda c: sum(c) <= 8),
    length=st.integers(1, 6),
)
def test_run_probabilities_are_exact_against_brute_force(counts: list[int], length: int) -> None:
    expected = brute_force_all_runs_shorter(tuple(counts), length)
    assert probability_all_runs_shorter(tuple(counts), length) == expected


def arrangements(counts: list[int]) -> Iterator[tuple[int, ...]]:
    """Every distinct arrangement of a multiset: ``counts[v]`` copies of each value ``v``."""
    if not any(counts):
        yield ()
        return
    for value, count in enumerate(counts):
        if count:
            counts[value] -= 1
            for rest in arrangements(counts):
                yield (value, *rest)
            counts[value] += 1


@functools.cache
def maximal_run_lengths(ranks: int, copies: int) -> tuple[Counter[int], int]:
    """Maximal ascending or descending runs of each length, summed over every arrangement."""
    lengths: Counter[int] = Counter()
    total = 0
    for word in arrangements([copies] * ranks):
        total += 1
        for step in (1, -1):
            run = 1
            for previous, value in itertools.pairwise(word):
                if value - previous == step:
                    run += 1
                else:
                    lengths[run] += 1
                    run = 1
            lengths[run] += 1
    return lengths, total


@pytest.mark.parametrize(("ranks", "copies"), [(4, 2), (5, 2), (3, 3), (6, 1), (4, 3)])
@pytest.mark.parametrize("length", [2, 3, 4])
def test_expected_consecutive_runs_are_exact_against_brute_force(
    ranks: int, copies: int, length: int
) -> None:
    lengths, total = maximal_run_lengths(ranks, copies)
    expected = Fraction(sum(n for k, n in lengths.items() if k >= length), total)
    assert shuffle_checks._expected_runs(ranks, copies, length) == expected


@pytest.mark.parametrize(("letters", "copies"), [(4, 2), (3, 3), (2, 4), (5, 1)])
@pytest.mark.parametrize("length", [2, 3, 4])
def test_expected_one_letter_runs_are_exact_against_brute_force(
    letters: int, copies: int, length: int
) -> None:
    runs = 0
    total = 0
    for word in arrangements([copies] * letters):
        total += 1
        blocks = [len(list(block)) for _, block in itertools.groupby(word)]
        runs += sum(1 for block in blocks if block >= length)
    expected = Fraction(runs, total)
    assert shuffle_checks._expected_letter_runs(letters, copies, length) == expected


@pytest.mark.parametrize("decks", [1, 2, 3])
@pytest.mark.parametrize("rate", [0.0003, 0.003, 0.03, 0.3])
def test_the_bounded_search_finds_the_plain_searchs_length(decks: int, rate: float) -> None:
    """The cheap bound only skips lengths: the answer is the plain upward search's."""
    for kind in RunKind:
        for length in range(1, 14):
            assert shuffle_checks._tail_bound(kind, decks, length) >= run_tail(kind, decks, length)
        length = 2
        while run_tail(kind, decks, length) > rate:
            length += 1
        assert shuffle_checks._shortest_within(kind, decks, rate) == length, kind


def test_the_consecutive_ranks_chance_is_the_expected_number_of_runs_capped_at_one() -> None:
    for length in range(2, 15):
        expected = expected_consecutive_runs(8, length)
        assert run_tail(RunKind.CONSECUTIVE_RANKS, 8, length) == min(float(expected), 1.0)


def test_run_tails_fall_with_length_and_reach_zero_when_impossible() -> None:
    for kind in RunKind:
        tails = [run_tail(kind, 8, length) for length in range(1, 14)]
        assert tails[0] == 1.0
        assert all(a >= b for a, b in itertools.pairwise(tails)), kind
    assert run_tail(RunKind.ONE_RANK, 1, 5) == 0.0  # a deck holds 4 of each rank
    assert run_tail(RunKind.CONSECUTIVE_RANKS, 8, 14) == 0.0  # only 13 ranks


def test_a_one_deck_same_rank_probability_by_hand() -> None:
    # The classic puzzle: a shuffled deck has no two cards of one rank side by side with
    # probability 0.045476 (about 4.55 %), a figure published for decades.
    no_pair = probability_all_runs_shorter((4,) * 13, 2)
    assert math.isclose(float(no_pair), 0.045476, rel_tol=1e-4)
    assert run_tail(RunKind.ONE_RANK, 1, 2) == pytest.approx(1 - float(no_pair))


# --- limits ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("decks", [1, 6, 8])
@pytest.mark.parametrize("rate", [0.001, 0.01, 0.05])
def test_limits_keep_the_false_alarm_rate_and_are_as_short_as_it_allows(
    decks: int, rate: float
) -> None:
    limits = shuffle_limits(decks, rate)
    assert limits.designed_rate <= rate
    for kind, limit in limits.limits.items():
        assert limit.false_alarm_rate == run_tail(kind, decks, limit.length)
        assert limit.exact == (kind is not RunKind.CONSECUTIVE_RANKS)
        # One card shorter would break the budget (given the other two limits).
        if limit.length > 2:
            shorter = limits.designed_rate - limit.false_alarm_rate
            shorter += run_tail(kind, decks, limit.length - 1)
            assert shorter > rate


def test_eight_deck_limits_at_the_default_rate() -> None:
    limits = shuffle_limits(8)
    lengths = {kind: limit.length for kind, limit in limits.limits.items()}
    assert lengths == {
        RunKind.CONSECUTIVE_RANKS: 7,
        RunKind.ONE_RANK: 6,
        RunKind.ONE_SUIT: 11,
    }


def test_a_rate_outside_zero_and_one_is_refused() -> None:
    with pytest.raises(ValueError, match="false-alarm rate"):
        shuffle_limits(8, 0.0)
    with pytest.raises(ValueError, match="false-alarm rate"):
        RepeatCheck(decks=8, false_alarm_rate=1.5)


# --- patterned shoes ------------------------------------------------------------------------------


def plant(shoe: list[Card], run: tuple[Card, ...], at: int) -> list[Card]:
    """The shoe with ``run`` moved to position ``at``: same cards, so still a valid shoe."""
    rest = list(shoe)
    for card in run:
        rest.remove(card)
    return rest[:at] + list(run) + rest[at:]


def test_a_fair_shoe_at_the_default_rate_raises_nothing() -> None:
    shoe = fair_shoe(8, random.Random(2024))
    assert check_shuffle(shoe, shuffle_limits(8)) == ()


@pytest.mark.parametrize(
    ("run_text", "kind"),
    [
        ("3H 4C 5D 6S 7H 8C 9D", RunKind.CONSECUTIVE_RANKS),
        ("KD QD JC TC 9S 8H 7H 6C", RunKind.CONSECUTIVE_RANKS),
        ("7S 7H 7H 7D 7C 7S", RunKind.ONE_RANK),
        ("2H 9H KH 3H 3H AH 5H TH QH 4H 8H", RunKind.ONE_SUIT),
    ],
)
def test_a_planted_run_is_flagged_with_its_evidence(run_text: str, kind: RunKind) -> None:
    run = cards(run_text)
    shoe = plant(fair_shoe(8, random.Random(11)), run, at=150)
    findings = check_shuffle(shoe, shuffle_limits(8))
    flagged = {f.run.kind: f for f in findings}
    assert kind in flagged
    finding = flagged[kind]
    assert isinstance(finding, ShufflePattern)
    assert finding.run.length >= len(run)
    assert finding.run.start <= 150
    assert finding.run.start + finding.run.length >= 150 + len(run)
    assert finding.p_value <= finding.limit.false_alarm_rate
    details = finding.alarm_details()
    assert details["kind"] == kind.value
    assert set(run_text.split()) <= {card.code for card in finding.run.cards}
    assert details["cards"] == [card.code for card in finding.run.cards]
    assert f"cards {finding.run.start + 1}-" in finding.message
    assert "a fair shuffle of 8 decks" in finding.message


def test_an_unshuffled_shoe_trips_every_detector() -> None:
    # Decks straight from the box: A-K of each suit in order, eight times.
    shoe = [card for _ in range(8) for card in sorted(all_cards(), key=lambda c: c.suit)]
    kinds = {f.run.kind for f in check_shuffle(shoe, shuffle_limits(8))}
    assert kinds == {RunKind.CONSECUTIVE_RANKS, RunKind.ONE_SUIT}
    # Sorted by rank: runs of one rank too.
    by_rank = sorted(shoe, key=lambda c: c.rank)
    assert RunKind.ONE_RANK in {f.run.kind for f in check_shuffle(by_rank, shuffle_limits(8))}


def test_a_run_is_flagged_as_soon_as_it_is_out() -> None:
    """A part of the shoe is checked against the whole shoe's limits (conservative)."""
    run = cards("3H 4C 5D 6S 7H 8C 9D")
    shoe = plant(fair_shoe(8, random.Random(5)), run, at=40)
    limits = shuffle_limits(8)
    assert not [f for f in check_shuffle(shoe[:46], limits) if f.run.kind == "consecutive_ranks"]
    assert [f for f in check_shuffle(shoe[:47], limits) if f.run.kind == "consecutive_ranks"]


# --- repeated shoes -------------------------------------------------------------------------------


def test_longest_common_run_finds_shifted_matches() -> None:
    new = cards("AS 2S 3S 4S 5S 6S")
    past = cards("9D 9D 2S 3S 4S KH")
    common = longest_common_run(new, past)
    assert common is not None
    assert (common.start, common.past_start, common.length) == (1, 2, 3)
    assert longest_common_run(new, cards("9D 9D")) is None
    assert longest_common_run([None, *new[1:]], past) is not None
    assert longest_common_run([None, None], [None, None]) is None


def test_repeat_bound_is_the_union_bound() -> None:
    # One past shoe, 24 x 24 cards, one deck: 21 x 21 windows of 4 cards, each 1/(52 51 50 49).
    assert repeat_bound(24, [24], 1, 4) == pytest.approx(21 * 21 / (52 * 51 * 50 * 49))
    assert repeat_limit(24, [24] * 10, 8, 0.001) == 4
    assert repeat_limit(24, [416] * 10, 8, 0.001) == 5  # whole past shoes: more places to match


def test_a_repeated_shoe_is_flagged_with_its_evidence() -> None:
    rng = random.Random(99)
    past = [PastShoe(shoe_id=f"S-{i}", cards=tuple(fair_shoe(8, rng)[:24])) for i in range(10)]
    repeated = list(past[6].cards) + fair_shoe(8, rng)[24:]  # same opening as S-6
    findings = check_repeated("S-10", repeated, past, RepeatCheck(decks=8))
    assert [f.past_shoe_id for f in findings] == ["S-6"]
    finding = findings[0]
    assert finding.common.length == 24
    assert finding.same_start == 24
    assert finding.p_bound < 1e-30
    assert finding.alarm_details()["past_shoe_id"] == "S-6"
    assert "shoe S-10 repeats shoe S-6: 24 cards in the same order" in finding.message


def test_a_repeat_shifted_by_a_different_burn_is_flagged() -> None:
    rng = random.Random(100)
    old = fair_shoe(8, rng)
    past = [PastShoe(shoe_id="S-1", cards=tuple(old[:60]))]
    # Three other cards first (none the old shoe's first, nor continuing the match), then the
    # old shoe's order from its sixth card.
    others = [c for c in all_cards() if c not in (old[0], old[4])][:3]
    new = (*others, *old[5:])
    findings = check_repeated("S-2", new, past, RepeatCheck(decks=8))
    assert len(findings) == 1
    common = findings[0].common
    assert (common.start, common.past_start) == (3, 5)
    assert common.length == 21
    assert findings[0].same_start == 0


def test_an_independent_shoe_is_not_flagged() -> None:
    rng = random.Random(101)
    past = [PastShoe(shoe_id=f"S-{i}", cards=tuple(fair_shoe(8, rng)[:24])) for i in range(10)]
    assert check_repeated("S-new", fair_shoe(8, rng), past, RepeatCheck(decks=8)) == ()
    assert check_repeated("S-new", fair_shoe(8, rng), [], RepeatCheck(decks=8)) == ()


def brute_force_longest(sequence: list[Card | None], kind: RunKind) -> int:
    def links(a: Card | None, b: Card | None, step: int) -> bool:
        if a is None or b is None:
            return False
        if kind is RunKind.ONE_RANK:
            return a.rank == b.rank
        if kind is RunKind.ONE_SUIT:
            return a.suit == b.suit
        return "A23456789TJQK".index(b.rank) - "A23456789TJQK".index(a.rank) == step

    best = 0
    for start in range(len(sequence)):
        if sequence[start] is None:
            continue
        for step in (1, -1):
            end = start + 1
            while end < len(sequence) and links(sequence[end - 1], sequence[end], step):
                end += 1
            best = max(best, end - start)
    return best


small_cards = st.sampled_from([*cards("AS 2S 3S 2H 3H 4H KD QD AD"), None])


@settings(max_examples=200, deadline=None)
@given(sequence=st.lists(small_cards, max_size=30), kind=st.sampled_from(list(RunKind)))
def test_longest_run_is_the_brute_force_longest(sequence: list[Card | None], kind: RunKind) -> None:
    run = longest_run(sequence, kind)
    expected = brute_force_longest(sequence, kind)
    assert (0 if run is None else run.length) == expected
    if run is not None:
        assert tuple(sequence[run.start : run.start + run.length]) == run.cards
