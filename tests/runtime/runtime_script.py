# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A scripted dealer for tests: plays a seeded shoe through whatever prompt the table shows."""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping

from table_controller.rules.cards import all_cards

CUT = "CUT"


def seeded_shoe(seed: int, decks: int = 8, cut_from_end: int = 14) -> list[str]:
    """Card codes of a shuffled shoe with the cut card ``cut_from_end`` cards from the end."""
    cards = [card.code for card in all_cards() for _ in range(decks)]
    random.Random(seed).shuffle(cards)
    cards.insert(len(cards) - cut_from_end, CUT)
    return cards


def next_records(
    prompt: Mapping[str, object] | None, shoe: Iterator[str], counter: Iterator[int]
) -> list[dict[str, object]]:
    """The records a dealer gives for the prompt on the table (none once the shoe is over)."""
    action = None if prompt is None else prompt["action"]
    if action in {"burn", "deal", "player_draws", "banker_draws"}:
        card = next(shoe)
        return [{"cut": True} if card == CUT else {"card": card}]
    if action in {"open_betting", "result"}:
        return [
            {"command": "open_betting", "id": f"c-{next(counter)}", "operator": "dealer"},
            {"command": "close_betting", "id": f"c-{next(counter)}", "operator": "dealer"},
        ]
    return []
