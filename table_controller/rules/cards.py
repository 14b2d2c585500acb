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
        """Read ``QH``; ``10H`` is read as ``TH``; anything else raises :class:`CardError`."""
        if not isinstance(text, str):
            raise CardError(f"not a card: {text!r} (expected text such as 'QH')")
        if not text.isascii():  # "Q\u017f" would upper-case to "QS"
            raise CardError(f"not a card: {text!r} (expected rank {RANKS} then suit {SUITS})")
        code = text.strip().upper()
        if len(code) == 3 and code.startswith("10"):
            code = "T" + code[2]
        if len(code) != 2 or code[0] not in RANKS or code[1] not in SUITS:
            raise CardError(
                f"not a card: {text!r} (expected rank {RANKS} then suit {SUITS}, e.g. 'QH')"
            )
        return cls(code[0], code[1])

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
    """Parse several card texts; the first bad one raises :class:`CardError`."""
    return tuple(Card.parse(text) for text in texts)


def hand_total(points: Iterable[int]) -> int:
    """A hand's total: the sum of its points modulo 10."""
    return sum(points) % 10


def is_pair(first: Card, second: Card) -> bool:
    """A pair is two cards of the same rank (``TS KS`` is not a pair)."""
    return first.rank == second.rank
