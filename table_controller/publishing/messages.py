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

import enum
import json
from collections.abc import Mapping
from fractions import Fraction
from typing import Final, TypeAlias

SCHEMA: Final = "baccarat-table/1"
#: The envelope's own keys, in the order they are written.
ENVELOPE_KEYS: Final = ("schema", "type", "table_id", "seq", "ts")

JsonValue: TypeAlias = (
    bool | int | float | str | list["JsonValue"] | dict[str, "JsonValue"] | None
)


def to_wire(value: object) -> JsonValue:
    """A payload value as JSON data: Fractions to numbers, enums to their values, tuples to lists.

    Raises:
        TypeError: a value JSON cannot carry (a bug in whoever built the payload).
    """
    if isinstance(value, enum.Enum):  # first: a StrEnum is a str too
        return to_wire(value.value)
    if value is None or isinstance(value, bool | int | str):
        return value
    if isinstance(value, Fraction):
        return value.numerator if value.denominator == 1 else float(value)
    if isinstance(value, float):
        return value
    if isinstance(value, Mapping):
        return {str(key): to_wire(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [to_wire(item) for item in value]
    raise TypeError(f"cannot publish a {type(value).__name__}: {value!r}")


def envelope(
    event_type: str,
    payload: Mapping[str, object],
    *,
    table_id: str,
    seq: int | None,
    ts: str | None,
) -> dict[str, JsonValue]:
    """The whole message: the envelope first, then the payload's fields as JSON data.

    A ``type`` inside the payload (the roads payload has one) yields to ``event_type``.
    ``seq=None`` leaves ``seq`` out: the envelope of a ``status``.
    """
    message: dict[str, JsonValue] = {"schema": SCHEMA, "type": event_type, "table_id": table_id}
    if seq is not None:
        message["seq"] = seq
    message["ts"] = ts
    for key, value in payload.items():
        if key not in ENVELOPE_KEYS:
            message[key] = to_wire(value)
    return message


def dumps(message: Mapping[str, JsonValue]) -> str:
    """One message as compact JSON text (UTF-8 safe, no NaN)."""
    return json.dumps(message, separators=(",", ":"), ensure_ascii=False, allow_nan=False)
