# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The operator's variant file: overrides of any payout or side-bet window, and new variants.

Edge module: reads and validates a file (pydantic), then builds the pure
:class:`~table_controller.rules.variants.Variant` values the cores use. An invalid file is
refused as a whole with a message naming the key and the problem; nothing is half-applied.

A section named after a built-in variant (``commission``, ``super_six``, ``lucky``, ``mini``,
``ez``) overrides it. Format (every table and key optional)::

    [commission.bets.tie]
    payouts = { win = 9 }          # net "to one": 9, 0.95 or "19/20"

    [commission.bets.player_pair]
    window = [1, 50]               # rounds 1 to 50 of a shoe; "every_round" for no window
    limits = { min = 10, max = 1000 }   # stake limits in the table's currency ("0.50" too)

    [commission.dynamic_windows]   # offer side bets by their live edge
    below_percent = 0              # suspend a bet while its house edge is below 0 %
    keep_fixed_windows = false     # true: the windows above still close bets as well

With ``dynamic_windows`` a side bet is not offered on a round whose exact house edge, from the
cards left in the shoe, is below ``below_percent``; it is offered again once the edge is back.
The round's ``betting_opened`` names the suspended bets; the main bets are never suspended.
Nor do they take a ``window``: Player, Banker and Tie are offered on every round.

A tier that is a special case of another (the Banker's ``three_card_7``, of ``win``) and was
paid as that one follows a new payout of it unless it is given too: ``payouts = { win = 1 }``
on the Banker pays a three-card 7 win 1 as well, where it was paid as any other win.

A bet's ``limits`` are its smallest and largest stake (``0 < min <= max``), decimal amounts
(never a fraction) in the table's currency's minor unit at most, which is checked at start,
where the currency is known; the ``limits`` setting replaces them for the bets it names
(:mod:`table_controller.table_limits`).

A section with any other name composes a new variant of that name from the bet catalogue
(``table_controller/rules/bets.py``)::

    [house_ez]
    title = "House EZ with Dragon Bonus"   # default: the name
    main_bets = "ez"               # required: commission | no_commission | ez
    decks = 8                      # 1 to 8 (default 8)
    reshuffle = "cut_card"         # or "every_round" (default cut_card)
    burn = true                    # default: true with a cut card; never when every round
    [house_ez.bets.player_dragon_bonus]   # each bet named is on the menu, after the main bets
    payouts = { by_9 = 30 }        # tiers not given: the catalogue's default pay table
    window = [1, 60]               # default: every round
    limits = { min = 5, max = 500 }

``main_bets`` puts Player, Banker and Tie on the menu, the Banker paid 0.95 on every win
(``commission``), 1 but 0.5 on a win with 6 (``no_commission``), or 1 with a win on a
three-card 7 a push (``ez``); ``bets.player``, ``bets.banker`` and ``bets.tie`` override
them. A variant reshuffled every round is a virtual one, which offers every bet on every round:
it takes no ``window`` and burns no card. The name is ``[a-z][a-z0-9_]{0,31}``: it is the
``variant`` setting and the ``variant`` of the MQTT messages.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import replace
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from pathlib import Path
from typing import Annotated, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictBool,
    StrictFloat,
    StrictInt,
    StrictStr,
    ValidationError,
)

from table_controller.contract import BetLimits
from table_controller.procedure import decimal_amount, limits_from_data, limits_problem
from table_controller.protection import DynamicWindows
from table_controller.rules import (
    BETS,
    MAIN_BETS,
    MAX_ROUND,
    VARIANT_NAME_PATTERN,
    VARIANTS,
    BetOffer,
    MainBets,
    Reshuffle,
    Variant,
    Window,
    default_offer,
    main_bets,
)
from table_controller.toml_file import TomlFileError, read_toml

__all__ = ["VariantFileError", "load_bet_limits", "load_dynamic_windows", "load_variants"]


class VariantFileError(ValueError):
    """The variant file is unreadable or invalid; the message names the key and the problem."""


