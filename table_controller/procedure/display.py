# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the table shows: the prompt, the lamp and the hold, as a function of its state.

Pure: no I/O, no clock, no randomness. A part of the procedure: it reads the
:class:`~table_controller.procedure.table.Table` (and changes only what it records as shown)
and imports no other part.

The dealer's prompt and the lamp follow from the phase: ``burn`` (with its count once the
face-up card is read) with the lamp PLAYER; ``open_betting`` with the lamp OFF between rounds
and while bets are taken; ``deal``, ``player_draws``, ``banker_draws`` with the lamp on the
hand that gets the next card; ``result`` with STAND until the next round starts; ``shoe_over``
with OFF. A hold (or a fault) shows ``hold`` with its reason and the lamp HOLD. Each is
emitted only when it differs from what was shown last.
"""

from __future__ import annotations

from table_controller.procedure.codes import HoldReason, Lamp, PromptAction
from table_controller.procedure.decisions import Announce, HoldTable, Prompt, ResumeTable, SetLamp
from table_controller.procedure.payloads import ABSENT, PromptShown
from table_controller.procedure.round import OPENING_CARDS
from table_controller.procedure.states import Phase
from table_controller.procedure.table import Out, Table
from table_controller.rules.tableau import Hand


def wanted(table: Table) -> tuple[Prompt | None, Lamp]:  # noqa: PLR0911 - a case per phase
    """The prompt and lamp the phase calls for, holds aside."""
    shoe = table.shoe
    match table.phase:
        case Phase.NO_SHOE:
            if table.fault_cleared:
                return Prompt(action=PromptAction.SHOE_OVER), Lamp.OFF
            return None, Lamp.OFF
        case Phase.SHOE_OVER:
            return Prompt(action=PromptAction.SHOE_OVER), Lamp.OFF
        case Phase.BURN_CARD:
            return Prompt(action=PromptAction.BURN), Lamp.PLAYER
        case Phase.BURNING:
            count = None if shoe is None else shoe.burn.count
            return Prompt(action=PromptAction.BURN, count=count), Lamp.PLAYER
        case Phase.BETWEEN_ROUNDS:
            return _between_rounds(table)
        case Phase.BETTING:
            current = table.current()
            return Prompt(action=PromptAction.OPEN_BETTING, round_no=current.round_no), Lamp.OFF
        case Phase.DEALING:
            return _dealing(table)
        case Phase.HELD | Phase.FAULTED:
            raise AssertionError(f"{table.phase} is shown, never stored")


def _between_rounds(table: Table) -> tuple[Prompt, Lamp]:
    shown = table.shown_round
    if shown is not None:  # the last round's result, until the next one starts
        return Prompt(action=PromptAction.RESULT, round_no=shown.round_no), Lamp.STAND
    upcoming = table.in_play().round_no + 1
    if table.betting:
        return Prompt(action=PromptAction.OPEN_BETTING, round_no=upcoming), Lamp.OFF
    return Prompt(action=PromptAction.DEAL, round_no=upcoming), Lamp.PLAYER


def _dealing(table: Table) -> tuple[Prompt, Lamp]:
    """The hand that gets the next card: the opening deal, then each hand's third card."""
    current = table.current()
    hand = current.expected()
    lamp = Lamp.BANKER if hand is Hand.BANKER else Lamp.PLAYER
    if len(current.cards) < OPENING_CARDS:
        action = PromptAction.DEAL
    elif hand is Hand.BANKER:
        action = PromptAction.BANKER_DRAWS
    else:
        action = PromptAction.PLAYER_DRAWS
    return Prompt(action=action, round_no=current.round_no), lamp


def hold(table: Table) -> HoldReason | None:
    """The hold to show: a fault's, else the first that stands."""
    if table.fault is not None:
        return HoldReason.PROCEDURE_FAULT
    return table.holds()[0] if table.held() else None


def show_hold(table: Table, out: Out) -> None:
    """Hold or resume the table if the hold changed since last shown."""
    reason = hold(table)
    if reason == table.shown_hold:
        return
    out.add(ResumeTable() if reason is None else HoldTable(reason=reason))
    table.shown_hold = reason


def show(table: Table, out: Out) -> None:
    """The lamp and prompt the table should show now, each if it changed (after the hold)."""
    reason = table.shown_hold
    prompt: Prompt | None
    if reason is not None:
        held_round = None if table.round is None else table.round.round_no
        prompt = Prompt(action=PromptAction.HOLD, reason=reason, round_no=held_round)
        lamp = Lamp.HOLD
    else:
        prompt, lamp = wanted(table)
    if lamp is not table.shown_lamp:
        out.add(SetLamp(lamp=lamp))
        table.shown_lamp = lamp
    if prompt is not None and prompt != table.shown_prompt:
        out.add(Announce(prompt=_payload(table, prompt)))
        table.shown_prompt = prompt


def _payload(table: Table, prompt: Prompt) -> PromptShown:
    """The ``prompt`` event: the shoe and round it is about, then the prompt's own fields."""
    shoe = table.shoe
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
