# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Cards, ranks, suits and points (game-rules.md section 1).

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

RANKS = "A23456789TJQK"
SUITS = "SHDC"
RED_SUITS = frozenset("HD")
#: Point value of each rank: A = 1, 2-9 = face value, T/J/Q/K = 0 (game-rules.md section 1).
POINTS: dict[str, int] = {rank: min(index + 1, 10) % 10 for index, rank in enumerate(RANKS)}
#: How many cards a face-up burn card orders burned: T/J/Q/K = 10 (game-rules.md section 5.1).
BURN_COUNTS: dict[str, int] = {rank: POINTS[rank] or 10 for rank in RANKS}
#: How a card is written, for error messages: the one rule of :meth:`Card.parse`.
CARD_RULE = f"expected rank {RANKS} then suit {SUITS}, upper case, e.g. 'QH'"


class CardError(ValueError):
    """A text that is not a card, with the text in the message."""


class Colour(enum.StrEnum):
    """The colour of a suit."""

    RED = "red"
    BLACK = "black"


@dataclass(frozen=True, slots=True, order=True)
class Card:
    """One playing card, written rank then suit: ``QH``, ``TD``, ``AS``."""

    rank: str
    suit: str

    def __post_init__(self) -> None:
        if self.rank not in RANKS or len(self.rank) != 1:
            raise CardError(f"unknown rank {self.rank!r} (expected one of {RANKS})")
        if self.suit not in SUITS or len(self.suit) != 1:
            raise CardError(f"unknown suit {self.suit!r} (expected one of {SUITS})")

    @classmethod
    def parse(cls, text: str) -> Card:
        """Read a card written as the shoe protocol writes it: ``QH``, ``TD``, ``5S``.

        One rule for every card a person or a file gives: exactly two characters, the rank
        (``A23456789TJQK``) then the suit (``SHDC``), upper case, nothing around them. ``qh``,
        ``10H`` and `` QH `` are refused rather than guessed at, as the MQTT API's pattern
        refuses them.

        Raises:
            CardError: ``text`` is anything else; the message quotes it.
        """
        if not isinstance(text, str):
            raise CardError(f"not a card: {text!r} (expected text such as 'QH')")
        if len(text) != 2 or text[0] not in RANKS or text[1] not in SUITS:
            raise CardError(f"not a card: {text!r} ({CARD_RULE})")
        return cls(text[0], text[1])

    @property
    def code(self) -> str:
        """The card as the shoe writes it, e.g. ``QH``."""
        return self.rank + self.suit

    @property
    def point(self) -> int:
        """Baccarat point value, 0-9."""
        return POINTS[self.rank]

    @property
    def colour(self) -> Colour:
        """Red for hearts and diamonds, black for spades and clubs."""
        return Colour.RED if self.suit in RED_SUITS else Colour.BLACK

    @property
    def burn_count(self) -> int:
        """How many cards this card orders burned when it is the first card of a shoe."""
        return BURN_COUNTS[self.rank]

    def __str__(self) -> str:
        return self.code


def all_cards() -> Iterator[Card]:
    """Each of the 52 distinct cards once, rank-major."""
    for rank in RANKS:
        for suit in SUITS:
            yield Card(rank, suit)


def parse_cards(texts: Iterable[str]) -> tuple[Card, ...]:
    """Parse several card texts, each by :meth:`Card.parse`.

    Raises:
        CardError: The first bad one, named by its position from 1 (``item 2: ...``).
    """
    cards = []
    for position, text in enumerate(texts, start=1):
        try:
            cards.append(Card.parse(text))
        except CardError as error:
            raise CardError(f"item {position}: {error}") from None
    return tuple(cards)


def parse_card_list(text: str) -> tuple[Card, ...]:
    """Parse cards separated by commas, such as ``5S,5H,KD``; an empty text is no cards.

    Raises:
        CardError: An empty item (``5S,,KD``, a trailing comma) or a bad card, named by its
            position from 1.
    """
    if text == "":
        return ()
    items = text.split(",")
    for position, item in enumerate(items, start=1):
        if item == "":
            raise CardError(f"item {position}: empty (cards are separated by single commas)")
    return parse_cards(items)


def hand_total(points: Iterable[int]) -> int:
    """A hand's total: the sum of its points modulo 10."""
    return sum(points) % 10


def is_pair(first: Card, second: Card) -> bool:
    """A pair is two cards of the same rank (``TS KS`` is not a pair)."""
    return first.rank == second.rank
