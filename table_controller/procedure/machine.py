# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table procedure: follows the shoe and the dealer from new shoe to shoe end.

Pure: no I/O, no clock, no randomness, no logging. Imports only the standard library and
``table_controller.rules``. Inputs in (:mod:`~table_controller.procedure.events`), decisions
out (:mod:`~table_controller.procedure.decisions`); the same inputs always give the same
decisions, so replaying a journal rebuilds the state.

Theory of operation
===================

Phases and edges are data (:data:`~table_controller.procedure.states.TRANSITIONS`): the machine
moves only along a listed edge, a command with no edge out of the current phase is refused
(``wrong_phase``), and ``docs/state-diagram.md`` is drawn from the same table.

**The shoe as a stream of items.** Cards, misreads, the cut card and lost frames are handled
in the order the shoe reported them. While the table is *held* they are queued, untouched, and
handled in order once the last hold clears: a dealer who deals on past a misread loses nothing,
the cards after it fall into place once the supervisor has entered the missing one.

**Holds** stand over the phases that expect cards or bets (``HOLDABLE``) and show as ``HELD``:

- *reader offline*: from ``ReaderWentOffline`` to ``ReaderCameBack``;
- *a missing card* (``misread``, ``lost_frames``): a card left the shoe unread, or the link lost
  frames that may have been cards, while the burn or a round needed it. The hold lasts until a
  supervisor enters each missing card (``manual_card``, recorded as a manual entry), or voids
  the round (``void_round``, ``misdeal``, ``dropped_card`` unread) or the shoe. It also ends
  when the burn or the coup completes with fewer entries, or when the round is voided. Lost
  frames still unaccounted for are then *left over* (alarm ``lost_frames_left_over``, state
  ``unresolved_lost_frames``): they may have been heartbeats, or cards the dealer drew after
  the coup was complete. Until the next round starts (or a new shoe), a ``manual_card`` enters
  such a card: it is counted out of the shoe and discarded (``unnecessary_card``), so the
  shoe's count stays exact. The core never guesses a card (shoe-protocol.md "Delivery").
- *foreign card*: a card seen more often than the decks hold it (procedure 9). The card is
  set aside, never played, and only ``void_shoe`` clears the hold: the shoe is not to be
  trusted. A ``manual_card`` or ``correct_result`` that would make a foreign card is refused.

While held, only commands that clear a hold or touch settled rounds are taken
(``COMMANDS_WHILE_HELD``); the rest are refused with ``table_held``.

**Procedures of game-rules.md section 5**, and the decisions made where the spec is silent:

1. *New shoe and burn*: the first card is turned face up, ``burn N`` is announced
   (T/J/Q/K = 10), N more cards are counted out, all recorded as seen; a burn card the reader
   could not read still counts, except the face-up one, which must be entered by hand. ``mini``
   burns nothing. A shoe id not given is numbered ``<table_id>-S0001``, ``-S0002``... from a
   counter; a shoe id may not be used twice by one table, so round ids stay unique.
