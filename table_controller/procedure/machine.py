# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table procedure: follows the shoe and the dealer from new shoe to shoe end.

Pure: no I/O, no clock, no randomness, no logging. Imports only the standard library and
``table_controller.rules``. Inputs in (:mod:`~table_controller.procedure.inputs`), decisions
out (:mod:`~table_controller.procedure.decisions`); the same inputs always give the same
decisions, so replaying a journal rebuilds the state.

Theory of operation
===================

The state is one value (:class:`~table_controller.procedure.table.Table`). The parts that
change it import none of one another, only the state and the rules below it:

- :mod:`.stream`: the shoe's items in order, queued while held; cards missing (a misread, lost
  frames) and lost frames left over;
- :mod:`.shoe_flow`: the burn, the cut card, cards after the last round, the shoe's end;
- :mod:`.dealing`: a round's start, betting, cards, settlement and void; assessments;
- :mod:`.supervision`: new shoe, voids, manual cards, corrected results, and the prechecks a
  command passes first;
- :mod:`.prompts`: prompt, lamp and hold as a function of the state, diffed against what was
  last shown, and the snapshot;
- :mod:`.faults`: a faulted table and the way out;
- :mod:`.staff`: who is signed in at the table (taken in every phase);
- :mod:`.limits`: each bet's stake limits, from the configuration and ``set_limits``;
- :mod:`.oversight`: the holds only a supervisor lifts (modified software, a dispute, a result
  the second source did not confirm) and the results that wait for confirmation (taken in
  every phase).

