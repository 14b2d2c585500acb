# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Helpers for the game-protection tests: seeded fair shoes and card texts (no fixtures)."""

from __future__ import annotations

import random

from table_controller.rules.cards import Card, all_cards, parse_cards


def cards(text: str) -> tuple[Card, ...]:
    """``"4H 5S 6S"`` as cards."""
    return parse_cards(text.split())


def fair_shoe(decks: int, rng: random.Random) -> list[Card]:
    """A fairly shuffled shoe: ``decks`` copies of every card, in a seeded random order."""
    shoe = [card for card in all_cards() for _ in range(decks)]
    rng.shuffle(shoe)
    return shoe
