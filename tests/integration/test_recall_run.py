# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``recall`` through a real ``table-controller run``: during a hold, and after a restart.

The virtual shoe deals on a real pseudo-terminal and misreads one card, which holds the table;
a backend asks for the recall over a real mosquitto while the table is held, and the display
too. The table is then killed (SIGKILL) and started again on the same journal: the recall
shows the rounds before the restart as they were, and a supervisor's dispute of the first
round carries that round's recall, the hash of the dispute's journal row and their seal.
``journal recall`` of that journal prints the same rounds offline.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any, Final

import aiohttp
import pytest

from simulators.virtual_shoe.deck import Shoe
from simulators.virtual_shoe.faults import FaultPlan, MisreadCard
from simulators.virtual_shoe.shuffle import seeded_order
from table_controller.mqtt.client.subscriber import Subscription
from table_controller.mqtt.settings import BrokerEndpoint
from table_controller.runtime.journal.journal import Journal
from tests.integration.running_table import Table, running_table
from tests.integration.test_table_run import CUT_DEPTH, SEED, virtual_shoe
from tests.mosquitto import Mosquitto
from tests.support.backend import Backend
from tests.support.ports import free_port
from tests.support.table_process import table_controller, wait_for_display

pytestmark = pytest.mark.broker

ROOT = "baccarat/tables/T07"
#: The draw the shoe misreads: past the burn (at most 11 cards) and the first round.
MISREAD_DRAW = 25
#: ``sup-1`` may give supervisor commands from the backend's login.
ENV: Final = {"TABLE_CONTROLLER_SUPERVISORS": json.dumps({"sup-1": ["backend"]})}


async def deal_until_held(table: Table) -> dict[str, Any]:
    """Open, close and deal rounds until the table holds; its state then."""
    while True:
        state = await table.snapshot()
        if state["hold_reason"] is not None:
            return state
        action = await table.action()
        if action in {"open_betting", "result"}:
            await table.open_and_close()
        elif action in {"burn", "deal", "player_draws", "banker_draws"}:
            await table.deal()
        else:  # pragma: no cover - the shoe's script goes nowhere else
            raise AssertionError(f"unexpected prompt {action!r}")


async def open_dispute(backend: Backend, disputed: dict[str, Any]) -> dict[str, Any]:
    """A supervisor disputes one round: its ``dispute_opened`` carries that round's recall."""
    opened = await backend.command(
        "dispute", operator="sup-1", reason="patron", rounds=[disputed["round_id"]]
    )
    assert opened["ok"], opened
    dispute = await backend.until_event("dispute_opened")
    assert dispute["recall"] == [disputed]
    return dispute


def check_seal(dispute: dict[str, Any], journal: Path) -> None:
    """The dispute's ``journal_head`` is its journal row's hash, and its seal covers both."""
    with Journal.open_read_only(journal) as rows:
        (row,) = [row for row in rows.rows() if row.payload.get("command") == "dispute"]
    assert dispute["journal_head"] == row.hash
    sealed = {key: dispute[key] for key in ("dispute_id", "recall", "journal_head")}
    canonical = json.dumps(sealed, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert dispute["seal"] == hashlib.sha256(canonical.encode("utf-8")).hexdigest()


def steps_of(round_: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [step for step in round_["steps"] if step["kind"] == kind]


def check_held_recall(reply: dict[str, Any], held_round: str) -> None:
    """The recall while held: the settled rounds, then the held one with its misread."""
    assert (reply["ok"], reply["command"]) == (True, "recall")
    *settled, in_play = reply["rounds"]
    assert settled, "at least one round was settled before the misread"
    assert all(found["status"] == "settled" for found in settled)
    assert (in_play["round_id"], in_play["status"]) == (held_round, "in_play")
    assert [a["code"] for a in steps_of(in_play, "alarm")] == ["misread"]
    holds = [p for p in steps_of(in_play, "prompt") if p["action"] == "hold"]
    assert [p["reason"] for p in holds] == ["misread"]
    first = settled[0]
    assert steps_of(first, "command")[0]["command"] == "new_shoe"
    assert next(card["position"] for card in steps_of(first, "card")) == "burn"
    assert steps_of(first, "result")


@pytest.mark.timeout(300)
async def test_recall_during_a_hold_after_a_restart_and_from_the_journal(
    tmp_path: Path, broker: Mosquitto
) -> None:
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    journal = tmp_path / "T07.journal"
    faults = FaultPlan(faults=(MisreadCard(card=MISREAD_DRAW),))
    shoe = virtual_shoe(tmp_path, Shoe(cards=seeded_order(8, SEED), cut_depth=CUT_DEPTH), faults)
    endpoint = BrokerEndpoint.from_url(broker.url("backend"))
    async with (
        Subscription(endpoint, [f"{ROOT}/#"], client_id="backend-recall") as feed,
        shoe,
        aiohttp.ClientSession() as http,
    ):
        await feed.wait_subscribed()
        backend = Backend(broker, feed, ROOT)
        async with running_table(tmp_path, port, "--broker", broker.url("T07"), env=ENV) as process:
            session = await backend.wait_online()
            await wait_for_display(http, url)
            table = Table(url=url, http=http, shoe=shoe)
            assert (await table.command("new_shoe"))["ok"]
            held = await deal_until_held(table)
            assert held["hold_reason"] == "misread"

            # held: recall is answered all the same, over MQTT and on the display
            before = await backend.command("recall", operator="pit-12", rounds=50)
            check_held_recall(before, held["round_id"])
            in_play = before["rounds"][-1]
            shown = await table.command("recall", rounds=2)
            assert shown["ok"]
            assert shown["rounds"] == before["rounds"][-2:]

            # refused as read, with a clear message; nothing else changes
            for bad in (0, 51, "10"):
                refused = await backend.command("recall", operator="pit-12", rounds=bad)
                assert (refused["ok"], refused["error"]) == (False, "invalid_args"), refused
                assert "args.rounds" in refused["message"]
            assert (await table.snapshot())["hold_reason"] == "misread"

            process.kill()  # SIGKILL: no orderly stop
            await process.wait()

        async with running_table(tmp_path, port, "--broker", broker.url("T07"), env=ENV):
            await backend.wait_online(session)
            after = await backend.command("recall", operator="pit-12", rounds=50)
            # the rounds before the restart, as they were; the held round goes on from there
            assert after["rounds"][:-1] == before["rounds"][:-1]
            resumed = after["rounds"][-1]
            assert resumed["steps"][: len(in_play["steps"])] == in_play["steps"]
            assert (await table.snapshot())["hold_reason"] == "misread"
            dispute = await open_dispute(backend, after["rounds"][0])
            after = await backend.command("recall", operator="pit-12", rounds=50)

    check_seal(dispute, journal)
    status, out, err = await table_controller(
        "replay", "--variant", "commission", "--inputs", str(journal), "--json"
    )
    assert status == 0, err
    replayed = [json.loads(line) for line in out.splitlines()]
    assert [m for m in replayed if m["type"] == "dispute_opened"] == [dispute]  # reproduced

    status, out, err = await table_controller(
        "journal", "recall", str(journal), "--last", "50", "--json"
    )
    assert status == 0, err
    offline = json.loads(out)
    assert offline["rounds"] == after["rounds"]
    status, text, err = await table_controller("journal", "recall", str(journal), "--last", "1")
    assert status == 0, err
    assert text.startswith(f"round {in_play['round_id']} ")
    assert "alarm misread" in text
