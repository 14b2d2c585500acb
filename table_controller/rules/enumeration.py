# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A deliberately plain second analyser, to cross-check :mod:`table_controller.rules.exact`.

Pure: no I/O, no clock, no randomness.

It shares nothing with the fast analyser but the rules themselves: it walks every ordered
sequence of point values the tableau can deal, card by card with :func:`next_hand`, weighting
each by the counts still in the shoe, and it walks the 52 x 52 ordered pairs of cards for the
pair and colour bets with plain loops. It is the baseline of ``bench/bench_exact.py``.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from fractions import Fraction

from table_controller.rules.bets import BETS, LOSE, PUSH, CoupBet
from table_controller.rules.cards import hand_total
from table_controller.rules.composition import CARD_ORDER, Composition
from table_controller.rules.tableau import Hand, Opening, Outcome, next_hand
from table_controller.rules.variants import Variant


def outcome_distribution(composition: Composition) -> dict[Outcome, Fraction]:
    """Probability of every outcome, by plain recursion over point sequences.

    Each complete sequence adds the product of the counts it draws, times the ways the unused
    draws of six could go, so that all share the denominator ``N (N-1) ... (N-5)``.
    """
    total = composition.total
    remaining = list(composition.point_counts())
    numerators: dict[Outcome, int] = defaultdict(int)

    def walk(points: list[int], hands: list[Hand], left: int, weight: int) -> None:
        hand = next_hand(points)
        if hand is None:
            player = [p for p, h in zip(points, hands, strict=True) if h is Hand.PLAYER]
            banker = [p for p, h in zip(points, hands, strict=True) if h is Hand.BANKER]
            outcome = Outcome(
                player_total=hand_total(player),
                banker_total=hand_total(banker),
                player_cards=len(player),
                banker_cards=len(banker),
            )
            unused_draws = 1
            for i in range(6 - len(points)):
                unused_draws *= left - i
            numerators[outcome] += weight * unused_draws
            return
        for point in range(10):
            count = remaining[point]
            if count == 0:
                continue
            remaining[point] -= 1
            walk([*points, point], [*hands, hand], left - 1, weight * count)
            remaining[point] += 1

    walk([], [], total, 1)
    denominator = 1
    for i in range(6):
        denominator *= total - i
    return {outcome: Fraction(n, denominator) for outcome, n in numerators.items()}


def opening_distribution(composition: Composition) -> dict[Opening, Fraction]:
    """Probability of every ordered pair of first two cards of a hand."""
    total = composition.total
    distribution: dict[Opening, Fraction] = {}
    for i, first in enumerate(CARD_ORDER):
        for j, second in enumerate(CARD_ORDER):
            first_count = composition.counts[i]
            second_count = composition.counts[j] - (1 if i == j else 0)
            if first_count > 0 and second_count > 0:
                distribution[Opening(first, second)] = Fraction(
                    first_count * second_count, total * (total - 1)
                )
    return distribution


def bet_values(variant: Variant, composition: Composition) -> Mapping[str, Fraction]:
    """Expected value per unit staked of every bet of the variant."""
    outcomes = outcome_distribution(composition)
    openings = opening_distribution(composition)
    values: dict[str, Fraction] = {}
    for offer in variant.bets:
        rule = BETS[offer.bet_id]
        value = Fraction(0)
        verdicts: list[tuple[str, Fraction]]
        if isinstance(rule, CoupBet):
            verdicts = [(rule.decide(outcome), p) for outcome, p in outcomes.items()]
        else:
            verdicts = [(rule.decide(opening), p) for opening, p in openings.items()]
        for verdict, probability in verdicts:
            if verdict == LOSE:
                value -= probability
            elif verdict != PUSH:
                value += offer.payouts[verdict] * probability
        values[offer.bet_id] = value
    return values
