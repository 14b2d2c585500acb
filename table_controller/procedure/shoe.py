# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the procedure knows of one shoe: card accounting, the burn, rounds, the cut card.

Pure: no I/O, no clock, no randomness.

This is runtime state of the machine (typed, mutable, never shared): the table's state
(:class:`~table_controller.procedure.table.Table`) holds one :class:`Shoe` at a time, and only
the procedure's parts change it while an input is handled.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from table_controller.procedure.round import RoundOffer
from table_controller.rules import Card, Coup, RoadEntry, Scoreboard


class CardAccounting:
    """How often each card has come out since the last shuffle (game-rules.md section 5.9).

    A shoe of ``decks`` decks holds every card ``decks`` times; one more is a foreign card.
    Counts are kept by ``(rank, suit)``: every card of the shoe is looked up here, and hashing
    that pair is several times cheaper than hashing the :class:`Card` dataclass.
    """

    __slots__ = ("_copies", "_counts")

    def __init__(self, decks: int) -> None:
        self._copies = decks
        self._counts: dict[tuple[str, str], int] = {}

    def admits(self, card: Card) -> bool:
        """Whether one more of this card can still be in the shoe."""
        return self._counts.get((card.rank, card.suit), 0) < self._copies

    def take(self, card: Card) -> bool:
        """Count one card out if the shoe can still hold it; ``False``, counting nothing, if not."""
        key = card.rank, card.suit
        seen = self._counts.get(key, 0)
        if seen >= self._copies:
            return False
        self._counts[key] = seen + 1
        return True

    def add(self, card: Card) -> None:
        """Count one card out (callers check :meth:`admits` first)."""
        key = card.rank, card.suit
        self._counts[key] = self._counts.get(key, 0) + 1

    def remove(self, card: Card) -> None:
        """Take back one card counted by mistake (a corrected result)."""
        key = card.rank, card.suit
        left = self._counts.get(key, 0) - 1
        if left > 0:
            self._counts[key] = left
        else:
            self._counts.pop(key, None)

    def count(self, card: Card) -> int:
        """How often this card has been seen."""
        return self._counts.get((card.rank, card.suit), 0)

    def seen(self) -> tuple[tuple[Card, int], ...]:
        """Every card seen since the last shuffle, with how often (the odds start from it)."""
        return tuple((Card(rank=rank, suit=suit), n) for (rank, suit), n in self._counts.items())

    def reset(self) -> None:
        """A fresh shuffle: nothing seen."""
        self._counts.clear()


@dataclass(slots=True, kw_only=True)
class Burn:
    """The burn of a new shoe: the face-up card, the count it orders and the cards burned."""

    first_card: Card | None = None
    count: int | None = None
    #: The burned cards in order; ``None`` for a card the reader could not read.
    cards: list[Card | None] = field(default_factory=list)

    @property
    def done(self) -> bool:
        return self.count is not None and len(self.cards) >= self.count


@dataclass(slots=True, kw_only=True)
class SettledRound:
    """A round that reached a result, with every correction applied."""

    round_no: int
    round_id: str
    #: The cards in dealing order (P1 B1 P2 B2, then P3 and B3 if drawn).
    cards: tuple[Card, ...]
    coup: Coup
    settlement: dict[str, Fraction | str]
    last_round: bool
    #: Cards entered by hand (``manual_card``), in dealing order.
    manual_cards: tuple[Card, ...] = ()
    corrections: int = 0
    voided: bool = False
    #: The bets taken on this round when dynamic windows chose them; None: the fixed windows.
    offer: frozenset[str] | None = None


@dataclass(slots=True, kw_only=True)
class Shoe:
    """One shoe from ``new_shoe`` to its end."""

    shoe_id: str
    decks: int
    accounting: CardAccounting
    burn: Burn = field(default_factory=Burn)
    #: The highest round number used; every round dealt counts, voided ones too.
    round_no: int = 0
    #: Cards out of the shoe since the last shuffle (misread ones included, the cut card not).
    cards_seen: int = 0
    cut_card_out: bool = False
    ended: bool = False
    voided: bool = False
    #: The invalid round that the first card after the last round opened, if any.
    invalid_round_no: int | None = None
    settled: dict[int, SettledRound] = field(default_factory=dict)
    voided_rounds: set[int] = field(default_factory=set)
    board: Scoreboard = field(default_factory=Scoreboard)
    #: The offer dynamic windows made for a round not yet started (see ``RoundOffer``).
    next_offer: RoundOffer | None = None

    def round_id(self, round_no: int) -> str:
        """The round's idempotency key, ``<shoe_id>-<round_no>``."""
        return f"{self.shoe_id}-{round_no}"

    @property
    def cards_left(self) -> int:
        """Cards still in the shoe (or in the round's fresh shuffle), by count."""
        return max(self.decks * 52 - self.cards_seen, 0)

    def reshuffle(self) -> None:
        """Every card back in (``mini`` reshuffles before each round)."""
        self.accounting.reset()
        self.cards_seen = 0

    def rebuild_board(self) -> None:
        """The scoreboards again from the rounds that stand, after a void or a correction."""
        self.board = Scoreboard.from_entries(
            RoadEntry.from_coup(record.coup)
            for _, record in sorted(self.settled.items())
            if not record.voided
        )
