# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The payloads of a round: betting, cards, the dealer's prompt, the result, voids, corrections.

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Annotated, ClassVar

from annotated_types import Ge, Interval, MaxLen, MinLen

from table_controller.contract.codes import EventType, HoldReason, PromptAction, VoidReason
from table_controller.contract.payloads.base import (
    ABSENT,
    FLATTEN,
    Absent,
    BetId,
    BurnCount,
    CardOrUnread,
    Count,
    Payload,
    RoundId,
    RoundNo,
    Settled,
)
from table_controller.rules import Card, Coup, Hand, Winner


@dataclass(frozen=True, slots=True, kw_only=True)
class HandResult:
    """One hand of a result: its cards in dealing order and its total."""

    cards: Annotated[tuple[Card, ...], MinLen(2), MaxLen(3)]
    total: Annotated[int, Interval(ge=0, le=9)]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultOfCards:
    """What a result's cards decide: the same fields in ``round_result`` and corrections."""

    player: HandResult
    banker: HandResult
    winner: Winner
    natural: bool
    cards_dealt: Annotated[int, Interval(ge=4, le=6)]
    player_pair: bool
    banker_pair: bool
    #: Every bet id of the variant: its net result per unit staked, or ``not_offered``.
    settlement: Mapping[BetId, Settled] = field(hash=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class SuspendedBet:
    """A bet left out of a round because the player has the edge on it (dynamic windows)."""

    bet: BetId
    #: The bet's house edge that round (a JSON number from the analysis).
    house_edge: float


@dataclass(frozen=True, slots=True, kw_only=True)
class BettingOpened(Payload):
    """``events/betting_opened``: bets are taken on this round."""

    TYPE: ClassVar = EventType.BETTING_OPENED
    shoe_id: str
    round_no: RoundNo
    round_id: RoundId
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    bets_offered: tuple[BetId, ...]
    #: Side bets of the window left out for their edge (dynamic windows).
    bets_suspended: tuple[SuspendedBet, ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class BettingClosed(Payload):
    """``events/betting_closed``: no more bets; the round is dealt."""

    TYPE: ClassVar = EventType.BETTING_CLOSED
    shoe_id: str
    round_no: RoundNo
    round_id: RoundId
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class CardPlaced(Payload):
    """``events/card``: one card placed on a hand."""

    TYPE: ClassVar = EventType.CARD
    shoe_id: str
    round_no: RoundNo
    round_id: RoundId
    card: Card
    hand: Hand
    #: The card's place in its hand, from 1.
    position: Annotated[int, Interval(ge=1, le=3)]
    #: Entered by a supervisor, not read.
    manual: bool
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    #: Who entered a card by hand (``None``: read by the shoe).
    supervisor: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptShown(Payload):
    """``events/prompt``: the dealer's next step; the round's ids when it is about one."""

    TYPE: ClassVar = EventType.PROMPT
    shoe_id: str | Absent = ABSENT
    round_no: RoundNo | Absent = ABSENT
    round_id: RoundId | Absent = ABSENT
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    action: PromptAction
    #: How many cards to burn (``burn``, once the face-up card is read).
    count: BurnCount | Absent = ABSENT
    #: Why the table is held (``hold``).
    reason: HoldReason | Absent = ABSENT


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundSettled(Payload):
    """``events/round_result``: a settled round."""

    TYPE: ClassVar = EventType.ROUND_RESULT
    shoe_id: str
    round_no: RoundNo
    round_id: RoundId
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    result: ResultOfCards = field(metadata=FLATTEN)
    last_round: bool
    #: Cards of this round entered by hand.
    manual_cards: tuple[Card, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundVoided(Payload):
    """``events/round_voided``: a voided round; every bet on it is returned."""

    TYPE: ClassVar = EventType.ROUND_VOIDED
    shoe_id: str
    round_no: RoundNo
    round_id: RoundId
    reason: VoidReason
    #: The cards discarded (``None``: unread).
    cards: tuple[CardOrUnread, ...]
    was_settled: bool
    operator: str | None
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    #: The supervisor who authorised it (``None``: no supervisor's command caused it).
    supervisor: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class OriginalResult:
    """A result as it stood before a correction."""

    #: 0 for the result as first settled, else the correction that gave it.
    correction_no: Count
    result: ResultOfCards = field(metadata=FLATTEN)


@dataclass(frozen=True, slots=True, kw_only=True)
class ResultCorrected(Payload):
    """``events/result_corrected``: a settled round's new result; the original is kept."""

    TYPE: ClassVar = EventType.RESULT_CORRECTED
    shoe_id: str
    round_no: RoundNo
    round_id: RoundId
    #: Corrections of a round count from 1.
    correction_no: Annotated[int, Ge(1)]
    original: OriginalResult
    result: ResultOfCards = field(metadata=FLATTEN)
    last_round: bool
    operator: str
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    #: The supervisor who authorised it (``None``: no supervisor's command caused it).
    supervisor: str | None


def result_of(coup: Coup, settlement: Mapping[BetId, Settled]) -> ResultOfCards:
    """The fields of a result that depend on the cards (``round_result``, corrections)."""
    outcome = coup.outcome  # the totals and the winner, worked out once for the coup
    return ResultOfCards(
        player=HandResult(cards=coup.player, total=outcome.player_total),
        banker=HandResult(cards=coup.banker, total=outcome.banker_total),
        winner=outcome.winner,
        natural=outcome.natural,
        cards_dealt=outcome.cards_dealt,
        player_pair=coup.player_pair,
        banker_pair=coup.banker_pair,
        settlement=settlement,
    )
