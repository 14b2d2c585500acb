# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A variant composed as an operator's variant file composes one, and limits for its bets.

It has a name and title of its own and bets taken from the built-in menus.
"""

from __future__ import annotations

import dataclasses
from fractions import Fraction
from typing import Final

from table_controller.contract.payloads.state import BetLimits, TableLimits
from table_controller.rules.variants import VARIANTS, Variant, default_offer

_STANDARD = VARIANTS["commission"]

#: "House Game": the Standard game's main bets and Player pair, with Lucky Baccarat's Lucky 6.
HOUSE_GAME: Final[Variant] = dataclasses.replace(
    _STANDARD,
    name="house_game",
    title="House Game",
    bets=(
        *(_STANDARD.offer(bet) for bet in ("player", "banker", "tie", "player_pair")),
        VARIANTS["lucky"].offer("lucky_6"),
    ),
)

#: "House EZ": EZ Baccarat with both Dragon Bonus bets on their default pay table.
HOUSE_EZ: Final[Variant] = dataclasses.replace(
    VARIANTS["ez"],
    name="house_ez",
    title="House EZ",
    bets=(
        *VARIANTS["ez"].bets,
        default_offer("player_dragon_bonus"),
        default_offer("banker_dragon_bonus"),
    ),
)



def limits_for(variant: Variant) -> TableLimits:
    """A limit for each of the variant's bets, every one different, so a screen shows which."""
    return TableLimits(
        currency="MOP",
        limits={
            bet: BetLimits(min=Fraction(10 * (n + 1)), max=Fraction(1000 * (n + 1)))
            for n, bet in enumerate(variant.bet_ids)
        },
    )


#: A limit for each of House Game's bets.
HOUSE_LIMITS: Final = limits_for(HOUSE_GAME)