2. *Cut card*: during a round (after its first card) that round completes and is the last;
   anywhere else (burn, between rounds, betting, before the round's first card) the next
   round does not commence and the shoe ends at once; a round open for betting is voided
   (``after_last_round``: its bets are returned). ``last_round`` names the round that is the
   last (``null`` when none was dealt). The first card after the last round opens an invalid
   round: it is numbered, voided (``after_last_round``) and reported at once; every further
   card raises ``card_after_last_round`` against that same round. A cut card on ``mini`` (no
   cut card) or a second one raises ``unexpected_cut_card``.
3. *Exposed card*: a card while betting is open voids the round (``exposed_card``) and the
   next round gets a new betting period (a new round number: the voided round counts).
4. *Unnecessary card*: with a betting phase, a card after a result and before ``open_betting``
   (or after the burn and before round 1's betting) changes nothing: alarm, card discarded.
   Without a betting phase the next card after a result starts the next round.
5. *Misread*: holds the round as above; voiding a round held by a misread gives the reason
   ``misread``.
6. *Dropped card*: ``dropped_card`` read: the card is reused, nothing changes; unread: the
   round is voided (``dropped_card``) and the shoe resumes.
7. *Misdeal and corrections*: ``misdeal`` voids the round being dealt. A settled round of the
   current shoe can be voided (``supervisor``) or corrected (``result_corrected`` with a new
   settlement, naming the original and its ``correction_no``); history is never rewritten in
   place. Scoreboards are rebuilt from the rounds that stand and published again.
8. *Void shoe*: any time while a shoe exists; the round in play is voided (``shoe_voided``),
   queued cards are discarded, and the shoe is over.
9. *Card accounting*: see *foreign card* above; cards are accounted since the last shuffle.
10. *Reshuffle every round* (``mini``): accounting starts afresh when each round starts; round
    numbers go on counting until the next ``new_shoe``, which ``mini`` takes between rounds
    too (the old shoe then ends with reason ``new_shoe``).

**Round numbers** are taken when a round starts: at ``open_betting``, or (with no betting
phase) at ``deal`` or the round's first card. Every round that started counts, voided ones
included (game-rules.md section 4). Settlement uses the round number for the side-bet windows.

**Prompts and lamp**: ``burn`` (no count until the face-up card is read) with the lamp PLAYER
for every burn card; ``open_betting`` with the lamp OFF between rounds and while bets are
taken; ``deal``, ``player_draws``, ``banker_draws`` with the lamp on the hand that gets the
next card; ``result`` with STAND until the next round starts; ``shoe_over`` with OFF. A hold
shows ``hold`` with its reason and the lamp HOLD. Prompts and lamp are emitted once per input,
only when they changed. A new shoe also publishes its empty scoreboards.

**Timers**: the core sets none; a ``TimerFired`` is accepted and changes nothing.

**Faults**: any exception inside :meth:`TableProcedure.handle` becomes
:class:`~table_controller.procedure.errors.ProcedureBug` (carrying the hold and alarm the
runtime must still carry out); the runtime reports a failure of its own while carrying out an
input with :meth:`TableProcedure.fault`, or, for what it does between inputs (a virtual
table's draw), with a journaled ``RuntimeFailed``. Either way the machine is ``FAULTED``: the
table is held (``procedure_fault``, lamp HOLD) with an alarm naming the input (``journal row
42 (card 5H) could not be carried out: ...``), shoe inputs change nothing, and every command
but ``void_shoe`` is refused (``faulted``). A supervisor's ``void_shoe`` is the way out: the
shoe (if any) and its round in play are voided, whatever the fault left half done is dropped,
and the table waits for ``new_shoe``. Being an input, it replays like any other, so a journal
that faults replays to the same fault and out of it again: no journal keeps the table down.
"""

from __future__ import annotations

import enum
from collections import deque
from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import assert_never

from table_controller.procedure.codes import AlarmCode, HoldReason, RefusalCode, VoidReason
from table_controller.procedure.decisions import (
    Announce,
    CommandAccepted,
    CommandRefused,
    Decision,
    HoldTable,
    Prompt,
    Publish,
    RaiseAlarm,
    ResumeTable,
    SetLamp,
)
from table_controller.procedure.errors import ProcedureBug
from table_controller.procedure.events import (
    COMMANDS,
    CardDrawn,
    CardMisread,
    CloseBetting,
    Command,
    CorrectResult,
    CutCardDrawn,
    Deal,
    DroppedCard,
    EnterCard,
    FramesLost,
    Input,
    Misdeal,
    OpenBetting,
    ReaderCameBack,
    ReaderWentOffline,
    RoundAssessed,
    RuntimeFailed,
    StartNewShoe,
    VoidRound,
    VoidShoe,
    not_carried_out,
)
from table_controller.procedure.payloads import (
    ABSENT,
    Absent,
    AlarmRaised,
    AskMarks,
    BettingClosed,
    BettingOpened,
    BurnAnnounced,
    CardPlaced,
    CardsOnTable,
    CutCardWhen,
    Lamp,
    LastRound,
    OriginalResult,
    Payload,
    PromptAction,
    PromptShown,
    ResultCorrected,
    Roads,
    RoundSettled,
    RoundVoided,
    ShoeEnded,
    ShoeEndReason,
    ShoeStarted,
    ShoeVoided,
    SuspendedBet,
    TableSnapshot,
    TableState,
)
from table_controller.procedure.records import prompt_fields, result_of
from table_controller.procedure.round import OPENING_CARDS, RoundCards, RoundOffer
from table_controller.procedure.shoe import Burn, CardAccounting, SettledRound, Shoe
from table_controller.procedure.states import (
    COMMANDS_WHILE_HELD,
    HOLDABLE,
    Phase,
    Trigger,
    accepts,
    is_edge,
)
from table_controller.rules.cards import Card
from table_controller.rules.roads import RoadEntry
from table_controller.rules.tableau import Coup, Hand
from table_controller.rules.variants import (
    MAX_ROUND,
    NOT_OFFERED,
    Reshuffle,
    Variant,
    settle_round,
)

#: Longest shoe id taken (it is part of every round id and of topics' payloads).
MAX_SHOE_ID_LENGTH = 64
#: Phases that wait for cards (the burn, a round in play): a misread card or a lost frame
#: there leaves a card missing.
_GAP_PHASES = frozenset({Phase.BURN_CARD, Phase.BURNING, Phase.DEALING})


class _Mark(enum.Enum):
    MISREAD = "misread"
    CUT = "cut"


@dataclass(frozen=True, slots=True)
class _Lost:
    count: int


_Item = Card | _Mark | _Lost
_TRIGGERS: dict[str, Trigger] = {trigger.value: trigger for trigger in Trigger}
_BETTING_COMMANDS = (OpenBetting, CloseBetting)
_COMMAND_TYPES = tuple(COMMANDS.values())
#: One decision per lamp, made once: decisions are immutable values, so they can be shared.
_SET_LAMP: dict[Lamp, SetLamp] = {lamp: SetLamp(lamp=lamp) for lamp in Lamp}
_Refusal = tuple[RefusalCode, str]
#: Fields every alarm sets itself: an assessment's details may not override them.
_ALARM_OWN_FIELDS = frozenset({"type", "code", "message", "shoe_id", "round_no", "round_id"})


@dataclass(frozen=True, slots=True, kw_only=True)
class ShoeCount:
    """The cards out of the shoe in play since its last shuffle, and where the shoe is."""

    shoe_id: str
    decks: int
    #: The number the next round will take.
    next_round_no: int
    #: No round is being bet on or dealt, and the shoe goes on: the next round's offer is open.
    between_rounds: bool
    #: Each card seen, with how often.
    seen: tuple[tuple[Card, int], ...]
    #: Cards that left unread (misreads, lost frames counted as cards).
    unread: int


class TableProcedure:
    """The table's procedure: one instance per table, fed every input in order."""

    def __init__(self, variant: Variant, *, table_id: str, betting_phase: bool = True) -> None:
        self._variant = variant
        self._table_id = table_id
        self._betting = betting_phase
        self._every_round = variant.reshuffle is Reshuffle.EVERY_ROUND
        self._phase = Phase.NO_SHOE
        self._fault: str | None = None
        self._shoe: Shoe | None = None
        self._shoes_started = 0
        self._shoe_ids: set[str] = set()
        #: The round being bet on or dealt.
        self._round: RoundCards | None = None
        #: The round the display shows: the current one, else the last one to finish.
        self._shown_round: RoundCards | None = None
        self._reader_online = True
        self._foreign = False
        #: Cards missing at the head of the stream, and why.
        self._gap = 0
        self._gap_reason: HoldReason | None = None
        #: Lost frames no entry accounted for when their burn or round ended (see module).
        self._left_over = 0
        self._pending: deque[_Item] = deque()
        self._prompt: Prompt | None = None
        self._lamp = Lamp.OFF
        self._shown_prompt: Prompt | None = None
        self._shown_lamp = Lamp.OFF
        self._shown_hold: HoldReason | None = None
        self._trigger = Trigger.CARD
        self._out: list[Decision] = []
        self._round_prompts: dict[tuple[PromptAction, int], Prompt] = {}
        #: The variant without windows, to settle a round on dynamic windows' offer.
        self._windowless: Variant | None = None

    # --- public ---------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The phase shown: ``HELD`` while a hold stands, ``FAULTED`` after a bug."""
        if self._fault is not None:
            return Phase.FAULTED
        return Phase.HELD if self._holds() else self._phase

    @property
    def variant(self) -> Variant:
        return self._variant

    @property
    def expects_card(self) -> bool:
        """Whether the burn or the round in play waits for its next card, and nothing holds it.

        A virtual table draws while this holds. Between rounds no card is expected: a round
        starts with ``close_betting`` or, without a betting phase, ``deal`` (a reader table's
        dealer may start one with a card instead).
        """
        return self._fault is None and self._phase in _GAP_PHASES and not self._held()

    def handle(self, event: Input, *, origin: str | None = None) -> list[Decision]:
        """Take one input; return what the adapters must do, in order.

        Args:
            event: the input.
            origin: where the input comes from (``journal row 42``), for a fault's alarm.

        Raises:
            ProcedureBug: the core broke an invariant; it is now ``FAULTED``, and the bug's
                ``decisions`` hold the table and raise the alarm.
        """
        self._out = []
        try:
            if self._fault is None:
                self._dispatch(event)
                if self._pending and self._fault is None:
                    self._show_hold()  # a hold that cleared is resumed before the queue plays
                    self._drain()
            else:
                self._while_faulted(event)
            if self._fault is None:
                self._show_hold()
                self._show_display()
        except Exception as error:
            text = f"{type(error).__name__}: {error}"
            raise ProcedureBug(text, self.fault(event, origin=origin, error=text)) from error
        return self._out

    def fault(self, event: Input | None, *, origin: str | None, error: str) -> list[Decision]:
        """``event`` could not be carried out: the machine faults as after a bug in it.

        For the runtime, when carrying out an input failed outside the procedure (``event``
        None: a journal row that is no input). The table is held (``procedure_fault``) with an
        alarm naming the input, a command is refused, and only ``void_shoe`` is taken until a
        supervisor gives it. Failures while already faulted raise an alarm each.
        """
        if self._fault is None:
            self._fault = error
        self._out = []
        if isinstance(event, _COMMAND_TYPES):
            self._refuse_faulted(event)
        self._show_fault(not_carried_out(event, origin=origin, error=error))
        return self._out

    def snapshot(self) -> TableSnapshot:
        """Where the table is now: the ``<root>/state`` payload and what follows from it."""
        shoe = self._shoe
        shown = self._shown_round
        holds = (HoldReason.PROCEDURE_FAULT,) if self._fault is not None else tuple(self._holds())
        state = TableState(
            variant=self._variant.name,
            betting_phase=self._betting,
            shoe_id=None if shoe is None else shoe.shoe_id,
            round_no=None if shown is None else shown.round_no,
            round_id=None if shown is None else shown.round_id,
            phase=self.phase,
            # A fault stands over no phase: only its own void_shoe edges leave it.
            held_in=self._phase if holds and self._fault is None else None,
            prompt=None if self._shown_prompt is None else prompt_fields(self._shown_prompt),
            lamp=self._shown_lamp,
            cards=CardsOnTable(
                player=() if shown is None else tuple(shown.player),
                banker=() if shown is None else tuple(shown.banker),
            ),
            last_round=shoe is not None and shoe.cut_card_out,
            cards_seen=0 if shoe is None else shoe.cards_seen,
            cards_left=None if shoe is None else shoe.cards_left,
            bets_offered=self._bets_offered(),
            hold_reason=holds[0] if holds else None,
            holds=holds,
            missing_cards=self._gap,
            unresolved_lost_frames=self._left_over,
            queued_inputs=len(self._pending),
        )
        burned = None
        if shoe is not None and self._phase is Phase.BURNING:
            burned = len(shoe.burn.cards)
        return TableSnapshot(state=state, card_wanted=self.expects_card, burned=burned)

    def shoe_count(self) -> ShoeCount | None:
        """What left the shoe since its last shuffle, while a shoe is in play (for the odds)."""
        shoe = self._shoe
        if shoe is None or shoe.ended or self._fault is not None:
            return None
        seen = shoe.accounting.seen()
        return ShoeCount(
            shoe_id=shoe.shoe_id,
            decks=shoe.decks,
            next_round_no=shoe.round_no + 1,
            between_rounds=self._round is None and self._phase is Phase.BETWEEN_ROUNDS,
            seen=seen,
            unread=shoe.cards_seen - sum(n for _, n in seen),
        )

    # --- dispatch ---------------------------------------------------------------------------

    def _dispatch(self, event: Input) -> None:
        match event:
            case CardDrawn(card=card):
                self._receive(card)
            case CardMisread():
                self._receive(_Mark.MISREAD)
            case CutCardDrawn():
                self._receive(_Mark.CUT)
            case FramesLost(count=count):
                if count < 1:
                    raise ProcedureBug(f"FramesLost with count {count}: nothing was lost")
                self._receive(_Lost(count))
            case ReaderWentOffline() | ReaderCameBack() | RoundAssessed():
                self._outside_the_stream(event)
            case RuntimeFailed(message=message):
                self._fault = message
                self._show_fault(message)
            case (StartNewShoe() | OpenBetting() | CloseBetting() | Deal() | Misdeal()
                  | VoidRound() | VoidShoe() | EnterCard() | CorrectResult() | DroppedCard()):
                self._command(event)
            case _:
                assert_never(event)

    def _outside_the_stream(
        self, event: ReaderWentOffline | ReaderCameBack | RoundAssessed
    ) -> None:
        """Inputs that are neither the shoe's items nor commands: taken at once, even held."""
        match event:
            case ReaderWentOffline():
                self._reader_online = False
                self._alarm(AlarmCode.READER_OFFLINE, "the card reader is offline")
            case ReaderCameBack():
                self._reader_online = True
            case RoundAssessed():
                self._assessed(event)
            case _:
                assert_never(event)

    def _receive(self, item: _Item) -> None:
        if self._held():
            self._pending.append(item)
        else:
            self._process(item)

    def _drain(self) -> None:
        while self._pending and not self._held():
            self._process(self._pending.popleft())

    def _process(self, item: _Item) -> None:
        if isinstance(item, Card):
            self._trigger = Trigger.CARD
            self._on_card(item, manual=False, seen_already=False)
        elif item is _Mark.MISREAD:
            self._trigger = Trigger.MISREAD
            self._on_card(None, manual=False, seen_already=False)
        elif item is _Mark.CUT:
            self._trigger = Trigger.CUT_CARD
            self._on_cut()
        else:
            self._trigger = Trigger.FRAMES_LOST
            self._on_lost(item.count)

    # --- the shoe ---------------------------------------------------------------------------

    def _on_card(self, card: Card | None, *, manual: bool, seen_already: bool) -> None:
        """A card (``None``: unreadable) out of the shoe, or entered by hand for a missing one."""
        shoe = self._shoe
        if shoe is None:
            self._alarm(AlarmCode.CARD_WITHOUT_SHOE, "a card came out before any new_shoe",
                        card=card)
            return
        if self._phase is Phase.BETWEEN_ROUNDS and not self._betting:
            self._start_round(shoe)
            self._goto(Phase.DEALING)
        if not seen_already:
            shoe.cards_seen += 1
        if card is not None and not shoe.accounting.take(card):
            self._foreign_card(shoe, card)
            return
        self._card_in_phase(shoe, card, manual=manual)

    def _card_in_phase(self, shoe: Shoe, card: Card | None, *, manual: bool) -> None:
        match self._phase:
            case Phase.DEALING:  # first: where nearly every card goes
                if card is None:
                    self._alarm(AlarmCode.MISREAD,
                                "a card came out unread: enter it by hand or void the round",
                                round_id=self._current().round_id)
                    self._open_gap(1, HoldReason.MISREAD)
                else:
                    self._deal(shoe, card, manual=manual)
            case Phase.BURN_CARD:
                self._burn_first(shoe, card)
            case Phase.BURNING:
                shoe.burn.cards.append(card)
                if shoe.burn.done:
                    self._finish_burn(shoe)
            case Phase.BETWEEN_ROUNDS:
                self._alarm(AlarmCode.UNNECESSARY_CARD,
                            "a card came out between rounds; it is discarded, the result stands",
                            round_id=self._last_round_id(shoe), card=card)
            case Phase.BETTING:
                self._exposed(card)
            case Phase.SHOE_OVER:
                self._after_last_round(shoe, card)
            case _:
                raise ProcedureBug(f"a card in phase {self._phase}")

    def _foreign_card(self, shoe: Shoe, card: Card) -> None:
        round_id = None if self._round is None else self._round.round_id
        self._alarm(
            AlarmCode.FOREIGN_CARD,
            f"{card.code} seen more than {shoe.decks} times: set aside; the shoe must be voided",
            round_id=round_id, card=card, seen=shoe.accounting.count(card) + 1,
        )
        if self._phase in HOLDABLE:
            self._foreign = True

    def _burn_first(self, shoe: Shoe, card: Card | None) -> None:
        if card is None:
            self._alarm(AlarmCode.MISREAD, "the face-up burn card was not read: enter it by hand")
            self._open_gap(1, HoldReason.MISREAD)
            return
        shoe.burn.first_card = card
        shoe.burn.count = card.burn_count
        self._publish(BurnAnnounced(shoe_id=shoe.shoe_id, first_card=card,
                                    count=card.burn_count, done=False))
        self._set_display(Prompt(action=PromptAction.BURN, count=card.burn_count), Lamp.PLAYER)
        self._goto(Phase.BURNING)

    def _finish_burn(self, shoe: Shoe) -> None:
        burn = shoe.burn
        if burn.first_card is None or burn.count is None:
            raise ProcedureBug("a burn finished before its first card was read")
        self._publish(BurnAnnounced(shoe_id=shoe.shoe_id, first_card=burn.first_card,
                                    count=burn.count, done=True, cards=tuple(burn.cards)))
        self._goto(Phase.BETWEEN_ROUNDS)
        self._display_between_rounds(shoe)

    def _exposed(self, card: Card | None) -> None:
        current = self._current()
        self._alarm(AlarmCode.EXPOSED_CARD, "a card came out while bets were taken: round voided",
                    round_id=current.round_id, card=card)
        self._void_current(VoidReason.EXPOSED_CARD, operator=None, extra=[card],
                           take_pending=False)

    def _deal(self, shoe: Shoe, card: Card, *, manual: bool) -> None:
        current = self._current()
        hand, position = current.place(card, manual=manual)
        self._publish(CardPlaced(shoe_id=current.shoe_id, round_no=current.round_no,
                                 round_id=current.round_id, card=card, hand=hand,
                                 position=position, manual=manual))
        expected = current.expected()
        if expected is None:
            self._settle(shoe, current)
            return
        if len(current.cards) < OPENING_CARDS:
            action = PromptAction.DEAL
        elif expected is Hand.PLAYER:
            action = PromptAction.PLAYER_DRAWS
        else:
            action = PromptAction.BANKER_DRAWS
        lamp = Lamp.PLAYER if expected is Hand.PLAYER else Lamp.BANKER
        shown = self._prompt
        if shown is None or shown.action is not action or shown.round_no != current.round_no:
            shown = self._round_prompt(action, current.round_no)
        self._set_display(shown, lamp)

    def _settle(self, shoe: Shoe, current: RoundCards) -> None:
        coup = current.coup()
        offer = None if current.offer is None else frozenset(current.offer.offer)
        settlement = self._settlement(coup, current.round_no, offer)
        last = current.last_round
        shoe.settled[current.round_no] = SettledRound(
            round_no=current.round_no, round_id=current.round_id, cards=tuple(current.cards),
            coup=coup, settlement=settlement, last_round=last, manual_cards=tuple(current.manual),
            offer=offer,
        )
        self._publish(RoundSettled(shoe_id=current.shoe_id, round_no=current.round_no,
                                   round_id=current.round_id, result=result_of(coup, settlement),
                                   last_round=last, manual_cards=tuple(current.manual)))
        shoe.board.record(RoadEntry.from_coup(coup))
        self._publish_roads(shoe)
        self._round = None
        if last:
            self._end_shoe(shoe, reason=ShoeEndReason.CUT_CARD)
        else:
            self._goto(Phase.BETWEEN_ROUNDS)
            self._set_display(self._round_prompt(PromptAction.RESULT, current.round_no),
                              Lamp.STAND)

    def _after_last_round(self, shoe: Shoe, card: Card | None) -> None:
        if shoe.invalid_round_no is None:
            shoe.round_no += 1
            shoe.invalid_round_no = shoe.round_no
            shoe.voided_rounds.add(shoe.round_no)
            round_id = shoe.round_id(shoe.round_no)
            self._alarm(AlarmCode.CARD_AFTER_LAST_ROUND,
                        "a card came out after the last round: invalid round voided",
                        round_id=round_id, card=card)
            self._publish(RoundVoided(shoe_id=shoe.shoe_id, round_no=shoe.round_no,
                                      round_id=round_id, reason=VoidReason.AFTER_LAST_ROUND,
                                      cards=(card,), was_settled=False, operator=None))
        else:
            self._alarm(AlarmCode.CARD_AFTER_LAST_ROUND,
                        "another card came out after the last round",
                        round_id=shoe.round_id(shoe.invalid_round_no), card=card)

    def _on_cut(self) -> None:
        shoe = self._shoe
        if shoe is None or self._every_round or shoe.cut_card_out:
            why = ("no shoe was started" if shoe is None
                   else "this variant has no cut card" if self._every_round
                   else "the cut card already came out")
            self._alarm(AlarmCode.UNEXPECTED_CUT_CARD, f"a cut card came out, but {why}")
            return
        shoe.cut_card_out = True
        current = self._round
        match self._phase:
            case Phase.SHOE_OVER:
                pass  # a voided shoe's cut card: nothing depends on it any more
            case Phase.DEALING if current is not None and current.cards:
                current.last_round = True
                self._publish_last_round_during(current)
            case Phase.BURN_CARD | Phase.BURNING | Phase.BETWEEN_ROUNDS:
                self._publish_last_round_between(shoe, shoe.round_no)
                self._end_shoe(shoe, reason=ShoeEndReason.CUT_CARD)
            case Phase.BETTING | Phase.DEALING:
                self._publish_last_round_between(shoe, self._current().round_no - 1)
                self._void_current(VoidReason.AFTER_LAST_ROUND, operator=None,
                                   take_pending=False)
            case _:
                raise ProcedureBug(f"a cut card in phase {self._phase}")

    def _publish_last_round_during(self, current: RoundCards) -> None:
        self._publish(LastRound(shoe_id=current.shoe_id, round_no=current.round_no,
                                round_id=current.round_id, cut_card=CutCardWhen.DURING_ROUND))

    def _publish_last_round_between(self, shoe: Shoe, round_no: int) -> None:
        self._publish(LastRound(shoe_id=shoe.shoe_id, round_no=round_no or None,
                                round_id=shoe.round_id(round_no) if round_no else None,
                                cut_card=CutCardWhen.BETWEEN_ROUNDS))

    def _on_lost(self, count: int) -> None:
        shoe = self._shoe
        round_id = None if self._round is None else self._round.round_id
        self._alarm(AlarmCode.LOST_FRAMES, f"{count} frame(s) from the shoe were lost",
                    round_id=round_id, count=count)
        if shoe is None:
            return
        if self._phase is Phase.BETWEEN_ROUNDS and not self._betting:
            self._start_round(shoe)
            self._goto(Phase.DEALING)
        if self._phase in _GAP_PHASES:
            self._open_gap(count, HoldReason.LOST_FRAMES)

    def _open_gap(self, count: int, reason: HoldReason) -> None:
        self._gap = count
        self._gap_reason = reason

    def _close_gap(self) -> None:
        self._gap = 0
        self._gap_reason = None

    def _end_gap(self, round_id: str | None) -> None:
        """The burn or round that needed the missing cards ended: lost frames are left over."""
        if self._gap_reason is HoldReason.LOST_FRAMES and self._gap and self._shoe is not None:
            self._left_over += self._gap
            self._alarm(
                AlarmCode.LOST_FRAMES_LEFT_OVER,
                f"{self._gap} lost frame(s) not needed by {round_id or 'the burn'}: if the dealer "
                "drew a card for one, enter it (manual_card) before the next round",
                round_id=round_id, count=self._gap,
            )
        self._close_gap()

    def _enter_left_over(self, shoe: Shoe, card: Card) -> None:
        """A card drawn for a left-over lost frame: out of the shoe, and discarded."""
        self._left_over -= 1
        shoe.cards_seen += 1
        shoe.accounting.take(card)
        self._alarm(AlarmCode.UNNECESSARY_CARD,
                    "a card drawn for a lost frame, entered by hand: counted and discarded",
                    round_id=self._last_round_id(shoe), card=card)

    # --- commands ----------------------------------------------------------------------------

    def _command(self, command: Command) -> None:
        trigger = _TRIGGERS[command.COMMAND]
        refusal = self._precheck(command, trigger)
        if refusal is None:
            mark = len(self._out)
            self._trigger = trigger
            refusal = self._carry_out(command)
            if refusal is None:
                self._out.insert(mark, CommandAccepted(command_id=command.command_id,
                                                       command=command.COMMAND))
                return
            if len(self._out) != mark:
                raise ProcedureBug(f"{command.COMMAND} refused after it acted")
        code, message = refusal
        self._out.append(CommandRefused(command_id=command.command_id, command=command.COMMAND,
                                        phase=self.phase.value, code=code, message=message))

    def _precheck(self, command: Command, trigger: Trigger) -> _Refusal | None:
        if isinstance(command, _BETTING_COMMANDS) and not self._betting:
            return RefusalCode.NO_BETTING_PHASE, "this table has no betting phase"
        if isinstance(command, Deal) and self._betting:
            return RefusalCode.BETTING_PHASE, "on this table, closing the betting deals the round"
        if self._held() and trigger not in COMMANDS_WHILE_HELD:
            return RefusalCode.TABLE_HELD, f"the table is held ({self._holds()[0]})"
        if not accepts(self._phase, trigger):
            return RefusalCode.WRONG_PHASE, f"{command.COMMAND} is not taken in {self._phase}"
        return None

    def _carry_out(self, command: Command) -> _Refusal | None:  # noqa: C901, PLR0912
        # One case per command, closed by assert_never (STYLE.md section 1).
        shoe = self._shoe
        if isinstance(command, StartNewShoe):
            return self._new_shoe(command)
        if shoe is None:
            raise ProcedureBug(f"{command.COMMAND} accepted with no shoe")
        match command:
            case OpenBetting():
                self._start_round(shoe)
                current = self._current()
                suspended = () if current.offer is None else current.offer.suspended
                self._publish(BettingOpened(
                    shoe_id=current.shoe_id, round_no=current.round_no, round_id=current.round_id,
                    bets_offered=self._offered(current),
                    bets_suspended=tuple(SuspendedBet(bet=bet, house_edge=edge)
                                         for bet, edge in suspended)))
                self._goto(Phase.BETTING)
                self._set_display(self._round_prompt(PromptAction.OPEN_BETTING,
                                                     current.round_no), Lamp.OFF)
            case CloseBetting():
                current = self._current()
                self._publish(BettingClosed(shoe_id=current.shoe_id, round_no=current.round_no,
                                            round_id=current.round_id))
                self._goto(Phase.DEALING)
                self._set_display(self._round_prompt(PromptAction.DEAL, current.round_no),
                                  Lamp.PLAYER)
            case Deal():
                self._start_round(shoe)
                self._goto(Phase.DEALING)
                self._set_display(Prompt(action=PromptAction.DEAL,
                                         round_no=self._current().round_no), Lamp.PLAYER)
            case Misdeal():
                self._void_current(VoidReason.MISDEAL, operator=command.operator)
            case DroppedCard(read=read):
                if not read:
                    self._void_current(VoidReason.DROPPED_CARD, operator=command.operator)
            case VoidRound():
                return self._void_round(shoe, command)
            case VoidShoe():
                return self._void_shoe(shoe, command)
            case EnterCard(card=card):
                return self._enter_card(shoe, card)
            case CorrectResult():
                return self._correct(shoe, command)
            case StartNewShoe():
                raise ProcedureBug("new_shoe reached the match")
            case _:
                assert_never(command)
        return None

    def _new_shoe(self, command: StartNewShoe) -> _Refusal | None:
        old = self._shoe
        if self._phase is Phase.BETWEEN_ROUNDS and not self._every_round:
            return RefusalCode.WRONG_PHASE, "this shoe is not over: wait for its end or void it"
        shoe_id = command.shoe_id
        if shoe_id is None:
            number = self._shoes_started + 1
            while f"{self._table_id}-S{number:04d}" in self._shoe_ids:
                number += 1
            shoe_id = f"{self._table_id}-S{number:04d}"
        elif (not shoe_id or len(shoe_id) > MAX_SHOE_ID_LENGTH
              or any(char.isspace() or not char.isprintable() for char in shoe_id)):
            return (RefusalCode.INVALID_SHOE_ID,
                    f"a shoe id is 1 to {MAX_SHOE_ID_LENGTH} printable characters without blanks")
        elif shoe_id in self._shoe_ids:
            return RefusalCode.INVALID_SHOE_ID, f"shoe id {shoe_id!r} was used already"
        if old is not None and self._phase is Phase.BETWEEN_ROUNDS:
            self._publish(ShoeEnded(shoe_id=old.shoe_id, reason=ShoeEndReason.NEW_SHOE,
                                    rounds=old.round_no, cards_seen=old.cards_seen))
        self._shoes_started += 1
        self._shoe_ids.add(shoe_id)
        decks = self._variant.decks
        shoe = Shoe(shoe_id=shoe_id, decks=decks, accounting=CardAccounting(decks), burn=Burn())
        self._shoe = shoe
        self._round = None
        self._shown_round = None
        self._foreign = False
        self._close_gap()
        self._left_over = 0
        self._pending.clear()
        self._publish(ShoeStarted(shoe_id=shoe_id, variant=self._variant.name, decks=decks,
                                  burn=self._variant.burn, reshuffle=self._variant.reshuffle,
                                  betting_phase=self._betting, operator=command.operator))
        self._publish_roads(shoe)
        if self._variant.burn:
            self._goto(Phase.BURN_CARD)
            self._set_display(Prompt(action=PromptAction.BURN), Lamp.PLAYER)
        else:
            self._goto(Phase.BETWEEN_ROUNDS)
            self._display_between_rounds(shoe)
        return None

    def _void_round(self, shoe: Shoe, command: VoidRound) -> _Refusal | None:
        current = self._round
        if current is not None and command.round_id == current.round_id:
            misread = self._gap_reason is HoldReason.MISREAD
            reason = VoidReason.MISREAD if misread else VoidReason.SUPERVISOR
            self._void_current(reason, operator=command.operator)
            return None
        record = next((r for r in shoe.settled.values() if r.round_id == command.round_id), None)
        if record is None or record.voided:
            voided = any(shoe.round_id(no) == command.round_id for no in shoe.voided_rounds)
            if voided:
                return RefusalCode.ALREADY_VOIDED, f"round {command.round_id} is already voided"
            where = f"neither in play nor settled in shoe {shoe.shoe_id}"
            return RefusalCode.UNKNOWN_ROUND, f"round {command.round_id} is {where}"
        record.voided = True
        shoe.voided_rounds.add(record.round_no)
        self._publish(RoundVoided(shoe_id=shoe.shoe_id, round_no=record.round_no,
                                  round_id=record.round_id, reason=VoidReason.SUPERVISOR,
                                  cards=tuple(record.cards), was_settled=True,
                                  operator=command.operator))
        shoe.rebuild_board()
        self._publish_roads(shoe)
        return None

    def _void_shoe(self, shoe: Shoe, command: VoidShoe) -> _Refusal | None:
        if shoe.voided:
            return RefusalCode.ALREADY_VOIDED, f"shoe {shoe.shoe_id} is already voided"
        voided: list[str] = []
        discarded: list[Card | None] = []
        if self._round is not None:
            voided.append(self._round.round_id)
            self._discard_current(VoidReason.SHOE_VOIDED, operator=command.operator)
        else:
            discarded = self._pending_cards()
        self._pending.clear()
        self._close_gap()
        self._left_over = 0
        self._foreign = False
        shoe.voided = True
        self._publish(ShoeVoided(shoe_id=shoe.shoe_id, rounds_voided=tuple(voided),
                                 cards_discarded=tuple(discarded), operator=command.operator))
        if self._phase is not Phase.SHOE_OVER:
            shoe.ended = True
            self._goto(Phase.SHOE_OVER)
            self._set_display(Prompt(action=PromptAction.SHOE_OVER), Lamp.OFF)
        return None

    def _enter_card(self, shoe: Shoe, card: Card) -> _Refusal | None:
        if self._gap == 0 and self._left_over == 0:
            return RefusalCode.NO_CARD_MISSING, "no card is missing"
        if not shoe.accounting.admits(card):
            return (RefusalCode.FOREIGN_CARD,
                    f"{card.code} has already been seen {shoe.decks} times in this shoe")
        if self._gap == 0:
            self._enter_left_over(shoe, card)
            return None
        reason = self._gap_reason
        self._gap -= 1
        if self._gap == 0:
            self._gap_reason = None
        self._on_card(card, manual=True, seen_already=reason is HoldReason.MISREAD)
        return None

    def _correct(self, shoe: Shoe, command: CorrectResult) -> _Refusal | None:
        record = next((r for r in shoe.settled.values() if r.round_id == command.round_id), None)
        if record is None:
            return RefusalCode.UNKNOWN_ROUND, f"round {command.round_id} has no result to correct"
        if record.voided:
            return RefusalCode.ALREADY_VOIDED, f"round {command.round_id} is voided"
        dealt = _dealing_order(command.player, command.banker)
        if dealt is None:
            return (RefusalCode.INVALID_COUP,
                    "the drawing rules could not have dealt these hands")
        if dealt == record.cards:
            return RefusalCode.UNCHANGED, "the round already has these cards"
        if not self._every_round:
            refusal = _recount(shoe.accounting, old=record.cards, new=dealt, decks=shoe.decks)
            if refusal is not None:
                return refusal
        original = OriginalResult(correction_no=record.corrections,
                                  result=result_of(record.coup, record.settlement))
        coup = Coup(command.player, command.banker)
        record.cards = dealt
        record.coup = coup
        record.settlement = self._settlement(coup, record.round_no, record.offer)
        record.corrections += 1
        self._publish(ResultCorrected(
            shoe_id=shoe.shoe_id, round_no=record.round_no, round_id=record.round_id,
            correction_no=record.corrections, original=original,
            result=result_of(coup, record.settlement), last_round=record.last_round,
            operator=command.operator,
        ))
        shoe.rebuild_board()
        self._publish_roads(shoe)
        return None

    # --- rounds and the shoe's end -------------------------------------------------------------

    def _start_round(self, shoe: Shoe) -> None:
        self._left_over = 0  # lost frames no card was entered for: they were not cards
        shoe.round_no += 1
        if self._every_round:
            shoe.reshuffle()
        self._round = RoundCards(shoe.shoe_id, shoe.round_no, shoe.round_id(shoe.round_no))
        if shoe.next_offer is not None and shoe.next_offer.round_no == shoe.round_no:
            self._round.offer = shoe.next_offer
        self._shown_round = self._round

    def _current(self) -> RoundCards:
        if self._round is None:
            raise ProcedureBug(f"no round in play in phase {self._phase}")
        return self._round

    def _void_current(self, reason: VoidReason, *, operator: str | None,
                      extra: list[Card | None] | None = None, take_pending: bool = True) -> None:
        """Void the round in play; then the next round, or the shoe's end after its last.

        A supervisor's void (``take_pending``) discards with the round the inputs queued
        behind its hold: the dealer dealt them into this round. A void from the stream itself
        (exposed card, cut card) leaves the queue alone: what follows comes after it.
        """
        shoe = self._shoe
        if shoe is None:
            raise ProcedureBug("a round voided with no shoe")
        self._discard_current(reason, operator=operator, extra=extra, take_pending=take_pending)
        if shoe.cut_card_out:
            self._end_shoe(shoe, reason=ShoeEndReason.CUT_CARD)
        else:
            self._goto(Phase.BETWEEN_ROUNDS)
            self._display_between_rounds(shoe)

    def _discard_current(self, reason: VoidReason, *, operator: str | None,
                         extra: list[Card | None] | None = None, take_pending: bool = True) -> None:
        shoe = self._shoe
        current = self._current()
        if shoe is None:
            raise ProcedureBug("a round voided with no shoe")
        cards: list[Card | None] = [*current.cards, *(extra or [])]
        if take_pending:
            if any(item is _Mark.CUT for item in self._pending):
                self._queued_cut(shoe, current)
            queued = self._pending_cards()
            self._pending.clear()
            self._count_discarded(shoe, queued)
            cards.extend(queued)
        shoe.voided_rounds.add(current.round_no)
        self._publish(RoundVoided(shoe_id=current.shoe_id, round_no=current.round_no,
                                  round_id=current.round_id, reason=reason, cards=tuple(cards),
                                  was_settled=False, operator=operator))
        if reason is VoidReason.SHOE_VOIDED:
            self._close_gap()
        else:
            self._end_gap(current.round_id)
        self._round = None
        self._shown_round = None

    def _queued_cut(self, shoe: Shoe, current: RoundCards) -> None:
        """A cut card queued behind a hold, found as the round is voided: it still counts."""
        if shoe.cut_card_out or self._every_round:
            return
        shoe.cut_card_out = True
        if current.cards:  # it came out during this round: this round was the last
            self._publish_last_round_during(current)
        else:
            self._publish_last_round_between(shoe, current.round_no - 1)

    def _count_discarded(self, shoe: Shoe, queued: list[Card | None]) -> None:
        """Cards dealt behind a hold and voided with the round: they left the shoe all the same."""
        for card in queued:
            shoe.cards_seen += 1
            if card is not None and not shoe.accounting.take(card):
                self._foreign_card(shoe, card)

    def _pending_cards(self) -> list[Card | None]:
        """The cards queued behind a hold (``None`` for unread ones)."""
        cards: list[Card | None] = []
        for item in self._pending:
            if isinstance(item, Card):
                cards.append(item)
            elif item is _Mark.MISREAD:
                cards.append(None)
        return cards

    def _end_shoe(self, shoe: Shoe, *, reason: ShoeEndReason) -> None:
        shoe.ended = True
        self._publish(ShoeEnded(shoe_id=shoe.shoe_id, reason=reason, rounds=shoe.round_no,
                                cards_seen=shoe.cards_seen))
        self._goto(Phase.SHOE_OVER)
        self._set_display(Prompt(action=PromptAction.SHOE_OVER), Lamp.OFF)

    def _goto(self, target: Phase) -> None:
        if not is_edge(self._phase, self._trigger, target):
            raise ProcedureBug(f"no edge {self._phase} --{self._trigger}--> {target}")
        source, self._phase = self._phase, target
        if target not in _GAP_PHASES and self._gap_reason is not None:
            round_id = None  # a gap of the burn
            if self._shoe is not None and source is Phase.DEALING:
                round_id = self._last_round_id(self._shoe)
            self._end_gap(round_id)

    # --- holds, prompts and lamp -----------------------------------------------------------------

    def _held(self) -> bool:
        """Whether any hold stands (the cheap form of ``bool(self._holds())``)."""
        return self._phase in HOLDABLE and (
            self._foreign or self._gap_reason is not None or not self._reader_online
        )

    def _holds(self) -> list[HoldReason]:
        if self._phase not in HOLDABLE:
            return []
        holds: list[HoldReason] = []
        if self._foreign:
            holds.append(HoldReason.FOREIGN_CARD)
        if self._gap_reason is not None:
            holds.append(self._gap_reason)
        if not self._reader_online:
            holds.append(HoldReason.READER_OFFLINE)
        return holds

    def _set_display(self, prompt: Prompt, lamp: Lamp) -> None:
        self._prompt = prompt
        self._lamp = lamp

    def _round_prompt(self, action: PromptAction, round_no: int) -> Prompt:
        """The prompt ``action`` about round ``round_no``, made once per table and reused.

        Every shoe deals rounds 1, 2, 3... again, and a prompt is an immutable value, so each
        shoe after the first reuses the prompts of the rounds before it (rounds past
        ``MAX_ROUND``, which only ``mini`` reaches, get a new one each time).
        """
        prompt = self._round_prompts.get((action, round_no))
        if prompt is None:
            prompt = Prompt(action=action, round_no=round_no)
            if round_no <= MAX_ROUND:
                self._round_prompts[action, round_no] = prompt
        return prompt

    def _display_between_rounds(self, shoe: Shoe) -> None:
        upcoming = shoe.round_no + 1
        if self._betting:
            self._set_display(Prompt(action=PromptAction.OPEN_BETTING, round_no=upcoming),
                              Lamp.OFF)
        else:
            self._set_display(Prompt(action=PromptAction.DEAL, round_no=upcoming), Lamp.PLAYER)

    def _show_hold(self) -> None:
        """Emit ``HoldTable`` or ``ResumeTable`` if the hold changed since last shown."""
        if self._shown_hold is None and not self._held():
            return
        holds = self._holds()
        reason = holds[0] if holds else None
        if reason == self._shown_hold:
            return
        if reason is None:
            self._out.append(ResumeTable())
        else:
            self._out.append(HoldTable(reason=reason))
        self._shown_hold = reason

    def _show_display(self) -> None:
        """Emit the lamp and prompt the table should show now, if they changed."""
        reason = self._shown_hold
        if reason is None and self._lamp is self._shown_lamp and self._prompt is self._shown_prompt:
            return  # nothing changed (most cards during a deal)
        if reason is not None:
            held_round = None if self._round is None else self._round.round_no
            prompt: Prompt | None = Prompt(action=PromptAction.HOLD, reason=reason,
                                           round_no=held_round)
            lamp = Lamp.HOLD
        else:
            prompt, lamp = self._prompt, self._lamp
        if lamp is not self._shown_lamp:
            self._out.append(_SET_LAMP[lamp])
            self._shown_lamp = lamp
        shown = self._shown_prompt
        if prompt is not None and prompt is not shown:
            # A new action is a new prompt: the full comparison only when the action is the same.
            if shown is None or prompt.action is not shown.action or prompt != shown:
                self._out.append(Announce(prompt=self._prompt_payload(prompt)))
            self._shown_prompt = prompt  # an equal prompt too: the next input compares by identity

    def _prompt_payload(self, prompt: Prompt) -> PromptShown:
        """The ``prompt`` event: the shoe and round it is about, then the prompt's own fields."""
        shoe = self._shoe
        count = ABSENT if prompt.count is None else prompt.count
        reason = ABSENT if prompt.reason is None else prompt.reason
        if shoe is None:
            return PromptShown(action=prompt.action, count=count, reason=reason)
        if prompt.round_no is None:
            return PromptShown(shoe_id=shoe.shoe_id, action=prompt.action, count=count,
                               reason=reason)
        return PromptShown(shoe_id=shoe.shoe_id, round_no=prompt.round_no,
                           round_id=shoe.round_id(prompt.round_no), action=prompt.action,
                           count=count, reason=reason)

    # --- publishing --------------------------------------------------------------------------

    def _publish(self, payload: Payload) -> None:
        self._out.append(Publish(payload=payload))

    def _publish_roads(self, shoe: Shoe) -> None:
        board = shoe.board.payload(shoe.shoe_id, shoe.cards_left)
        self._publish(Roads(
            shoe_id=shoe.shoe_id, bead_plate=board["bead_plate"], big_road=board["big_road"],
            big_eye_boy=board["big_eye_boy"], small_road=board["small_road"],
            cockroach_pig=board["cockroach_pig"], ask_banker=AskMarks(**board["ask_banker"]),
            ask_player=AskMarks(**board["ask_player"]), stats=board["stats"]))

    def _alarm(self, code: AlarmCode, message: str, *, round_id: str | None = None,
               card: Card | Absent | None = ABSENT, seen: int | Absent = ABSENT,
               count: int | Absent = ABSENT, details: Mapping[str, object] | None = None) -> None:
        shoe = self._shoe
        shoe_id: str | Absent = ABSENT
        round_no: int | Absent = ABSENT
        named_round: str | Absent = ABSENT
        if shoe is not None:
            shoe_id = shoe.shoe_id
            if round_id is not None:
                round_no, named_round = int(round_id.rsplit("-", 1)[1]), round_id
        self._out.append(RaiseAlarm(alarm=AlarmRaised(
            shoe_id=shoe_id, round_no=round_no, round_id=named_round, code=code,
            message=message, card=card, seen=seen, count=count, details=details or {})))

    def _last_round_id(self, shoe: Shoe) -> str | None:
        return shoe.round_id(shoe.round_no) if shoe.round_no else None

    def _bets_offered(self) -> tuple[str, ...]:
        shoe = self._shoe
        if shoe is None or self._phase is Phase.SHOE_OVER:
            return ()
        if self._round is not None:
            return self._offered(self._round)
        upcoming = shoe.next_offer
        if upcoming is not None and upcoming.round_no == shoe.round_no + 1:
            return upcoming.offer
        return self._variant.offered_on(shoe.round_no + 1)

    def _offered(self, current: RoundCards) -> tuple[str, ...]:
        """The bets taken on a round: dynamic windows' offer if made, else its fixed windows."""
        if current.offer is not None:
            return current.offer.offer
        return self._variant.offered_on(current.round_no)

    def _settlement(self, coup: Coup, round_no: int,
                    offer: frozenset[str] | None) -> dict[str, Fraction | str]:
        """Every bet settled: on the fixed windows, or on the offer dynamic windows made."""
        if offer is None:
            return settle_round(self._variant, coup, round_no)
        if self._windowless is None:
            self._windowless = self._variant.as_virtual()
        settled = settle_round(self._windowless, coup, round_no)
        return {bet: result if bet in offer else NOT_OFFERED for bet, result in settled.items()}

    # --- assessments ---------------------------------------------------------------------------

    def _assessed(self, event: RoundAssessed) -> None:
        """Odds, alarms and suspensions the runtime worked out for the shoe's next round."""
        shoe = self._shoe
        if shoe is None or shoe.shoe_id != event.shoe_id or shoe.ended:
            return  # about a shoe no longer in play: nothing to say
        if event.odds is not None:
            self._publish(event.odds)
        round_id = shoe.round_id(event.round_no)
        for alarm in event.alarms:
            details = {key: value for key, value in alarm.details.items()
                       if key not in _ALARM_OWN_FIELDS}
            self._alarm(AlarmCode(alarm.code), alarm.message, round_id=round_id, details=details)
        if event.offer is not None and event.round_no == shoe.round_no + 1:
            # the round has not started: its offer is still open
            shoe.next_offer = RoundOffer(round_no=event.round_no, offer=event.offer,
                                         suspended=event.suspended)

    # --- faults --------------------------------------------------------------------------------

    def _show_fault(self, message: str) -> None:
        """Hold the table for a fault (once) and raise the alarm ``message``."""
        held_round = None if self._round is None else self._round.round_no
        if self._shown_hold is not HoldReason.PROCEDURE_FAULT:
            self._out.append(HoldTable(reason=HoldReason.PROCEDURE_FAULT))
            self._shown_hold = HoldReason.PROCEDURE_FAULT
        if self._shown_lamp is not Lamp.HOLD:
            self._out.append(_SET_LAMP[Lamp.HOLD])
            self._shown_lamp = Lamp.HOLD
        prompt = Prompt(action=PromptAction.HOLD, reason=HoldReason.PROCEDURE_FAULT,
                        round_no=held_round)
        if prompt != self._shown_prompt:
            self._out.append(Announce(prompt=self._prompt_payload(prompt)))
            self._shown_prompt = prompt
        round_id = None if self._round is None else self._round.round_id
        self._alarm(AlarmCode.PROCEDURE_FAULT, message, round_id=round_id)

    def _refuse_faulted(self, command: Command) -> None:
        self._out.append(CommandRefused(
            command_id=command.command_id, command=command.COMMAND, phase=Phase.FAULTED.value,
            code=RefusalCode.FAULTED,
            message=f"the table is faulted ({self._fault}): only void_shoe is taken"))

    def _while_faulted(self, event: Input) -> None:
        """Only a supervisor's ``void_shoe`` is taken; shoe inputs change nothing."""
        match event:
            case VoidShoe():
                self._clear_fault(event)
            case RuntimeFailed(message=message):
                self._show_fault(message)
            case (StartNewShoe() | OpenBetting() | CloseBetting() | Deal() | Misdeal()
                  | VoidRound() | EnterCard() | CorrectResult() | DroppedCard()):
                self._refuse_faulted(event)
            case _:
                pass

    def _clear_fault(self, command: VoidShoe) -> None:
        """The supervisor's way out of a fault: the shoe is voided and over, nothing kept.

        What the fault may have left half done (the round in play, queued inputs, holds) is
        dropped; the round in play is voided with the shoe, and the table waits for
        ``new_shoe``. Rounds settled before the fault stand, as after any ``void_shoe``.
        """
        shoe, current, queued = self._shoe, self._round, self._pending_cards()
        self._fault = None
        self._trigger = Trigger.VOID_SHOE
        self._round = self._shown_round = None
        self._pending.clear()
        self._close_gap()
        self._left_over = 0
        self._foreign = False
        self._out.append(CommandAccepted(command_id=command.command_id, command=command.COMMAND))
        target = Phase.NO_SHOE if shoe is None else Phase.SHOE_OVER
        if not is_edge(Phase.FAULTED, Trigger.VOID_SHOE, target):
            raise ProcedureBug(f"no edge {Phase.FAULTED} --void_shoe--> {target}")
        self._phase = target
        self._set_display(Prompt(action=PromptAction.SHOE_OVER), Lamp.OFF)
        if shoe is None:
            return
        shoe.ended = True
        if shoe.voided:
            return
        shoe.voided = True
        voided: list[str] = []
        if current is not None:
            shoe.voided_rounds.add(current.round_no)
            self._publish(RoundVoided(shoe_id=current.shoe_id, round_no=current.round_no,
                                      round_id=current.round_id, reason=VoidReason.SHOE_VOIDED,
                                      cards=(*current.cards, *queued), was_settled=False,
                                      operator=command.operator))
            voided.append(current.round_id)
            queued = []
        self._publish(ShoeVoided(shoe_id=shoe.shoe_id, rounds_voided=tuple(voided),
                                 cards_discarded=tuple(queued), operator=command.operator))


def _dealing_order(player: tuple[Card, ...], banker: tuple[Card, ...]) -> tuple[Card, ...] | None:
    """The hands' cards in the order the shoe dealt them, if the drawing rules allow them."""
    if not (2 <= len(player) <= 3 and 2 <= len(banker) <= 3):
        return None
    dealt = (player[0], banker[0], player[1], banker[1], *player[2:], *banker[2:])
    try:
        coup = Coup.from_cards(dealt)
    except ValueError:  # TooManyCardsError included: more cards than the coup takes
        return None
    if coup.player != player or coup.banker != banker:
        return None
    return dealt


def _recount(accounting: CardAccounting, *, old: tuple[Card, ...], new: tuple[Card, ...],
             decks: int) -> _Refusal | None:
    """Swap a corrected round's cards in the accounting, unless that makes a foreign card."""
    for card in old:
        accounting.remove(card)
    over = next((card for card in set(new) if accounting.count(card) + new.count(card) > decks),
                None)
    if over is not None:
        for card in old:
            accounting.add(card)
        return RefusalCode.FOREIGN_CARD, f"{over.code} would be seen more than {decks} times"
    for card in new:
        accounting.add(card)
    return None
