# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""All 10,000 opening point situations times every third card, against an independent tableau.

The tableau here is written from game-rules.md section 2 as explicit if-chains; it checks both
the drawing rules the procedure uses and the procedure itself (prompts, lamp, result).
"""

from __future__ import annotations

import itertools
from typing import Any

import pytest

from table_controller.procedure.decisions import Announce, Decision, SetLamp
from table_controller.procedure.inputs import CardDrawn, Input, StartNewShoe
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.cards import Card
from table_controller.rules.tableau import Hand, next_hand
from table_controller.rules.variants import VARIANTS
from tests.procedure.wire import published as published_wire

SITUATIONS = list(itertools.product(range(10), repeat=4))  # P1 B1 P2 B2 points
ZERO_RANKS = "TJQK"
SUITS = "SHDC"


def player_draws(player: int, banker: int) -> bool:
    if player >= 8 or banker >= 8:
        return False
    return player <= 5


def banker_draws(player: int, banker: int, third: int | None) -> bool:  # noqa: PLR0911
    if player >= 8 or banker >= 8:
        return False
    if third is None:
        return banker <= 5
    if banker <= 2:
        return True
    if banker == 3:
        return third != 8
    if banker == 4:
        return third in (2, 3, 4, 5, 6, 7)
    if banker == 5:
        return third in (4, 5, 6, 7)
    if banker == 6:
        return third in (6, 7)
    return False


def deal(p1: int, b1: int, p2: int, b2: int, p3: int,  # noqa: PLR0917 - the six cards
         b3: int) -> tuple[list[int], list[int]]:
    """The hands' points as the independent tableau deals them from this point sequence."""
    player, banker = [p1, p2], [b1, b2]
    player_total, banker_total = (p1 + p2) % 10, (b1 + b2) % 10
    third: int | None = None
    if player_draws(player_total, banker_total):
        player.append(p3)
        third = p3
        if banker_draws(player_total, banker_total, third):
            banker.append(b3)
    elif banker_draws(player_total, banker_total, None):
        banker.append(p3)  # the next card out of the shoe goes to the Banker
    return player, banker


def test_the_drawing_rules_match_the_independent_tableau_everywhere() -> None:
    checked = 0
    for index, (p1, b1, p2, b2) in enumerate(SITUATIONS):
        for p3 in range(10):
            b3 = (index + p3) % 10
            player, banker = deal(p1, b1, p2, b2, p3, b3)
            dealt = [p1, b1, p2, b2]
            if len(player) == 3:
                dealt.append(p3)
                if len(banker) == 3:
                    dealt.append(b3)
            elif len(banker) == 3:
                dealt.append(p3)
            expected = [Hand.PLAYER, Hand.BANKER, Hand.PLAYER, Hand.BANKER]
            if len(player) == 3:
                expected.append(Hand.PLAYER)
            if len(banker) == 3:
                expected.append(Hand.BANKER)
            assert [next_hand(dealt[:count]) for count in range(len(dealt) + 1)] == [
                *expected, None], (p1, b1, p2, b2, p3, b3)
            checked += 1
    assert checked == 100_000


def prompts(decisions: list[Decision]) -> list[str]:
    return [d.prompt.action.value for d in decisions if isinstance(d, Announce)]


def published(decisions: list[Decision], event_type: str) -> list[dict[str, object]]:
    return published_wire(decisions, event_type)


def one(decisions: list[Decision], event_type: str) -> dict[str, Any]:
    (payload,) = published(decisions, event_type)
    return payload


def card(point: int, index: int) -> Card:
    rank = ZERO_RANKS[index % 4] if point == 0 else "A23456789"[point - 1]
    return Card(rank, SUITS[index % 4])


@pytest.mark.slow  # every situation through the procedure; tests/rules/test_tableau.py is default
def test_the_procedure_deals_every_situation_as_the_independent_tableau() -> None:
    machine = TableProcedure(VARIANTS["mini"], table_id="T07", betting_phase=False)
    lamp = "OFF"

    def feed(event: Input) -> list[Decision]:
        nonlocal lamp
        decisions = machine.handle(event)
        lamp = next((d.lamp.value for d in reversed(decisions) if isinstance(d, SetLamp)), lamp)
        return decisions

    for index, (p1, b1, p2, b2) in enumerate(SITUATIONS):
        for p3 in range(10):
            if (index * 10 + p3) % 25 == 0:  # short shoes keep the scoreboards small
                feed(StartNewShoe(at=0.0, command_id=f"c{index}-{p3}", operator="pit",
                                  shoe_id=f"V-{index}-{p3}"))
            b3 = (index * 7 + p3) % 10
            player, banker = deal(p1, b1, p2, b2, p3, b3)
            points = [p1, b1, p2, b2]
            if len(player) == 3:
                points.append(p3)
            if len(banker) == 3:
                points.append(b3 if len(player) == 3 else p3)
            cards = [card(point, index + offset) for offset, point in enumerate(points)]
            decisions: list[Decision] = []
            for position, dealt in enumerate(cards):
                decisions = feed(CardDrawn(at=0.0, card=dealt))
                if position < 3:
                    assert lamp == ("BANKER" if position % 2 == 0 else "PLAYER")
                elif position < len(cards) - 1:
                    hand = "PLAYER" if position == 3 and len(player) == 3 else "BANKER"
                    assert lamp == hand
                    assert prompts(decisions) == [f"{hand.lower()}_draws"]
            assert (prompts(decisions), lamp) == (["result"], "STAND")
            result = one(decisions, "round_result")
            player_total, banker_total = sum(player) % 10, sum(banker) % 10
            assert (result["player"]["total"], result["banker"]["total"]) == (player_total,
                                                                              banker_total)
            assert (len(result["player"]["cards"]), len(result["banker"]["cards"])) == (
                len(player), len(banker))
            winner = ("player" if player_total > banker_total
                      else "banker" if banker_total > player_total else "tie")
            assert result["winner"] == winner
            assert published(decisions, "alarm") == []
