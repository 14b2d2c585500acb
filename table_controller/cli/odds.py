# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller odds``: exact probabilities, house edge and RTP of every bet.

Edge module: parses flags and files, calls the pure analyser, prints. Fractions become
floats only in the JSON written here. With stake limits configured (the variant file's, and
``currency`` and ``limits`` of the settings file given with ``--config``), the table shows
each bet's minimum and maximum beside it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from fractions import Fraction
from functools import partial
from pathlib import Path
from typing import Any

from table_controller.cli import Subcommand, UsageError, whole_number
from table_controller.cli.variant_flags import add_variant_flags, chosen_variant
from table_controller.contract import DEFAULT_CURRENCY, TableLimits
from table_controller.procedure import (
    CURRENCY_PATTERN,
    amount_text,
    limits_from_data,
    limits_problem,
    stake_amount,
)
from table_controller.rules import (
    LOSE,
    PUSH,
    CardError,
    Composition,
    CompositionError,
    ShoeOdds,
    ShoeTooSmallError,
    Variant,
    analyse,
    parse_card_list,
)
from table_controller.table_limits import LimitsError, load_limits
from table_controller.toml_file import TomlFileError, read_toml
from table_controller.variant_file import VariantFileError


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``odds`` flags."""
    add_variant_flags(parser)
    parser.add_argument(
        "--decks", type=whole_number(1), help="decks in the shoe (default: the variant's)"
    )
    parser.add_argument(
        "--remove",
        metavar="CARDS",
        default="",
        help="cards taken out of the full shoe first, upper case and comma-separated: 5S,5H,KD",
    )
    parser.add_argument(
        "--batch",
        type=Path,
        metavar="FILE",
        help='one composition per line, {"QH": 7, "4S": 8, ...}; one JSON result per line out',
    )
    parser.add_argument(
        "--config",
        type=Path,
        metavar="FILE",
        help="the table's settings file: its currency and limits are shown beside each bet",
    )
    parser.add_argument("--json", action="store_true", help="one JSON object per result on stdout")


def run(args: argparse.Namespace) -> int:
    """Print the odds of one composition, or of each line of a batch file."""
    variant = chosen_variant(args)
    try:
        currency, by_settings = _settings_limits(args.config)
        limits = load_limits(variant, paytable=args.paytable, currency=currency, limits=by_settings)
    except (VariantFileError, LimitsError) as error:
        raise UsageError(str(error)) from None
    if args.batch is not None:
        if args.remove or args.decks:
            raise UsageError(
                "--batch takes whole compositions; it cannot be combined with --decks or --remove"
            )
        compositions = _read_batch(args.batch)
        for composition in compositions:
            _print_json(variant, _analyse(variant, composition))
        return 0
    composition = _composition(args.decks or variant.decks, args.remove)
    odds = _analyse(variant, composition)
    if args.json:
        _print_json(variant, odds)
    else:
        sys.stdout.write(
            render_table(
                variant,
                odds,
                decks=args.decks or variant.decks,
                removed=args.remove,
                limits=limits,
            )
        )
    return 0


SUBCOMMAND = Subcommand(
    help="exact probabilities, house edge and RTP of every bet for a shoe composition",
    description="Exact odds of every bet of a variant for a full or depleted shoe.",
    add_arguments=add_arguments,
    handler=run,
)


def _settings_limits(path: Path | None) -> tuple[str, dict[str, Any]]:
    """``currency`` and ``limits`` of a settings file (its other settings are not read)."""
    if path is None:
        return DEFAULT_CURRENCY, {}
    try:
        document = read_toml(path)
    except TomlFileError as error:
        raise UsageError(f"--config: {error}") from None
    currency = document.get("currency", DEFAULT_CURRENCY)
    if not isinstance(currency, str) or not re.fullmatch(CURRENCY_PATTERN, currency):
        raise UsageError(f"--config: {path}: currency = {currency!r}: must be an ISO 4217 code")
    try:
        limits = limits_from_data(
            document.get("limits", {}), "limits", partial(stake_amount, currency=currency)
        )
    except ValueError as error:
        raise UsageError(f"--config: {path}: {error}") from None
    for bet, pair in limits.items():
        problem = limits_problem(pair)
        if problem is not None:
            raise UsageError(f"--config: {path}: limits.{bet}: {problem}")
    return currency, limits


def format_amount(value: Fraction) -> str:
    """A stake as a pit writes it: ``10,000``, ``10.50``."""
    if value.denominator == 1:
        return f"{value.numerator:,}"
    text = amount_text(value)
    if "/" in text:
        return f"{float(value):,.2f}"
    whole, _, cents = text.partition(".")
    return f"{int(whole):,}.{cents.ljust(2, '0')}"


def _composition(decks: int, remove: str) -> Composition:
    try:
        return Composition.full(decks).without(parse_card_list(remove))
    except (CardError, CompositionError) as error:
        raise UsageError(f"--remove: {error}") from None


def _read_batch(path: Path) -> list[Composition]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as error:
        raise UsageError(f"--batch: cannot read {path}: {error.strerror}") from None
    compositions = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        where = f"--batch {path} line {number}"
        try:
            counts = json.loads(line)
        except json.JSONDecodeError as error:
            raise UsageError(f"{where}: not JSON: {error.msg}") from None
        if not isinstance(counts, dict):
            raise UsageError(f'{where}: expected an object such as {{"QH": 7, "4S": 8}}')
        try:
            compositions.append(Composition.from_mapping(counts))
        except (CardError, CompositionError) as error:
            raise UsageError(f"{where}: {error}") from None
    return compositions


def _analyse(variant: Variant, composition: Composition) -> ShoeOdds:
    try:
        return analyse(variant, composition)
    except ShoeTooSmallError as error:
        raise UsageError(str(error)) from None


def odds_json(odds: ShoeOdds) -> dict[str, Any]:
    """The ``--json`` object: every bet id of the variant, its events and exact fractions."""
    return {
        "variant": odds.variant,
        "cards": odds.cards,
        "bets": {
            bet_id: {
                "ev": float(bet.ev),
                "house_edge": float(bet.house_edge),
                "rtp": float(bet.rtp),
                "ev_exact": str(bet.ev),
                "probabilities": {verdict: float(p) for verdict, p in bet.probabilities.items()},
            }
            for bet_id, bet in odds.bets.items()
        },
        "events": {name: float(p) for name, p in odds.events.items()},
    }


def _print_json(variant: Variant, odds: ShoeOdds) -> None:
    del variant
    sys.stdout.write(json.dumps(odds_json(odds), separators=(",", ":")) + "\n")


def format_payout(value: Fraction) -> str:
    """A payout "to one" as an operator writes it: ``0.95``, ``8``, ``1.5``, or ``p/q``."""
    for digits in range(4):
        scaled = value * 10**digits
        if scaled.denominator == 1:
            return f"{float(value):.{digits}f}"
    return str(value)


def _percent(value: Fraction) -> str:
    return f"{float(value) * 100:8.4f} %"


def render_table(
    variant: Variant, odds: ShoeOdds, *, decks: int, removed: str, limits: TableLimits | None = None
) -> str:
    """The operator's view of what each bet of a table costs, and its limits if it has any."""
    stakes = {} if limits is None else limits.limits
    shoe = f"{odds.cards} cards ({decks} decks{', less ' + removed if removed else ''})"
    lines = [
        f"{variant.title} [{variant.name}], {shoe}",
        "Banker wins {}   Player wins {}   Tie {}".format(
            *(_percent(odds.events[name]).strip() for name in ("banker_wins", "player_wins", "tie"))
        ),
        "",
        f"{'bet':<20} {'pays (to one)':<44} {'wins':>10} {'house edge':>11} {'RTP':>10}  "
        + (f"{'offered':<14} limits ({limits.currency})" if limits and stakes else "offered"),
    ]
    for offer in variant.bets:
        bet = odds.bets[offer.bet_id]
        tiers = list(offer.payouts.items())
        if len(set(offer.payouts.values())) == 1:
            pays = format_payout(tiers[0][1])
        else:
            pays = ", ".join(f"{tier} {format_payout(value)}" for tier, value in tiers)
        # A tier that pays nothing (EZ's Banker on a three-card 7) is a push, not a win.
        wins = sum(
            (
                p
                for verdict, p in bet.probabilities.items()
                if verdict not in {LOSE, PUSH} and offer.payouts[verdict] > 0
            ),
            Fraction(0),
        )
        window = offer.window
        offered = (
            "every round"
            if variant.virtual or window is None
            else f"rounds {window.first}-{window.last}"
        )
        if stakes:
            stake = stakes.get(offer.bet_id)
            limit = (
                "none"
                if stake is None
                else (f"{format_amount(stake.min)}-{format_amount(stake.max)}")
            )
            offered = f"{offered:<14} {limit}"
        lines.append(
            f"{offer.bet_id:<20} {pays:<44} {_percent(wins):>10} {_percent(bet.house_edge):>11}"
            f" {_percent(bet.rtp):>10}  {offered}"
        )
    return "\n".join(lines) + "\n"
