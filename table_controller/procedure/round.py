# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The cards of one coup as they come out of the shoe, placed by the drawing rules.

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.rules import Card, Coup, Hand, next_hand

#: The cards of the opening deal: P1 B1 P2 B2.
OPENING_CARDS = 4


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundOffer:
    """The bets taken on one round as dynamic windows chose them, and those left out."""

    round_no: int
    offer: tuple[str, ...]
    #: Bets of the variant's window suspended for their edge, with that edge.
    suspended: tuple[tuple[str, float], ...]


class RoundCards:
    """The round being bet on or dealt: its number and its cards so far."""

    __slots__ = (
        "banker",
        "cards",
        "expected",
        "last_round",
        "manual",
        "offer",
        "player",
        "points",
        "round_id",
        "round_no",
        "shoe_id",
    )

    def __init__(self, shoe_id: str, round_no: int, round_id: str) -> None:
        self.round_no = round_no
        self.round_id = round_id
        self.shoe_id = shoe_id
        self.cards: list[Card] = []
        self.points: list[int] = []
        self.player: list[Card] = []
        self.banker: list[Card] = []
        self.manual: list[Card] = []
        #: The offer dynamic windows made for this round; None: the variant's fixed windows.
        self.offer: RoundOffer | None = None
        #: The cut card came out during this round.
        self.last_round = False
        #: The hand the next card goes to, or ``None`` when the coup is complete (set by
        #: :meth:`place` only).
        self.expected: Hand | None = Hand.PLAYER

    def place(self, card: Card, *, manual: bool = False) -> tuple[Hand, int]:
        """Put the next card on its hand; returns the hand and the card's position in it (1-3)."""
        hand = self.expected
        if hand is None:
            raise AssertionError(f"round {self.round_id}: a card placed on a complete coup")
        self.cards.append(card)
        self.points.append(card.point)
        if manual:
            self.manual.append(card)
        cards = self.player if hand is Hand.PLAYER else self.banker
        cards.append(card)
        self.expected = next_hand(self.points)
        return hand, len(cards)

    def coup(self) -> Coup:
        """The finished coup."""
        return Coup(tuple(self.player), tuple(self.banker))
