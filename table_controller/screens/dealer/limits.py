# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table's stake limits as the dealer display shows them: the main bets' range, each bet's.

Pure: no I/O. Part of the display's view model (``screens/dealer/view.py``): amounts go to
the page as exact JSON numbers, and each bet's name as a catalogue key (``game.bet.*``). The
bets are those of the variant in force (:class:`~table_controller.rules.Variant`), built in or
composed in the operator's variant file; the players' board names bets and variants with
:func:`bet_name` and :func:`variant_name` too.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from table_controller.contract import JsonValue, TableLimits, to_wire
from table_controller.rules import MAIN_BETS, Variant
from table_controller.screens.languages import localised

#: The bets whose range the header shows; the side bets are on the supervisor's panel.
#: Every bet's name, by bet id.
BET_NAMES: Final[Mapping[str, JsonValue]] = {
    "player": localised("game.bet.player"),
    "banker": localised("game.bet.banker"),
    "tie": localised("game.bet.tie"),
    "player_pair": localised("game.bet.player_pair"),
    "banker_pair": localised("game.bet.banker_pair"),
    "big": localised("game.bet.big"),
    "small": localised("game.bet.small"),
    "player_natural_8": localised("game.bet.player_natural_8"),
    "banker_natural_8": localised("game.bet.banker_natural_8"),
    "player_natural_9": localised("game.bet.player_natural_9"),
    "banker_natural_9": localised("game.bet.banker_natural_9"),
    "super_6_plus": localised("game.bet.super_6_plus"),
    "super_six": localised("game.bet.super_six"),
    "player_red": localised("game.bet.player_red"),
    "banker_red": localised("game.bet.banker_red"),
    "player_black": localised("game.bet.player_black"),
    "banker_black": localised("game.bet.banker_black"),
    "lucky_6": localised("game.bet.lucky_6"),
    "player_lucky_pair": localised("game.bet.player_lucky_pair"),
    "banker_lucky_pair": localised("game.bet.banker_lucky_pair"),
    "player_wins_on_123": localised("game.bet.player_wins_on_123"),
    "player_wins_on_456": localised("game.bet.player_wins_on_456"),
    "player_wins_on_789": localised("game.bet.player_wins_on_789"),
    "banker_wins_on_123": localised("game.bet.banker_wins_on_123"),
    "banker_wins_on_456": localised("game.bet.banker_wins_on_456"),
    "banker_wins_on_789": localised("game.bet.banker_wins_on_789"),
    "tie_on_0123": localised("game.bet.tie_on_0123"),
    "tie_on_456": localised("game.bet.tie_on_456"),
    "tie_on_789": localised("game.bet.tie_on_789"),
    "dragon_7": localised("game.bet.dragon_7"),
    "panda_8": localised("game.bet.panda_8"),
    "player_dragon_bonus": localised("game.bet.player_dragon_bonus"),
    "banker_dragon_bonus": localised("game.bet.banker_dragon_bonus"),
}
#: Each built-in variant's name in the catalogue.
VARIANT_NAMES: Final[Mapping[str, JsonValue]] = {
    "commission": localised("game.variant.commission"),
    "super_six": localised("game.variant.super_six"),
    "lucky": localised("game.variant.lucky"),
    "mini": localised("game.variant.mini"),
    "ez": localised("game.variant.ez"),
}


def bet_name(bet_id: str) -> JsonValue:
    """A bet's name: its catalogue key, or its id for a bet the catalogue does not name."""
    return BET_NAMES.get(bet_id, bet_id)


def variant_name(variant: Variant) -> JsonValue:
    """A variant's name: a built-in's catalogue key, else the title its variant file gives."""
    return VARIANT_NAMES.get(variant.name, variant.title)


def limits_view(limits: TableLimits, variant: Variant) -> dict[str, JsonValue]:
    """The limits for the page: every bet the variant offers, in its order (null: no limits).

    ``main`` is the range of the main bets' limits (the smallest minimum, the largest maximum),
    None while none has limits.
    """
    bets: list[JsonValue] = []
    for bet in variant.bet_ids:
        stake = limits.limits.get(bet)
        bets.append({
            "bet": bet,
            "name": bet_name(bet),
            "min": None if stake is None else to_wire(stake.min),
            "max": None if stake is None else to_wire(stake.max),
        })  # fmt: skip
    main = [stake for bet, stake in limits.limits.items() if bet in MAIN_BETS]
    return {
        "currency": limits.currency,
        "bets": bets,
        "main": {
            "min": to_wire(min(stake.min for stake in main)),
            "max": to_wire(max(stake.max for stake in main)),
        }
        if main
        else None,
    }
