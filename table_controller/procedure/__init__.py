# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table procedure: a pure state machine from new shoe to shoe end (game-rules.md section 5).

Pure: no I/O, no clock, no randomness, no logging; imports only the standard library,
``rules`` and the contract's types. Inputs in (the module :mod:`inputs`, offered whole, whose
types are the journal's records), decisions out (:mod:`~table_controller.procedure.decisions`);
:class:`TableProcedure` is the machine.
"""

from table_controller.procedure import inputs
from table_controller.procedure.command_records import MAX_DISPUTED_ROUNDS, command_from_record
from table_controller.procedure.decisions import (
    Announce,
    CommandAccepted,
    CommandRefused,
    Decision,
    HoldTable,
    Publish,
    RaiseAlarm,
    ResumeTable,
    SetLamp,
)
from table_controller.procedure.errors import ProcedureBug
from table_controller.procedure.inputs import (
    AssessmentAlarm,
    CardDrawn,
    CardMisread,
    Command,
    CutCardDrawn,
    EnterCard,
    FramesLost,
    Input,
    LimitsConfigured,
    ReaderCameBack,
    ReaderWentOffline,
    RoundAssessed,
    RuntimeFailed,
    SoftwareModified,
    not_carried_out,
)
from table_controller.procedure.limits import (
    CURRENCY_PATTERN,
    MAX_LIMITED_BETS,
    STAKE_TEXT_PATTERN,
    amount,
    amount_text,
    decimal_amount,
    limits_from_data,
    limits_problem,
    minor_unit_problem,
    stake_amount,
)
from table_controller.procedure.machine import ShoeCount, TableProcedure
from table_controller.procedure.record_fields import BadRecord
from table_controller.procedure.records import RecordRejected, input_from_record, input_to_record
from table_controller.procedure.supervision import MAX_SHOE_ID_LENGTH

__all__ = [
    "CURRENCY_PATTERN",
    "MAX_DISPUTED_ROUNDS",
    "MAX_LIMITED_BETS",
    "MAX_SHOE_ID_LENGTH",
    "STAKE_TEXT_PATTERN",
    "Announce",
    "AssessmentAlarm",
    "BadRecord",
    "CardDrawn",
    "CardMisread",
    "Command",
    "CommandAccepted",
    "CommandRefused",
    "CutCardDrawn",
    "Decision",
    "EnterCard",
    "FramesLost",
    "HoldTable",
    "Input",
    "LimitsConfigured",
    "ProcedureBug",
    "Publish",
    "RaiseAlarm",
    "ReaderCameBack",
    "ReaderWentOffline",
    "RecordRejected",
    "ResumeTable",
    "RoundAssessed",
    "RuntimeFailed",
    "SetLamp",
    "ShoeCount",
    "SoftwareModified",
    "TableProcedure",
    "amount",
    "amount_text",
    "command_from_record",
    "decimal_amount",
    "input_from_record",
    "input_to_record",
    "inputs",
    "limits_from_data",
    "limits_problem",
    "minor_unit_problem",
    "not_carried_out",
    "stake_amount",
]
