# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Where the table is: the retained ``state`` and ``limits``, and the snapshot adapters read.

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import InitVar, dataclass, field
from fractions import Fraction
from typing import Annotated, ClassVar, Final

from annotated_types import Len

from table_controller.contract.codes import (
    AlarmCode,
    EventType,
    HoldReason,
    Lamp,
    Phase,
    PromptAction,
)
from table_controller.contract.payloads.base import (
    ABSENT,
    Absent,
    BetId,
    BurnCount,
    CardOrUnread,
    Count,
    Payload,
    RoundId,
    RoundNo,
)

#: The table's currency when none is configured (ISO 4217).
DEFAULT_CURRENCY: Final = "USD"
#: The most open alarms ``state`` lists (the newest): ``state`` goes out after nearly every
#: input, so a table whose alarms nobody acknowledges must not make it grow without end;
#: ``open_alarm_count`` counts them all.
MAX_LISTED_ALARMS: Final = 10


@dataclass(frozen=True, slots=True, kw_only=True)
class PromptFields:
    """A prompt inside ``state``: ``count`` for ``burn``, ``reason`` for ``hold``."""

    action: PromptAction
    #: How many cards to burn (``burn``, once the face-up card is read).
    count: BurnCount | Absent = ABSENT
    #: Why the table is held (``hold``).
    reason: HoldReason | Absent = ABSENT


@dataclass(frozen=True, slots=True, kw_only=True)
class CardsOnTable:
    """The cards of the round shown, per hand in dealing order (``None``: unread)."""

    player: tuple[CardOrUnread, ...]
    banker: tuple[CardOrUnread, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class DisputeFields:
    """The dispute open at the table, inside ``state``."""

    dispute_id: str
    reason: str
    round_ids: tuple[RoundId, ...]
    #: The supervisor who opened it.
    supervisor: str | None


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenAlarm:
    """An alarm no supervisor has acknowledged yet, inside ``state``."""

    #: The ``alarm_id`` of its ``alarm`` event: what ``acknowledge_alarm`` names.
    alarm_id: str
    code: AlarmCode
    message: str
    #: The shoe it is about (``None``: none).
    shoe_id: str | None
    #: The round it is about (``None``: none).
    round_id: RoundId | None


@dataclass(frozen=True, slots=True, kw_only=True)
class TableState(Payload):
    """``state`` (retained): where the table is now."""

    TYPE: ClassVar = EventType.STATE
    RETAINED: ClassVar = True
    variant: str
    betting_phase: bool
    shoe_id: str | None
    round_no: RoundNo | None
    round_id: RoundId | None
    phase: Phase
    #: The phase a hold stands over.
    held_in: Phase | None
    prompt: PromptFields | None
    lamp: Lamp
    cards: CardsOnTable
    #: The cut card is out.
    last_round: bool
    cards_seen: Count
    cards_left: Count | None
    #: Bets offered on this round.
    bets_offered: tuple[BetId, ...]
    hold_reason: HoldReason | None
    holds: tuple[HoldReason, ...]
    missing_cards: Count
    #: Lost frames that the burn or round did not need: until the next round starts, a card
    #: the dealer drew for one can be entered (``manual_card``).
    unresolved_lost_frames: Count
    queued_inputs: Count
    #: The dealer signed in now (``None``: none).
    dealer: str | None
    #: The supervisor signed in at the table now (``None``: none).
    supervisor: str | None
    #: Nothing is dealt while no dealer is signed in (the ``require_dealer`` setting).
    require_dealer: bool
    #: The dispute open at the table (``None``: none); it holds the table.
    dispute: DisputeFields | None
    #: Each result waits for a second source's ``confirm_result`` before it is published
    #: (the ``confirm_results`` setting).
    confirm_results: bool
    #: The round whose result waits for its confirmation (``None``: none).
    unconfirmed_round_id: RoundId | None
    #: The newest alarms no supervisor has acknowledged (``acknowledge_alarm``), newest first,
    #: 10 at most (``MAX_LISTED_ALARMS``).
    open_alarms: Annotated[tuple[OpenAlarm, ...], Len(0, MAX_LISTED_ALARMS)]
    #: Every alarm open, those listed and older ones.
    open_alarm_count: Count


@dataclass(frozen=True, slots=True, kw_only=True)
class BetLimits:
    """One bet's smallest and largest stake, in the table's currency (exact amounts)."""

    #: Above zero.
    min: Fraction
    #: At least ``min``.
    max: Fraction


@dataclass(frozen=True, slots=True, kw_only=True)
class TableLimits(Payload):
    """``limits`` (retained): each bet's minimum and maximum stake, in the table's currency.

    Bets with no limits are left out. Published when the configured limits are first taken
    and when they change, and after every ``set_limits``.
    """

    TYPE: ClassVar = EventType.LIMITS
    RETAINED: ClassVar = True
    #: ISO 4217 code of the table's currency (``USD``, ``MOP``).
    currency: Annotated[str, Len(3, 3)] = DEFAULT_CURRENCY
    limits: Mapping[BetId, BetLimits] = field(default_factory=dict, hash=False)
    #: Who gave the ``set_limits`` that made these limits (``None``: the configuration).
    operator: str | None = None
    #: The supervisor who authorised it (``None``: the configuration).
    supervisor: str | None = None


@dataclass(frozen=True, kw_only=True)  # not slotted: it keeps :attr:`commands` beside its fields
class TableSnapshot:
    """Where the table is, for the adapters: the ``state`` payload and what follows from it.

    The display and the service read these fields; none of them works a rule out for itself.
    """

    state: TableState
    #: The burn or the round in play waits for its next card and nothing holds it.
    card_wanted: bool
    #: Cards burned face down so far, while burning (``None`` otherwise).
    burned: int | None
    #: The stake limits in force: the ``<root>/limits`` payload.
    limits: TableLimits = field(default_factory=TableLimits)
    #: What :attr:`commands` answers: given, but not kept as a field.
    taken: InitVar[frozenset[str]] = frozenset()
    _commands: ClassVar[frozenset[str]] = frozenset()

    def __post_init__(self, taken: frozenset[str]) -> None:
        object.__setattr__(self, "_commands", taken)

    @property
    def commands(self) -> frozenset[str]:
        """The commands the table takes now, by their mqtt-api.md names.

        Those it would refuse only for what they name (a round, a card), never for the phase,
        a hold or the kind of table: worked out by the procedure from its routes and
        prechecks. Not one of the snapshot's fields, so nothing that writes those out (the
        ``state`` payload, a record of the snapshot) carries it; empty unless given.
        """
        return self._commands