This module is the dispatcher, and every input goes through the table of
:mod:`~table_controller.procedure.states`: :data:`~.states.ROUTES` says, for each phase, the
triggers it takes, the step that handles each and the phases it may end in;
:data:`~.states.EVERY_PHASE` and :data:`~.states.UNLESS_FAULTED`, the inputs taken beside them.
:mod:`.steps` composes the parts where a route needs more than one. A step returns the phase it
ends in (or a command's refusal), and the dispatcher checks the move against the route. A
command is refused before its step when :func:`~.states.refusal` says so (a faulted table, the
kind of table, a hold, no route out of the phase: ``wrong_phase``, no dealer, a result
waiting, the route's guard); the same answer, asked of every command, is the snapshot's
``commands``. ``docs/state-diagram.md`` is drawn from the same table.

**Holds** stand over the phases that expect cards or bets and show as ``HELD``: the reader
offline (``ReaderWentOffline`` to ``ReaderCameBack``); a missing card (``misread``,
``lost_frames``) until a supervisor enters it (``manual_card``) or voids the round or the
shoe; a foreign card (seen more often than the decks hold it) until ``void_shoe``. While held,
shoe items queue and only commands that clear a hold or touch settled rounds are taken
(``COMMANDS_WHILE_HELD``); the queue plays in order once the last hold clears. The core never
guesses a card (shoe-protocol.md "Delivery").

**Procedures of game-rules.md section 5**, and the decisions made where the spec is silent:

1. *New shoe and burn*: the first card is turned face up, ``burn N`` is announced
   (T/J/Q/K = 10), N more cards are counted out, all recorded as seen; a burn card the reader
   could not read still counts, except the face-up one, which must be entered by hand. ``mini``
   burns nothing. A shoe id not given is numbered ``<table_id>-S0001``, ``-S0002``... from a
   counter; a shoe id may not be used twice by one table, so round ids stay unique.
2. *Cut card*: during a round (after its first card) that round completes and is the last;
   anywhere else the next round does not commence and the shoe ends at once; a round open for
   betting is voided (``after_last_round``). The first card after the last round opens an
   invalid round, voided at once; every further card raises ``card_after_last_round``. A cut
   card on ``mini`` (no cut card) or a second one raises ``unexpected_cut_card``.
3. *Exposed card*: a card while betting is open voids the round (``exposed_card``).
4. *Unnecessary card*: with a betting phase, a card between rounds changes nothing: alarm,
   card discarded. Without a betting phase the next card after a result starts the next round.
5. *Misread*: holds the round; voiding a round held by a misread gives the reason ``misread``.
6. *Dropped card*: read: the card is reused; unread: the round is voided (``dropped_card``).
7. *Misdeal and corrections*: ``misdeal`` voids the round being dealt. A settled round of the
   current shoe can be voided (``supervisor``) or corrected (``result_corrected``).
8. *Void shoe*: the round in play is voided (``shoe_voided``), queued cards are discarded,
   and the shoe is over.
9. *Card accounting*: cards are accounted since the last shuffle.
10. *Reshuffle every round* (``mini``): accounting starts afresh when each round starts;
    ``mini`` takes ``new_shoe`` between rounds too (the old shoe ends with reason
    ``new_shoe``).

**Faults**: any exception inside :meth:`TableProcedure.handle` becomes
:class:`~table_controller.procedure.errors.ProcedureBug` (carrying the hold and alarm the
runtime must still carry out); the runtime reports a failure of its own with
:meth:`TableProcedure.fault` or a journaled ``RuntimeFailed``. See :mod:`.faults`.
"""

from __future__ import annotations

from dataclasses import dataclass

from table_controller.contract import Phase, TableLimits, TableSnapshot
from table_controller.procedure import faults, oversight, prompts, states, stream
from table_controller.procedure.decisions import CommandAccepted, CommandRefused, Decision
from table_controller.procedure.errors import ProcedureBug
from table_controller.procedure.inputs import (
    COMMANDS,
    CardDrawn,
    CardMisread,
    Command,
    CutCardDrawn,
    FramesLost,
    Input,
    not_carried_out,
)
from table_controller.procedure.states import ROUTES, Trigger
from table_controller.procedure.steps import NO_CARD, Drawn, show_fault
from table_controller.procedure.supervision import MAX_SHOE_ID_LENGTH
from table_controller.procedure.table import (
    GAP_PHASES,
    Item,
    Lost,
    Mark,
    Out,
    Refusal,
    Table,
    last_round_id,
    out_for,
)
from table_controller.rules import Card, Variant

__all__ = ["MAX_SHOE_ID_LENGTH", "ShoeCount", "TableProcedure"]

_COMMAND_TYPES = tuple(COMMANDS.values())


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

    def __init__(self, variant: Variant, *, table_id: str, betting_phase: bool = True,  # noqa: PLR0913
                 require_dealer: bool = False, confirm_results: bool = False,
                 limits: TableLimits | None = None) -> None:
        self._table = Table(variant=variant, table_id=table_id, betting=betting_phase,
                            require_dealer=require_dealer, confirm_results=confirm_results,
                            limits=limits or TableLimits())

    # --- public ---------------------------------------------------------------------------

    @property
    def phase(self) -> Phase:
        """The phase shown: ``HELD`` while a hold stands, ``FAULTED`` after a bug."""
        table = self._table
        if table.holds.fault is not None:
            return Phase.FAULTED
        return Phase.HELD if table.held() else table.phase

    @property
    def variant(self) -> Variant:
        return self._table.variant

    @property
    def configured_limits(self) -> TableLimits | None:
        """The configuration's limits last taken (``LimitsConfigured``); ``None``: none yet."""
        return self._table.configured

    @property
    def expects_card(self) -> bool:
        """Whether the burn or the round in play waits for its next card, and nothing holds it.

        A virtual table draws while this holds. Between rounds no card is expected: a round
        starts with ``close_betting`` or, without a betting phase, ``deal`` (a reader table's
        dealer may start one with a card instead).
        """
        table = self._table
        return table.holds.fault is None and table.phase in GAP_PHASES and not table.held()

    def handle(self, event: Input, *, origin: str | None = None) -> list[Decision]:
        """Take one input; return what the adapters must do, in order.

        Args:
            event: the input.
            origin: where the input comes from (``journal row 42``), for a fault's alarm.

        Raises:
            ProcedureBug: the core broke an invariant; it is now ``FAULTED``, and the bug's
                ``decisions`` hold the table and raise the alarm.
        """
        table = self._table
        out = out_for(table)
        try:
            self._dispatch(event, out)
            if table.holds.fault is None:
                if table.pending:
                    prompts.show_hold(table, out)  # a cleared hold resumes before the queue plays
                    self._drain(out)
                prompts.show(table, out)
        except Exception as error:
            text = f"{type(error).__name__}: {error}"
            table.alarms.withdraw(out)  # never published
            raise ProcedureBug(text, self.fault(event, origin=origin, error=text)) from error
        return out

    def fault(self, event: Input | None, *, origin: str | None, error: str) -> list[Decision]:
        """``event`` could not be carried out: the machine faults as after a bug in it.

        For the runtime, when carrying out an input failed outside the procedure (``event``
        None: a journal row that is no input). The table is held (``procedure_fault``) with an
        alarm naming the input, a command is refused, and only ``void_shoe`` is taken until a
        supervisor gives it. Failures while already faulted raise an alarm each.
        """
        table = self._table
        faults.fault(table, error)
        out = out_for(table)
        if isinstance(event, _COMMAND_TYPES):
            faults.refuse(table, out, event)
        show_fault(table, out, not_carried_out(event, origin=origin, error=error))
        return out

    def snapshot(self) -> TableSnapshot:
        """Where the table is now: the ``<root>/state`` payload and what follows from it."""
        return prompts.snapshot(self._table, phase=self.phase, card_wanted=self.expects_card,
                                commands=states.commands_taken(self._table))

    def shoe_count(self) -> ShoeCount | None:
        """What left the shoe since its last shuffle, while a shoe is in play (for the odds)."""
        table = self._table
        shoe = table.shoe
        if shoe is None or shoe.ended or table.holds.fault is not None:
            return None
        seen = shoe.accounting.seen()
        return ShoeCount(
            shoe_id=shoe.shoe_id,
            decks=shoe.decks,
            next_round_no=shoe.round_no + 1,
            between_rounds=table.round is None and table.phase is Phase.BETWEEN_ROUNDS,
            seen=seen,
            unread=shoe.cards_seen - sum(n for _, n in seen),
        )

    # --- dispatch ---------------------------------------------------------------------------

    def _dispatch(self, event: Input, out: Out) -> None:
        """Every input through the table.

        A shoe item by its route, once nothing holds it; a command by its route or aside,
        after its prechecks; any other input by its aside.
        """
        match event:
            case CardDrawn(card=card):
                table = self._table
                if table.holds.fault is None and stream.arrive(table, card) is not None:
                    self._take(Trigger.CARD, Drawn(card=card), out)
            case CardMisread():
                self._arrive(Mark.MISREAD, out)
            case CutCardDrawn():
                self._arrive(Mark.CUT, out)
            case FramesLost(count=count):
                if count < 1:
                    raise ProcedureBug(f"FramesLost with count {count}: nothing was lost")
                self._arrive(Lost(count), out)
            case _ if isinstance(event, _COMMAND_TYPES):
                self._command(event, out)
            case _:
                taken = states.aside(self._table, type(event))
                if taken is not None:  # else a faulted table follows neither reader nor game
                    taken.step(self._table, out, event)

    def _arrive(self, item: Item, out: Out) -> None:
        table = self._table
        if table.holds.fault is None and stream.arrive(table, item) is not None:
            self._item(item, out)

    def _drain(self, out: Out) -> None:
        while (item := stream.next_queued(self._table)) is not None:
            self._item(item, out)

    def _item(self, item: Item, out: Out) -> None:
        """A shoe item through its route (a card: the most frequent input)."""
        if isinstance(item, Card):
            self._take(Trigger.CARD, Drawn(card=item), out)
        elif item is Mark.MISREAD:
            self._take(Trigger.MISREAD, NO_CARD, out)
        elif item is Mark.CUT:
            self._take(Trigger.CUT_CARD, NO_CARD, out)
        else:
            self._take(Trigger.FRAMES_LOST, Drawn(count=item.count), out)

    def _take(self, trigger: Trigger, drawn: Drawn, out: Out) -> None:
        phase = self._table.phase
        taken = ROUTES[phase].get(trigger)
        if taken is None:
            raise ProcedureBug(f"no route for {trigger} in {phase}")
        target = taken.step(self._table, out, drawn)
        if not isinstance(target, Phase):
            raise ProcedureBug(f"{trigger} refused in {phase}")
        self._move(phase, trigger, taken, target, out)

    def _move(self, source: Phase, trigger: Trigger, taken: states.Route, target: Phase,
              out: Out) -> None:
        """End the step of ``taken`` (``trigger`` in ``source``) in ``target``, if it leads there.

        Leaving the burn or a round with cards still missing leaves its lost frames over.
        """
        table = self._table
        if target not in taken.ends:
            raise ProcedureBug(f"no edge {source} --{trigger}--> {target}")
        left, table.phase = table.phase, target
        if target not in GAP_PHASES and table.holds.gap_reason is not None:
            round_id = None  # a gap of the burn
            if table.shoe is not None and left is Phase.DEALING:
                round_id = last_round_id(table.shoe)
            stream.end_gap(table, out, round_id)

    def _command(self, command: Command, out: Out) -> None:
        """A command: refused by a precheck or guard, else carried out or refused by its step."""
        table = self._table
        out.supervisor = command.supervisor
        kind = type(command)
        refusal = states.refusal(table, kind, command)
        if refusal is None:
            trigger = states.TRIGGERS.get(kind)
            if trigger is None:
                refusal = self._aside(command, out)
            else:
                refusal = self._routed(trigger, command, out)
        if refusal is not None:
            code, message = refusal
            out.add(CommandRefused(command_id=command.command_id, command=command.COMMAND,
                                   phase=self.phase.value, code=code, message=message,
                                   supervisor=command.supervisor))

    def _aside(self, command: Command, out: Out) -> Refusal | None:
        taken = states.aside(self._table, type(command))
        if taken is None:
            raise ProcedureBug(f"{command.COMMAND} let through with nothing to take it")
        mark = len(out)
        refusal = taken.step(self._table, out, command)
        if refusal is None:
            self._accepted(command, mark, out)
        return refusal

    def _routed(self, trigger: Trigger, command: Command, out: Out) -> Refusal | None:
        table = self._table
        source = Phase.FAULTED if table.holds.fault is not None else table.phase
        taken = ROUTES[source].get(trigger)
        if taken is None:
            raise ProcedureBug(f"{command.COMMAND} let through with no route in {source}")
        # A supervisor's answer to the result that waits releases it (not the fault's way out).
        answers_waiting = table.holds.fault is None and oversight.settles_waiting(table, command)
        mark = len(out)
        result = taken.step(table, out, command)
        if not isinstance(result, Phase):
            if len(out) != mark:
                raise ProcedureBug(f"{command.COMMAND} refused after it acted")
            return result
        self._move(source, trigger, taken, result, out)
        self._accepted(command, mark, out)
        if answers_waiting:
            oversight.release(table, out)  # the result as read, then what the command did
        return None

    @staticmethod
    def _accepted(command: Command, mark: int, out: Out) -> None:
        """The acceptance, before what the command did."""
        out.insert(mark, CommandAccepted(command_id=command.command_id, command=command.COMMAND,
                                         supervisor=command.supervisor))
