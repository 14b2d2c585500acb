# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""One fault, one answer, on every channel: ``table-controller run`` with a broker and a display.

A virtual table runs as its own process against a real mosquitto; the test gives it the same
bad commands over MQTT (as a backend) and on the display's HTTP endpoint (as the dealer's
page) and compares the replies. The codes come from ``CommandErrorCode``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from table_controller.publishing.command_errors import CommandErrorCode
from table_controller.publishing.command_message import MAX_COMMAND_ID_LENGTH
from table_controller.publishing.command_parsing import CommandRejection, parse_command
from table_controller.publishing.mqtt_subscriber import Subscription, publish_once
from tests.mosquitto import Mosquitto
from tests.mqtt.mqtt_test_support import backend
from tests.support.ports import free_port
from tests.support.table_process import table_run

pytestmark = pytest.mark.broker

ROOT = "baccarat/tables/T07"
PIN = "2468"


@dataclass
class RunningTable:
    """The table process seen by a backend (its replies) and by the dealer's page."""

    broker: Mosquitto
    replies: Subscription
    http: aiohttp.ClientSession
    display: str

    async def over_mqtt(self, command: dict[str, object]) -> dict[str, Any]:
        """Publish one command as the backend; the table's next reply."""
        await publish_once(
            backend(self.broker.url()), f"{ROOT}/commands", json.dumps(command).encode()
        )
        async with asyncio.timeout(10):
            received = await self.replies.get()
        reply: dict[str, Any] = json.loads(received.payload)
        return reply

    async def on_display(self, body: dict[str, object]) -> tuple[int, dict[str, Any]]:
        async with self.http.post(f"{self.display}/api/commands", json=body) as response:
            reply: dict[str, Any] = await response.json()
            return response.status, reply

    async def phase(self) -> str:
        async with self.http.get(f"{self.display}/api/state") as response:
            body = await response.json()
        return str(body["table"]["state"]["phase"])


@contextlib.asynccontextmanager
async def running_table(broker: Mosquitto, tmp_path: Path) -> AsyncIterator[RunningTable]:
    """``run`` as a virtual table with a broker and a display, until the test is done."""
    port = free_port()
    env = {
        **os.environ,
        "TABLE_CONTROLLER_DISPLAY_PIN": PIN,
        "TABLE_CONTROLLER_SUPERVISORS": json.dumps({"sup-1": ["pit"]}),
    }
    async with (
        Subscription(backend(broker.url()), [f"{ROOT}/status", f"{ROOT}/commands/replies"])
        as feed,
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http,
    ):  # fmt: skip
        await feed.wait_subscribed()
        async with table_run(
            tmp_path / "run.log",
            "--table-id", "T07", "--variant", "commission", "--card-source", "rng",
            "--journal", str(tmp_path / "T07.journal"),
            "--broker", broker.url("T07"),
            "--display", f"127.0.0.1:{port}",
            env=env,
        ) as process:  # fmt: skip
            async with asyncio.timeout(20):
                while True:  # the birth: connected and subscribed to its commands
                    received = await feed.get()
                    if (
                        received.topic.endswith("/status")
                        and json.loads(received.payload)["online"]
                    ):
                        break
            yield RunningTable(
                broker=broker, replies=feed, http=http, display=f"http://127.0.0.1:{port}"
            )
    assert process.returncode == 0, (tmp_path / "run.log").read_text()


#: Arguments the contract refuses, dealer and supervisor commands alike.
BAD_ARGS: list[tuple[str, object]] = [
    ("new_shoe", {"shoe_id": ""}),
    ("new_shoe", ["S-1"]),
    ("deal", {"now": True}),
    ("dropped_card", {"read": "true"}),
    ("void_round", {}),
    ("manual_card", {"card": "ZZ"}),
    ("correct_result", {"round_id": "S-1-1", "player": ["QH", "4S"]}),
]


async def test_the_same_bad_arguments_get_the_same_code_over_mqtt_and_on_the_display(
    broker: Mosquitto, tmp_path: Path
) -> None:
    async with running_table(broker, tmp_path) as table:
        for number, (command, args) in enumerate(BAD_ARGS):
            command_id = f"m-{number}"
            mqtt = await table.over_mqtt(
                {"id": command_id, "command": command, "operator": "sup-1", "args": args}
            )
            status, display = await table.on_display({"command": command, "args": args, "pin": PIN})
            assert (mqtt["id"], mqtt["ok"]) == (command_id, False)
            assert (status, display["ok"]) == (400, False)
            assert mqtt["error"] == display["error"] == CommandErrorCode.INVALID_ARGS, command
            assert mqtt["message"] == display["message"], command
        assert await table.phase() == "no_shoe"  # nothing was carried out


#: Ids a command may not have, with how the refusal describes each.
BAD_IDS: list[tuple[object, str]] = [
    (7, "the number 7"),
    (None, "null"),
    ({"n": 7}, "an object"),
    (True, "true"),
    (["c-1"], "a list"),
    ("x" * 1000, "a string of 1000 characters"),
]


async def test_a_command_whose_id_is_not_a_string_is_refused_saying_so(
    broker: Mosquitto, tmp_path: Path
) -> None:
    async with running_table(broker, tmp_path) as table:
        for command_id, described in BAD_IDS:
            command = {"id": command_id, "command": "new_shoe", "operator": "pit-1"}
            reply = await table.over_mqtt(command)
            parsed = parse_command(json.dumps(command).encode())
            assert isinstance(parsed, CommandRejection)
            assert reply == {
                **reply,
                "id": None,  # nothing the sender could match: the message says why
                "ok": False,
                "error": CommandErrorCode.INVALID_MESSAGE,
                "message": f"field id: must be a string of 1 to {MAX_COMMAND_ID_LENGTH} "
                f"characters; got {described}",
            }
            assert reply["message"] == parsed.message
        assert await table.phase() == "no_shoe"  # no new_shoe was carried out
        echoed = await table.over_mqtt({"id": "m-1", "command": "new_shoe", "operator": "pit-1"})
        assert (echoed["id"], echoed["ok"]) == ("m-1", True)  # a string id is echoed
        assert await table.phase() != "no_shoe"
