# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table's state in one place, the collector of decisions, and the rules the parts share.

Pure: no I/O, no clock, no randomness.

Every part of the procedure (:mod:`.stream`, :mod:`.shoe_flow`, :mod:`.dealing`,
:mod:`.supervision`, :mod:`.prompts`, :mod:`.faults`, :mod:`.oversight`, :mod:`.staff`,
:mod:`.limits`) takes a :class:`Table` and an :class:`Out` and imports only this module and the
ones below it; the routes of :mod:`.states` name them (and :mod:`.steps`, which composes them),
and :mod:`.machine` dispatches. The state is a plain mutable value the machine owns and hands
to nothing else; what holds or stops the table is one frozen :class:`Holds` in it, replaced
whole on every change.
"""

from __future__ import annotations

import enum
import itertools
from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from fractions import Fraction
from typing import Final

from table_controller.contract import (
    ABSENT,
    Absent,
    AlarmCode,
    AlarmRaised,
    AskMarks,
    CutCardWhen,
    DisputeFields,
    HoldReason,
    Lamp,
    LastRound,
    OpenAlarm,
    Payload,
    Phase,
    PromptShown,
    RefusalCode,
    Roads,
    ShoeEnded,
    ShoeEndReason,
    TableLimits,
)
from table_controller.procedure.decisions import Decision, Publish, RaiseAlarm
from table_controller.procedure.errors import ProcedureBug
from table_controller.procedure.round import RoundCards
from table_controller.procedure.shoe import Shoe
from table_controller.rules import (
    NOT_OFFERED,
    Card,
    Coup,
    DerivedRoad,
    Reshuffle,
    Variant,
    Winner,
    settle_round,
)

#: The phases a hold of the shoe (reader offline, a missing card, a foreign card) can stand
#: over; the machine shows ``HELD`` and returns to them.
HOLDABLE: frozenset[Phase] = frozenset(
    {Phase.BURN_CARD, Phase.BURNING, Phase.BETWEEN_ROUNDS, Phase.BETTING, Phase.DEALING}
)
#: Phases that wait for cards (the burn, a round in play): a misread card or a lost frame
#: there leaves a card missing.
GAP_PHASES = frozenset({Phase.BURN_CARD, Phase.BURNING, Phase.DEALING})

#: Why a command was refused, and the message.
Refusal = tuple[RefusalCode, str]


class Mark(enum.Enum):
    """A shoe item that is not a card: a card that left unread, or the cut card."""

    MISREAD = "misread"
    CUT = "cut"


@dataclass(frozen=True, slots=True)
class Lost:
    """Frames the link lost: each may have been a card."""

    count: int


#: One item out of the shoe, in the order the shoe reported it.
Item = Card | Mark | Lost


@dataclass(frozen=True, slots=True, kw_only=True)
class Holds:
    """What holds or stops the table, as one value: replaced whole whenever any of it changes.

    The shoe's holds (the reader offline, a foreign card, cards missing) stand over the phases
    of :data:`HOLDABLE`; a supervisor's (modified software, a dispute, a result the second
    source disagreed with) over every phase; a fault over everything. ``stopped`` and
    ``shoe_held`` say whether any of either kind stands (worked out once, read on every card).
    """

    reader_offline: bool = False
    #: A foreign card holds the table until the shoe is voided.
    foreign: bool = False
    #: Cards missing at the head of the stream, and why (a misread, lost frames).
    gap: int = 0
    gap_reason: HoldReason | None = None
    software_modified: bool = False
    dispute: DisputeFields | None = None
    #: The round whose result waits for a second source's ``confirm_result`` (not a hold by
    #: itself: no round starts), and whether the source disagreed (a hold).
    unconfirmed: str | None = None
    result_rejected: bool = False
    #: The fault's message while ``FAULTED``.
    fault: str | None = None
    stopped: bool = field(init=False, repr=False, compare=False)
    shoe_held: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        stopped = self.software_modified or self.dispute is not None or self.result_rejected
        object.__setattr__(self, "stopped", stopped)
        shoe_held = self.reader_offline or self.foreign or self.gap_reason is not None
        object.__setattr__(self, "shoe_held", shoe_held)


#: Nothing holds the table.
NO_HOLDS: Final = Holds()


@dataclass(slots=True)
class AlarmBook:
    """The table's alarms: the id each is raised with, and those no supervisor acknowledged.

    An alarm's id is ``<table_id>-A`` and the number of alarms the table had raised with it,
    counted here. The count is part of the table's state, which a start rebuilds by replaying
    the journal from its first row (nothing shortens that replay, and one journal holds every
    shoe of the table), so it goes on across restarts and shoes for the table's life and the
    same inputs always give the same ids. It could start again only with the journal: a
    journal started afresh, or one put back from a backup copy, restarts ``seq`` as well, on
    which the contract's ``(table_id, seq)`` already rests. An id is never taken back: the
    alarms of an input the procedure could not carry out (a bug) are withdrawn, never
    published, and their ids are not given again.
    """

    table_id: str
    #: How many alarms the table raised: the number of the last id given.
    raised: int = 0
    #: The open alarms, by id, oldest first (they wait for ``acknowledge_alarm``).
    open: dict[str, OpenAlarm] = field(default_factory=dict)
    #: The ids of alarms withdrawn (a bug's): no alarm went out with them.
    withdrawn: set[str] = field(default_factory=set)

    def next_id(self) -> str:
        """The id of the alarm being raised."""
        self.raised += 1
        return self._id(self.raised)

    def _id(self, number: int) -> str:
        return f"{self.table_id}-A{number:06d}"

    def was_raised(self, alarm_id: str) -> bool:
        """Whether an alarm of this table went out with ``alarm_id``."""
        _, _, number = alarm_id.rpartition("-A")
        return (number.isascii() and number.isdigit() and 1 <= int(number) <= self.raised
                and alarm_id == self._id(int(number)) and alarm_id not in self.withdrawn)

    def withdraw(self, decisions: Iterable[Decision]) -> None:
        """The alarms of these decisions are not open: they never went out."""
        for decision in decisions:
            if isinstance(decision, RaiseAlarm):
                alarm_id = decision.alarm.alarm_id
                self.open.pop(alarm_id, None)
                self.withdrawn.add(alarm_id)

    def newest(self, count: int) -> tuple[OpenAlarm, ...]:
        """The ``count`` newest open alarms, newest first."""
        return tuple(itertools.islice(reversed(self.open.values()), count))


@dataclass(slots=True, kw_only=True)
class Table:
    """Everything the procedure knows: one value, changed only while an input is handled."""

    variant: Variant
    table_id: str
    betting: bool
    phase: Phase = Phase.NO_SHOE
    #: The holds, the fault and the result waiting (one value, replaced on change).
    holds: Holds = NO_HOLDS
    #: A fault was cleared with no shoe started: the table shows ``shoe_over`` until one is.
    fault_cleared: bool = False
    shoe: Shoe | None = None
    shoes_started: int = 0
    shoe_ids: set[str] = field(default_factory=set)
    #: The round being bet on or dealt.
    round: RoundCards | None = None
    #: The round the display shows: the current one, else the last one to finish.
    shown_round: RoundCards | None = None
    #: Lost frames no entry accounted for when their burn or round ended.
    left_over: int = 0
    #: Shoe items queued behind a hold.
    pending: deque[Item] = field(default_factory=deque)
    #: What the table last showed: prompt event, lamp and hold (the display diffs against them).
    shown_prompt: PromptShown | None = None
    shown_lamp: Lamp = Lamp.OFF
    shown_hold: HoldReason | None = None
    #: The variant without windows, to settle a round on dynamic windows' offer.
    windowless: Variant | None = None
    #: No betting opened and no round dealt while no dealer is signed in.
    require_dealer: bool = False
    #: Who is signed in at the table (staff ids).
    dealer: str | None = None
    supervisor: str | None = None
    disputes_opened: int = 0
    #: Each result waits for ``confirm_result`` before it is published.
    confirm_results: bool = False
    #: While a result waits (``holds.unconfirmed``): it and what was published after it.
    held_back: list[Decision] = field(default_factory=list)
    #: The stake limits in force, and the configuration's last taken (``None``: none yet).
    limits: TableLimits = field(default_factory=TableLimits)
    configured: TableLimits | None = None
    #: Every alarm's id, and the alarms open.
    alarms: AlarmBook = field(init=False)

    def __post_init__(self) -> None:
        self.alarms = AlarmBook(self.table_id)

    @property
    def every_round(self) -> bool:
        """The variant reshuffles before every round (``mini``): no cut card."""
        return self.variant.reshuffle is Reshuffle.EVERY_ROUND

    def no_dealer(self) -> bool:
        """A dealer is required and none is signed in: no round may start."""
        return self.require_dealer and self.dealer is None

    def rounds_stopped(self) -> bool:
        """No round may start: no dealer while one is required, or a result not yet confirmed."""
        return self.no_dealer() or self.holds.unconfirmed is not None

    def hold_reasons(self) -> list[HoldReason]:
        """The holds standing over the phase, most important first (a fault not included)."""
        holds = self.holds
        reasons: list[HoldReason] = []
        if holds.shoe_held and self.phase in HOLDABLE:
            if holds.foreign:
                reasons.append(HoldReason.FOREIGN_CARD)
            if holds.gap_reason is not None:
                reasons.append(holds.gap_reason)
            if holds.reader_offline:
                reasons.append(HoldReason.READER_OFFLINE)
        if holds.stopped:
            if holds.software_modified:
                reasons.append(HoldReason.SOFTWARE_MODIFIED)
            if holds.dispute is not None:
                reasons.append(HoldReason.DISPUTE)
            if holds.result_rejected:
                reasons.append(HoldReason.RESULT_NOT_CONFIRMED)
        return reasons

    def held(self) -> bool:
        """Whether any hold stands over the phase (a fault not included)."""
        holds = self.holds
        return holds.stopped or (holds.shoe_held and self.phase in HOLDABLE)

    def in_play(self) -> Shoe:
        """The shoe; a bug if there is none."""
        if self.shoe is None:
            raise ProcedureBug(f"no shoe in phase {self.phase}")
        return self.shoe

    def current(self) -> RoundCards:
        """The round in play; a bug if there is none."""
        if self.round is None:
            raise ProcedureBug(f"no round in play in phase {self.phase}")
        return self.round

    def pending_cards(self) -> list[Card | None]:
        """The cards queued behind a hold (``None`` for unread ones)."""
        return [
            item if isinstance(item, Card) else None
            for item in self.pending
            if isinstance(item, Card) or item is Mark.MISREAD
        ]

    def close_gap(self) -> None:
        """No card is missing any more."""
        if self.holds.gap or self.holds.gap_reason is not None:
            self.holds = replace(self.holds, gap=0, gap_reason=None)

    def drop_holds(self) -> None:
        """A new or voided shoe: nothing queued, missing, left over or foreign any more."""
        self.pending.clear()
        self.left_over = 0
        holds = self.holds
        if holds.gap or holds.gap_reason is not None or holds.foreign:
            self.holds = replace(holds, gap=0, gap_reason=None, foreign=False)

    def offered(self, current: RoundCards) -> tuple[str, ...]:
        """The bets taken on a round: dynamic windows' offer if made, else its fixed windows."""
        if current.offer is not None:
            return current.offer.offer
        return self.variant.offered_on(current.round_no)

    def bets_offered(self) -> tuple[str, ...]:
        """The bets of the round in play, else of the next one (none once the shoe is over)."""
        shoe = self.shoe
        if shoe is None or self.phase is Phase.SHOE_OVER:
            return ()
        if self.round is not None:
            return self.offered(self.round)
        upcoming = shoe.next_offer
        if upcoming is not None and upcoming.round_no == shoe.round_no + 1:
            return upcoming.offer
        return self.variant.offered_on(shoe.round_no + 1)

    def settlement(self, coup: Coup, round_no: int,
                   offer: frozenset[str] | None) -> dict[str, Fraction | str]:
        """Every bet settled: on the fixed windows, or on the offer dynamic windows made."""
        if offer is None:
            return settle_round(self.variant, coup, round_no)
        if self.windowless is None:
            self.windowless = self.variant.as_virtual()
        settled = settle_round(self.windowless, coup, round_no)
        return {bet: result if bet in offer else NOT_OFFERED for bet, result in settled.items()}


