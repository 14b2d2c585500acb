# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The checks every reading of an input record shares: a field's text, count, number, cards, limits.

Pure: no I/O, no clock, no randomness. Each check returns the value it read or raises
:class:`BadRecord`, which :func:`~table_controller.procedure.records.input_from_record` turns
into a :class:`~table_controller.procedure.records.RecordRejected` (a bad record is a value to
every caller, never an exception); ``key`` names the field in the reason.
"""

from __future__ import annotations

import math
from typing import Final

from table_controller.contract import BetLimits
from table_controller.procedure.limits import limits_from_data
from table_controller.rules import Card, CardError, parse_cards


class BadRecord(Exception):  # noqa: N818 - control flow of reading a record, never escapes it
    """A record is not an input; the message says why, naming the offending part."""


def require_true(value: object, key: str) -> None:
    """Nothing: the field must be ``true`` (``cut``, ``misread``)."""
    if value is not True:
        raise BadRecord(f"{key!r} must be true")


def read_text(value: object, key: str) -> str:
    """A non-empty string."""
    if not isinstance(value, str) or not value:
        raise BadRecord(f"{key!r} must be a non-empty string")
    return value


def read_count(value: object, key: str, *, least: int) -> int:
    """A whole number, ``least`` or more (a JSON ``true`` is not one)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise BadRecord(f"{key!r} must be a whole number >= {least}")
    return value


def read_number(value: object, name: str) -> float:
    """A finite JSON number, as the float it was published as; ``name`` says whose."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise BadRecord(f"{name} must be a number")
    try:
        number = float(value)
    except OverflowError:  # an integer beyond any float
        number = math.inf
    if not math.isfinite(number):
        raise BadRecord(f"{name} must be a finite number")
    return number


def read_card(value: object, key: str) -> Card:
    """A card as the shoe writes it (``QH``)."""
    try:
        return Card.parse(value)  # type: ignore[arg-type]  # parse checks the type itself
    except CardError as error:
        raise BadRecord(f"{key!r}: {error}") from None


def read_cards(value: object, key: str) -> tuple[Card, ...]:
    """A list of cards as the shoe writes them."""
    if not isinstance(value, list):
        raise BadRecord(f"{key!r} must be a list of cards")
    try:
        return parse_cards(value)
    except CardError as error:
        raise BadRecord(f"{key!r} {error}") from None


def read_limits(value: object, key: str) -> dict[str, BetLimits]:
    """Each bet's stake limits, as :func:`~.limits.limits_from_data` reads them."""
    try:
        return limits_from_data(value, key)
    except ValueError as error:
        raise BadRecord(str(error)) from None


#: How deep an assessment alarm's details may nest.
_MAX_JSON_DEPTH: Final = 8


def require_json(value: object, key: str, depth: int = 0) -> None:
    """Refuse what could not be published as JSON: NaN, infinities, odd types, deep nesting."""
    if depth > _MAX_JSON_DEPTH:
        raise BadRecord(f"{key!r} nests too deep")
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise BadRecord(f"{key!r} holds a number that is not finite")
        return
    if isinstance(value, list):
        for item in value:
            require_json(item, key, depth + 1)
        return
    if isinstance(value, dict) and all(isinstance(name, str) for name in value):
        for item in value.values():
            require_json(item, key, depth + 1)
        return
    raise BadRecord(f"{key!r} holds a value that is not JSON")
