# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The drawing rules (the tableau) and the finished coup (game-rules.md section 2).

Pure: no I/O, no clock, no randomness.

Cards leave the shoe Player 1, Banker 1, Player 2, Banker 2, then Player 3 (if the Player
draws), then Banker 3 (if the Banker draws). Everything here works on the *point values* of
the cards in dealing order, so the exact analyser can reuse it on point sequences, and on
cards for the table.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field

from table_controller.rules.cards import Card, hand_total, is_pair

#: Player's two-card totals on which the Player draws (rule 2).
PLAYER_DRAWS_ON = frozenset(range(6))
#: Banker's two-card totals on which the Banker draws when the Player stood (rule 3).
BANKER_DRAWS_ON_WHEN_PLAYER_STOOD = frozenset(range(6))
#: Rule 4: Banker's two-card total -> the Player's third-card points on which the Banker draws.
BANKER_DRAWS_AGAINST_THIRD: dict[int, frozenset[int]] = {
    0: frozenset(range(10)),
    1: frozenset(range(10)),
    2: frozenset(range(10)),
    3: frozenset({0, 1, 2, 3, 4, 5, 6, 7, 9}),
    4: frozenset({2, 3, 4, 5, 6, 7}),
    5: frozenset({4, 5, 6, 7}),
    6: frozenset({6, 7}),
    7: frozenset(),
}
NATURAL_TOTALS = frozenset({8, 9})
MAX_COUP_CARDS = 6


class Hand(enum.StrEnum):
    """One side of the tableau."""

    PLAYER = "player"
    BANKER = "banker"


class Winner(enum.StrEnum):
    """Who won the coup."""

    PLAYER = "player"
    BANKER = "banker"
    TIE = "tie"


_OPENING_ORDER = (Hand.PLAYER, Hand.BANKER, Hand.PLAYER, Hand.BANKER)


class TooManyCardsError(ValueError):
    """More cards were given than the drawing rules take: a caller's bug, not a game event."""


def banker_draws(banker_two_card_total: int, player_third_point: int | None) -> bool:
    """Whether the Banker draws, given the Player's third card (``None`` if the Player stood)."""
    if player_third_point is None:
        return banker_two_card_total in BANKER_DRAWS_ON_WHEN_PLAYER_STOOD
    return player_third_point in BANKER_DRAWS_AGAINST_THIRD.get(banker_two_card_total, frozenset())


def next_hand(points: Sequence[int]) -> Hand | None:
    """Which hand receives the next card, or ``None`` when the coup is complete.

    ``points`` are the point values of the cards dealt so far, in dealing order. Passing more
    cards than the coup takes raises :class:`TooManyCardsError`.
    """
    count = len(points)
    if count < len(_OPENING_ORDER):
        return _OPENING_ORDER[count]
    player = (points[0] + points[2]) % 10
    banker = (points[1] + points[3]) % 10
    expected: list[Hand] = []
    if player not in NATURAL_TOTALS and banker not in NATURAL_TOTALS:
        if player in PLAYER_DRAWS_ON:
            expected.append(Hand.PLAYER)
            if count >= 5 and banker_draws(banker, points[4]):
                expected.append(Hand.BANKER)
        elif banker_draws(banker, None):
            expected.append(Hand.BANKER)
    drawn = count - len(_OPENING_ORDER)
    if drawn < len(expected):
        return expected[drawn]
    if drawn == len(expected):
        return None
    raise TooManyCardsError(f"{count} cards given; this coup takes {4 + len(expected)}")


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the main bets settle on: final totals and how many cards each hand holds."""

    player_total: int
    banker_total: int
    player_cards: int
    banker_cards: int

    @property
    def winner(self) -> Winner:
        if self.player_total > self.banker_total:
            return Winner.PLAYER
        if self.banker_total > self.player_total:
            return Winner.BANKER
        return Winner.TIE

    @property
    def cards_dealt(self) -> int:
        return self.player_cards + self.banker_cards

    @property
    def player_natural(self) -> int | None:
        """8 or 9 when the Player holds a two-card natural, else ``None``."""
        if self.player_cards == 2 and self.player_total in NATURAL_TOTALS:
            return self.player_total
        return None

    @property
    def banker_natural(self) -> int | None:
        """8 or 9 when the Banker holds a two-card natural, else ``None``."""
        if self.banker_cards == 2 and self.banker_total in NATURAL_TOTALS:
            return self.banker_total
        return None

    @property
    def natural(self) -> bool:
        """Either hand had a two-card 8 or 9, so both stood on two cards."""
        return self.player_natural is not None or self.banker_natural is not None


@dataclass(frozen=True, slots=True)
class Opening:
    """The first two cards of one hand: what pair and colour bets settle on."""

    first: Card
    second: Card

    @property
    def pair(self) -> bool:
        return is_pair(self.first, self.second)

    @property
    def both_red(self) -> bool:
        return self.first.colour == self.second.colour == "red"

    @property
    def both_black(self) -> bool:
        return self.first.colour == self.second.colour == "black"


def split_hands(cards: Sequence[Card]) -> tuple[tuple[Card, ...], tuple[Card, ...]]:
    """Split cards in dealing order into the Player's and the Banker's hands (may be partial)."""
    player: list[Card] = []
    banker: list[Card] = []
    points: list[int] = []
    for card in cards:
        hand = next_hand(points)
        if hand is None:
            raise TooManyCardsError(f"{len(cards)} cards given; this coup takes {len(points)}")
        (player if hand is Hand.PLAYER else banker).append(card)
        points.append(card.point)
    return tuple(player), tuple(banker)


@dataclass(frozen=True)
class Coup:
    """A finished coup: both hands, in dealing order within each hand.

    The :class:`Outcome` is worked out once, when the coup is made: the settlement, the result
    and the scoreboards all read it.
    """

    player: tuple[Card, ...]
    banker: tuple[Card, ...]
    outcome: Outcome = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        player, banker = self.player, self.banker
        outcome = Outcome(  # positional: the hot path of every settled round
            hand_total(card.point for card in player),
            hand_total(card.point for card in banker),
            len(player),
            len(banker),
        )
        object.__setattr__(self, "outcome", outcome)

    @classmethod
    def from_cards(cls, cards: Sequence[Card]) -> Coup:
        """Build the coup from all its cards in dealing order; incomplete or extra cards raise."""
        player, banker = split_hands(cards)
        if next_hand([card.point for card in cards]) is not None:
            raise ValueError(f"the coup is not complete after {len(cards)} cards")
        return cls(player, banker)

    @property
    def player_total(self) -> int:
        return self.outcome.player_total

    @property
    def banker_total(self) -> int:
        return self.outcome.banker_total

    @property
    def winner(self) -> Winner:
        return self.outcome.winner

    @property
    def natural(self) -> bool:
        return self.outcome.natural

    @property
    def cards_dealt(self) -> int:
        return self.outcome.cards_dealt

    @property
    def player_opening(self) -> Opening:
        return Opening(self.player[0], self.player[1])

    @property
    def banker_opening(self) -> Opening:
        return Opening(self.banker[0], self.banker[1])

    @property
    def player_pair(self) -> bool:
        return is_pair(self.player[0], self.player[1])

    @property
    def banker_pair(self) -> bool:
        return is_pair(self.banker[0], self.banker[1])
