# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The exact odds analyser: probabilities, expected value, house edge and RTP of every bet.

Pure: no I/O, no clock, no randomness; exact integer arithmetic (numpy ``int64`` while the
numbers fit, Python integers beyond), results as :class:`fractions.Fraction`.

How it is fast and still exact:

* Main bets depend only on the *point values* dealt, in order. Every coup is a sequence of
  4, 5 or 6 point values, fixed once by the tableau. We pad each sequence to six draws (the
  unused draws may be any card), so every coup's probability has the same denominator
  ``N (N-1) ... (N-5)``.
* The numerator of a point sequence is a product of falling counts and depends only on the
  *multiset* of its values, not on their order. So the roughly 300,000 coup sequences collapse,
  once, into a few thousand ``(multiset, outcome)`` rows with a multiplicity. For a given shoe
  each row's weight is six table look-ups and a product, and the outcomes' counts are sums.
* A tier that refines another (``CoupBet.refines``: the Banker's ``three_card_7`` is a
  ``win``) is counted under the broader tier wherever the pay table pays both alike.
* Pair and colour bets depend only on the first two cards of one hand. Any two positions of a
  shuffled shoe are alike, so their odds come from the 52 x 52 ordered pairs of cards.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt

from table_controller.rules.bets import BETS, LOSE, PUSH, CoupBet, OpeningBet
from table_controller.rules.composition import CARD_ORDER, Composition
from table_controller.rules.tableau import BANKER_DRAWS_AGAINST_THIRD, Opening, Outcome
from table_controller.rules.variants import Variant

IntArray: TypeAlias = npt.NDArray[np.int64]
DRAWS = 6  # every coup is padded to six draws
PAD = 10  # the "any card" value used for padding
#: Largest shoe for which products of six counts stay inside int64.
_INT64_SAFE_CARDS = 1400


class ShoeTooSmallError(ValueError):
    """Fewer cards than a coup can take: the odds of the next coup are not defined."""


def outcome_index(
    player_total: int, banker_total: int, player_cards: int, banker_cards: int
) -> int:
    """Dense index of an :class:`Outcome` in ``range(400)``."""
    return ((player_total * 10 + banker_total) * 2 + player_cards - 2) * 2 + banker_cards - 2


OUTCOMES: tuple[Outcome, ...] = tuple(
    Outcome(player_total=pt, banker_total=bt, player_cards=pc, banker_cards=bc)
    for pt in range(10)
    for bt in range(10)
    for pc in (2, 3)
    for bc in (2, 3)
)


@dataclass(frozen=True, slots=True)
class _CoupTable:
    """The tableau folded into ``(multiset, outcome)`` rows, sorted by outcome."""

    codes: IntArray  # (rows, 6) indices into the factor table of a shoe
    multiplicity: IntArray  # (rows,) how many ordered sequences share the row
    starts: IntArray  # first row of each outcome present
    outcomes: IntArray  # the outcome index of each run of rows


def _coups_starting_with(first: int, second: int) -> IntArray:
    """``multiset key * 400 + outcome`` of every coup whose first two cards have these points.

    A hundredth of the 10**6 draw sequences at a time, so that folding the tableau never
    holds more than a few megabytes at once on a small table device.
    """
    rest = np.indices((10,) * (DRAWS - 2), dtype=np.int8).reshape(DRAWS - 2, -1).T
    grid = np.empty((len(rest), DRAWS), dtype=np.int64)
    grid[:, 0] = first
    grid[:, 1] = second
    grid[:, 2:] = rest
    c1, c2, c3, c4, c5, c6 = grid.T
    player = (c1 + c3) % 10
    banker = (c2 + c4) % 10
    natural = (player >= 8) | (banker >= 8)
    player_draws = ~natural & (player <= 5)
    against_third = np.zeros((10, 10), dtype=bool)
    for total, thirds in BANKER_DRAWS_AGAINST_THIRD.items():
        against_third[total, list(thirds)] = True
    banker_draws = ~natural & np.where(player_draws, against_third[banker, c5], banker <= 5)
    length = 4 + player_draws.astype(np.int64) + banker_draws.astype(np.int64)
    # One representative per coup: the draws after its last card are all 0.
    keep = ((length >= 5) | (c5 == 0)) & ((length >= 6) | (c6 == 0))
    grid, length = grid[keep], length[keep]
    player, banker = player[keep], banker[keep]
    player_draws, banker_draws = player_draws[keep], banker_draws[keep]
    c5, c6 = grid[:, 4], grid[:, 5]
    player_total = np.where(player_draws, (player + c5) % 10, player)
    banker_third = np.where(player_draws, c6, c5)
    banker_total = np.where(banker_draws, (banker + banker_third) % 10, banker)
    outcome = (
        (player_total * 10 + banker_total) * 2 + player_draws.astype(np.int64)
    ) * 2 + banker_draws.astype(np.int64)

    padded = np.where(np.arange(DRAWS) < length[:, None], grid, PAD)
    multiset = np.sort(padded, axis=1)
    key = multiset @ (11 ** np.arange(DRAWS - 1, -1, -1, dtype=np.int64))
    combined: IntArray = key * 400 + outcome
    return combined


