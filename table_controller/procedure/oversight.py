# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The supervisor's holds (modified software, disputes, results a second source confirms), alarms.

Pure: no I/O, no clock, no randomness. A part of the procedure: it reads and changes the
:class:`~table_controller.procedure.table.Table` and imports no other part. These commands are
taken in every phase, beside the routes (:data:`~.states.EVERY_PHASE`), like the staff's: they
stop or release the game but deal no card; each has a guard, the refusal that does not depend
on what it names. Every alarm stays open until a supervisor's ``acknowledge_alarm`` names it
(``alarm_acknowledged``), which closes it and nothing else: a hold it came with stays. The
dealer's ``call_supervisor`` is such an alarm and holds nothing; while it is open, another
call is refused (``already_called``). The holds stand over every phase (``Holds.stopped``)
until a supervisor lifts them:

- *software modified*: at start the runtime found the installed files differ from what their
  installer recorded (a ``SoftwareModified`` input); ``acknowledge`` ``software_modified``.
- *dispute*: ``dispute`` names the rounds in question; ``resolve_dispute`` ends it. One at a
  time. The edge adds the rounds' recall and the journal's head to ``dispute_opened``.
- *second source* (``confirm_results``): a settled round's result and everything published
  after it wait (``Table.held_back``) and no round starts until ``confirm_result``. If the
  source disagrees, the table holds (``result_not_confirmed``) until a supervisor voids or
  corrects that round, or voids the shoe (the result as read goes out first, then the void or
  correction), or acknowledges the result as read.
