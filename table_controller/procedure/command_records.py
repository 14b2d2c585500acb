# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Reading and writing the record of a command: its name, its arguments, and the input.

Pure: no I/O, no clock, no randomness. A command's record names it as its input class does
(``COMMAND``) and carries its input's own fields as ``args`` (every field but those all
commands have, :data:`~.inputs.COMMAND_FIELDS`): an argument is required unless the field has
a default, and each is read and written by the one rule for its field (:data:`_ARGUMENTS`),
whatever the command. A record that does not make a command raises
:class:`~table_controller.procedure.record_fields.BadRecord`; the record's own fields (``id``,
``operator``, ``supervisor``, ``at``) are read by :mod:`.records`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Final

from table_controller.contract import StaffRole
from table_controller.procedure.inputs import COMMAND_FIELDS, COMMANDS, Command
from table_controller.procedure.limits import limits_data
from table_controller.procedure.record_fields import (
    BadRecord,
    read_card,
    read_cards,
    read_limits,
    read_text,
)
from table_controller.rules import Card

#: Most rounds one dispute may name (the recall's own limit).
MAX_DISPUTED_ROUNDS: Final = 50


def _text_or_none(value: object, key: str) -> str | None:
    return None if value is None else read_text(value, key)


def _truth(value: object, key: str) -> bool:
    if not isinstance(value, bool):
        raise BadRecord(f"{key!r} must be true or false")
    return value


def _role(value: object, key: str) -> StaffRole:
    if not isinstance(value, str) or value not in frozenset(StaffRole):
        raise BadRecord(f"{key!r} must be one of {', '.join(StaffRole)}")
    return StaffRole(value)


def _a_few_round_ids(value: object, key: str) -> None:
    if (
        not isinstance(value, list)
        or not 1 <= len(value) <= MAX_DISPUTED_ROUNDS
        or len(set(map(str, value))) != len(value)
    ):
        raise BadRecord(f"{key!r} must list 1 to {MAX_DISPUTED_ROUNDS} different round ids")


def _round_ids(value: object, key: str) -> tuple[str, ...]:
    assert isinstance(value, list), "checked first"
    return tuple(read_text(item, key) for item in value)


def _as_is(value: object) -> object:
    return value


def _code(card: Card) -> str:
    return card.code


def card_codes(cards: Iterable[Card | None]) -> list[str | None]:
    """Cards as the shoe writes them (``QH``); ``None`` for a card nobody could read."""
    return [None if card is None else card.code for card in cards]


def _listed(values: Iterable[object]) -> list[object]:
    return list(values)


@dataclass(frozen=True, slots=True)
class _Argument:
    """How a command input's field is kept in its record's ``args``."""

    #: The argument's name in the record (the field's, but for ``round_ids``).
    key: str
    #: Reads the record's value; raises :class:`BadRecord`, naming ``key``.
    read: Callable[[object, str], object]
    #: The field's value as JSON data.
    write: Callable[[Any], object] = _as_is
    #: Checks the record's value before any value is read (raises :class:`BadRecord`).
    check: Callable[[object, str], None] | None = None


#: Every field a command input has beyond :data:`~.inputs.COMMAND_FIELDS`, by field name, in
#: the order a record's values are read in, after every ``check`` (the first fault is named).
_ARGUMENTS: Final[Mapping[str, _Argument]] = {
    "read": _Argument("read", _truth),
    "agrees": _Argument("agrees", _truth),
    "role": _Argument("role", _role, lambda role: role.value),
    "shoe_id": _Argument("shoe_id", _text_or_none),
    "round_id": _Argument("round_id", read_text),
    "card": _Argument("card", read_card, _code),
    "player": _Argument("player", read_cards, card_codes),
    "banker": _Argument("banker", read_cards, card_codes),
    "staff_id": _Argument("staff_id", read_text),
    "name": _Argument("name", read_text),
    "reason": _Argument("reason", read_text),
    "round_ids": _Argument("rounds", _round_ids, _listed, check=_a_few_round_ids),
    "dispute_id": _Argument("dispute_id", read_text),
    "outcome": _Argument("outcome", read_text),
    "alarm": _Argument("alarm", read_text),
    "alarm_id": _Argument("alarm_id", read_text),
    "comment": _Argument("comment", _text_or_none),
    "limits": _Argument("limits", read_limits, limits_data),
}
_READING_ORDER: Final = {name: index for index, name in enumerate(_ARGUMENTS)}


@dataclass(frozen=True, slots=True)
class _Field:
    """One argument of one command: its input field, how it is kept, and its default."""

    name: str
    argument: _Argument
    required: bool
    default: object


def _fields_of(command: type[Command]) -> tuple[_Field, ...]:
    """The arguments of ``command``'s record, in the order of its input's fields."""
    found = []
    for field in dataclasses.fields(command):
        if field.name in COMMAND_FIELDS:
            continue
        required = field.default is dataclasses.MISSING and (
            field.default_factory is dataclasses.MISSING
        )
        found.append(_Field(field.name, _ARGUMENTS[field.name], required, field.default))
    return tuple(found)


#: Each command's arguments, by its input class.
_FIELDS: Final[Mapping[type[Command], tuple[_Field, ...]]] = {
    command: _fields_of(command) for command in COMMANDS.values()
}


def command_from_record(
    name: object, args: object, at: float, command_id: str, operator: str
) -> Command:
    """The command a record names with its arguments (its input's fields, read as kept)."""
    if not isinstance(name, str) or name not in COMMANDS:
        raise BadRecord(f"unknown command {name!r} (expected one of {', '.join(COMMANDS)})")
    if not isinstance(args, dict):
        raise BadRecord("'args' must be a JSON object")
    command = COMMANDS[name]
    fields = _FIELDS[command]
    unknown = sorted(set(args) - {field.argument.key for field in fields})
    if unknown:
        raise BadRecord(f"command {name!r} takes no argument {unknown[0]!r}")
    missing = [f.argument.key for f in fields if f.required and f.argument.key not in args]
    if missing:
        raise BadRecord(f"command {name!r} needs argument {missing[0]!r}")
    present = sorted(
        (field for field in fields if field.argument.key in args),
        key=lambda field: _READING_ORDER[field.name],
    )
    for field in present:
        if field.argument.check is not None:
            field.argument.check(args[field.argument.key], field.argument.key)
    given: dict[str, Any] = {
        field.name: field.argument.read(args[field.argument.key], field.argument.key)
        for field in present
    }
    return command(at=at, command_id=command_id, operator=operator, **given)


def command_args(command: Command) -> dict[str, object]:
    """A command's ``args`` as its record keeps them; an argument at its default is left out."""
    args: dict[str, object] = {}
    for field in _FIELDS[type(command)]:
        value = getattr(command, field.name)
        if field.required or value != field.default:
            args[field.argument.key] = field.argument.write(value)
    return args
