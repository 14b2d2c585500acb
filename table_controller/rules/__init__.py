# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The rules of the game: cards, the tableau, bets, variants and exact odds. Pure."""

from table_controller.rules.bets import BETS, LOSE, PUSH, net_result, verdict
from table_controller.rules.cards import (
    RANKS,
    SUITS,
    Card,
    CardError,
    hand_total,
    parse_card_list,
    parse_cards,
)
from table_controller.rules.composition import CARD_INDEX, CARD_ORDER, Composition, CompositionError
from table_controller.rules.exact import DRAWS, BetOdds, ShoeOdds, ShoeTooSmallError, analyse
from table_controller.rules.roads import (
    DEFAULT_GRID_ROWS,
    BeadPayload,
    BigRoadCellPayload,
    DerivedRoad,
    RoadColour,
    RoadEntry,
    Scoreboard,
    StatsPayload,
    layout_grid,
)
from table_controller.rules.tableau import Coup, Hand, Winner, next_hand
from table_controller.rules.variants import (
    MAX_ROUND,
    NOT_OFFERED,
    VARIANTS,
    BetOffer,
    Reshuffle,
    Variant,
    Window,
    settle_round,
)

__all__ = [
    "BETS",
    "CARD_INDEX",
    "CARD_ORDER",
    "DEFAULT_GRID_ROWS",
    "DRAWS",
    "LOSE",
    "MAX_ROUND",
    "NOT_OFFERED",
    "PUSH",
    "RANKS",
    "SUITS",
    "VARIANTS",
    "BeadPayload",
    "BetOdds",
    "BetOffer",
    "BigRoadCellPayload",
    "Card",
    "CardError",
    "Composition",
    "CompositionError",
    "Coup",
    "DerivedRoad",
    "Hand",
    "Reshuffle",
    "RoadColour",
    "RoadEntry",
    "Scoreboard",
    "ShoeOdds",
    "ShoeTooSmallError",
    "StatsPayload",
    "Variant",
    "Window",
    "Winner",
    "analyse",
    "hand_total",
    "layout_grid",
    "net_result",
    "next_hand",
    "parse_card_list",
    "parse_cards",
    "settle_round",
    "verdict",
]
