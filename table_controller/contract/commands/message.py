# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The command published to ``<root>/commands``, and the procedure input it becomes.

Edge layer: pure (no I/O, no clock, no randomness). :class:`CommandMessage` checks ``args``
against the model its ``command``'s row names (``contract/commands/table.py``), says in its
JSON Schema which arguments go with which command, gives the bytes a signature covers, and
turns into the table procedure's input (``ingress/parsing.py``, which also reads it from
bytes, never raising).
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Final, get_args

from pydantic import ConfigDict, Field, StringConstraints, ValidationInfo, field_validator

from table_controller.contract.commands.args import (
    NO_CONTROL_CHARACTERS,
    CommandArgs,
    IncomingModel,
)
from table_controller.contract.commands.table import (
    ARGS_MODELS,
    COMMAND_TABLE,
    COMMANDS_BY_NAME,
    CommandName,
    Giver,
)

MAX_COMMAND_ID_LENGTH: Final = 128
MAX_OPERATOR_LENGTH: Final = 64

#: The arguments models in the order of the schema's ``anyOf``.
_ARGS_UNION: Final = get_args(CommandArgs)


def _link_args_to_command(schema: dict[str, Any]) -> None:
    """Say in the JSON Schema which ``args`` model goes with which ``command`` (if/then)."""
    choices = schema["properties"]["args"]["anyOf"]
    rules: list[Any] = []
    for spec in COMMAND_TABLE:
        then: dict[str, Any] = {"properties": {"args": choices[_ARGS_UNION.index(spec.args)]}}
        if any(field.is_required() for field in spec.args.model_fields.values()):
            then["required"] = ["args"]  # a missing args is {}, which lacks them
        rules.append({"if": {"properties": {"command": {"const": spec.name}}}, "then": then})
    schema["allOf"] = rules


class CommandMessage(IncomingModel):
    """A command published to ``<root>/commands`` (mqtt-api.md "Commands").

    ``args`` is checked against the model of ``command`` (:data:`ARGS_MODELS`); a missing
    ``args`` is read as ``{}``, so it is refused for a command that needs arguments.
    """

    model_config = ConfigDict(json_schema_extra=_link_args_to_command)

    id: Annotated[
        str,
        StringConstraints(
            min_length=1, max_length=MAX_COMMAND_ID_LENGTH, pattern=NO_CONTROL_CHARACTERS
        ),
        Field(
            description=(
                "Chosen by the sender, without control characters. The same command again "
                "with this id is answered again, not redone; another command with it is "
                "refused (id_reused)."
            )
        ),
    ]
    command: CommandName
    operator: Annotated[
        str,
        StringConstraints(
            min_length=1, max_length=MAX_OPERATOR_LENGTH, pattern=NO_CONTROL_CHARACTERS
        ),
        Field(
            description=(
                "Who gives the command, without control characters; supervisor commands "
                "need an authorised one."
            )
        ),
    ]
    args: Annotated[
        CommandArgs,
        Field(default_factory=dict, validate_default=True),
    ]
    signature: Annotated[
        str | None,
        StringConstraints(pattern=r"^[0-9a-f]{64}$"),
        Field(
            description=(
                "Signed mode: lowercase hex HMAC-SHA256 of canonical_bytes(), the command "
                "without its signature as compact JSON with sorted keys and no null values."
            )
        ),
    ] = None

    @field_validator("args", mode="before")
    @classmethod
    def _args_of_the_command(cls, value: object, info: ValidationInfo) -> object:
        command = info.data.get("command")
        if command is None:  # the command itself was refused; that error is the one to report
            return value
        return ARGS_MODELS[command].model_validate(value, strict=True, context=info.context)

    @property
    def is_supervisor_command(self) -> bool:
        """Whether only an authorised supervisor may give this command."""
        return COMMANDS_BY_NAME[self.command].giver is Giver.SUPERVISOR

    def canonical_bytes(self) -> bytes:
        """What a signature covers: the command without ``signature``, as canonical JSON.

        Compact separators, keys sorted at every level, ``null`` values left out, ``args``
        always present (``{}`` when empty), UTF-8 without escaping.
        """
        data = self.model_dump(mode="json", exclude={"signature"}, exclude_none=True)
        text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        return text.encode()

    def to_record(self) -> dict[str, object]:
        """The command as the table service takes it: a supervisor command names its supervisor.

        Over MQTT the operator a supervisor command names is the supervisor who authorised it
        (``authorise`` has checked it); the signature stays at the edge.
        """
        record = self.model_dump(mode="json", exclude={"signature"})
        if self.is_supervisor_command:
            record["supervisor"] = self.operator
        return record
