# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The commands of the MQTT contract: their table, arguments, messages and error codes."""

from table_controller.contract.commands.args import (
    CURRENCY_CONTEXT,
    DEFAULT_ROUNDS,
    MAX_ROUNDS,
    NO_CONTROL_CHARACTERS,
    PIN_PATTERN,
    STAFF_ID_PATTERN,
    RecallArgs,
    ResendArgs,
)
from table_controller.contract.commands.message import (
    MAX_COMMAND_ID_LENGTH,
    CommandMessage,
)
from table_controller.contract.commands.replies import reply_data, reply_from_data
from table_controller.contract.commands.table import (
    ARGS_MODELS,
    BUTTON_COMMANDS,
    COMMAND_NAMES,
    COMMAND_TABLE,
    COMMANDS_BY_NAME,
    PROCEDURE_INPUTS,
    STAFF_COMMANDS,
    CommandName,
    CommandSpec,
    Giver,
    command_spec,
)

__all__ = [
    "ARGS_MODELS",
    "BUTTON_COMMANDS",
    "COMMANDS_BY_NAME",
    "COMMAND_NAMES",
    "COMMAND_TABLE",
    "CURRENCY_CONTEXT",
    "DEFAULT_ROUNDS",
    "MAX_COMMAND_ID_LENGTH",
    "MAX_ROUNDS",
    "NO_CONTROL_CHARACTERS",
    "PIN_PATTERN",
    "PROCEDURE_INPUTS",
    "STAFF_COMMANDS",
    "STAFF_ID_PATTERN",
    "CommandMessage",
    "CommandName",
    "CommandSpec",
    "Giver",
    "RecallArgs",
    "ResendArgs",
    "command_spec",
    "reply_data",
    "reply_from_data",
]
