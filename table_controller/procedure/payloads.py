# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Every payload the table publishes, as one frozen type each: the contract's single source.

Pure: no I/O, no clock, no randomness. The procedure builds these; the publishing edge puts the
envelope on them and turns them into JSON (``publishing/messages.py``), and generates the JSON
Schemas and the AsyncAPI document from them (``publishing/schemas.py``,
``publishing/asyncapi.py``). A field added here is published, described and validated with no
other edit.

Fields are written in the order they are published. Values keep the core's own types (cards,
enums, exact ``Fraction`` settlements); ``None`` is published as ``null``, and a field whose
value is :data:`ABSENT` is left out of the message (``count`` of a prompt that has none).

What an integrator may rely on beyond the type is said beside it: bounds as ``annotated_types``
metadata (``Annotated[int, Ge(1)]``, free at run time), a closed set of strings as
:class:`OneOf`, and a field's meaning in the ``#:`` comment above it, which the generated
schema carries as the field's description.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Annotated, ClassVar, Final, TypeAlias, TypedDict

from annotated_types import Ge, Interval, Len, MaxLen, MinLen

from table_controller.procedure.codes import (
    AlarmCode,
    CutCardWhen,
    EventType,
    HoldReason,
    Lamp,
    PromptAction,
    ReaderState,
    RefusalCode,
    ShoeEndReason,
    VoidReason,
)
from table_controller.procedure.frozen import fast_init
from table_controller.procedure.states import Phase
from table_controller.rules.bets import BETS
from table_controller.rules.cards import Card
from table_controller.rules.roads import BeadPayload, BigRoadCellPayload, RoadColour, StatsPayload
from table_controller.rules.tableau import Hand, Winner
from table_controller.rules.variants import NOT_OFFERED, Reshuffle


class Absent(enum.Enum):
    """The type of :data:`ABSENT`: a field left out of the message, unlike ``None`` (``null``)."""

    ABSENT = "absent"


#: A field's value when the field is left out of the published message.
ABSENT: Final = Absent.ABSENT

@dataclass(frozen=True, slots=True)
class OneOf:
    """``Annotated`` metadata: the string is one of :attr:`values` (a bet id, a road colour)."""

    values: tuple[str, ...]


#: The table's currency when none is configured (ISO 4217).
DEFAULT_CURRENCY: Final = "USD"
#: The longest round id: a shoe id, ``-`` and the round number.
MAX_ROUND_ID_LENGTH: Final = 96

#: A card as read, or ``None`` for one that left the shoe unread.
CardOrUnread: TypeAlias = Card | None
#: A bet id of the game rules' catalogue.
BetId: TypeAlias = Annotated[str, OneOf(tuple(BETS))]
#: A bet's net result per unit staked, or ``"not_offered"`` outside its window.
Settled: TypeAlias = Fraction | Annotated[str, OneOf((NOT_OFFERED,))]
#: A mark of a derived road.
RoadMark: TypeAlias = Annotated[str, OneOf(tuple(colour.value for colour in RoadColour))]
#: Rounds of a shoe count from 1.
RoundNo: TypeAlias = Annotated[int, Ge(1)]
#: ``<shoe_id>-<round_no>``, the round's idempotency key.
RoundId: TypeAlias = Annotated[str, Len(1, MAX_ROUND_ID_LENGTH)]
#: How many of something: never below zero.
Count: TypeAlias = Annotated[int, Ge(0)]
#: How many cards a burn takes: the face-up card's value, a court card or ten counting 10.
BurnCount: TypeAlias = Annotated[int, Interval(ge=1, le=10)]
#: Field metadata: the mapping's items are published as fields of the enclosing message.
FLATTEN: Final = {"flatten": True}


class Payload:
    """Base of every published payload: its ``type``, and whether its topic is retained."""

    __slots__ = ()
    TYPE: ClassVar[EventType]
    RETAINED: ClassVar[bool] = False


# --- parts ----------------------------------------------------------------------------------


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


class AlarmFindings(TypedDict, total=False):
    """The findings an alarm's ``details`` may carry that every integrator can rely on."""

    #: ``edge_positive``: the bet.
    bet: BetId
    #: ``edge_positive``: the bet's exact house edge for the next round.
    house_edge: float


# --- events ---------------------------------------------------------------------------------


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


