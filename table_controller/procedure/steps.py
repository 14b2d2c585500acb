# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The steps of the dispatch table: each composes the parts for one (phase, trigger).

Pure: no I/O, no clock, no randomness. A step calls the parts (which import none of one
another), reads what they return, and decides what follows: a settled or voided round leads to
the next round or, after the last, to the shoe's end. It returns the phase it ends in, or a
command's refusal; the machine checks the move against
:data:`~table_controller.procedure.states.ROUTES`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from table_controller.contract.codes import AlarmCode, HoldReason, Phase, ShoeEndReason, VoidReason
from table_controller.procedure import dealing, faults, limits, shoe_flow, stream, supervision
from table_controller.procedure.errors import ProcedureBug
from table_controller.procedure.inputs import (
    Command,
    CorrectResult,
    DroppedCard,
    EnterCard,
    SetLimits,
    StartNewShoe,
    VoidRound,
    VoidShoe,
)
from table_controller.procedure.shoe import Shoe
from table_controller.procedure.states import CARD_STEPS, Handler
from table_controller.procedure.table import GAP_PHASES, Mark, Out, Refusal, Table, take
from table_controller.rules.cards import Card

#: A command a step takes, of the one type its handler expects.
_Given = TypeVar("_Given", bound=Command)


@dataclass(frozen=True, slots=True, kw_only=True)
class Step:
    """What a step is given: a shoe item's card or count, or a command."""

    card: Card | None = None
    #: The card was entered by hand; ``seen_already``: for a misread, already counted out.
    manual: bool = False
    seen_already: bool = False
    count: int = 0
    command: Command | None = None


#: A step: what it was given and the collector in, the phase it ends in (or a refusal) out.
StepFunction = Callable[[Step, Out], "Phase | Refusal"]


