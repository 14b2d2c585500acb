# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table's stake limits: each bet's minimum and maximum, in the table's currency.

Pure: no I/O, no clock, no randomness. A part of the procedure: it reads and changes the
:class:`~table_controller.procedure.table.Table` and imports no other part.

The limits in force start as the configuration gives them (settings over the variant file,
read at the edge). The configuration is journaled at start when it differs from the last one
taken (``LimitsConfigured``): a bet whose configured limits changed takes the new ones, and a
bet whose configured limits did not change keeps what a supervisor set. ``set_limits`` (a
supervisor, while no round is in play: its routes in :data:`~.states.ROUTES`) changes the bets
it names and leaves the others. Each change publishes the whole ``<root>/limits``.

Amounts are exact (``Fraction``): a whole number, or text such as ``"0.50"`` or ``"1/2"``;
:func:`amount` reads them for every edge, and :func:`amount_text` writes them in a record.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Final

from table_controller.procedure.codes import RefusalCode
from table_controller.procedure.events import LimitsConfigured, SetLimits
from table_controller.procedure.state_payloads import BetLimits, TableLimits
from table_controller.procedure.states import Phase
from table_controller.procedure.table import Out, Refusal, Table

#: An ISO 4217 currency code: three upper-case letters.
CURRENCY_PATTERN: Final = r"^[A-Z]{3}$"
#: No stake limit is larger than this: anything larger is a typing error.
MAX_AMOUNT: Final = 10**12
#: An amount written as text: a decimal of modest size, or a fraction.
_AMOUNT_TEXT: Final = re.compile(r"[0-9]{1,13}(\.[0-9]{1,6})?|[0-9]{1,13}/[0-9]{1,13}")


def amount(value: object) -> Fraction:
    """An exact amount from a whole number, a finite float or text (``"0.50"``, ``"1/2"``).

    Raises:
        ValueError: ``value`` is no amount (a message a person can read).
    """
    bad = ValueError(f"{value!r} is not an amount (use 100, 0.5, '0.50' or '1/2')")
    if isinstance(value, bool):
        raise bad
    if isinstance(value, int):
        if abs(value) > MAX_AMOUNT:
            raise ValueError(f"{value!r} is larger than {MAX_AMOUNT}")
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value) or abs(value) > MAX_AMOUNT:
            raise bad
        return Fraction(Decimal(repr(value)))  # 0.95 is read through its text: exactly 19/20
    if not isinstance(value, str) or not _AMOUNT_TEXT.fullmatch(value):
        raise bad
    try:
        return Fraction(value)
    except (ValueError, ZeroDivisionError, InvalidOperation):
        raise bad from None


def amount_text(value: Fraction) -> str:
    """An exact amount as text :func:`amount` reads back: ``100``, ``0.5``, else ``p/q``."""
    for digits in range(7):
        scaled = value * 10**digits
        if scaled.denominator == 1:
            return f"{Decimal(scaled.numerator).scaleb(-digits):f}"
    return f"{value.numerator}/{value.denominator}"


#: Most bets one map of limits may name.
MAX_LIMITED_BETS: Final = 64


def limits_from_data(value: object, key: str) -> dict[str, BetLimits]:
    """A map of bet id to ``{"min", "max"}`` amounts, as JSON or TOML data gives it.

    The bets are checked against the variant, and the amounts against each other, later.

    Raises:
        ValueError: not such a map; the message names ``key`` and the bet.
    """
    if not isinstance(value, Mapping) or len(value) > MAX_LIMITED_BETS:
        raise ValueError(f"{key}: must be a map of at most {MAX_LIMITED_BETS} bets")
    limits: dict[str, BetLimits] = {}
    for bet, pair in value.items():
        if not isinstance(bet, str) or not bet:
            raise ValueError(f"{key}: a bet id must be a non-empty string")
        if not isinstance(pair, Mapping) or set(pair) != {"min", "max"}:
            raise ValueError(f"{key}.{bet}: must be {{min, max}}")
        try:
            limits[bet] = BetLimits(min=amount(pair["min"]), max=amount(pair["max"]))
        except ValueError as error:
            raise ValueError(f"{key}.{bet}: {error}") from None
    return limits


def limits_data(limits: Mapping[str, BetLimits]) -> dict[str, object]:
    """A map of limits as JSON data for a record: amounts as exact text (``"0.5"``, ``"100"``)."""
    return {
        bet: {"min": amount_text(pair.min), "max": amount_text(pair.max)}
        for bet, pair in limits.items()
    }


def limits_problem(limits: BetLimits) -> str | None:
    """Why a bet's limits cannot stand, if they cannot: ``0 < min <= max <= MAX_AMOUNT``."""
    if limits.min <= 0:
        return f"min {amount_text(limits.min)} must be above 0"
    if limits.min > limits.max:
        return f"min {amount_text(limits.min)} is above max {amount_text(limits.max)}"
    if limits.max > MAX_AMOUNT:
        return f"max {amount_text(limits.max)} is larger than {MAX_AMOUNT}"
    return None


def in_variant_order(table: Table, limits: Mapping[str, BetLimits]) -> dict[str, BetLimits]:
    """The limits of the bets the variant offers, in the variant's order of bets."""
    return {bet: limits[bet] for bet in table.variant.bet_ids if bet in limits}


def configure(table: Table, out: Out, event: LimitsConfigured) -> None:
    """The configuration's limits: the bets whose configured limits changed take them."""
    configured = in_variant_order(table, event.limits)
    previous = table.configured
    if previous is None:
        in_force = configured
    else:
        in_force = dict(table.limits.limits)
        for bet in previous.limits.keys() | configured.keys():
            if previous.limits.get(bet) == configured.get(bet):
                continue
            if bet in configured:
                in_force[bet] = configured[bet]
            else:
                in_force.pop(bet, None)
    table.configured = TableLimits(currency=event.currency, limits=configured)
    table.limits = TableLimits(currency=event.currency,
                               limits=in_variant_order(table, in_force))
    out.publish_now(table.limits)


def set_limits(table: Table, out: Out, command: SetLimits) -> Phase | Refusal:
    """A supervisor's new limits for the bets named; the other bets keep theirs."""
    if not command.limits:
        return RefusalCode.INVALID_LIMITS, "set_limits names no bet"
    offered = table.variant.bet_ids
    for bet, limits in command.limits.items():
        if bet not in offered:
            known = ", ".join(offered)
            return (RefusalCode.INVALID_LIMITS,
                    f"the {table.variant.name!r} variant has no bet {bet!r} (its bets: {known})")
        problem = limits_problem(limits)
        if problem is not None:
            return RefusalCode.INVALID_LIMITS, f"{bet}: {problem}"
    merged = {**table.limits.limits, **command.limits}
    table.limits = TableLimits(currency=table.limits.currency,
                               limits=in_variant_order(table, merged),
                               operator=command.operator, supervisor=command.supervisor)
    out.publish_now(table.limits)
    return table.phase