"""

from __future__ import annotations

from dataclasses import replace

from table_controller.contract import (
    AlarmAcknowledged,
    AlarmCode,
    DisputeFields,
    DisputeOpened,
    DisputeResolved,
    RefusalCode,
)
from table_controller.procedure import inputs
from table_controller.procedure.inputs import Command
from table_controller.procedure.table import Out, Refusal, Table

#: The commands that start a round (or a shoe): not while a result waits.
_STARTS_A_ROUND = (inputs.StartNewShoe, inputs.OpenBetting, inputs.CloseBetting, inputs.Deal)
#: The alarms whose hold a supervisor's ``acknowledge`` lifts.
ACKNOWLEDGED_ALARMS = frozenset({AlarmCode.SOFTWARE_MODIFIED, AlarmCode.RESULT_NOT_CONFIRMED})


def software_modified(table: Table, out: Out, event: inputs.SoftwareModified) -> None:
    """The software was found modified at start: alarm, and hold until acknowledged."""
    table.holds = replace(table.holds, software_modified=True)
    out.alarm(table.shoe, AlarmCode.SOFTWARE_MODIFIED,
              f"{event.message}: the table is held until a supervisor acknowledges it",
              details=event.details)


def hold_to_acknowledge(table: Table, command: inputs.Acknowledge | None) -> Refusal | None:
    """A guard: ``acknowledge`` while a hold it lifts stands."""
    if table.holds.software_modified or table.holds.result_rejected:
        return None
    return _nothing_to_acknowledge(None if command is None else command.alarm)


def _nothing_to_acknowledge(alarm: str | None) -> Refusal:
    known = ", ".join(sorted(ACKNOWLEDGED_ALARMS))
    return (RefusalCode.NOTHING_TO_ACKNOWLEDGE,
            f"no {'such' if alarm is None else alarm} hold stands (acknowledged here: {known})")


def acknowledge(table: Table, out: Out, command: inputs.Acknowledge) -> Refusal | None:
    """A supervisor lifts the hold of ``command.alarm``."""
    if command.alarm == AlarmCode.SOFTWARE_MODIFIED and table.holds.software_modified:
        table.holds = replace(table.holds, software_modified=False)
    elif command.alarm == AlarmCode.RESULT_NOT_CONFIRMED and table.holds.result_rejected:
        release(table, out)  # the result as the shoe read it stands
    else:
        return _nothing_to_acknowledge(command.alarm)
    return None


def alarm_open(table: Table, command: inputs.AcknowledgeAlarm | None) -> Refusal | None:
    """A guard: ``acknowledge_alarm`` while an alarm is open."""
    if table.alarms.open:
        return None
    return _not_open(table, None if command is None else command.alarm_id)


def _not_open(table: Table, alarm_id: str | None) -> Refusal:
    alarms = table.alarms
    if alarm_id is not None and alarms.was_raised(alarm_id):
        return RefusalCode.ALREADY_ACKNOWLEDGED, f"alarm {alarm_id} was acknowledged already"
    named = "" if alarm_id is None else f" {alarm_id!r}"
    open_now = f"{len(alarms.open)} open" if alarms.open else "none is open"
    return RefusalCode.UNKNOWN_ALARM, f"no alarm{named} of this table: {open_now}"


def acknowledge_alarm(table: Table, out: Out, command: inputs.AcknowledgeAlarm) -> Refusal | None:
    """A supervisor acknowledges an open alarm: it is closed, and the pit is told who did."""
    alarm = table.alarms.open.pop(command.alarm_id, None)
    if alarm is None:
        return _not_open(table, command.alarm_id)
    out.publish_now(AlarmAcknowledged(alarm_id=alarm.alarm_id, code=alarm.code,
                                      comment=command.comment, dealer=out.dealer,
                                      supervisor=command.supervisor))
    return None


def no_call_open(table: Table, _command: inputs.CallSupervisor | None) -> Refusal | None:
    """A guard: one call for a supervisor at a time, until a supervisor acknowledges it."""
    for alarm in table.alarms.open.values():
        if alarm.code is AlarmCode.SUPERVISOR_CALLED:
            why = f"a supervisor is called already: {alarm.alarm_id} is open until acknowledged"
            return RefusalCode.ALREADY_CALLED, why
    return None


def call_supervisor(table: Table, out: Out, command: inputs.CallSupervisor) -> Refusal | None:
    """The dealer calls a supervisor: an alarm about the round in play, if any; no hold."""
    round_id = None if table.round is None else table.round.round_id
    out.alarm(table.shoe, AlarmCode.SUPERVISOR_CALLED,
              f"a supervisor is called to the table (by {command.operator}): open until a "
              "supervisor acknowledges it", round_id=round_id)
    return None


def no_dispute_open(table: Table, command: inputs.OpenDispute | None) -> Refusal | None:
    """A guard: one dispute at a time, about rounds of a shoe this table dealt."""
    dispute = table.holds.dispute
    if dispute is not None:
        return RefusalCode.DISPUTE_OPEN, f"dispute {dispute.dispute_id} is open: resolve it first"
    if not table.shoe_ids and (command is None or command.round_ids):
        return _unknown_round(None if command is None else command.round_ids[0])
    return None


def _unknown_round(round_id: str | None) -> Refusal:
    named = "a round id" if round_id is None else repr(round_id)
    return RefusalCode.UNKNOWN_ROUND, f"{named} is no round of this table's shoes"


def open_dispute(table: Table, out: Out, command: inputs.OpenDispute) -> Refusal | None:
    """A supervisor disputes rounds of shoes this table dealt: the table holds."""
    for round_id in command.round_ids:
        shoe_id, _, number = round_id.rpartition("-")
        if shoe_id not in table.shoe_ids or not number.isdigit():
            return _unknown_round(round_id)
    table.disputes_opened += 1
    dispute = DisputeFields(dispute_id=f"{table.table_id}-D{table.disputes_opened:04d}",
                      reason=command.reason, round_ids=command.round_ids,
                      supervisor=command.supervisor)
    table.holds = replace(table.holds, dispute=dispute)
    out.publish_now(DisputeOpened(dispute_id=dispute.dispute_id, reason=dispute.reason,
                                  round_ids=dispute.round_ids, dealer=out.dealer,
                                  supervisor=command.supervisor))
    return None


def dispute_open(table: Table, command: inputs.ResolveDispute | None) -> Refusal | None:
    """A guard: ``resolve_dispute`` while a dispute is open."""
    if table.holds.dispute is not None:
        return None
    return _no_such_dispute(table, None if command is None else command.dispute_id)


def _no_such_dispute(table: Table, dispute_id: str | None) -> Refusal:
    dispute = table.holds.dispute
    open_one = "none is open" if dispute is None else f"{dispute.dispute_id} is open"
    named = "" if dispute_id is None else f" {dispute_id!r}"
    return RefusalCode.NO_SUCH_DISPUTE, f"no dispute{named}: {open_one}"


def resolve_dispute(table: Table, out: Out, command: inputs.ResolveDispute) -> Refusal | None:
    """The open dispute ends with its outcome; its hold clears."""
    dispute = table.holds.dispute
    if dispute is None or dispute.dispute_id != command.dispute_id:
        return _no_such_dispute(table, command.dispute_id)
    table.holds = replace(table.holds, dispute=None)
    out.publish_now(DisputeResolved(dispute_id=dispute.dispute_id, reason=dispute.reason,
                                    round_ids=dispute.round_ids, outcome=command.outcome,
                                    dealer=out.dealer, supervisor=command.supervisor))
    return None


def result_waits(table: Table, _command: inputs.ConfirmResult | None) -> Refusal | None:
    """A guard: ``confirm_result`` while a result waits for it and no supervisor settles it."""
    waiting = table.holds.unconfirmed
    if waiting is None:
        return RefusalCode.NOTHING_TO_CONFIRM, "no result waits for confirmation"
    if table.holds.result_rejected:
        return RefusalCode.NOTHING_TO_CONFIRM, f"a supervisor settles {waiting} now"
    return None


def confirm_result(table: Table, out: Out, command: inputs.ConfirmResult) -> Refusal | None:
    """The second source agrees with the result that waits (published now), or does not."""
    waiting = table.holds.unconfirmed
    if waiting is None or table.holds.result_rejected:
        return result_waits(table, command)
    if waiting != command.round_id:
        return RefusalCode.NOTHING_TO_CONFIRM, f"the result waiting is {waiting}'s"
    if command.agrees:
        release(table, out)
        return None
    table.holds = replace(table.holds, result_rejected=True)
    shoe = table.shoe
    out.alarm(shoe, AlarmCode.RESULT_NOT_CONFIRMED,
              f"the cards on the layout differ from the shoe's reading of {waiting}: "
              "a supervisor corrects or voids the round", round_id=waiting)
    return None


def release(table: Table, out: Out) -> None:
    """The result that waited, and what followed it, go out now."""
    if table.holds.unconfirmed is None:
        return
    waited, table.held_back = table.held_back, []
    table.holds = replace(table.holds, unconfirmed=None, result_rejected=False)
    out.held_back = None
    out.extend(waited)


def precheck(table: Table, kind: type[Command], command: Command | None) -> Refusal | None:
    """Why a command of ``kind`` cannot be taken while a result waits, if it cannot.

    No round starts, and no other round is voided or corrected: the roads would publish it.
    ``command`` is the one given, or ``None`` to ask about every command of its kind.
    """
    waiting = table.holds.unconfirmed
    if waiting is None:
        return None
    if kind is inputs.VoidRound or kind is inputs.CorrectResult:
        if not isinstance(command, inputs.VoidRound | inputs.CorrectResult):
            return None  # one of them names the round that waits
        if command.round_id == waiting:
            return None
    elif kind not in _STARTS_A_ROUND:
        return None
    return RefusalCode.RESULT_UNCONFIRMED, f"the result of {waiting} waits for its confirmation"


def settles_waiting(table: Table, command: Command) -> bool:
    """Whether ``command`` (accepted) is a supervisor's answer to the result that waits."""
    waiting = table.holds.unconfirmed
    if waiting is None:
        return False
    if isinstance(command, inputs.VoidShoe):
        return True
    return (isinstance(command, inputs.VoidRound | inputs.CorrectResult)
            and command.round_id == waiting)

