# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Helpers for the game-protection tests: fair and stacked shoes, card texts, a pair's edge."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

from table_controller.protection.replay_edges import RecordedShoe
from table_controller.rules.cards import Card, all_cards, parse_cards
from table_controller.rules.composition import CARD_ORDER, Composition


def cards(text: str) -> tuple[Card, ...]:
    """``"4H 5S 6S"`` as cards."""
    return parse_cards(text.split())


def fair_shoe(decks: int, rng: random.Random) -> list[Card]:
    """A fairly shuffled shoe: ``decks`` copies of every card, in a seeded random order."""
    shoe = [card for card in all_cards() for _ in range(decks)]
    rng.shuffle(shoe)
    return shoe


def stacked_shoe(ranks: str, first: str, seed: int) -> list[Card]:
    """An 8-deck shoe dealing every card of ``ranks`` first (``first`` leading), then the rest.

    The stacked cards take turns by rank; the rest of the shoe follows in a seeded random order.
    """
    stacked = {rank: [c for c in all_cards() if c.rank == rank for _ in range(8)] for rank in ranks}
    order = [stacked[first].pop()]
    while any(stacked.values()):
        order.extend(stacked[rank].pop() for rank in ranks if stacked[rank])
    others = [card for card in all_cards() if card.rank not in ranks for _ in range(8)]
    random.Random(seed).shuffle(others)
    return order + others


def pair_edge(composition: Composition) -> Fraction:
    """The house edge of an 11-to-1 pair bet, counted directly from the ranks left."""
    by_rank = Counter[str]()
    for card, count in zip(CARD_ORDER, composition.counts, strict=True):
        by_rank[card.rank] += count
    total = composition.total
    pairs = Fraction(sum(n * (n - 1) for n in by_rank.values()), total * (total - 1))
    return 1 - 12 * pairs


def gone_before(shoe: RecordedShoe, round_no: int) -> list[Card]:
    gone = [c for c in shoe.burn if c is not None]
    for played in shoe.rounds:
        if played.round_no >= round_no:
            break
        gone.extend(c for c in played.cards if c is not None)
    return gone
