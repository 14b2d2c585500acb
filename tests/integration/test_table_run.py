# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A whole table through ``table-controller run``, then ``replay`` of its journal.

The virtual shoe deals on a real pseudo-terminal; the dealer and the supervisor act on the
display's API; every shoe procedure of game-rules.md section 5 occurs (but the ``mini``
reshuffle, which needs its own variant); ``replay`` of the journal must then print exactly the
events the table published.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import signal
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from simulators.virtual_shoe.deck import Shoe
from simulators.virtual_shoe.device import ShoeDevice
from simulators.virtual_shoe.faults import (
    ALL_TRANSMISSIONS,
    DealtCard,
    DealtMisread,
    DropFrame,
    FaultPlan,
    ForeignCard,
    MisreadCard,
)
from simulators.virtual_shoe.server import PtyPort, VirtualShoe
from simulators.virtual_shoe.shuffle import seeded_order
from table_controller.mqtt.client.subscriber import Received, Subscription, publish_once
from table_controller.mqtt.outbox import Outbox
from table_controller.mqtt.settings import BrokerEndpoint
from table_controller.runtime.clock import utc_now
from tests.integration.running_table import Table, running_table
from tests.mosquitto import Mosquitto
from tests.support.ports import free_port
from tests.support.table_process import events_log, table_controller, wait_for_display

ROOT = "baccarat/tables/T07"
#: Draw numbers (counted by the virtual shoe) of the faults of the first shoe.
MISREAD_DRAW = 50
LOST_DRAW = 70
SEED = 11
CUT_DEPTH = 330


def virtual_shoe(tmp_path: Path, shoe: Shoe, faults: FaultPlan) -> VirtualShoe:
    """``shoe`` dealt by a virtual SRP/1 shoe with ``faults``, on the pseudo-terminal ``shoe``."""
    return VirtualShoe(
        shoe=shoe,
        session=ShoeDevice(faults=faults),
        port=PtyPort(link=tmp_path / "shoe"),
        faults=faults,
    )


def first_virtual_shoe(tmp_path: Path) -> VirtualShoe:
    """The first shoe of a run: seeded, with a misread and a frame lost for good."""
    faults = FaultPlan(
        faults=(MisreadCard(card=MISREAD_DRAW), DropFrame(card=LOST_DRAW, times=ALL_TRANSMISSIONS))
    )
    return virtual_shoe(tmp_path, Shoe(cards=seeded_order(8, SEED), cut_depth=CUT_DEPTH), faults)


async def first_shoe(table: Table) -> None:  # noqa: PLR0915 - one scripted shoe, step by step
    assert (await table.command("new_shoe", shoe_id="S-1"))["ok"]
    # 1. The burn: the face-up card, then that many cards, before round 1 may start.
    while await table.action() == "burn":
        await table.deal()
    state = await table.snapshot()
    assert state["prompt"]["action"] == "open_betting"
    burned = state["cards_seen"]

    # A normal round.
    await table.open_and_close()
    assert (await table.deal_round())["prompt"]["action"] == "result"

    # 3. Exposed card: a card while betting is open voids the round.
    assert (await table.command("open_betting"))["ok"]
    exposed_round = (await table.snapshot())["round_id"]
    await table.deal()
    state = await table.snapshot()
    assert state["phase"] != "betting"
    assert (await table.command("open_betting"))["ok"]
    assert (await table.snapshot())["round_id"] != exposed_round
    assert (await table.command("close_betting"))["ok"]
    assert (await table.deal_round())["prompt"]["action"] == "result"
    settled_round = (await table.snapshot())["round_id"]

    # 4. Unnecessary card: after a result, before the next betting period.
    await table.deal()
    assert (await table.action()) == "result"  # the result stands; the card is discarded

    # 7. Corrections: void a settled round, correct another (new records naming the originals).
    voided = await table.command("void_round", supervisor=True, round_id=settled_round)
    assert voided["ok"], voided
    await table.open_and_close()
    assert (await table.deal_round())["prompt"]["action"] == "result"
    to_correct = await table.snapshot()
    corrected = await table.command(
        "correct_result",
        supervisor=True,
        round_id=to_correct["round_id"],
        player=["2S", "3H", "4D"],
        banker=["KC", "7D"],
    )
    assert corrected["ok"], corrected
    # The cards above were made up: correcting back to the real ones keeps the card accounting
    # true to the shoe (a second correction, naming the first).
    restored = await table.command(
        "correct_result",
        supervisor=True,
        round_id=to_correct["round_id"],
        player=to_correct["cards"]["player"],
        banker=to_correct["cards"]["banker"],
    )
    assert restored["ok"], restored

    # 7. Misdeal while the cards are on the table; 6. dropped cards, read and unread.
    await table.open_and_close()
    await table.deal()
    await table.deal()
    assert (await table.command("misdeal"))["ok"]
    await table.open_and_close()
    await table.deal()
    assert (await table.command("dropped_card", read=True))["ok"]
    assert (await table.deal_round())["prompt"]["action"] == "result"
    await table.open_and_close()
    await table.deal()
    assert (await table.command("dropped_card", read=False))["ok"]

    # 5. Misread (draw MISREAD_DRAW) and lost frames (draw LOST_DRAW): held until entered by hand.
    cut_card_out = False
    rounds = 0
    while not cut_card_out:
        action = await table.action()
        if action in {"open_betting", "result"}:
            await table.open_and_close()
            rounds += 1
        elif (
            action in {"deal", "player_draws", "banker_draws"} and table.shoe.draws + 1 == LOST_DRAW
        ):
            # Every transmission of this frame is lost: the shoe gives up after its resends,
            # and the table learns of the gap only from the next frame's seq.
            table.shoe.deal()
            await asyncio.sleep(2.6)
        elif action in {"deal", "player_draws", "banker_draws"}:
            await table.deal()
        elif action == "hold":
            state = await table.snapshot()
            last = table.shoe.dealt[-1]
            if state["hold_reason"] == "misread":
                assert isinstance(last, DealtMisread)
                reply = await table.command("manual_card", supervisor=True, card=last.actual)
                assert reply["ok"], reply
            elif state["hold_reason"] == "lost_frames":
                lost = table.shoe.dealt[-2]
                assert isinstance(lost, DealtCard)
                reply = await table.command("manual_card", supervisor=True, card=lost.card)
                assert reply["ok"], reply
            else:  # pragma: no cover - an unexpected hold fails the test with its reason
                pytest.fail(f"unexpected hold: {state['hold_reason']}")
        elif action == "shoe_over":
            break
        else:  # pragma: no cover
            pytest.fail(f"unexpected prompt {action!r}")
        cut_card_out = (await table.snapshot())["last_round"]
    # 2. The cut card came out during a round: that round is completed and is the last.
    state = await table.deal_round()
    assert state["last_round"]
    assert state["prompt"]["action"] == "shoe_over"
    # An invalid round after the last: voided and reported.
    await table.deal()
    assert burned > 0
    assert rounds > 10


