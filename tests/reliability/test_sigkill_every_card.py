# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The service SIGKILLed after every single card and restarted each time.

Through the real ``table-controller run`` with the virtual shoe on a pseudo-terminal, a real
mosquitto and a backend with a persistent session. Each kill comes right after the shoe read
the ``ACK`` of a card: the card is in the journal, but the service may not have acted on it,
published its messages or lit the next lamp. Stated outcome: every card reaches the procedure
exactly once (one journal input per card, no card dealt twice by the table), every event
reaches the backend with no gap and no duplicate that its ``seq`` does not mark, and the
table ends in the same state, with the same events, as an uninterrupted run of the same
stacked shoe.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from simulators.virtual_shoe.deck import Shoe
from simulators.virtual_shoe.shuffle import seeded_order
from tests.mosquitto import Mosquitto
from tests.reliability import harness
from tests.support.dealing import Step, step_of_state

pytestmark = pytest.mark.broker

SEED = 29
SHOE_ID = "K-1"


def stacked_shoe(decks: int, behind_cut: int) -> Shoe:
    """A seeded shoe with ``behind_cut`` cards behind its cut card (never dealt)."""
    cards = seeded_order(decks, SEED)
    return Shoe(cards=cards, cut_depth=len(cards) - behind_cut)


def game_events(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Events without their envelope or table id: what two runs of one shoe must share.

    ``odds`` are left out: they come from an analysis run in the background between rounds,
    journaled as an input of its own when it finishes, so whether a round's odds are out
    before its betting opens depends on timing (a kill, or the dealer's speed), not on the
    cards. ``replay`` still has to print them exactly as published (checked below).
    """
    return [
        {k: v for k, v in harness.without_envelope(body).items() if k != "table_id"}
        for body in events
        if body["type"] != "odds"
    ]


async def play_killing(
    dealer_: harness.MqttTable, table: harness.Service, *, kill_rounds: set[int] | None
) -> tuple[int, int]:
    """Play the stacked shoe, killing the service after each card of the chosen rounds.

    ``kill_rounds`` None kills after every card of the shoe; an empty set never kills.
    Returns (cards dealt, kills).
    """
    kills = 0
    await dealer_.command("new_shoe", shoe_id=SHOE_ID)
    while (step := step_of_state(state := await dealer_.barrier())) is not Step.OVER:
        if step is Step.BETTING:
            await dealer_.betting()
            continue
        assert step is Step.DEAL, state
        await dealer_.deal()
        round_no = state["round_no"] or 0
        burning = state["prompt"]["action"] == "burn"
        killing = kill_rounds is None or (not burning and round_no in kill_rounds)
        if killing:
            await table.kill()  # the card is recorded (the shoe has its ACK), maybe no more
            kills += 1
            await table.start()
    return len(dealer_.shoe.dealt), kills


async def run_table(
    tmp_path: Path, broker: Mosquitto, table_id: str, kill_rounds: set[int] | None, decks: int
) -> dict[str, Any]:
    link = tmp_path / f"{table_id}.shoe"
    journal = tmp_path / f"{table_id}.journal"
    args = harness.run_args(
        journal=journal, table_id=table_id, port=link, broker_url=broker.url(table_id)
    )
    async with (
        harness.backend(broker, client_id=f"backend-{table_id}") as feed,
        harness.mqtt_table(broker, feed, link) as hand,
        harness.service(args, tmp_path / f"{table_id}.log") as table,
    ):
        hand.table_id = table_id
        await hand.online()
        hand.shoe.shoe = stacked_shoe(decks, behind_cut=BEHIND_CUT[decks])
        _, kills = await play_killing(hand, table, kill_rounds=kill_rounds)
        await hand.barrier()
        assert await table.stop() == 0, table.log_tail()
        await harness.everything_received(feed, journal, table_id)
        events = feed.events(table_id)
        return {
            "feed": feed,
            "events": events,
            "state": feed.latest("state", table_id),
            "dealt": harness.dealt_cards(hand.shoe.dealt),
            "kills": kills,
            "journal": journal,
            "starts": table.starts,
        }


#: Cards behind the cut card, per shoe size: 28 cards before it in CI, 266 behind ``slow``.
BEHIND_CUT = {1: 24, 8: 150}


async def check_kills(
    tmp_path: Path, broker: Mosquitto, kill_rounds: set[int] | None, decks: int
) -> dict[str, Any]:
    reference = await run_table(tmp_path, broker, "T08", set(), decks)
    killed = await run_table(tmp_path, broker, "T07", kill_rounds, decks)
    feed = killed["feed"]
    assert killed["kills"] > 0
    await harness.check_each_card_kept_once(feed, killed["journal"], killed["dealt"], SHOE_ID)
    # The same table as an uninterrupted run of the same shoe.
    assert killed["dealt"] == reference["dealt"]
    assert game_events(killed["events"]) == game_events(reference["events"])
    assert {k: v for k, v in killed["state"].items() if k not in {"seq", "ts", "table_id"}} == {
        k: v for k, v in reference["state"].items() if k not in {"seq", "ts", "table_id"}
    }
    assert killed["state"]["prompt"]["action"] == "shoe_over"
    return {"kills": killed["kills"], "duplicates": feed.duplicates, "dealt": len(killed["dealt"])}


@pytest.mark.timeout(240)
async def test_sigkill_after_every_card_of_a_round(tmp_path: Path, broker: Mosquitto) -> None:
    """CI subset: a short shoe; killed after every card of round 1."""
    figures = await check_kills(tmp_path, broker, {1}, decks=1)
    print("sigkill figures:", figures)


@pytest.mark.slow
@pytest.mark.timeout(3600)
async def test_sigkill_after_every_card_of_a_whole_shoe(tmp_path: Path, broker: Mosquitto) -> None:
    """An 8-deck shoe, 266 cards before the cut: a kill and a restart after every card."""
    figures = await check_kills(tmp_path, broker, None, decks=8)
    print("sigkill figures:", figures)