class Steps:
    """Every step of the dispatch table, over one table's state."""

    def __init__(self, table: Table) -> None:
        self._table = table
        #: Each handler's step (the machine dispatches through this mapping).
        self.by_handler: dict[Handler, StepFunction] = {
            handler: getattr(self, f"_{handler.value}") for handler in Handler
        }

    # --- what follows a step ------------------------------------------------------------------

    def _round_over(self, out: Out) -> Phase:
        """After a round settled or voided: the next round, or the shoe's end after the last."""
        shoe = self._table.in_play()
        if shoe.cut_card_out:
            return shoe_flow.end(shoe, out, ShoeEndReason.CUT_CARD)
        return Phase.BETWEEN_ROUNDS

    def _void_in_play(self, out: Out, reason: VoidReason, *, operator: str | None,
                      extra: tuple[Card | None, ...] = (), take_queue: bool = True) -> None:
        """Void the round in play.

        A supervisor's void (``take_queue``) discards with the round the items queued behind
        its hold: the dealer dealt them into this round, and a cut card among them still
        counts. A void from the stream itself (exposed card, cut card) leaves the queue alone.
        """
        table = self._table
        shoe, current = table.in_play(), table.current()
        cards: list[Card | None] = [*current.cards, *extra]
        if take_queue:
            if any(item is Mark.CUT for item in table.pending):
                shoe_flow.queued_cut(table, out, shoe, current)
            queued = stream.take_queue(table)
            shoe_flow.count_discarded(table, out, shoe, queued)
            cards.extend(queued)
        dealing.void(table, out, reason, operator=operator, cards=cards)
        if reason is VoidReason.SHOE_VOIDED:
            table.close_gap()
        else:
            stream.end_gap(table, out, current.round_id)
        dealing.forget(table)

    def _counted(self, step: Step, out: Out, shoe: Shoe | None = None) -> bool:
        """Count the card out of ``shoe`` (the one in play); ``False`` for a foreign card."""
        if shoe is None:
            shoe = self._table.in_play()
        if not step.seen_already:
            shoe.cards_seen += 1
        return step.card is None or take(self._table, out, shoe, step.card)

    # --- the steps: shoe items ----------------------------------------------------------------

    def _card_without_shoe(self, step: Step, out: Out) -> Phase:
        out.alarm(None, AlarmCode.CARD_WITHOUT_SHOE, "a card came out before any new_shoe",
                  card=step.card)
        return self._table.phase

    def _card_after_last_round(self, step: Step, out: Out) -> Phase:
        if self._counted(step, out):
            shoe_flow.after_last_round(self._table.in_play(), out, step.card)
        return Phase.SHOE_OVER

    def _burn_first(self, step: Step, out: Out) -> Phase:
        if not self._counted(step, out):
            return Phase.BURN_CARD
        target = shoe_flow.burn_first(self._table.in_play(), out, step.card)
        if step.card is None:
            stream.open_gap(self._table, 1, HoldReason.MISREAD)
        return target

    def _burn(self, step: Step, out: Out) -> Phase:
        if not self._counted(step, out):
            return Phase.BURNING
        return shoe_flow.burn(self._table.in_play(), out, step.card)

    def _card_between_rounds(self, step: Step, out: Out) -> Phase:
        table = self._table
        shoe = table.in_play()
        if not table.betting and not table.rounds_stopped():  # the card starts the next round
            dealing.start(table, shoe)
            return self._deal_card(step, out)
        if self._counted(step, out):
            shoe_flow.unnecessary_card(shoe, out, step.card)
        return Phase.BETWEEN_ROUNDS

    def _exposed_card(self, step: Step, out: Out) -> Phase:
        table = self._table
        if not self._counted(step, out):
            return Phase.BETTING
        dealing.exposed(table, out, table.in_play(), step.card)
        self._void_in_play(out, VoidReason.EXPOSED_CARD, operator=None, extra=(step.card,),
                           take_queue=False)
        return self._round_over(out)

    def _deal_card(self, step: Step, out: Out) -> Phase:
        table = self._table
        shoe = table.in_play()
        if not self._counted(step, out, shoe):
            return Phase.DEALING
        if step.card is None:
            dealing.misread(table, out, shoe)
            stream.open_gap(table, 1, HoldReason.MISREAD)
            return Phase.DEALING
        if dealing.deal(table, out, shoe, step.card, manual=step.manual) is dealing.Dealt.SETTLED:
            return self._round_over(out)
        return Phase.DEALING

    def _cut_out_of_play(self, _step: Step, out: Out) -> Phase:
        shoe_flow.cut_card(self._table, out)  # nothing depends on it any more
        return self._table.phase

    def _cut_between_rounds(self, _step: Step, out: Out) -> Phase:
        shoe = shoe_flow.cut_card(self._table, out)
        if shoe is None:
            return self._table.phase
        out.last_round_between(shoe, shoe.round_no)
        return shoe_flow.end(shoe, out, ShoeEndReason.CUT_CARD)

    def _cut_before_the_deal(self, _step: Step, out: Out) -> Phase:
        if shoe_flow.cut_card(self._table, out) is None:
            return self._table.phase
        return self._no_round_commences(out)

    def _cut_while_dealing(self, _step: Step, out: Out) -> Phase:
        table = self._table
        current = table.current()
        if shoe_flow.cut_card(table, out) is None:
            return Phase.DEALING
        if current.cards:  # this round completes and is the last
            current.last_round = True
            out.last_round_during(current)
            return Phase.DEALING
        return self._no_round_commences(out)

    def _no_round_commences(self, out: Out) -> Phase:
        """The cut card before the round's first card: the round is voided, the shoe ends."""
        table = self._table
        out.last_round_between(table.in_play(), table.current().round_no - 1)
        self._void_in_play(out, VoidReason.AFTER_LAST_ROUND, operator=None, take_queue=False)
        return self._round_over(out)

    def _frames_lost(self, step: Step, out: Out) -> Phase:
        table = self._table
        stream.frames_lost(table, out, step.count)
        if table.shoe is not None and table.phase in GAP_PHASES:
            stream.open_gap(table, step.count, HoldReason.LOST_FRAMES)
        return table.phase

    def _frames_lost_between_rounds(self, step: Step, out: Out) -> Phase:
        table = self._table
        stream.frames_lost(table, out, step.count)
        if table.betting or table.rounds_stopped():
            return Phase.BETWEEN_ROUNDS
        dealing.start(table, table.in_play())
        stream.open_gap(table, step.count, HoldReason.LOST_FRAMES)
        return Phase.DEALING

    # --- the steps: commands ----------------------------------------------------------------

    @staticmethod
    def _given(step: Step) -> Command:
        if step.command is None:
            raise ProcedureBug("a command step without its command")
        return step.command

    @staticmethod
    def _given_as(step: Step, kind: type[_Given], handler: Handler) -> _Given:
        """The step's command, which the dispatcher routes to ``handler`` only as a ``kind``."""
        command = Steps._given(step)
        if not isinstance(command, kind):
            raise ProcedureBug(f"{command.COMMAND} routed to {handler}")
        return command

    def _new_shoe(self, step: Step, out: Out) -> Phase | Refusal:
        command = self._given_as(step, StartNewShoe, Handler.NEW_SHOE)
        return supervision.new_shoe(self._table, out, command)

    def _open_betting(self, _step: Step, out: Out) -> Phase:
        return dealing.open_betting(self._table, out, self._table.in_play())

    def _close_betting(self, _step: Step, out: Out) -> Phase:
        return dealing.close_betting(self._table, out)

    def _deal(self, _step: Step, _out: Out) -> Phase:
        dealing.start(self._table, self._table.in_play())
        return Phase.DEALING

    def _misdeal(self, step: Step, out: Out) -> Phase:
        self._void_in_play(out, VoidReason.MISDEAL, operator=self._given(step).operator)
        return self._round_over(out)

    def _dropped_card(self, step: Step, out: Out) -> Phase:
        command = self._given(step)
        if isinstance(command, DroppedCard) and command.read:
            return self._table.phase  # the card is reused: nothing changes
        self._void_in_play(out, VoidReason.DROPPED_CARD, operator=command.operator)
        return self._round_over(out)

    def _void_round(self, step: Step, out: Out) -> Phase | Refusal:
        table = self._table
        command = self._given_as(step, VoidRound, Handler.VOID_ROUND)
        current = table.round
        if current is not None and command.round_id == current.round_id:
            misread = table.gap_reason is HoldReason.MISREAD
            reason = VoidReason.MISREAD if misread else VoidReason.SUPERVISOR
            self._void_in_play(out, reason, operator=command.operator)
            return self._round_over(out)
        refusal = supervision.void_settled(table.in_play(), out, command)
        return table.phase if refusal is None else refusal

    def _void_shoe(self, step: Step, out: Out) -> Phase | Refusal:
        table = self._table
        command = self._given_as(step, VoidShoe, Handler.VOID_SHOE)
        shoe = table.in_play()
        refusal = supervision.refuse_void_shoe(shoe)
        if refusal is not None:
            return refusal
        rounds: tuple[str, ...] = ()
        discarded: tuple[Card | None, ...] = ()
        if table.round is not None:
            rounds = (table.round.round_id,)
            self._void_in_play(out, VoidReason.SHOE_VOIDED, operator=command.operator)
        else:
            discarded = tuple(table.pending_cards())
        supervision.shoe_voided(table, out, command, rounds=rounds, discarded=discarded)
        shoe.ended = True
        return Phase.SHOE_OVER

    def _manual_card(self, step: Step, out: Out) -> Phase | Refusal:
        table = self._table
        command = self._given_as(step, EnterCard, Handler.MANUAL_CARD)
        refusal = supervision.refuse_entry(table, table.in_play(), command.card)
        if refusal is not None:
            return refusal
        if table.gap == 0:
            stream.enter_left_over(table, out, command.card)
            return table.phase
        seen_already = stream.fill_gap(table)
        card_step = self.by_handler[CARD_STEPS[table.phase]]
        target = card_step(Step(card=command.card, manual=True, seen_already=seen_already), out)
        if not isinstance(target, Phase):
            raise ProcedureBug(f"a card entered by hand refused in {table.phase}")
        return target

    def _correct_result(self, step: Step, out: Out) -> Phase | Refusal:
        table = self._table
        command = self._given_as(step, CorrectResult, Handler.CORRECT_RESULT)
        refusal = supervision.correct(table, out, table.in_play(), command)
        return table.phase if refusal is None else refusal

    def _set_limits(self, step: Step, out: Out) -> Phase | Refusal:
        command = self._given_as(step, SetLimits, Handler.SET_LIMITS)
        return limits.set_limits(self._table, out, command)

    def _clear_fault(self, step: Step, out: Out) -> Phase:
        command = self._given_as(step, VoidShoe, Handler.CLEAR_FAULT)
        return faults.clear(self._table, out, command)
