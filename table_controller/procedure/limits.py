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

Amounts are exact (``Fraction``). Where a person gives them (a ``set_limits``, the settings, the
variant file) they are decimal amounts of the table's currency, in its minor unit at most
(ISO 4217: two decimals for USD, none for JPY, three for KWD): :func:`stake_amount` reads them
and refuses a fraction (``"1/3"``) or a decimal too many (``"0.001"`` of a dollar). A record
keeps any exact amount (:func:`amount`, :func:`amount_text`), as journals written before
this rule hold some.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Final

from table_controller.contract import BetLimits, Phase, RefusalCode, TableLimits
from table_controller.procedure.inputs import LimitsConfigured, SetLimits
from table_controller.procedure.table import Out, Refusal, Table

#: An ISO 4217 currency code: three upper-case letters.
CURRENCY_PATTERN: Final = r"^[A-Z]{3}$"
#: No stake limit is larger than this: anything larger is a typing error.
MAX_AMOUNT: Final = 10**12
#: An amount written as text: a decimal of modest size, or a fraction.
_AMOUNT_TEXT: Final = re.compile(r"[0-9]{1,13}(\.[0-9]{1,6})?|[0-9]{1,13}/[0-9]{1,13}")
#: A stake written as text: a decimal (a currency's minor unit has at most four decimals).
STAKE_TEXT_PATTERN: Final = r"^[0-9]{1,13}(\.[0-9]{1,4})?$"
#: A decimal as text, read to say how it misses a currency's minor unit if it has more decimals.
_DECIMAL_TEXT: Final = re.compile(r"[0-9]{1,13}(\.[0-9]{1,24})?")
#: The decimals of each currency's minor unit (ISO 4217 "exponent") that has other than two.
#: A code not listed (``USD``, ``MOP``, ``HKD`` ...) has two.
MINOR_UNIT_DIGITS: Final[Mapping[str, int]] = {
    **dict.fromkeys(
        ("BIF", "CLP", "DJF", "GNF", "ISK", "JPY", "KMF", "KRW", "PYG", "RWF", "UGX", "UYI",
         "VND", "VUV", "XAF", "XOF", "XPF"),
        0,
    ),
    **dict.fromkeys(("BHD", "IQD", "JOD", "KWD", "LYD", "OMR", "TND"), 3),
    **dict.fromkeys(("CLF", "UYW"), 4),
}  # fmt: skip
#: Significant digits a published number (a JSON number, a double) carries exactly.
EXACT_DIGITS: Final = 15


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


def minor_unit_digits(currency: str) -> int:
    """The decimals of ``currency``'s minor unit: 2 for USD, 0 for JPY, 3 for KWD."""
    return MINOR_UNIT_DIGITS.get(currency, 2)


def minor_unit_problem(value: Fraction, currency: str) -> str | None:
    """Why ``value`` is no amount of ``currency``, if it is not: it needs a smaller unit.

    An amount with decimals and more significant digits than a published number carries
    exactly is refused too (only a four-decimal currency can reach that below
    :data:`MAX_AMOUNT`); a whole amount is published as a whole number, always exact.
    """
    digits = minor_unit_digits(currency)
    units = value * 10**digits
    if units.denominator != 1:
        has = "no decimals" if digits == 0 else f"at most {digits} decimals"
        if _is_decimal(value):
            return f"{_decimal(value)} is finer than its minor unit: {currency} amounts have {has}"
        return f"{amount_text(value)} is not a decimal amount: {currency} amounts have {has}"
    if value.denominator != 1 and len(str(abs(units.numerator))) > EXACT_DIGITS:
        return f"{amount_text(value)} has more than {EXACT_DIGITS} significant digits"
    return None


def _is_decimal(value: Fraction) -> bool:
    """Whether ``value`` has a finite decimal expansion (its denominator divides a 10**n)."""
    denominator = value.denominator
    for prime in (2, 5):
        while denominator % prime == 0:
            denominator //= prime
    return denominator == 1


def _decimal(value: Fraction) -> str:
    """A finite decimal written out in full: ``0.3333333333333333``."""
    digits = 0
    while (value * 10**digits).denominator != 1:
        digits += 1
    return f"{Decimal((value * 10**digits).numerator).scaleb(-digits):f}"


def decimal_amount(value: object) -> Fraction:
    """An amount as a person gives one: a number, or a decimal as text; never a fraction.

    Raises:
        ValueError: ``value`` is no amount, or a fraction (``"1/3"``, ``"1/2"``); the message
            says which, naming the value.
    """
    bad = ValueError(f"{value!r} is not an amount (use 100, 0.5 or '0.50')")
    if not isinstance(value, str):
        try:
            return amount(value)
        except ValueError:
            raise bad from None
    if "/" in value:
        raise ValueError(f"{value!r} is a fraction: write the amount as a decimal ('0.50')")
    if not _DECIMAL_TEXT.fullmatch(value):
        raise bad
    return Fraction(value)


def stake_amount(value: object, currency: str) -> Fraction:
    """An amount of ``currency`` as a person gives it (:func:`decimal_amount`), in its minor unit.

    Raises:
        ValueError: ``value`` is no amount, a fraction, or an amount finer than ``currency``'s
            minor unit (``"0.001"`` of a dollar); the message says which, naming the value.
    """
    exact = decimal_amount(value)
    problem = minor_unit_problem(exact, currency)
    if problem is not None:
        raise ValueError(problem)
    return exact


def amount_text(value: Fraction) -> str:
    """An exact amount as text :func:`amount` reads back: ``100``, ``0.5``, else ``p/q``."""
    for digits in range(7):
        scaled = value * 10**digits
        if scaled.denominator == 1:
            return f"{Decimal(scaled.numerator).scaleb(-digits):f}"
    return f"{value.numerator}/{value.denominator}"


#: Most bets one map of limits may name.
MAX_LIMITED_BETS: Final = 64


def limits_from_data(
    value: object, key: str, read: Callable[[object], Fraction] = amount
) -> dict[str, BetLimits]:
    """A map of bet id to ``{"min", "max"}`` amounts, as JSON or TOML data gives it.

    ``read`` reads each amount: :func:`amount` (a record's), :func:`decimal_amount` or a
    currency's :func:`stake_amount` (what a person gives). The bets are checked against the
    variant, and the amounts against each other, later.

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
            limits[bet] = BetLimits(min=read(pair["min"]), max=read(pair["max"]))
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
