# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table's stake limits as the dealer display shows them: the main bets' range, each bet's.

Pure: no I/O. Part of the display's view model (``screens/dealer/view.py``): amounts go to
the page as exact JSON numbers, and each bet's name as a catalogue key (``game.bet.*``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from table_controller.contract import JsonValue, TableLimits, to_wire
from table_controller.rules import VARIANTS
from table_controller.screens.languages import localised

#: The bets whose range the header shows; the side bets are on the supervisor's panel.
MAIN_BETS: Final = frozenset({"player", "banker", "tie"})
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
}


def limits_view(limits: TableLimits, variant: str) -> dict[str, JsonValue]:
    """The limits for the page: every bet the variant offers, with its limits (null: none).

    ``main`` is the range of the main bets' limits (the smallest minimum, the largest maximum),
    None while none has limits.
    """
    offered = VARIANTS[variant].bet_ids if variant in VARIANTS else tuple(limits.limits)
    bets: list[JsonValue] = []
    for bet in offered:
        stake = limits.limits.get(bet)
        bets.append({
            "bet": bet,
            "name": BET_NAMES.get(bet, bet),
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
