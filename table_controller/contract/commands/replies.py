# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A command's reply as JSON data, and back: the journal keeps the answers given at the edge.

Edge layer: pure (no I/O, no clock, no randomness). Replies are typed from where they are
made to where they are published (``CommandReply`` and its kinds, ``contract/payloads``); only
a journal row holds one as data (:func:`reply_data`), and
:func:`reply_from_data` reads it back as the payload its command's row of the table says an
``ok`` reply is (``recall``'s rounds, ``resend``'s counts), a refusal as a plain reply.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import Any

from table_controller.contract.codes import RefusalCode
from table_controller.contract.commands.table import command_spec
from table_controller.contract.envelope import fields_of
from table_controller.contract.payloads.controller import CommandReply

#: The fields every reply has, read and checked before those of its kind.
_COMMON = frozenset(field.name for field in dataclasses.fields(CommandReply))
#: The text fields every reply may have.
_TEXTS = ("command", "error", "message", "supervisor")


def reply_data(reply: CommandReply) -> dict[str, object]:
    """A reply as JSON data, as it is published (without the envelope) and journaled."""
    return dict(fields_of(reply))


def reply_from_data(data: Mapping[str, object]) -> CommandReply:
    """A reply kept as JSON data (a journaled answer) as its typed payload, field for field.

    Keys no reply has are left aside, and so is a field of the reply's kind whose value is
    not of its type.

    Raises:
        ValueError: the mapping is no reply (a journal row of a newer version, say).
    """
    command_id, ok = data.get("id"), data.get("ok")
    if not (command_id is None or isinstance(command_id, str)) or not isinstance(ok, bool):
        raise ValueError(f"not a command reply: {dict(data)!r}")
    texts: dict[str, Any] = {}
    for name in _TEXTS:
        value = data.get(name)
        if value is None:
            continue
        if not isinstance(value, str):
            raise ValueError(f"a command reply's {name!r} must be text: {value!r}")  # noqa: TRY004
        texts[name] = _refusal_code(value) if name == "error" else value
    spec = command_spec(texts.get("command")) if ok else None
    kind = CommandReply if spec is None else spec.reply
    extra: dict[str, Any] = {
        field.name: data[field.name]
        for field in dataclasses.fields(kind)
        if field.name not in _COMMON and _of_its_type(field.name, data.get(field.name))
    }
    return kind(id=command_id, ok=ok, **texts, **extra)


def _of_its_type(name: str, value: object) -> bool:
    """Whether a field of a reply's kind holds its type: counts (numbers), lists otherwise."""
    if name in {"resent", "last_seq"}:
        return isinstance(value, int) and not isinstance(value, bool)
    if name == "gone":
        return isinstance(value, list) and all(_of_its_type("resent", seq) for seq in value)
    return isinstance(value, list)


def _refusal_code(error: str) -> RefusalCode | str:
    """The procedure's code when ``error`` is one, else the edge's own text (``invalid_args``)."""
    try:
        return RefusalCode(error)
    except ValueError:
        return error

