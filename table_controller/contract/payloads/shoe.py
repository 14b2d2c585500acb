# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The payloads of a shoe's life: its start, the burn, the cut card's last round, its end or void.

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, ClassVar

from annotated_types import Ge

from table_controller.contract.codes import CutCardWhen, EventType, ShoeEndReason
from table_controller.contract.payloads.base import (
    ABSENT,
    Absent,
    BurnCount,
    CardOrUnread,
    Count,
    Payload,
    RoundId,
    RoundNo,
)
from table_controller.rules import Card, Reshuffle


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeStarted(Payload):
    """``events/shoe_started``: a freshly shuffled shoe."""

    TYPE: ClassVar = EventType.SHOE_STARTED
    shoe_id: str
    variant: str
    decks: Annotated[int, Ge(1)]
    #: Whether the shoe starts with a burn.
    burn: bool
    reshuffle: Reshuffle
    betting_phase: bool
    operator: str
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class BurnAnnounced(Payload):
    """``events/burn``: the face-up first card and how many it orders burned; again once done."""

    TYPE: ClassVar = EventType.BURN
    shoe_id: str
    first_card: Card
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    #: How many cards the face-up card orders burned.
    count: BurnCount
    #: The burned cards, once done (``None``: read by nobody).
    cards: tuple[CardOrUnread, ...] | Absent = ABSENT
    done: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class LastRound(Payload):
    """``events/last_round``: the cut card came out; ``round_id`` names the last round."""

    TYPE: ClassVar = EventType.LAST_ROUND
    shoe_id: str
    round_no: RoundNo | None
    round_id: RoundId | None
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    cut_card: CutCardWhen


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeEnded(Payload):
    """``events/shoe_ended``: the shoe is over."""

    TYPE: ClassVar = EventType.SHOE_ENDED
    shoe_id: str
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    reason: ShoeEndReason
    rounds: Count
    cards_seen: Count


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeVoided(Payload):
    """``events/shoe_voided``: nothing more is dealt from this shoe."""

    TYPE: ClassVar = EventType.SHOE_VOIDED
    shoe_id: str
    rounds_voided: tuple[RoundId, ...]
    cards_discarded: tuple[CardOrUnread, ...]
    operator: str
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    #: The supervisor who authorised it (``None``: no supervisor's command caused it).
    supervisor: str | None
