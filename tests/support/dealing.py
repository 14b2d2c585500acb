# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Scripted rounds: a seeded shoe dealt by the virtual shoe's own dealer rule.

The cards come out of the simulator's ``Shoe`` (its cut card where a casino puts it) and a
card is dealt exactly when the simulator's automatic dealer would deal one: when the lamp the
table shows asks for it. Between rounds the dealer opens and closes betting.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

from drivers.srp.constants import Lamp
from simulators.virtual_shoe import deck
from simulators.virtual_shoe.dealer import should_deal
from simulators.virtual_shoe.shuffle import seeded_order
from table_controller.procedure.codes import PromptAction
from table_controller.procedure.events import (
    CardDrawn,
    CloseBetting,
    CutCardDrawn,
    Input,
    OpenBetting,
    StartNewShoe,
)
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.payloads import TableSnapshot
from table_controller.procedure.states import Phase
from table_controller.rules.cards import Card

#: The cut card among the codes of :func:`seeded_shoe`.
CUT = "CUT"
#: Prompts after which the dealer opens (and closes) betting.
BETWEEN_ROUNDS = frozenset({PromptAction.OPEN_BETTING, PromptAction.RESULT})


def seeded_shoe(seed: int, decks: int = 8) -> list[str]:
    """The codes a seeded virtual shoe deals, in order, with ``CUT`` where the cut card lies."""
    order = seeded_order(decks, seed)
    shoe = deck.Shoe(cards=order, cut_depth=deck.default_cut_depth(len(order)))
    return [draw.card if isinstance(draw, deck.CardDrawn) else CUT for draw in shoe.draw_all()]


def asks_for_card(snapshot: TableSnapshot) -> bool:
    """Whether the virtual shoe's dealer would deal now, by the lamp the table shows."""
    return should_deal(lamp=Lamp(snapshot.state.lamp.value), awaiting_ack=False, plugged=True)


def next_records(
    snapshot: TableSnapshot, shoe: Iterator[str], counter: Iterator[int]
) -> list[dict[str, object]]:
    """The records the dealer gives for the table's state (none once the shoe is over)."""
    if asks_for_card(snapshot):
        card = next(shoe)
        return [{"cut": True} if card == CUT else {"card": card}]
    prompt = snapshot.state.prompt
    if prompt is not None and prompt.action in BETWEEN_ROUNDS:
        return [
            {"command": "open_betting", "id": f"c-{next(counter)}", "operator": "dealer"},
            {"command": "close_betting", "id": f"c-{next(counter)}", "operator": "dealer"},
        ]
    return []


def dealer_inputs(procedure: TableProcedure, shoe: Iterator[str]) -> Iterator[Input]:
    """A new shoe, then the dealer's inputs for each state of ``procedure``, until it ends."""
    ids = itertools.count(1)

    def common() -> dict[str, Any]:
        return {"at": 0.0, "command_id": f"c-{next(ids)}", "operator": "dealer"}

    yield StartNewShoe(**common(), shoe_id="S-1")
    while True:
        snapshot = procedure.snapshot()
        prompt = snapshot.state.prompt
        if asks_for_card(snapshot):
            code = next(shoe)
            yield CutCardDrawn(at=0.0) if code == CUT else CardDrawn(at=0.0, card=Card.parse(code))
        elif prompt is not None and prompt.action in BETWEEN_ROUNDS:
            betting = snapshot.state.phase is Phase.BETTING
            yield CloseBetting(**common()) if betting else OpenBetting(**common())
        else:
            return

