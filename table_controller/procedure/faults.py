# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A faulted table: held until a supervisor's ``void_shoe``, which is the way out.

Pure: no I/O, no clock, no randomness. A part of the procedure: it reads and changes the
:class:`~table_controller.procedure.table.Table` and imports no other part.

A bug in the core, or an input the runtime could not carry out, faults the table: it is held
(``procedure_fault``, lamp HOLD) with an alarm naming the input, shoe inputs change nothing, and
every command but ``void_shoe`` is refused (``faulted``). ``void_shoe`` voids the shoe (if any)
and its round in play, drops whatever the fault left half done, and the table waits for
``new_shoe``. Being an input, it replays like any other.
"""

from __future__ import annotations

from dataclasses import replace

from table_controller.contract import (
    AlarmCode,
    Phase,
    RefusalCode,
    RoundVoided,
    ShoeVoided,
    VoidReason,
)
from table_controller.procedure.decisions import CommandRefused
from table_controller.procedure.inputs import Command, VoidShoe
from table_controller.procedure.table import Out, Refusal, Table


def fault(table: Table, error: str) -> None:
    """The table is faulted (the first error is the one it names)."""
    if table.holds.fault is None:
        table.holds = replace(table.holds, fault=error)


def alarm(table: Table, out: Out, message: str) -> None:
    """The fault's alarm, about the round in play if any."""
    round_id = None if table.round is None else table.round.round_id
    out.alarm(table.shoe, AlarmCode.PROCEDURE_FAULT, message, round_id=round_id)


def refusal(table: Table) -> Refusal:
    """Why a command is refused while faulted: only ``void_shoe`` leaves the fault."""
    fault = table.holds.fault
    return RefusalCode.FAULTED, f"the table is faulted ({fault}): only void_shoe is taken"


def refuse(table: Table, out: Out, command: Command) -> None:
    """The command whose input faulted the table is refused."""
    code, message = refusal(table)
    out.add(CommandRefused(
        command_id=command.command_id, command=command.COMMAND, phase=Phase.FAULTED.value,
        code=code, message=message, supervisor=command.supervisor))


def clear(table: Table, out: Out, command: VoidShoe) -> Phase:
    """The supervisor's way out: the shoe is voided and over, nothing half done is kept.

    Rounds settled before the fault stand, as after any ``void_shoe``.
    """
    shoe, current, queued = table.shoe, table.round, table.pending_cards()
    table.holds = replace(table.holds, fault=None)
    table.round = table.shown_round = None
    table.drop_holds()
    if shoe is None:
        table.fault_cleared = True
        return Phase.NO_SHOE
    shoe.ended = True
    if shoe.voided:
        return Phase.SHOE_OVER
    shoe.voided = True
    voided: list[str] = []
    if current is not None:
        shoe.voided_rounds.add(current.round_no)
        out.publish(RoundVoided(shoe_id=current.shoe_id, round_no=current.round_no,
                                round_id=current.round_id, reason=VoidReason.SHOE_VOIDED,
                                cards=(*current.cards, *queued), was_settled=False,
                                operator=command.operator, dealer=out.dealer,
                                supervisor=out.supervisor))
        voided.append(current.round_id)
        queued = []
    out.publish(ShoeVoided(shoe_id=shoe.shoe_id, rounds_voided=tuple(voided),
                           cards_discarded=tuple(queued), operator=command.operator,
                           dealer=out.dealer, supervisor=out.supervisor))
    return Phase.SHOE_OVER
