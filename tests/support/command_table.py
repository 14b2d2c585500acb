# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller run`` as a virtual table T07 with a broker and a display, commanded.

The table process runs against a real mosquitto; a test gives it commands over MQTT (as the
backend, or as the pit's supervisor login) and on the display's HTTP endpoint (as the dealer's
page), and reads the replies as a backend does. Its journal is ``tmp_path/T07.journal``, so a
second :func:`running_table` on the same ``tmp_path`` is the same table after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import aiohttp

from table_controller.mqtt.client.subscriber import Subscription, publish_once
from table_controller.mqtt.settings import BrokerEndpoint
from tests.mosquitto import Mosquitto
from tests.support.ports import free_port
from tests.support.table_process import table_run

ROOT: Final = "baccarat/tables/T07"
COMMANDS: Final = f"{ROOT}/commands"
REPLIES: Final = f"{ROOT}/commands/replies"
#: The display's supervisor PIN.
PIN: Final = "2468"
#: The supervisor operator the table trusts, over the broker login ``pit``.
SUPERVISOR: Final = "sup-1"


@dataclass
class CommandTable:
    """The table process seen by a backend (its replies) and by the dealer's page."""

    broker: Mosquitto
    replies: Subscription
    http: aiohttp.ClientSession
    display: str

    async def publish(self, payload: bytes, *, user: str = "backend") -> None:
        """Publish one payload to the table's commands, logged in as ``user``."""
        await publish_once(BrokerEndpoint.from_url(self.broker.url(user)), COMMANDS, payload)

    async def reply(self) -> dict[str, Any]:
        """The table's next reply (its envelope included)."""
        async with asyncio.timeout(10):
            while True:
                received = await self.replies.get()
                if received.topic == REPLIES:
                    reply: dict[str, Any] = json.loads(received.payload)
                    return reply

    async def over_mqtt(
        self, command: Mapping[str, object], *, user: str = "backend"
    ) -> dict[str, Any]:
        """Publish one command as ``user``; the table's next reply."""
        await self.publish(json.dumps(command).encode(), user=user)
        return await self.reply()

    async def on_display(self, body: dict[str, object]) -> tuple[int, dict[str, Any]]:
        async with self.http.post(f"{self.display}/api/commands", json=body) as response:
            reply: dict[str, Any] = await response.json()
            return response.status, reply

    async def phase(self) -> str:
        async with self.http.get(f"{self.display}/api/state") as response:
            body = await response.json()
        return str(body["table"]["state"]["phase"])


@contextlib.asynccontextmanager
async def running_table(
    broker: Mosquitto, tmp_path: Path, *, env: Mapping[str, str] | None = None
) -> AsyncIterator[CommandTable]:
    """``run`` as a virtual table with a broker and a display, until the test is done.

    ``env`` adds settings (``TABLE_CONTROLLER_...``) to the display PIN and the supervisor.
    """
    port = free_port()
    settings = {
        **os.environ,
        "TABLE_CONTROLLER_DISPLAY_PIN": PIN,
        "TABLE_CONTROLLER_SUPERVISORS": json.dumps({SUPERVISOR: ["pit"]}),
        **(env or {}),
    }
    async with (
        Subscription(BrokerEndpoint.from_url(broker.url()), [f"{ROOT}/status", REPLIES]) as feed,
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as http,
    ):  # fmt: skip
        await feed.wait_subscribed()
        async with table_run(
            tmp_path / "run.log",
            "--table-id", "T07", "--variant", "commission", "--card-source", "rng",
            "--journal", str(tmp_path / "T07.journal"),
            "--broker", broker.url("T07"),
            "--display", f"127.0.0.1:{port}",
            env=settings,
        ) as process:  # fmt: skip
            async with asyncio.timeout(20):
                while True:  # the birth: connected and subscribed to its commands
                    received = await feed.get()
                    if (
                        received.topic.endswith("/status")
                        and json.loads(received.payload)["online"]
                    ):
                        break
            yield CommandTable(
                broker=broker, replies=feed, http=http, display=f"http://127.0.0.1:{port}"
            )
    assert process.returncode == 0, (tmp_path / "run.log").read_text()