@cache
def _coup_table() -> _CoupTable:
    combined, multiplicity = np.unique(
        np.concatenate(
            [_coups_starting_with(first, second) for first in range(10) for second in range(10)]
        ),
        return_counts=True,
    )
    key, outcome = np.divmod(combined, 400)
    by_outcome = np.argsort(outcome, kind="stable")
    key, outcome, multiplicity = key[by_outcome], outcome[by_outcome], multiplicity[by_outcome]
    digits = (key[:, None] // (11 ** np.arange(DRAWS - 1, -1, -1, dtype=np.int64))) % 11
    # Code of a card value v that is the k-th of its value in the multiset: v * 6 + k; code of
    # the padding draw at position i: 60 + i (any of the N - i cards still in the shoe).
    position = np.arange(DRAWS)
    # the position of the first card of the same value in the (sorted) multiset
    first_of_value = (digits[:, :, None] == digits[:, None, :]).argmax(axis=2)
    codes = np.where(digits == PAD, 60 + position, digits * DRAWS + position - first_of_value)
    outcome_starts = np.flatnonzero(np.r_[True, outcome[1:] != outcome[:-1]])
    return _CoupTable(
        codes=codes.astype(np.int64),
        multiplicity=multiplicity.astype(np.int64),
        starts=outcome_starts.astype(np.int64),
        outcomes=outcome[outcome_starts].astype(np.int64),
    )


def falling(n: int, k: int) -> int:
    """``n (n-1) ... (n-k+1)``."""
    result = 1
    for i in range(k):
        result *= n - i
    return result


def outcome_counts(composition: Composition) -> tuple[npt.NDArray[Any], int]:
    """Weighted counts of each of the 400 outcomes, and their common denominator.

    ``counts[i] / denominator`` is the exact probability of :data:`OUTCOMES` ``[i]``.
    """
    total = composition.total
    if total < DRAWS:
        raise ShoeTooSmallError(f"the shoe holds {total} cards; a coup may need {DRAWS}")
    table = _coup_table()
    dtype: Any = np.int64 if total <= _INT64_SAFE_CARDS else object
    points = np.array(composition.point_counts(), dtype=dtype)
    factors = np.empty(66, dtype=dtype)
    factors[:60] = np.maximum(points[:, None] - np.arange(DRAWS), 0).ravel()
    factors[60:] = total - np.arange(DRAWS)
    weights = factors[table.codes].prod(axis=1) * table.multiplicity.astype(dtype)
    counts = np.zeros(len(OUTCOMES), dtype=dtype)
    counts[table.outcomes] = np.add.reduceat(weights, table.starts)
    denominator = falling(total, DRAWS)
    assert int(counts.sum()) == denominator, "coup probabilities must add up to one"
    return counts, denominator


@cache
def _opening_pairs() -> tuple[IntArray, IntArray, tuple[Opening, ...]]:
    """Every ordered pair of distinct card identities (first, second) as index arrays."""
    first, second = np.divmod(np.arange(len(CARD_ORDER) ** 2, dtype=np.int64), len(CARD_ORDER))
    openings = tuple(
        Opening(CARD_ORDER[a], CARD_ORDER[b]) for a, b in zip(first, second, strict=True)
    )
    return first, second, openings


def opening_weights(composition: Composition) -> tuple[IntArray, int]:
    """Weight of each ordered pair of first two cards of a hand, and their denominator."""
    total = composition.total
    first, second, _ = _opening_pairs()
    counts = np.array(composition.counts, dtype=np.int64)
    weights = counts[first] * (counts[second] - (first == second))
    return weights, total * (total - 1)


@cache
def _coup_bet_groups(bet_id: str) -> Mapping[str, IntArray]:
    rule = BETS[bet_id]
    assert isinstance(rule, CoupBet)
    verdicts = [rule.decide(outcome) for outcome in OUTCOMES]
    return {v: np.flatnonzero(np.array(verdicts) == v) for v in sorted(set(verdicts))}


@cache
def _opening_bet_groups(bet_id: str) -> Mapping[str, IntArray]:
    rule = BETS[bet_id]
    assert isinstance(rule, OpeningBet)
    _, _, openings = _opening_pairs()
    verdicts = np.array([rule.decide(opening) for opening in openings])
    return {v: np.flatnonzero(verdicts == v) for v in sorted(set(verdicts.tolist()))}


@dataclass(frozen=True, slots=True, kw_only=True)
class BetOdds:
    """One bet's exact distribution of verdicts and its value per unit staked."""

    bet_id: str
    #: Probability of each verdict: a payout tier, ``push`` or ``lose``.
    probabilities: Mapping[str, Fraction]
    ev: Fraction

    @property
    def house_edge(self) -> Fraction:
        return -self.ev

    @property
    def rtp(self) -> Fraction:
        return 1 + self.ev


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeOdds:
    """Odds of the next coup dealt from a shoe of this composition."""

    variant: str
    cards: int
    events: Mapping[str, Fraction]
    bets: Mapping[str, BetOdds]


def _bet_odds(
    bet_id: str, payouts: Mapping[str, Fraction], masses: Mapping[str, int], denominator: int
) -> BetOdds:
    probabilities = {
        verdict: Fraction(mass, denominator) for verdict, mass in masses.items() if mass
    }
    net = 0 * Fraction()
    for verdict, mass in masses.items():
        if verdict == LOSE:
            net -= mass
        elif verdict != PUSH:
            net += payouts[verdict] * mass
    return BetOdds(bet_id=bet_id, probabilities=probabilities, ev=net / denominator)


@cache
def _event_masks() -> tuple[Mapping[str, IntArray], Mapping[str, IntArray]]:
    """Outcome indices of each coup event, and opening-pair indices of each opening event."""
    coup_events: dict[str, Callable[[Outcome], bool]] = {
        "player_wins": lambda o: o.winner == "player",
        "banker_wins": lambda o: o.winner == "banker",
        "tie": lambda o: o.winner == "tie",
        "natural": lambda o: o.natural,
        "cards_4": lambda o: o.cards_dealt == 4,
        "cards_5": lambda o: o.cards_dealt == 5,
        "cards_6": lambda o: o.cards_dealt == 6,
    }
    opening_events: dict[str, Callable[[Opening], bool]] = {
        "pair": lambda o: o.pair,
        "both_red": lambda o: o.both_red,
        "both_black": lambda o: o.both_black,
    }
    _, _, openings = _opening_pairs()
    return (
        {name: np.flatnonzero([test(o) for o in OUTCOMES]) for name, test in coup_events.items()},
        {
            name: np.flatnonzero([test(o) for o in openings])
            for name, test in opening_events.items()
        },
    )


def analyse(variant: Variant, composition: Composition, *, with_events: bool = True) -> ShoeOdds:
    """Exact odds of every bet on the variant's menu for the next coup from this shoe."""
    counts, denominator = outcome_counts(composition)
    pair_weights, pair_denominator = opening_weights(composition)
    bets: dict[str, BetOdds] = {}
    for offer in variant.bets:
        rule = BETS[offer.bet_id]
        if isinstance(rule, CoupBet):
            groups = _coup_bet_groups(offer.bet_id)
            masses = {v: int(counts[idx].sum()) for v, idx in groups.items()}
            for tier, broader in rule.refines.items():
                if tier in masses and offer.payouts[tier] == offer.payouts[broader]:
                    masses[broader] = masses.get(broader, 0) + masses.pop(tier)
                    masses = dict(sorted(masses.items()))
            bets[offer.bet_id] = _bet_odds(offer.bet_id, offer.payouts, masses, denominator)
        else:
            groups = _opening_bet_groups(offer.bet_id)
            masses = {v: int(pair_weights[idx].sum()) for v, idx in groups.items()}
            bets[offer.bet_id] = _bet_odds(offer.bet_id, offer.payouts, masses, pair_denominator)
    events: dict[str, Fraction] = {}
    if with_events:
        coup_masks, opening_masks = _event_masks()
        for name, idx in coup_masks.items():
            events[name] = Fraction(int(counts[idx].sum()), denominator)
        for name, idx in opening_masks.items():
            events[name] = Fraction(int(pair_weights[idx].sum()), pair_denominator)
    return ShoeOdds(variant=variant.name, cards=composition.total, events=events, bets=bets)
