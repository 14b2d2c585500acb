# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table's stake limits as configured: the settings over the variant file.

Edge module: combines what the settings (``currency``, ``limits``) and the variant file
(``[<variant>.bets.<bet>] limits``) give into the ``<root>/limits`` payload the procedure
starts with, and says when the configuration must be journaled (``LimitsConfigured``).
A bet's limits in the settings replace the variant file's; a bet with limits nowhere has none;
a bet the variant does not offer is refused, naming it, and so is an amount finer than the
currency's minor unit (the variant file, read before the currency is known, is checked here).
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from table_controller.contract import BetLimits, TableLimits
from table_controller.procedure import LimitsConfigured, minor_unit_problem
from table_controller.rules import Variant
from table_controller.variant_file import load_bet_limits

__all__ = ["LimitsError", "load_limits", "to_journal"]


class LimitsError(ValueError):
    """The configured limits name a bet the variant does not offer, or a too fine amount."""


def configured_limits(
    variant: Variant,
    *,
    currency: str,
    from_variant_file: Mapping[str, BetLimits],
    from_settings: Mapping[str, BetLimits],
    variant_file: str = "variant file",
) -> TableLimits:
    """The limits the configuration gives, in the variant's order of bets.

    Raises:
        LimitsError: ``from_settings`` names a bet the variant does not offer, or an amount of
            either is finer than ``currency``'s minor unit (the message names the key, with
            ``variant_file`` for the variant file's).
    """
    for bet in from_settings:
        if bet not in variant.bet_ids:
            raise LimitsError(
                f"limits.{bet}: the {variant.name!r} variant does not offer {bet!r} "
                f"(it offers {', '.join(variant.bet_ids)})"
            )
    for where, limits in (
        (f"{variant_file}: {variant.name}.bets.{{bet}}.limits", from_variant_file),
        ("limits.{bet}", from_settings),
    ):
        for bet, pair in limits.items():
            for end, value in (("min", pair.min), ("max", pair.max)):
                problem = minor_unit_problem(value, currency)
                if problem is not None:
                    raise LimitsError(f"{where.format(bet=bet)}.{end}: {problem}")
    merged = {**from_variant_file, **from_settings}
    return TableLimits(
        currency=currency, limits={bet: merged[bet] for bet in variant.bet_ids if bet in merged}
    )


def load_limits(
    variant: Variant, *, paytable: Path | None, currency: str, limits: Mapping[str, BetLimits]
) -> TableLimits:
    """:func:`configured_limits` of the variant file at ``paytable`` and the settings.

    Raises:
        VariantFileError: the variant file is unreadable or invalid.
        LimitsError: the settings name a bet the variant does not offer, or an amount is finer
            than the currency's minor unit.
    """
    return configured_limits(
        variant,
        currency=currency,
        from_variant_file=load_bet_limits(paytable).get(variant.name, {}),
        from_settings=limits,
        variant_file=f"paytable: {paytable}",
    )


def to_journal(
    taken: TableLimits | None, configured: TableLimits, *, at: float
) -> LimitsConfigured | None:
    """The input that gives the procedure ``configured``, if it has not taken it already.

    ``taken`` is the configuration the journal's replay last gave (``None``: none). A table
    configured with no limits in the default currency journals nothing until its
    configuration changes.
    """
    if configured == (taken or TableLimits()):
        return None
    return LimitsConfigured(at=at, currency=configured.currency, limits=configured.limits)
