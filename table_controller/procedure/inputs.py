# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The inputs of the table procedure: what the shoe reports and what people command.

Pure: no I/O, no clock, no randomness.

Every input carries ``at``, the adapter's monotonic time in seconds; the core never reads a
clock. Shoe inputs are past-tense facts; commands are imperative and carry the ``command_id``
and the ``operator`` of the mqtt-api.md command (an adapter has already checked that the
operator may give it). ``COMMAND`` names each command as mqtt-api.md does.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import ClassVar, TypeAlias, get_args

from table_controller.contract import BetLimits, Odds, StaffRole
from table_controller.rules import Card

# --- what the shoe reports ----------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class CardDrawn:
    """A card left the shoe and the reader recognised it."""

    at: float
    card: Card


@dataclass(frozen=True, slots=True, kw_only=True)
class CutCardDrawn:
    """The cut (blue) card left the shoe."""

    at: float


@dataclass(frozen=True, slots=True, kw_only=True)
class CardMisread:
    """A card left the shoe but the reader could not tell which."""

    at: float


@dataclass(frozen=True, slots=True, kw_only=True)
class FramesLost:
    """The shoe link saw a gap of ``count`` frames: cards may have left the shoe unseen."""

    at: float
    count: int


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderWentOffline:
    """No frame from the reader for too long, or its port is gone."""

    at: float


@dataclass(frozen=True, slots=True, kw_only=True)
class ReaderCameBack:
    """The reader talks again."""

    at: float


