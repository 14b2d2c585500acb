# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A shoe of cards: its order, the cut card's position, and drawing from it.

Pure: no I/O, no clock, no randomness. The order of the cards comes in from outside
(``shuffle.py`` makes it); this module only validates it and deals it out.

The cut card: ``cut_depth`` is how many cards lie in front of the blue card. Once that many
cards have been drawn, the next draw delivers the cut card itself, and the draw after that
the following card. A shoe with every card drawn answers every further draw with
``ShoeEmpty``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Final, TypeAlias

RANKS: Final = "A23456789TJQK"
SUITS: Final = "SHDC"
CARDS_PER_DECK: Final = len(RANKS) * len(SUITS)
#: How many cards lie behind the cut card when no depth is given: a usual casino placement.
DEFAULT_CARDS_BEHIND_CUT: Final = 14


def normalise_card_code(text: str) -> str | None:
    """The two-character code of a card written ``QH``, ``qh`` or ``10H``; None if it is not one.

    Args:
        text: The card as written by a person or a file.

    Returns:
        The code (rank ``A23456789TJQK`` then suit ``SHDC``), or None.
    """
    code = text.strip().upper()
    if len(code) == 3 and code.startswith("10"):
        code = "T" + code[2]
    if len(code) == 2 and code[0] in RANKS and code[1] in SUITS:
        return code
    return None


def deck_codes() -> tuple[str, ...]:
    """The 52 codes of one deck, suit by suit, in rank order."""
    return tuple(rank + suit for suit in SUITS for rank in RANKS)


def unshuffled_codes(decks: int) -> tuple[str, ...]:
    """The codes of ``decks`` fresh decks one after the other (the input of a shuffle)."""
    if decks < 1:
        raise ValueError(f"a shoe holds at least one deck, not {decks}")
    return deck_codes() * decks


def default_cut_depth(card_count: int) -> int:
    """Where the cut card goes when none is asked for: 14 cards from the back (0 if fewer)."""
    return max(card_count - DEFAULT_CARDS_BEHIND_CUT, 0)


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDrawn:
    """A card left the shoe."""

    card: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CutCardDrawn:
    """The cut (blue) card left the shoe."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeEmpty:
    """Nothing is left to draw."""


Draw: TypeAlias = CardDrawn | CutCardDrawn | ShoeEmpty


class Shoe:
    """Cards in a fixed order with a cut card among them, drawn one at a time.

    Args:
        cards: The card codes, first drawn first.
        cut_depth: How many cards lie in front of the cut card (0 to ``len(cards)``), or None
            for a shoe without a cut card.

    Raises:
        ValueError: A code that is not a card, or a depth outside the shoe.
    """

    __slots__ = ("_cards", "_cut_depth", "_cut_drawn", "_position")

    def __init__(self, *, cards: Sequence[str], cut_depth: int | None) -> None:
        bad = [code for code in cards if normalise_card_code(code) != code]
        if bad:
            raise ValueError(f"not card codes: {', '.join(map(repr, bad[:5]))}")
        if cut_depth is not None and not 0 <= cut_depth <= len(cards):
            raise ValueError(f"cut depth {cut_depth} outside the shoe's 0-{len(cards)} cards")
        self._cards = tuple(cards)
        self._cut_depth = cut_depth
        self._position = 0
        self._cut_drawn = cut_depth is None

    @property
    def cards(self) -> tuple[str, ...]:
        """Every card of the shoe in draw order (those already drawn included)."""
        return self._cards

    @property
    def cut_depth(self) -> int | None:
        """How many cards lie in front of the cut card; None without a cut card."""
        return self._cut_depth

    @property
    def drawn(self) -> int:
        """How many cards (not counting the cut card) have left the shoe."""
        return self._position

    @property
    def remaining(self) -> int:
        """How many cards (not counting the cut card) are still in the shoe."""
        return len(self._cards) - self._position

    @property
    def cut_card_drawn(self) -> bool:
        """Whether the cut card has come out (True for a shoe without one)."""
        return self._cut_drawn

    def draw(self) -> Draw:
        """Take the next thing out of the shoe: a card, the cut card, or nothing."""
        if not self._cut_drawn and self._position == self._cut_depth:
            self._cut_drawn = True
            return CutCardDrawn()
        if self._position >= len(self._cards):
            return ShoeEmpty()
        card = self._cards[self._position]
        self._position += 1
        return CardDrawn(card=card)

    def draw_all(self) -> Iterable[Draw]:
        """Draw until the shoe is empty; yields every card and the cut card, in order."""
        while not isinstance(draw := self.draw(), ShoeEmpty):
            yield draw
