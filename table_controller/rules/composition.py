# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What a shoe holds: how many of each of the 52 cards (game-rules.md section 1).

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from table_controller.rules.cards import Card, all_cards

#: The 52 distinct cards in a fixed order; a composition's counts follow it.
CARD_ORDER: tuple[Card, ...] = tuple(all_cards())
CARD_INDEX: Mapping[Card, int] = {card: index for index, card in enumerate(CARD_ORDER)}


class CompositionError(ValueError):
    """A composition that cannot be: a negative count, or a card removed that is not there."""


@dataclass(frozen=True, slots=True)
class Composition:
    """Counts of each distinct card still in the shoe, in :data:`CARD_ORDER`."""

    counts: tuple[int, ...]

    def __post_init__(self) -> None:
        if len(self.counts) != len(CARD_ORDER):
            raise CompositionError(f"a composition has 52 counts, not {len(self.counts)}")
        for card, count in zip(CARD_ORDER, self.counts, strict=True):
            if not isinstance(count, int) or isinstance(count, bool) or count < 0:
                raise CompositionError(
                    f"count of {card} must be a whole number >= 0, got {count!r}"
                )

    @classmethod
    def full(cls, decks: int) -> Composition:
        """A full shoe of ``decks`` decks."""
        if not isinstance(decks, int) or decks < 1:
            raise CompositionError(f"decks must be a whole number >= 1, got {decks!r}")
        return cls((decks,) * len(CARD_ORDER))

    @classmethod
    def from_mapping(cls, counts: Mapping[str, int]) -> Composition:
        """From ``{"QH": 7, "4S": 8, ...}``; absent cards count 0."""
        values = [0] * len(CARD_ORDER)
        for text, count in counts.items():
            values[CARD_INDEX[Card.parse(text)]] = count
        return cls(tuple(values))

    @property
    def total(self) -> int:
        return sum(self.counts)

    def count(self, card: Card) -> int:
        return self.counts[CARD_INDEX[card]]

    def without(self, cards: Iterable[Card]) -> Composition:
        """This shoe with the given cards taken out; a card that is not there raises."""
        values = list(self.counts)
        for card, taken in Counter(cards).items():
            index = CARD_INDEX[card]
            if values[index] < taken:
                raise CompositionError(
                    f"cannot remove {taken} x {card}: the shoe holds {values[index]}"
                )
            values[index] -= taken
        return Composition(tuple(values))

    def point_counts(self) -> tuple[int, ...]:
        """How many cards of each point value 0-9 the shoe holds."""
        points = [0] * 10
        for card, count in zip(CARD_ORDER, self.counts, strict=True):
            points[card.point] += count
        return tuple(points)

    def as_mapping(self) -> dict[str, int]:
        """``{"AS": 8, ...}`` for every card with a count above 0."""
        return {
            card.code: count for card, count in zip(CARD_ORDER, self.counts, strict=True) if count
        }