async def second_shoe(table: Table) -> None:
    # 8 + 9: a foreign card holds the table; only voiding the shoe clears it.
    assert (await table.command("new_shoe", shoe_id="S-2"))["ok"]
    while await table.action() == "burn":
        await table.deal()
    while (await table.snapshot())["hold_reason"] != "foreign_card":
        action = await table.action()
        if action in {"open_betting", "result"}:
            await table.open_and_close()
        else:
            await table.deal()
    assert not (await table.command("open_betting"))["ok"]
    assert (await table.command("void_shoe", supervisor=True))["ok"]
    assert (await table.action()) == "shoe_over"


@pytest.mark.timeout(300)
async def test_every_procedure_through_run_then_replay_prints_the_same_events(
    tmp_path: Path,
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    async with (
        first_virtual_shoe(tmp_path) as shoe,
        running_table(tmp_path, port) as process,
        aiohttp.ClientSession() as http,
    ):
        await wait_for_display(http, url)
        table = Table(url=url, http=http, shoe=shoe)
        await first_shoe(table)
    # The second shoe: a shoe swapped in on the same port name (a new HELLO), stacked so that
    # the ninth queen of spades of an 8-deck shoe comes out at its twelfth draw.
    stacked = ["2C", "KD", "KD", *["QS"] * 8, *seeded_order(1, SEED)]
    plan = FaultPlan(faults=(ForeignCard(card=12, code="QS"),))
    async with (
        virtual_shoe(tmp_path, Shoe(cards=stacked, cut_depth=None), plan) as shoe,
        running_table(tmp_path, port) as process,
        aiohttp.ClientSession() as http,
    ):
        await wait_for_display(http, url)
        table = Table(url=url, http=http, shoe=shoe)
        await second_shoe(table)
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 10) == 0

    published = events_log(tmp_path / "T07.events.jsonl")
    kinds = {message["type"] for message in published}
    assert kinds >= {
        "shoe_started", "burn", "betting_opened", "betting_closed", "card", "prompt",
        "round_result", "round_voided", "result_corrected", "last_round", "shoe_ended",
        "shoe_voided", "alarm", "roads",
    }  # fmt: skip
    reasons = {m["reason"] for m in published if m["type"] == "round_voided"}
    assert reasons >= {"exposed_card", "misdeal", "dropped_card", "after_last_round", "supervisor"}
    alarms = {m["code"] for m in published if m["type"] == "alarm"}
    assert alarms >= {
        "unnecessary_card",
        "misread",
        "lost_frames",
        "foreign_card",
        "card_after_last_round",
    }
    assert any(m.get("manual_cards") for m in published if m["type"] == "round_result")
    # The cut card came out during a round: that round was completed and is the last.
    assert [m["round_id"] for m in published if m["type"] == "round_result" and m["last_round"]]
    corrections = [m for m in published if m["type"] == "result_corrected"]
    assert [m["correction_no"] for m in corrections] == [1, 2]

    journal = str(tmp_path / "T07.journal")
    status, out, _ = await table_controller("journal", "verify", journal)
    assert status == 0, out
    status, out, err = await table_controller(
        "replay", "--variant", "commission", "--inputs", journal, "--json"
    )
    assert status == 0, err
    replayed = [json.loads(line) for line in out.splitlines()]
    assert replayed == published