@dataclass(frozen=True, slots=True, kw_only=True)
class AlarmRaised(Payload):
    """``events/alarm``: something for the pit to look at, with a message a person can read."""

    TYPE: ClassVar = EventType.ALARM
    shoe_id: str | Absent = ABSENT
    round_no: RoundNo | Absent = ABSENT
    round_id: RoundId | Absent = ABSENT
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    code: AlarmCode
    message: str
    #: The card concerned (``None``: unread).
    card: CardOrUnread | Absent = ABSENT
    #: ``foreign_card``: how many times that card has now been seen.
    seen: Annotated[int, Ge(1)] | Absent = ABSENT
    #: ``lost_frames``, ``lost_frames_left_over``: how many frames were lost.
    count: Annotated[int, Ge(1)] | Absent = ABSENT
    #: An analysis's own findings (the bet and its edge, a shuffle's evidence): the fields
    #: :class:`AlarmFindings` names, and for some alarms more.
    details: Annotated[Mapping[str, object], AlarmFindings] = field(
        default_factory=dict, hash=False, metadata=FLATTEN
    )


# --- retained snapshots -----------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class AskMarks:
    """The mark each derived road would get after the asked result (``None``: none yet)."""

    big_eye_boy: RoadMark | None
    small_road: RoadMark | None
    cockroach_pig: RoadMark | None


