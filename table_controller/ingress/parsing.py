# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Reading one command from bytes (MQTT) or data (the display): a command or a rejection.

Edge layer: pure (no I/O, no clock, no randomness). :func:`parse_command` never raises and
turns any refusal into a :class:`CommandRejection`: oversized payloads before they are parsed,
then JSON that is not UTF-8 or not an object, then the first field a person should read, each
with its :class:`~table_controller.contract.errors.CommandErrorCode` and a message
naming the offending field.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import replace
from typing import Final

from pydantic import BaseModel, ConfigDict, ValidationError
from pydantic_core import ErrorDetails, from_json

from table_controller.contract import DEFAULT_CURRENCY, CommandErrorCode
from table_controller.contract.commands import (
    COMMAND_NAMES,
    COMMANDS_BY_NAME,
    CURRENCY_CONTEXT,
    MAX_COMMAND_ID_LENGTH,
    NO_CONTROL_CHARACTERS,
    CommandMessage,
)
from table_controller.procedure import BadRecord, Command, command_from_record

#: The largest command a table accepts, in bytes of UTF-8 JSON (mqtt-api.md "Commands").
MAX_COMMAND_BYTES: Final = 4096
_PLAIN_TEXT: Final = re.compile(NO_CONTROL_CHARACTERS)


