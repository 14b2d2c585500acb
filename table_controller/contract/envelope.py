# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The envelope of every published message, and the one place money becomes a JSON number.

Pure: no I/O, no clock, no randomness. The caller supplies ``seq`` and ``ts``.

Every payload of mqtt-api.md travels as ``{"schema": "baccarat-table/1", "type": ...,
"table_id": ..., "seq": ..., "ts": ..., <the event's fields>}``, but ``status``, which carries
no ``seq`` of its own (its ``last_seq`` is a field of its payload). The cores keep money exact
(``fractions.Fraction``); :func:`to_wire` turns it into a JSON number here and nowhere else:
a whole amount becomes an ``int`` (``-1``, ``12``), any other a ``float`` (19/20 -> ``0.95``).
"""

from __future__ import annotations

import dataclasses
import enum
import json
from collections.abc import Mapping
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any, Final, TypeAlias, cast

from table_controller.contract.payloads.base import ABSENT, Payload
from table_controller.rules import Card

SCHEMA: Final = "baccarat-table/1"
#: The envelope's own keys, in the order they are written.
ENVELOPE_KEYS: Final = ("schema", "type", "table_id", "seq", "ts")

JsonValue: TypeAlias = (
    bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
)


def to_wire(value: object) -> JsonValue:  # noqa: PLR0911 - one case per kind of value
    """A payload value as JSON data.

    Typed payloads become objects (fields in their order, :data:`ABSENT` ones left out, the
    flattened ones spliced in), cards their codes, Fractions numbers, enums their values and
    tuples lists.

    Raises:
        TypeError: a value JSON cannot carry (a bug in whoever built the payload).
    """
    if value is None or isinstance(value, bool | int | str):
        if isinstance(value, enum.Enum):  # a StrEnum is a str too
            return to_wire(value.value)
        return value
    if isinstance(value, Card):
        return value.code
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else float(value)
    if isinstance(value, float):
        return value
    if isinstance(value, enum.Enum):
        return to_wire(value.value)
    if isinstance(value, Mapping):
        return {str(key): to_wire(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_wire(item) for item in value]
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return fields_of(value)
    raise TypeError(f"cannot publish a {type(value).__name__}: {value!r}")


#: Per dataclass: its fields' names, each with whether it is spliced into its parent.
_FIELDS: dict[type, tuple[tuple[str, bool], ...]] = {}


def fields_of(value: object) -> dict[str, JsonValue]:
    """A typed payload (or a part of one) as a JSON object, in its fields' order."""
    cls = type(value)
    spec = _FIELDS.get(cls)
    if spec is None:
        spec = tuple(
            (item.name, bool(item.metadata.get("flatten")))
            for item in dataclasses.fields(cast("Any", value))
        )
        _FIELDS[cls] = spec
    data: dict[str, JsonValue] = {}
    for name, flatten in spec:
        item = getattr(value, name)
        if item is ABSENT:
            continue
        if flatten:
            spliced = to_wire(item)
            if isinstance(spliced, dict):
                data.update(spliced)
        else:
            data[name] = to_wire(item)
    return data


def envelope(
    event_type: str,
    payload: Payload | Mapping[str, object],
    *,
    table_id: str,
    seq: int | None,
    ts: str | None,
) -> dict[str, JsonValue]:
    """The whole message: the envelope first, then the payload's fields as JSON data.

    ``payload`` is a typed payload or a mapping (a payload read back from JSON, whose envelope
    keys yield to the envelope's). ``seq=None`` leaves ``seq`` out: the envelope of a ``status``.
    """
    message: dict[str, JsonValue] = {"schema": SCHEMA, "type": event_type, "table_id": table_id}
    if seq is not None:
        message["seq"] = seq
    message["ts"] = ts
    if isinstance(payload, Payload):
        message.update(fields_of(payload))
    else:
        for key, value in payload.items():
            if key not in ENVELOPE_KEYS:
                message[key] = to_wire(value)
    return message


def dumps(message: Mapping[str, JsonValue]) -> str:
    """One message as compact JSON text (UTF-8 safe, no NaN)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def utc_text(moment: datetime) -> str:
    """``2026-11-29T12:00:00.123Z``: the UTC form of every ``ts`` (envelope, journal, outbox)."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