@dataclass(frozen=True, slots=True, kw_only=True)
class Roads(Payload):
    """``roads`` (retained): the scoreboards of the current shoe, as logical columns."""

    TYPE: ClassVar = EventType.ROADS
    RETAINED: ClassVar = True
    shoe_id: str
    bead_plate: Sequence[BeadPayload] = field(hash=False)
    big_road: Sequence[Sequence[BigRoadCellPayload]] = field(hash=False)
    big_eye_boy: Sequence[Sequence[RoadMark]] = field(hash=False)
    small_road: Sequence[Sequence[RoadMark]] = field(hash=False)
    cockroach_pig: Sequence[Sequence[RoadMark]] = field(hash=False)
    ask_banker: AskMarks
    ask_player: AskMarks
    stats: StatsPayload = field(hash=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class BetOdds:
    """One bet's exact value for the next round, as JSON numbers."""

    #: Expected net result per unit staked.
    ev: float
    #: ``-ev``.
    house_edge: float
    #: ``1 + ev``.
    rtp: float
    #: The probability of each verdict: a tier, ``push``, ``lose``.
    probabilities: Mapping[str, float] = field(hash=False)
    #: Whether the bet is offered on that round.
    offered: bool | Absent = ABSENT


@dataclass(frozen=True, slots=True, kw_only=True)
class Odds(Payload):
    """``odds`` (retained): exact probabilities and house edge of every bet, next round."""

    TYPE: ClassVar = EventType.ODDS
    RETAINED: ClassVar = True
    shoe_id: str
    #: The round the odds are for.
    round_no: RoundNo
    cards_left: Count
    bets: Mapping[BetId, BetOdds] = field(hash=False)


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


@dataclass(frozen=True, slots=True, kw_only=True)
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


@dataclass(frozen=True, slots=True, kw_only=True)
class Status(Payload):
    """``status`` (retained; also the last will): whether the controller and its reader run."""

    TYPE: ClassVar = EventType.STATUS
    RETAINED: ClassVar = True
    reader: ReaderState | Absent = ABSENT
    online: bool
    #: Raised on every connection; an offline status older than the last online one is stale.
    session: Count
    #: The highest seq the table had given a message when the status was written (0 before
    #: any): for the will, when it was registered on connecting. Every message up to it
    #: reaches the broker, before or after the status.
    last_seq: Count
    #: The controller's software version.
    version: str


@dataclass(frozen=True, slots=True, kw_only=True)
class CommandReply(Payload):
    """``commands/replies``: the answer to one command (a repeated id is answered again)."""

    TYPE: ClassVar = EventType.COMMAND_REPLY
    #: The command's id; ``None`` if none could be read.
    id: str | None
    ok: bool
    command: str | Absent = ABSENT
    #: When refused: why, as a code (the procedure's, or the edge's for a command refused as read).
    error: RefusalCode | str | Absent = ABSENT
    #: When refused: why, in words a person can read.
    message: str | Absent = ABSENT
    #: A supervisor command: the supervisor who authorised it.
    supervisor: str | Absent = ABSENT


# --- integrity ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class DisputeOpened(Payload):
    """``events/dispute_opened``: a supervisor disputes rounds; the table holds until resolved.

    The core names the rounds; the edge adds what it holds: the rounds' ``recall``, the
    journal's ``head`` hash at the dispute (the hash of the dispute's own journal row, which
    chains every row before it) and the ``seal`` over both.
    """

    TYPE: ClassVar = EventType.DISPUTE_OPENED
    dispute_id: str
    reason: str
    round_ids: tuple[RoundId, ...]
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    #: The supervisor who opened it.
    supervisor: str | None
    #: The disputed rounds with every step (the ``recall`` command's rounds), in order.
    recall: tuple[Mapping[str, object], ...] | Absent = field(default=ABSENT, hash=False)
    #: SHA-256 hex of the dispute's own journal row (``hash`` of journal-format.md).
    journal_head: str | Absent = ABSENT
    #: SHA-256 hex of the canonical JSON of ``{"dispute_id", "recall", "journal_head"}``.
    seal: str | Absent = ABSENT


@dataclass(frozen=True, slots=True, kw_only=True)
class DisputeResolved(Payload):
    """``events/dispute_resolved``: the open dispute ended with its outcome; the hold clears."""

    TYPE: ClassVar = EventType.DISPUTE_RESOLVED
    dispute_id: str
    reason: str
    round_ids: tuple[RoundId, ...]
    outcome: str
    #: The dealer signed in when it happened (``None``: none).
    dealer: str | None
    #: The supervisor who resolved it.
    supervisor: str | None


# --- staff and pace ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class StaffChanged(Payload):
    """``events/staff_changed``: a dealer or a supervisor signed in or out."""

    TYPE: ClassVar = EventType.STAFF_CHANGED
    #: The dealer signed in now (``None``: none).
    dealer: str | None
    #: The dealer signed in before this change (the same as ``dealer`` when a supervisor
    #: signed in or out).
    previous_dealer: str | None
    #: The supervisor signed in at the table now (``None``: none).
    supervisor: str | None
    #: Who signed in or out, and how.
    staff_id: str
    action: Annotated[str, OneOf(("sign_in", "sign_out"))]


@dataclass(frozen=True, slots=True, kw_only=True)
class PaceFigures:
    """Game pace over one span: a shoe, a dealer's stint or the last hour.

    Times come from the journal's time stamps of the inputs, so a replay gives the same figures.
    """

    #: When the span began (UTC).
    since: str
    #: Rounds settled in the span.
    rounds: Count
    #: ``rounds`` per hour of the span (``None`` before a second has passed).
    rounds_per_hour: float | None
    #: Median time from betting closed (or the first card, without a betting phase) to the
    #: result.
    median_round_seconds: float | None
    #: Median time from a round's end to the next round's betting (or first card), in one shoe.
    median_between_rounds_seconds: float | None
    voids: Count
    misdeals: Count
    exposed_cards: Count
    misreads: Count
    unnecessary_cards: Count
    #: Time the table stood held.
    hold_seconds: float


@dataclass(frozen=True, slots=True, kw_only=True)
class Stats(Payload):
    """``stats`` (retained): game pace for the shoe, the dealer's stint and the last hour."""

    TYPE: ClassVar = EventType.STATS
    RETAINED: ClassVar = True
    shoe_id: str | None
    dealer: str | None
    #: The current shoe (``None`` before the first).
    shoe: PaceFigures | None
    #: The signed-in dealer's stint (``None`` with no dealer signed in).
    stint: PaceFigures | None
    last_hour: PaceFigures


#: Every payload type by the ``type`` it is published with.
PAYLOAD_TYPES: Final[Mapping[EventType, type[Payload]]] = {
    cls.TYPE: cls
    for cls in (
        ShoeStarted, BurnAnnounced, BettingOpened, BettingClosed, CardPlaced, PromptShown,
        RoundSettled, RoundVoided, ResultCorrected, LastRound, ShoeEnded, ShoeVoided,
        AlarmRaised, StaffChanged, DisputeOpened, DisputeResolved, Roads, Odds, TableState,
        Stats, TableLimits, Status, CommandReply,
    )
}  # fmt: skip

#: Every payload and part of one is built with the faster constructor of :mod:`.frozen`.
for _value in (*PAYLOAD_TYPES.values(), HandResult, ResultOfCards, SuspendedBet, OriginalResult,
               AskMarks, BetOdds, PromptFields, CardsOnTable, TableSnapshot, DisputeFields,
               BetLimits):
    fast_init(_value)