async def outbox_drained(journal: Path) -> None:
    with Outbox.open(journal, clock=utc_now) as outbox:
        async with asyncio.timeout(20):
            while outbox.depth():  # noqa: ASYNC110 - polling the service's outbox from here
                await asyncio.sleep(0.05)


async def backend_command(
    broker: Mosquitto, user: str, payload: bytes | Mapping[str, object]
) -> None:
    body = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
    await publish_once(BrokerEndpoint.from_url(broker.url(user)), f"{ROOT}/commands", body)


@pytest.mark.broker
@pytest.mark.timeout(300)
async def test_a_backend_receives_every_event_over_mqtt_and_commands_are_guarded(
    tmp_path: Path, broker: Mosquitto
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    received: list[Received] = []
    backend = BrokerEndpoint.from_url(broker.url("backend"))
    journal = tmp_path / "T07.journal"
    async with (
        Subscription(backend, ["baccarat/tables/+/#"], client_id="backend-1", persistent=True)
        as feed,
        first_virtual_shoe(tmp_path) as shoe,
        running_table(
            tmp_path,
            port,
            "--broker", broker.url("T07"),
            env={"TABLE_CONTROLLER_SUPERVISORS": json.dumps({"sup-1": ["pit"]})},
        ) as process,
        aiohttp.ClientSession() as http,
    ):  # fmt: skip
        await feed.wait_subscribed()

        async def gather() -> None:
            while True:
                received.append(await feed.get())

        collector = asyncio.create_task(gather())
        await wait_for_display(http, url)
        table = Table(url=url, http=http, shoe=shoe)
        await first_shoe(table)
        # Commands over MQTT: garbage, an unauthorised supervisor, a repeated id, a supervisor.
        await backend_command(broker, "backend", b"\xff{not json")
        await backend_command(
            broker, "backend", {"id": "m-1", "command": "void_shoe", "operator": "pit-9"}
        )
        new_shoe = {
            "id": "m-2",
            "command": "new_shoe",
            "operator": "backend",
            "args": {"shoe_id": "S-9"},
        }
        await backend_command(broker, "backend", new_shoe)
        await backend_command(broker, "backend", new_shoe)
        await table.until(lambda state: state["shoe_id"] == "S-9", "the new shoe over MQTT")
        await backend_command(
            broker, "pit", {"id": "m-3", "command": "void_shoe", "operator": "sup-1"}
        )
        await table.until(lambda state: state["phase"] == "shoe_over", "the shoe voided over MQTT")
        await outbox_drained(journal)
        await asyncio.sleep(0.5)
        process.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(process.wait(), 15) == 0
        await asyncio.sleep(0.5)
        collector.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await collector

    published = events_log(tmp_path / "T07.events.jsonl")
    by_seq: dict[int, dict[str, Any]] = {}
    for message in received:
        if "/events/" in message.topic or message.topic.endswith(("/roads", "/odds")):
            body = json.loads(message.payload)
            assert by_seq.setdefault(body["seq"], body) == body  # a duplicate is byte-identical
    assert [by_seq[seq] for seq in sorted(by_seq)] == published  # no gap, nothing missing
    replies = [json.loads(m.payload) for m in received if m.topic == f"{ROOT}/commands/replies"]
    errors = {reply["id"]: reply.get("error") for reply in replies if not reply["ok"]}
    assert errors[None] == "malformed_json"
    assert errors["m-1"] == "not_authorised"
    assert [r["ok"] for r in replies if r["id"] == "m-2"] == [True, True]  # answered again
    assert [m["shoe_id"] for m in published if m["type"] == "shoe_started"] == ["S-1", "S-9"]
    assert any(m["type"] == "shoe_voided" and m["shoe_id"] == "S-9" for m in published)
    statuses = [json.loads(m.payload) for m in received if m.topic == f"{ROOT}/status"]
    assert statuses[0]["online"] is True
    assert statuses[-1]["online"] is False
    status, out, err = await table_controller(
        "replay", "--variant", "commission", "--inputs", str(journal), "--json"
    )
    assert status == 0, err
    assert [json.loads(line) for line in out.splitlines()] == published
