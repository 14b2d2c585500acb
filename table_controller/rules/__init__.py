# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The rules of the game: cards, the tableau, bets, variants and exact odds. Pure.

A lazy face (``table_controller/lazy_face.py``): a part is imported when one of its names is
first used, so that a process that never computes odds (the ingest, the command-line tools)
does not load the exact odds engine and numpy with it.
"""

from typing import TYPE_CHECKING

from table_controller.lazy_face import lazy_face

if TYPE_CHECKING:
    from table_controller.rules.bets import BETS, LOSE, MAIN_BETS, PUSH, net_result, verdict
    from table_controller.rules.cards import (
        RANKS,
        SUITS,
        Card,
        CardError,
        hand_total,
        parse_card_list,
        parse_cards,
    )
    from table_controller.rules.composition import (
        CARD_INDEX,
        CARD_ORDER,
        Composition,
        CompositionError,
    )
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
        VARIANT_NAME_PATTERN,
        VARIANTS,
        BetOffer,
        MainBets,
        Reshuffle,
        Variant,
        Window,
        default_offer,
        main_bets,
        rules_digest,
        settle_round,
    )

__all__ = [
    "BETS",
    "CARD_INDEX",
    "CARD_ORDER",
    "DEFAULT_GRID_ROWS",
    "DRAWS",
    "LOSE",
    "MAIN_BETS",
    "MAX_ROUND",
    "NOT_OFFERED",
    "PUSH",
    "RANKS",
    "SUITS",
    "VARIANTS",
    "VARIANT_NAME_PATTERN",
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
    "MainBets",
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
    "default_offer",
    "hand_total",
    "layout_grid",
    "main_bets",
    "net_result",
    "next_hand",
    "parse_card_list",
    "parse_cards",
    "rules_digest",
    "settle_round",
    "verdict",
]

__getattr__ = lazy_face(
    __name__,
    {
        "bets": ("BETS", "LOSE", "MAIN_BETS", "PUSH", "net_result", "verdict"),
        "cards": (
            "RANKS",
            "SUITS",
            "Card",
            "CardError",
            "hand_total",
            "parse_card_list",
            "parse_cards",
        ),
        "composition": ("CARD_INDEX", "CARD_ORDER", "Composition", "CompositionError"),
        "exact": ("DRAWS", "BetOdds", "ShoeOdds", "ShoeTooSmallError", "analyse"),
        "roads": (
            "DEFAULT_GRID_ROWS",
            "BeadPayload",
            "BigRoadCellPayload",
            "DerivedRoad",
            "RoadColour",
            "RoadEntry",
            "Scoreboard",
            "StatsPayload",
            "layout_grid",
        ),
        "tableau": ("Coup", "Hand", "Winner", "next_hand"),
        "variants": (
            "MAX_ROUND",
            "NOT_OFFERED",
            "VARIANT_NAME_PATTERN",
            "VARIANTS",
            "BetOffer",
            "MainBets",
            "Reshuffle",
            "Variant",
            "Window",
            "default_offer",
            "main_bets",
            "rules_digest",
            "settle_round",
        ),
    },
)
