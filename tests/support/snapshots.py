# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Typed table snapshots and payloads built field by field, for tests of what reads them.

Each builder starts from a plausible table (a commission table dealing round 12 of shoe
``S-1``) and takes the fields a test cares about as keywords, in the core's own types.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from fractions import Fraction
from typing import Any

from table_controller.contract.codes import HoldReason, Lamp, Phase, PromptAction
from table_controller.contract.payloads.base import ABSENT, Absent
from table_controller.contract.payloads.board import AskMarks, Roads
from table_controller.contract.payloads.round import HandResult, ResultOfCards, RoundSettled
from table_controller.contract.payloads.state import (
    CardsOnTable,
    PromptFields,
    TableSnapshot,
    TableState,
)
from table_controller.rules.cards import Card, hand_total
from table_controller.rules.roads import Scoreboard
from table_controller.rules.tableau import Winner

#: The table every builder starts from; a test replaces the fields it is about.
BASE_STATE = TableState(
    variant="commission",
    betting_phase=True,
    shoe_id="S-1",
    round_no=12,
    round_id="S-1-12",
    phase=Phase.DEALING,
    held_in=None,
    prompt=None,
    lamp=Lamp.OFF,
    cards=CardsOnTable(player=(), banker=()),
    last_round=False,
    cards_seen=40,
    cards_left=376,
    bets_offered=(),
    hold_reason=None,
    holds=(),
    missing_cards=0,
    unresolved_lost_frames=0,
    queued_inputs=0,
    dealer=None,
    supervisor=None,
    require_dealer=False,
    dispute=None,
    confirm_results=False,
    unconfirmed_round_id=None,
    open_alarms=(),
    open_alarm_count=0,
)


def cards(*codes: str | None) -> tuple[Card | None, ...]:
    """Cards by their codes (``None``: a card that left the shoe unread)."""
    return tuple(None if code is None else Card.parse(code) for code in codes)


def prompt(
    action: PromptAction | str,
    *,
    count: int | Absent = ABSENT,
    reason: HoldReason | Absent = ABSENT,
) -> PromptFields:
    """The prompt inside ``state``."""
    return PromptFields(action=PromptAction(action), count=count, reason=reason)


def table_state(**fields: Any) -> TableState:
    """:data:`BASE_STATE` with ``fields`` replaced (enum fields may be given as their values)."""
    for name, kind in (("phase", Phase), ("held_in", Phase), ("lamp", Lamp)):
        value = fields.get(name)
        if isinstance(value, str):
            fields[name] = kind(value)
    return dataclasses.replace(BASE_STATE, **fields)


def snapshot(
    action: PromptAction | str | None = None,
    *,
    count: int | Absent = ABSENT,
    reason: HoldReason | Absent = ABSENT,
    card_wanted: bool = False,
    burned: int | None = None,
    **fields: Any,
) -> TableSnapshot:
    """A snapshot showing the prompt ``action`` (none if ``None``), with ``fields`` of its state."""
    shown = None if action is None else prompt(action, count=count, reason=reason)
    state = table_state(prompt=shown, **fields)
    return TableSnapshot(state=state, card_wanted=card_wanted, burned=burned)


def settled_round(
    round_no: int,
    winner: Winner,
    *,
    player: Sequence[str],
    banker: Sequence[str],
    shoe_id: str = "S-1",
) -> RoundSettled:
    """A ``round_result`` with these hands (pairs and naturals worked out from the cards)."""
    player_cards = tuple(Card.parse(code) for code in player)
    banker_cards = tuple(Card.parse(code) for code in banker)

    def hand(dealt: tuple[Card, ...]) -> HandResult:
        return HandResult(cards=dealt, total=hand_total(card.point for card in dealt))

    def pair(dealt: tuple[Card, ...]) -> bool:
        return len(dealt) >= 2 and dealt[0].rank == dealt[1].rank

    first_two = (player_cards[:2], banker_cards[:2])
    result = ResultOfCards(
        player=hand(player_cards),
        banker=hand(banker_cards),
        winner=winner,
        natural=any(hand_total(card.point for card in two) >= 8 for two in first_two),
        cards_dealt=len(player_cards) + len(banker_cards),
        player_pair=pair(player_cards),
        banker_pair=pair(banker_cards),
        settlement={"player": Fraction(1 if winner is Winner.PLAYER else -1)},
    )
    return RoundSettled(
        shoe_id=shoe_id,
        round_no=round_no,
        round_id=f"{shoe_id}-{round_no}",
        dealer=None,
        result=result,
        last_round=False,
        manual_cards=(),
    )


def roads_of(board: Scoreboard, *, cards_left: int | None, shoe_id: str = "S-1") -> Roads:
    """The ``roads`` payload of ``board``, as the procedure publishes it."""
    drawn = board.payload(shoe_id, cards_left)
    return Roads(
        shoe_id=shoe_id,
        bead_plate=drawn["bead_plate"],
        big_road=drawn["big_road"],
        big_eye_boy=drawn["big_eye_boy"],
        small_road=drawn["small_road"],
        cockroach_pig=drawn["cockroach_pig"],
        ask_banker=AskMarks(**drawn["ask_banker"]),
        ask_player=AskMarks(**drawn["ask_player"]),
        stats=drawn["stats"],
    )