class CommandRejection(BaseModel):
    """Why a command was refused as read: the ``error`` and ``message`` of the reply.

    ``id`` is the command's id when it has a usable one, so the reply can name it.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: CommandErrorCode
    message: str
    id: str | None = None


def parse_command(
    raw: bytes, *, max_bytes: int = MAX_COMMAND_BYTES, currency: str = DEFAULT_CURRENCY
) -> CommandMessage | CommandRejection:
    """Read one payload of ``<root>/commands``; any bytes give a command or a rejection.

    Never raises. Oversized payloads are refused before they are parsed; JSON nested deeper
    than the parser's limit, text that is not UTF-8, and every type or key the contract does
    not allow are refused with a message naming the offending field. ``currency`` is the
    table's: a ``set_limits`` amount finer than its minor unit is refused (``invalid_args``).
    """
    if len(raw) > max_bytes:
        return CommandRejection(
            code=CommandErrorCode.OVERSIZED,
            message=f"the command has {len(raw)} bytes; at most {max_bytes} are accepted",
        )
    try:
        return CommandMessage.model_validate_json(
            raw, strict=True, context={CURRENCY_CONTEXT: currency}
        )
    except ValidationError as error:
        try:
            data = from_json(raw)
        except ValueError:
            data = None
        return _rejection(error, _usable_id(data))


def validate_command(
    record: Mapping[str, object], *, currency: str = DEFAULT_CURRENCY
) -> CommandMessage | CommandRejection:
    """A command given as data (the display's), read as its JSON text over MQTT would be.

    Never raises: the same fault gets the same code and message on every channel.
    """
    try:
        raw = json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode()
    except (TypeError, ValueError, RecursionError):
        return CommandRejection(
            code=CommandErrorCode.MALFORMED_JSON, message="the command is not JSON data"
        )
    return parse_command(raw, currency=currency)


def readable_id(raw: bytes, *, max_bytes: int = MAX_COMMAND_BYTES) -> str | None:
    """The ``id`` of a payload not otherwise read (refused as ``overloaded``), if usable.

    Only the JSON is parsed, and only for a payload no larger than a command may be; never
    raises.
    """
    if len(raw) > max_bytes:
        return None
    try:
        return _usable_id(from_json(raw))
    except ValueError:
        return None


def _usable_id(data: object) -> str | None:
    """The ``id`` of a refused command, if it has a usable one, for the reply.

    An id with a control character is never echoed: the reply names the fault instead.
    """
    if not isinstance(data, Mapping):
        return None
    command_id = data.get("id")
    if (
        isinstance(command_id, str)
        and 0 < len(command_id) <= MAX_COMMAND_ID_LENGTH
        and _PLAIN_TEXT.fullmatch(command_id) is not None
    ):
        return command_id
    return None


def _json_kind(value: object) -> str:
    """A JSON value as a refusal names it: ``the number 7``, ``an object`` ..."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"a string of {len(value)} characters" if value else "an empty string"
    if value is None:
        return "null"
    return "an object" if isinstance(value, Mapping) else "a list"


def _id_message(detail: ErrorDetails) -> str:
    """Why the ``id`` was refused: ids are strings (the reply carries the id it answers)."""
    length = f"1 to {MAX_COMMAND_ID_LENGTH} characters"
    if detail["type"] == "missing":
        return f"field id: missing; a command needs a string id of {length}"
    if detail["type"] == "string_pattern_mismatch":
        return _control_message("id")
    return f"field id: must be a string of {length}; got {_json_kind(detail.get('input'))}"


def _control_message(field: str) -> str:
    """Why a text field was refused for a control character (the text itself is not echoed)."""
    return (
        f"field {field}: must not contain control characters (U+0000 to U+001F, U+007F to U+009F)"
    )


def _field_path(error: ErrorDetails) -> str:
    """Where the fault is; a key the sender wrote with a control character is escaped."""
    return ".".join(_path_part(part) for part in error["loc"]) or "(the message)"


def _path_part(part: int | str) -> str:
    text = str(part)
    return text if _PLAIN_TEXT.fullmatch(text) is not None else ascii(text)


def _rejection(error: ValidationError, command_id: str | None) -> CommandRejection:
    """The one error a person should read first, as a rejection code and message."""
    errors = error.errors(include_url=False)
    first = errors[0]
    if first["type"] == "json_invalid":
        return CommandRejection(
            code=CommandErrorCode.MALFORMED_JSON,
            message=f"the command is not UTF-8 JSON text: {first['msg']}",
            id=command_id,
        )
    if first["type"] in {"model_type", "model_attributes_type", "dict_type"} and not first["loc"]:
        return CommandRejection(
            code=CommandErrorCode.MALFORMED_JSON,
            message="the command must be a JSON object",
            id=command_id,
        )
    for detail in errors:
        if detail["loc"] == ("command",) and detail["type"] == "literal_error":
            given = repr(detail["input"])
            given = given if len(given) <= 40 else given[:37] + "..."
            return CommandRejection(
                code=CommandErrorCode.UNKNOWN_COMMAND,
                message=f"unknown command {given}; expected one of {', '.join(COMMAND_NAMES)}",
                id=command_id,
            )
    message_errors = [detail for detail in errors if detail["loc"][:1] != ("args",)]
    if message_errors:
        detail = message_errors[0]
        text = _id_message(detail) if detail["loc"] == ("id",) else _field_message(detail)
        return CommandRejection(code=CommandErrorCode.INVALID_MESSAGE, message=text, id=command_id)
    return CommandRejection(
        code=CommandErrorCode.INVALID_ARGS, message=_field_message(errors[0]), id=command_id
    )


def _field_message(detail: ErrorDetails) -> str:
    """What is wrong with one field; a control character is named, never echoed."""
    if (
        detail["type"] == "string_pattern_mismatch"
        and detail.get("ctx", {}).get("pattern") == NO_CONTROL_CHARACTERS
    ):
        return _control_message(_field_path(detail))
    return f"field {_field_path(detail)}: {detail['msg']}"


def to_procedure_command(message: CommandMessage, *, at: float) -> Command:
    """The table procedure's input for this command, received at monotonic time ``at``.

    Read as the table service reads it: :meth:`CommandMessage.to_record` through the record reader
    (:func:`~table_controller.procedure.command_records.command_from_record`).

    Raises:
        ValueError: for ``sign_in``, whose PIN only the staff desk checks and which becomes
            an input only with the staff member it identified; for ``recall`` and
            ``resend``, which the edge answers; for arguments the record reader refuses.
    """
    spec = COMMANDS_BY_NAME[message.command]
    if spec.staff_desk:
        raise ValueError(f"{message.command} becomes an input only through the staff desk")
    if spec.at_the_edge:
        raise ValueError(f"{message.command} is answered at the edge, never by the procedure")
    supervisor = message.operator if message.is_supervisor_command else None
    try:
        command = command_from_record(
            message.command, message.to_record()["args"], at, message.id, message.operator
        )
    except BadRecord as bad:
        raise ValueError(str(bad)) from None
    return replace(command, supervisor=supervisor)
