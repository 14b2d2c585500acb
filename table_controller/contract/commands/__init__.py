# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The commands of the MQTT contract: their table, arguments, messages and error codes."""

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
    "PROCEDURE_INPUTS",
    "STAFF_COMMANDS",
    "CommandName",
    "CommandSpec",
    "Giver",
    "command_spec",
]