def last_round_id(shoe: Shoe) -> str | None:
    """The id of the shoe's latest round, if it dealt one."""
    return shoe.round_id(shoe.round_no) if shoe.round_no else None


class Out(list[Decision]):
    """The decisions of one input, in order: a list, and the ways the parts add to it.

    A list itself, not a holder of one: one is made for every input (:func:`out_for`).
    ``dealer`` is the dealer signed in (every event carries it; a sign-in during the input
    changes it), ``supervisor`` the supervisor who authorised the input's command, if any.
    While a result waits for its confirmation, the events published go with it
    (``held_back``), so nothing about the shoe goes out before the result. An alarm raised
    takes its id from the table's ``alarms`` and is open from then on.
    """

    __slots__ = ("alarms", "dealer", "held_back", "supervisor")
    dealer: str | None
    supervisor: str | None
    alarms: AlarmBook
    #: While a result waits for its confirmation: where this input's later events go instead.
    held_back: list[Decision] | None

    #: Add one decision.
    add = list.append

    def publish(self, payload: Payload) -> None:
        """Publish ``payload``: now, or with the result that waits for its confirmation."""
        if self.held_back is None:
            self.append(Publish(payload))
        else:
            self.held_back.append(Publish(payload))

    def publish_now(self, payload: Payload) -> None:
        """Publish ``payload`` now, even while a result waits (staff, disputes)."""
        self.append(Publish(payload))

    def alarm(self, shoe: Shoe | None, code: AlarmCode, message: str, *,  # noqa: PLR0913
              round_id: str | None = None, card: Card | Absent | None = ABSENT,
              seen: int | Absent = ABSENT, count: int | Absent = ABSENT,
              details: Mapping[str, object] | None = None) -> None:
        """Raise an alarm about ``shoe`` (and ``round_id`` in it, if given)."""
        shoe_id: str | Absent = ABSENT
        round_no: int | Absent = ABSENT
        named_round: str | Absent = ABSENT
        if shoe is not None:
            shoe_id = shoe.shoe_id
            if round_id is not None:
                round_no, named_round = int(round_id.rsplit("-", 1)[1]), round_id
        alarm_id = self.alarms.next_id()
        self.alarms.open[alarm_id] = OpenAlarm(
            alarm_id=alarm_id, code=code, message=message,
            shoe_id=None if shoe is None else shoe.shoe_id,
            round_id=None if isinstance(named_round, Absent) else named_round)
        self.append(RaiseAlarm(alarm=AlarmRaised(
            shoe_id=shoe_id, round_no=round_no, round_id=named_round, dealer=self.dealer,
            alarm_id=alarm_id, code=code, message=message, card=card, seen=seen, count=count,
            details=details or {})))

    def roads(self, shoe: Shoe) -> None:
        """The shoe's scoreboards, as they stand."""
        board = shoe.board
        beb_banker, small_banker, pig_banker = board.ask_marks(Winner.BANKER)
        beb_player, small_player, pig_player = board.ask_marks(Winner.PLAYER)
        self.publish(Roads(
            shoe_id=shoe.shoe_id, bead_plate=board.published_beads(),
            big_road=board.published_big_road(),
            big_eye_boy=board.published_derived(DerivedRoad.BIG_EYE_BOY),
            small_road=board.published_derived(DerivedRoad.SMALL_ROAD),
            cockroach_pig=board.published_derived(DerivedRoad.COCKROACH_PIG),
            ask_banker=AskMarks(big_eye_boy=beb_banker, small_road=small_banker,
                                cockroach_pig=pig_banker),
            ask_player=AskMarks(big_eye_boy=beb_player, small_road=small_player,
                                cockroach_pig=pig_player),
            stats=board.published_stats(shoe.cards_left)))

    def shoe_ended(self, shoe: Shoe, reason: ShoeEndReason) -> None:
        self.publish(ShoeEnded(shoe_id=shoe.shoe_id, dealer=self.dealer, reason=reason,
                               rounds=shoe.round_no, cards_seen=shoe.cards_seen))

    def last_round_during(self, current: RoundCards) -> None:
        """The cut card came out during ``current``: it is the last round."""
        self.publish(LastRound(shoe_id=current.shoe_id, round_no=current.round_no,
                               round_id=current.round_id, dealer=self.dealer,
                               cut_card=CutCardWhen.DURING_ROUND))

    def last_round_between(self, shoe: Shoe, round_no: int) -> None:
        """The cut card came out after round ``round_no`` (0: before any round)."""
        self.publish(LastRound(shoe_id=shoe.shoe_id, round_no=round_no or None,
                               round_id=shoe.round_id(round_no) if round_no else None,
                               dealer=self.dealer, cut_card=CutCardWhen.BETWEEN_ROUNDS))


def out_for(table: Table) -> Out:
    """An input's decisions, empty, attributed to the dealer signed in and no supervisor yet."""
    out = Out()
    out.dealer = table.dealer
    out.supervisor = None
    out.alarms = table.alarms
    out.held_back = None if table.holds.unconfirmed is None else table.held_back
    return out


def count_out(table: Table, out: Out, shoe: Shoe, card: Card | None) -> bool:
    """Count a card that left the shoe; ``False`` (alarm raised) for a foreign card.

    A foreign card holds the table over the phases a hold can stand over.
    """
    shoe.cards_seen += 1
    return card is None or take(table, out, shoe, card)


def take(table: Table, out: Out, shoe: Shoe, card: Card) -> bool:
    """Account a card already counted out; ``False`` (alarm raised) for a foreign card."""
    if shoe.accounting.take(card):
        return True
    round_id = None if table.round is None else table.round.round_id
    out.alarm(shoe, AlarmCode.FOREIGN_CARD,
              f"{card.code} seen more than {shoe.decks} times: set aside; the shoe must be voided",
              round_id=round_id, card=card, seen=shoe.accounting.count(card) + 1)
    if table.phase in HOLDABLE and not table.holds.foreign:
        table.holds = replace(table.holds, foreign=True)
    return False