class _BetOverride(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    payouts: dict[str, StrictInt | StrictFloat | StrictStr] = Field(default_factory=dict)
    window: (
        tuple[Annotated[int, Field(strict=True)], Annotated[int, Field(strict=True)]]
        | Literal["every_round"]
        | None
    ) = None
    limits: dict[str, StrictInt | StrictFloat | StrictStr] | None = None


class _DynamicWindowsSetting(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    below_percent: Annotated[StrictInt | StrictFloat, Field(ge=-100, le=100)] = 0
    keep_fixed_windows: StrictBool = False


class _VariantOverride(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    bets: dict[str, _BetOverride] = Field(default_factory=dict)
    dynamic_windows: _DynamicWindowsSetting | None = None


#: The name of a composed variant.
NAME_PATTERN = re.compile(VARIANT_NAME_PATTERN)
#: The most decks a composed variant's shoe holds.
MAX_DECKS = 8
#: The longest title of a composed variant.
MAX_TITLE = 64


class _ComposedVariant(_VariantOverride):
    title: (
        Annotated[
            StrictStr, Field(min_length=1, max_length=MAX_TITLE, pattern=r"^[^\x00-\x1f\x7f]+$")
        ]
        | None
    ) = None
    main_bets: MainBets
    decks: Annotated[int, Field(strict=True, ge=1, le=MAX_DECKS)] = MAX_DECKS
    reshuffle: Reshuffle = Reshuffle.CUT_CARD
    burn: StrictBool | None = None


#: A payout written as text: a decimal or a fraction of modest size (no exponent to expand).
_PAYOUT_TEXT = re.compile(r"\d{1,9}(\.\d{1,9})?|\d{1,9}/\d{1,9}")
#: No bet pays more than this to one; anything larger is a typing error.
MAX_PAYOUT = 1_000_000


def _payout(value: float | str, key: str) -> Fraction:
    bad = VariantFileError(f"{key}: {value!r} is not a payout (use 9, 0.95 or '19/20')")
    if isinstance(value, str) and not _PAYOUT_TEXT.fullmatch(value.strip()):
        raise bad
    if isinstance(value, float) and not math.isfinite(value):
        raise bad
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) > MAX_PAYOUT:
        raise VariantFileError(f"{key}: payout must be at most {MAX_PAYOUT}")
    try:
        # A TOML float such as 0.95 is read through its decimal text, so it is exactly 19/20.
        payout = Fraction(Decimal(repr(value))) if isinstance(value, float) else Fraction(value)
    except (ValueError, ZeroDivisionError, InvalidOperation, OverflowError):
        raise bad from None
    if payout < 0:
        raise VariantFileError(f"{key}: payout must not be negative (got {value!r})")
    if payout > MAX_PAYOUT:
        raise VariantFileError(f"{key}: payout must be at most {MAX_PAYOUT}")
    return payout


def _apply(variant: Variant, override: _VariantOverride, prefix: str) -> Variant:
    offers = {offer.bet_id: offer for offer in variant.bets}
    for bet_id, bet_override in override.bets.items():
        key = f"{prefix}.bets.{bet_id}"
        if bet_id not in BETS:
            raise VariantFileError(f"{key}: unknown bet {bet_id!r} (bets: {', '.join(BETS)})")
        if bet_id not in offers:
            raise VariantFileError(
                f"{key}: the {variant.name!r} variant does not offer {bet_id!r} "
                f"(it offers {', '.join(variant.bet_ids)})"
            )
        offer = offers[bet_id]
        offers[bet_id] = BetOffer(
            bet_id=bet_id,
            payouts=_payouts(offer, bet_override, key),
            window=_window(offer, bet_override, key),
        )
    return replace(variant, bets=tuple(offers[bet_id] for bet_id in variant.bet_ids))


def _payouts(offer: BetOffer, bet_override: _BetOverride, key: str) -> dict[str, Fraction]:
    """The offer's pay table with the override's tiers, and the special cases that follow."""
    payouts = dict(offer.payouts)
    for tier, value in bet_override.payouts.items():
        if tier not in payouts:
            known = ", ".join(payouts)
            raise VariantFileError(
                f"{key}.payouts.{tier}: unknown tier (tiers of {offer.bet_id!r}: {known})"
            )
        payouts[tier] = _payout(value, f"{key}.payouts.{tier}")
    for tier, broader in BETS[offer.bet_id].refines.items():
        paid_alike = offer.payouts[tier] == offer.payouts[broader]
        if paid_alike and tier not in bet_override.payouts:
            payouts[tier] = payouts[broader]
    return payouts


def _window(offer: BetOffer, bet_override: _BetOverride, key: str) -> Window | None:
    if bet_override.window == "every_round":
        return None
    if bet_override.window is None:
        return offer.window
    if offer.bet_id in MAIN_BETS:
        raise VariantFileError(f"{key}.window: a main bet is offered on every round")
    first, last = bet_override.window
    if not 1 <= first <= last <= MAX_ROUND:
        raise VariantFileError(
            f"{key}.window: {[first, last]} is out of range "
            f"(need 1 <= first <= last <= {MAX_ROUND})"
        )
    return Window(first=first, last=last)


def _compose(name: str, composed: _ComposedVariant) -> Variant:
    """A new variant: the main bets of its kind, then each bet the section names."""
    every_round = composed.reshuffle is Reshuffle.EVERY_ROUND
    if composed.burn and every_round:
        raise VariantFileError(
            f"{name}.burn: a variant reshuffled every round has no shoe to burn cards from"
        )
    offers = {offer.bet_id: offer for offer in main_bets(composed.main_bets)}
    for bet_id, bet in composed.bets.items():
        if bet_id not in BETS:
            raise VariantFileError(
                f"{name}.bets.{bet_id}: unknown bet {bet_id!r} (bets: {', '.join(BETS)})"
            )
        if every_round and bet.window is not None:
            raise VariantFileError(
                f"{name}.bets.{bet_id}.window: a variant reshuffled every round offers every"
                " bet on every round"
            )
        if bet_id not in offers:
            offers[bet_id] = default_offer(bet_id)
    variant = Variant(
        name=name,
        title=composed.title or name,
        decks=composed.decks,
        burn=not every_round if composed.burn is None else composed.burn,
        reshuffle=composed.reshuffle,
        bets=tuple(offers.values()),
        virtual=every_round,
    )
    return _apply(variant, composed, name)


def _section(name: str, raw: object, built_in: bool) -> _VariantOverride:
    """One section of the file, validated: an override of a built-in variant, or a new one."""
    if not built_in:
        if not NAME_PATTERN.match(name):
            raise VariantFileError(
                f"{name}: not a variant name ([a-z][a-z0-9_]{{0,31}}: lower-case letters,"
                " digits and _, a letter first)"
            )
        if isinstance(raw, Mapping) and "main_bets" not in raw:
            raise VariantFileError(
                f"{name}: unknown variant (built-in: {', '.join(VARIANTS)}); a new variant"
                " needs main_bets (commission, no_commission or ez)"
            )
    model = _VariantOverride if built_in else _ComposedVariant
    try:
        return model.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in (name, *first["loc"]))
        raise VariantFileError(f"{where}: {first['msg']}") from None


def _sections(document: Mapping[str, object], *, source: str) -> dict[str, _VariantOverride]:
    """Every section of the document, validated, by variant name."""
    try:
        return {name: _section(name, raw, name in VARIANTS) for name, raw in document.items()}
    except VariantFileError as error:
        raise VariantFileError(f"{source}: {error}") from None


def parse_variant_overrides(
    document: Mapping[str, object],
    base: Mapping[str, Variant] = VARIANTS,
    *,
    source: str = "variant file",
) -> dict[str, Variant]:
    """The built-in variants with the document's overrides applied, then its new variants."""
    variants = dict(base)
    for name, section in _sections(document, source=source).items():
        try:
            if isinstance(section, _ComposedVariant):
                variants[name] = _compose(name, section)
            else:
                variants[name] = _apply(variants[name], section, name)
        except VariantFileError as error:
            raise VariantFileError(f"{source}: {error}") from None
    return variants


def parse_dynamic_windows(
    document: Mapping[str, object], *, source: str = "variant file"
) -> dict[str, DynamicWindows]:
    """The variants whose side bets follow their live edge, and how (see the module doc)."""
    parse_variant_overrides(document, source=source)  # the whole file is valid, or nothing
    windows: dict[str, DynamicWindows] = {}
    for name, section in _sections(document, source=source).items():
        setting = section.dynamic_windows
        if setting is not None:
            below = Fraction(Decimal(repr(setting.below_percent))) / 100
            windows[name] = DynamicWindows(
                threshold=below, keep_fixed_windows=setting.keep_fixed_windows
            )
    return windows


def parse_bet_limits(
    document: Mapping[str, object], *, source: str = "variant file"
) -> dict[str, dict[str, BetLimits]]:
    """Each variant's bets' stake limits (``[<variant>.bets.<bet>] limits``), exact."""
    parse_variant_overrides(document, source=source)  # the whole file is valid, or nothing
    limits: dict[str, dict[str, BetLimits]] = {}
    for name, section in _sections(document, source=source).items():
        given = {
            bet: bet_override.limits
            for bet, bet_override in section.bets.items()
            if bet_override.limits is not None
        }
        try:
            exact = limits_from_data(given, f"{name}.bets", decimal_amount)
        except ValueError as error:
            raise VariantFileError(f"{source}: {error}") from None
        for bet, pair in exact.items():
            problem = limits_problem(pair)
            if problem is not None:
                raise VariantFileError(f"{source}: {name}.bets.{bet}.limits: {problem}")
        if exact:
            limits[name] = exact
    return limits


def load_bet_limits(path: Path | None) -> dict[str, dict[str, BetLimits]]:
    """:func:`parse_bet_limits` of the file at ``path`` (none without a file)."""
    if path is None:
        return {}
    return parse_bet_limits(_read_document(path), source=str(path))


def load_dynamic_windows(path: Path | None) -> dict[str, DynamicWindows]:
    """:func:`parse_dynamic_windows` of the file at ``path`` (none without a file)."""
    if path is None:
        return {}
    return parse_dynamic_windows(_read_document(path), source=str(path))


def load_variants(path: Path | None) -> dict[str, Variant]:
    """The variants in force: built-ins, with the overrides and new variants of ``path``."""
    if path is None:
        return dict(VARIANTS)
    return parse_variant_overrides(_read_document(path), source=str(path))


def _read_document(path: Path) -> dict[str, object]:
    try:
        return read_toml(path)
    except TomlFileError as error:
        raise VariantFileError(str(error)) from None