# --- what the runtime's analysis found -----------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class AssessmentAlarm:
    """One finding of an assessment, raised as an ``alarm`` with its own fields."""

    code: str
    message: str
    details: Mapping[str, object] = field(default_factory=dict, hash=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundAssessed:
    """The runtime's analysis of the shoe before round ``round_no``.

    Computed off the dealing path from the cards out of the shoe and journaled like any
    input, so a replay publishes it at the same place. ``odds`` is the ``<root>/odds`` payload.
    With dynamic windows, ``offer`` is the bets taken on ``round_no`` in place of the variant's
    fixed windows, and ``suspended`` those left out for their edge, with it. The procedure
    applies an offer only if the round has not started yet (else the fixed windows stand); an
    assessment of a shoe that is no longer in play changes nothing.
    """

    at: float
    shoe_id: str
    round_no: int
    odds: Odds | None = field(default=None, hash=False)
    alarms: tuple[AssessmentAlarm, ...] = ()
    offer: tuple[str, ...] | None = None
    suspended: tuple[tuple[str, float], ...] = ()


@dataclass(frozen=True, slots=True, kw_only=True)
class RuntimeFailed:
    """The runtime could not carry out what the table asked of it (a virtual table's draw).

    A bug outside the procedure, journaled like any input so that a replay faults at the same
    place: the table is held (``procedure_fault``) until a supervisor voids the shoe.
    ``message`` names what failed and after which journal row.
    """

    at: float
    message: str


@dataclass(frozen=True, slots=True, kw_only=True)
class SoftwareModified:
    """At start, the installed software differed from what its installer recorded.

    The table holds (``software_modified``) until a supervisor acknowledges it; ``details``
    (JSON-ready) names the files added, missing or changed and the identity found.
    """

    at: float
    message: str
    details: Mapping[str, object] = field(default_factory=dict)


@dataclass(frozen=True, slots=True, kw_only=True)
class LimitsConfigured:
    """At start, the stake limits the configuration gives (settings and variant file).

    Journaled when they differ from the last configuration taken, so a replay takes them at
    the same place. A bet whose configured limits changed takes the new ones; a bet whose
    configured limits did not change keeps what a supervisor set.
    """

    at: float
    #: ISO 4217 code.
    currency: str
    limits: Mapping[str, BetLimits] = field(default_factory=dict, hash=False)


# --- commands -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _CommandFields:
    at: float
    command_id: str
    operator: str
    #: The supervisor who authorised a supervisor command (the edge checked it), else None.
    supervisor: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class StartNewShoe(_CommandFields):
    """``new_shoe``: a freshly shuffled shoe; ``shoe_id=None`` lets the core number it."""

    COMMAND: ClassVar[str] = "new_shoe"
    shoe_id: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenBetting(_CommandFields):
    """``open_betting``: start taking bets on the next round."""

    COMMAND: ClassVar[str] = "open_betting"


@dataclass(frozen=True, slots=True, kw_only=True)
class CloseBetting(_CommandFields):
    """``close_betting``: no more bets; the round is dealt."""

    COMMAND: ClassVar[str] = "close_betting"


@dataclass(frozen=True, slots=True, kw_only=True)
class Deal(_CommandFields):
    """``deal``: deal the next round now (tables without a betting phase)."""

    COMMAND: ClassVar[str] = "deal"


@dataclass(frozen=True, slots=True, kw_only=True)
class Misdeal(_CommandFields):
    """``misdeal``: void the round whose cards are on the table."""

    COMMAND: ClassVar[str] = "misdeal"


@dataclass(frozen=True, slots=True, kw_only=True)
class VoidRound(_CommandFields):
    """``void_round``: void the current round, or a settled round of this shoe."""

    COMMAND: ClassVar[str] = "void_round"
    round_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class VoidShoe(_CommandFields):
    """``void_shoe``: void every unsettled round; nothing more is dealt from this shoe."""

    COMMAND: ClassVar[str] = "void_shoe"


@dataclass(frozen=True, slots=True, kw_only=True)
class EnterCard(_CommandFields):
    """``manual_card``: a supervisor enters by hand a card the reader missed."""

    COMMAND: ClassVar[str] = "manual_card"
    card: Card


@dataclass(frozen=True, slots=True, kw_only=True)
class CorrectResult(_CommandFields):
    """``correct_result``: a settled round's cards were wrong; these are the right ones."""

    COMMAND: ClassVar[str] = "correct_result"
    round_id: str
    player: tuple[Card, ...]
    banker: tuple[Card, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class DroppedCard(_CommandFields):
    """``dropped_card``: a card fell out of sight during dealing; ``read`` if the reader saw it."""

    COMMAND: ClassVar[str] = "dropped_card"
    read: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class SignIn(_CommandFields):
    """``sign_in``: a member of staff signed in; the edge has checked the PIN (never here)."""

    COMMAND: ClassVar[str] = "sign_in"
    staff_id: str
    name: str
    role: StaffRole


@dataclass(frozen=True, slots=True, kw_only=True)
class SignOut(_CommandFields):
    """``sign_out``: a member of staff signed out."""

    COMMAND: ClassVar[str] = "sign_out"
    staff_id: str


@dataclass(frozen=True, slots=True, kw_only=True)
class OpenDispute(_CommandFields):
    """``dispute``: a supervisor disputes ``round_ids``; the table holds until it is resolved."""

    COMMAND: ClassVar[str] = "dispute"
    reason: str
    round_ids: tuple[str, ...]


@dataclass(frozen=True, slots=True, kw_only=True)
class ResolveDispute(_CommandFields):
    """``resolve_dispute``: the open dispute ends with ``outcome``."""

    COMMAND: ClassVar[str] = "resolve_dispute"
    dispute_id: str
    outcome: str


@dataclass(frozen=True, slots=True, kw_only=True)
class Acknowledge(_CommandFields):
    """``acknowledge``: a supervisor takes responsibility for the hold of alarm ``alarm``."""

    COMMAND: ClassVar[str] = "acknowledge"
    alarm: str


@dataclass(frozen=True, slots=True, kw_only=True)
class AcknowledgeAlarm(_CommandFields):
    """``acknowledge_alarm``: a supervisor has seen the open alarm ``alarm_id``; it closes.

    ``comment``: what the supervisor adds, if anything. Whatever the alarm held stays held.
    """

    COMMAND: ClassVar[str] = "acknowledge_alarm"
    alarm_id: str
    comment: str | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CallSupervisor(_CommandFields):
    """``call_supervisor``: the dealer calls a supervisor to the table; the dealing goes on."""

    COMMAND: ClassVar[str] = "call_supervisor"


@dataclass(frozen=True, slots=True, kw_only=True)
class ConfirmResult(_CommandFields):
    """``confirm_result``: a second source compared the layout with ``round_id``'s result.

    The dealer on the display, or a camera system over MQTT: ``agrees`` or not.
    """

    COMMAND: ClassVar[str] = "confirm_result"
    round_id: str
    agrees: bool


@dataclass(frozen=True, slots=True, kw_only=True)
class SetLimits(_CommandFields):
    """``set_limits``: between rounds, a supervisor changes the named bets' stake limits."""

    COMMAND: ClassVar[str] = "set_limits"
    limits: Mapping[str, BetLimits] = field(hash=False)


ShoeInput: TypeAlias = (
    CardDrawn | CutCardDrawn | CardMisread | FramesLost | ReaderWentOffline | ReaderCameBack
)
Command: TypeAlias = (
    StartNewShoe
    | OpenBetting
    | CloseBetting
    | Deal
    | Misdeal
    | VoidRound
    | VoidShoe
    | EnterCard
    | CorrectResult
    | DroppedCard
    | SignIn
    | SignOut
    | OpenDispute
    | ResolveDispute
    | Acknowledge
    | AcknowledgeAlarm
    | CallSupervisor
    | ConfirmResult
    | SetLimits
)
Input: TypeAlias = (
    ShoeInput | RoundAssessed | RuntimeFailed | SoftwareModified | LimitsConfigured | Command
)

#: Every command class, by its mqtt-api.md name.
COMMANDS: dict[str, type[Command]] = {cls.COMMAND: cls for cls in get_args(Command)}
#: The fields every command has; a command's others are its arguments.
COMMAND_FIELDS: frozenset[str] = frozenset(field.name for field in fields(_CommandFields))


def describe(event: Input) -> str:  # noqa: PLR0911, C901 - a case each
    """A few words naming an input in an alarm: ``card 5H``, ``void_round command c-7``."""
    match event:
        case CardDrawn(card=card):
            return f"card {card.code}"
        case CutCardDrawn():
            return "cut card"
        case CardMisread():
            return "misread card"
        case FramesLost(count=count):
            return f"{count} lost frame(s)"
        case ReaderWentOffline():
            return "reader offline"
        case ReaderCameBack():
            return "reader back"
        case RoundAssessed(round_no=round_no):
            return f"assessment before round {round_no}"
        case RuntimeFailed():
            return "runtime failure"
        case SoftwareModified():
            return "software check"
        case LimitsConfigured():
            return "configured limits"
        case _:
            return f"{event.COMMAND} command {event.command_id}"


def not_carried_out(event: Input | None, *, origin: str | None, error: str) -> str:
    """A fault's alarm: ``journal row 42 (card 5H) could not be carried out: KeyError: '7D'``.

    ``origin`` says where the input came from (``journal row 42``); either part may be missing.
    """
    parts = [] if origin is None else [origin]
    if event is not None:
        parts.append(describe(event) if origin is None else f"({describe(event)})")
    where = " ".join(parts) or "an input"
    return f"{where} could not be carried out: {error}"
