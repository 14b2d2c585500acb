# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Parts of published payloads built from the core's own values: a result.

Pure: no I/O, no clock, no randomness.
"""

from __future__ import annotations

from collections.abc import Mapping

from table_controller.contract.payloads.base import BetId, Settled
from table_controller.contract.payloads.round import HandResult, ResultOfCards
from table_controller.rules.tableau import Coup


def result_of(coup: Coup, settlement: Mapping[BetId, Settled]) -> ResultOfCards:
    """The fields of a result that depend on the cards (``round_result``, corrections)."""
    outcome = coup.outcome  # the totals and the winner, worked out once for the coup
    return ResultOfCards(
        player=HandResult(cards=coup.player, total=outcome.player_total),
        banker=HandResult(cards=coup.banker, total=outcome.banker_total),
        winner=outcome.winner,
        natural=outcome.natural,
        cards_dealt=outcome.cards_dealt,
        player_pair=coup.player_pair,
        banker_pair=coup.banker_pair,
        settlement=settlement,
    )
