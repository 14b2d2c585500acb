# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""No journal keeps a table down: ``table-controller run`` on a journal it cannot replay.

The journal's second row is no input this version can read (a newer version's record, say).
The service must come up held, with an alarm naming the row, stay up and answer, and be
released by a supervisor's ``void_shoe``; a restart then replays through the fault and the
release to the same place.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from table_controller.mqtt.client.subscriber import Subscription, publish_once
from table_controller.mqtt.settings import BrokerEndpoint
from table_controller.procedure.inputs import StartNewShoe
from table_controller.procedure.records import input_to_record
from table_controller.runtime.journal.format import INPUT_ROW
from table_controller.runtime.journal.journal import Journal
from tests.integration.running_table import PIN
from tests.mosquitto import Mosquitto
from tests.support.ports import free_port
from tests.support.table_process import events_log, table_run, wait_for_display

TABLE = "V7"
ALARM = "journal row 2 could not be carried out: not an input: record version 2 is not 1"


@contextlib.asynccontextmanager
async def virtual_table(
    tmp_path: Path, port: int | None, *extra: str
) -> AsyncIterator[asyncio.subprocess.Process]:
    """Table V7 (``mini``, RNG cards) on the journal in ``tmp_path``; its display on ``port``."""
    async with table_run(
        tmp_path / "run.log",
        "--table-id", TABLE, "--variant", "mini", "--card-source", "rng",
        "--no-betting-phase",
        "--journal", str(tmp_path / "V7.journal"),
        "--events-log", str(tmp_path / "V7.events.jsonl"),
        "--display", "off" if port is None else f"127.0.0.1:{port}",
        "--log-format", "json",
        *extra,
        env={**os.environ, "TABLE_CONTROLLER_DISPLAY_PIN": PIN},
    ) as process:  # fmt: skip
        yield process


class Display:
    """The running table seen through its display API."""

    def __init__(self, http: aiohttp.ClientSession, port: int) -> None:
        self.http = http
        self.url = f"http://127.0.0.1:{port}"

    async def state(self) -> dict[str, Any]:
        async with self.http.get(f"{self.url}/api/state") as response:
            body = await response.json()
        state: dict[str, Any] = body["table"]["state"]
        return state

    async def command(self, name: str, *, supervisor: bool = False, **args: object) -> Any:
        body: dict[str, object] = {"command": name, "args": args}
        if supervisor:
            body["pin"] = PIN
        async with self.http.post(f"{self.url}/api/commands", json=body) as response:
            return await response.json()

    async def until_phase(self, *phases: str) -> dict[str, Any]:
        async with asyncio.timeout(15):
            while (state := await self.state())["phase"] not in phases:  # noqa: ASYNC110 - polling the API
                await asyncio.sleep(0.02)
        return state


def write_journal(path: Path) -> None:
    new_shoe = StartNewShoe(at=0.0, command_id="c-1", operator="pit", shoe_id="M-1")
    rows: list[dict[str, object]] = [input_to_record(new_shoe), {"v": 2, "card": "5H"}]
    with Journal.open(path, table_id=TABLE) as journal:
        for number, record in enumerate(rows):
            journal.append(INPUT_ROW, record, ts_utc="2026-12-01T12:00:00.000Z",
                           monotonic_ns=number)


def alarms(path: Path) -> list[str]:
    return [m["message"] for m in events_log(path) if m["type"] == "alarm"]


async def test_a_journal_that_fails_on_replay_comes_up_held_until_void_shoe(
    tmp_path: Path,
) -> None:
    write_journal(tmp_path / "V7.journal")
    port = free_port()
    async with aiohttp.ClientSession() as http:
        display = Display(http, port)
        async with virtual_table(tmp_path, port) as process:
            await wait_for_display(http, display.url)
            state = await display.until_phase("faulted")
            assert (state["holds"], state["lamp"]) == (["procedure_fault"], "HOLD")
            assert alarms(tmp_path / "V7.events.jsonl") == [ALARM]
            await asyncio.sleep(1.0)
            assert process.returncode is None  # up, held, answering
            refused = await display.command("deal")
            assert (refused["ok"], refused["error"]) == (False, "faulted")
            assert (await display.command("void_shoe", supervisor=True))["ok"]
            assert (await display.until_phase("shoe_over"))["holds"] == []
            assert (await display.command("new_shoe", shoe_id="M-2"))["ok"]
            assert (await display.command("deal"))["ok"]
            state = await display.until_phase("between_rounds")
            assert state["round_id"] == "M-2-1"
        assert process.returncode == 0
        # A restart replays the fault and its release: the table is where it stopped.
        async with virtual_table(tmp_path, port) as process:
            await wait_for_display(http, display.url)
            state = await display.state()
            assert (state["phase"], state["round_id"]) == ("between_rounds", "M-2-1")
            assert (await display.command("deal"))["ok"]
            assert (await display.until_phase("between_rounds"))["round_id"] == "M-2-2"
    log = [json.loads(line) for line in (tmp_path / "run.log").read_text().splitlines()]
    held = [line for line in log if line.get("event") == "input not carried out: table held"]
    assert len(held) == 2  # once per start, at the same row
    assert {line["row"] for line in held} == {2}
    assert alarms(tmp_path / "V7.events.jsonl") == [ALARM]  # published once, not per start


@pytest.mark.broker
async def test_a_table_held_by_its_journal_keeps_its_mqtt_link(
    tmp_path: Path, broker: Mosquitto
) -> None:
    """Held, the table is online over MQTT: its status, the alarm, its state, command replies."""
    write_journal(tmp_path / "V7.journal")
    root = f"baccarat/tables/{TABLE}"
    endpoint = BrokerEndpoint.from_url(broker.url("backend"))
    async with Subscription(endpoint, [f"{root}/#"], client_id="backend-held") as feed:
        await feed.wait_subscribed()
        async with virtual_table(tmp_path, None, "--broker", broker.url("backend")) as process:
            seen: dict[str, dict[str, Any]] = {}
            async with asyncio.timeout(20):
                while not ({"status", "alarm", "state"} <= set(seen)
                           and seen["state"]["phase"] == "faulted"):
                    message = await feed.get()
                    body = json.loads(message.payload)
                    seen[body["type"]] = body
            assert seen["status"]["online"]
            assert (seen["alarm"]["code"], seen["alarm"]["message"]) == ("procedure_fault", ALARM)
            assert seen["state"]["holds"] == ["procedure_fault"]
            command = {"id": "b-1", "command": "deal", "operator": "backend"}
            await publish_once(endpoint, f"{root}/commands", json.dumps(command))
            async with asyncio.timeout(15):
                while (message := await feed.get()).topic != f"{root}/commands/replies":
                    pass
            reply = json.loads(message.payload)
            assert (reply["id"], reply["ok"], reply["error"]) == ("b-1", False, "faulted")
            assert process.returncode is None
