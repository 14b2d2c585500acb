# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A backend in a test: sends commands to a table over a real broker and keeps what it hears."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from typing import Any

from table_controller.contract.commands.message import CommandMessage
from table_controller.ingress.authorisation import signature
from table_controller.mqtt.client.subscriber import Received, Subscription, publish_once
from table_controller.mqtt.settings import BrokerEndpoint
from tests.mosquitto import Mosquitto


class Backend:
    """Sends commands and waits for their replies; keeps every message it received."""

    def __init__(
        self, broker: Mosquitto, feed: Subscription, root: str, *, secret: bytes | None = None
    ) -> None:
        self.endpoint = BrokerEndpoint.from_url(broker.url("backend"))
        #: The table's ``command_secret``: every command is signed with it (signed mode).
        self.secret = secret
        self.feed = feed
        self.root = root
        self.received: list[Received] = []
        self.sent = 0
        self._scanned = 0
        self._results: set[str] = set()

    async def command(
        self, name: str, *, operator: str = "backend", **args: object
    ) -> dict[str, Any]:
        self.sent += 1
        body = {"id": f"b-{self.sent}", "command": name, "operator": operator, "args": args}
        if self.secret is not None:
            body["signature"] = signature(CommandMessage.model_validate(body), self.secret)
        return await self.send(body)

    async def send(self, body: Mapping[str, object]) -> dict[str, Any]:
        """Publish a command as given (a repeated id, say); the table's reply to its id."""
        await self.publish_command(json.dumps(body))
        async with asyncio.timeout(15):
            while True:
                message = await self.feed.get()
                self.received.append(message)
                if message.topic == f"{self.root}/commands/replies":
                    reply: dict[str, Any] = json.loads(message.payload)
                    if reply["id"] == body["id"]:
                        return reply

    async def publish_command(self, payload: str) -> None:
        """Publish on the table's command topic, on a connection of its own."""
        await publish_once(self.endpoint, f"{self.root}/commands", payload)

    async def wait_online(self, session_after: int = 0) -> int:
        """Wait for the table's birth (a status online with a newer session); its session."""
        async with asyncio.timeout(20):
            while True:
                message = await self.feed.get()
                self.received.append(message)
                if message.topic == f"{self.root}/status":
                    status = json.loads(message.payload)
                    if status["online"] and status["session"] > session_after:
                        return int(status["session"])

    async def until_event(self, kind: str, **fields: object) -> dict[str, Any]:
        """Wait for an event of type ``kind`` with these field values; the event."""
        scanned = 0
        async with asyncio.timeout(15):
            while True:
                for message in self.received[scanned:]:
                    if message.topic == f"{self.root}/events/{kind}":
                        event: dict[str, Any] = json.loads(message.payload)
                        if all(event.get(name) == value for name, value in fields.items()):
                            return event
                scanned = len(self.received)
                self.received.append(await self.feed.get())

    async def until_result(self, round_id: str) -> None:
        async with asyncio.timeout(15):
            while round_id not in self._result_ids():
                self.received.append(await self.feed.get())

    async def until_odds(self, round_no: int) -> None:
        """Wait for the odds of ``round_no``: the last message the round before it leads to."""

        def heard() -> bool:
            return any(
                message.topic == f"{self.root}/odds"
                and json.loads(message.payload)["round_no"] == round_no
                for message in self.received
            )

        async with asyncio.timeout(15):
            while not heard():
                self.received.append(await self.feed.get())

    def _result_ids(self) -> set[str]:
        """Round ids of the results received so far (parsing only what is new)."""
        for message in self.received[self._scanned :]:
            if message.topic == f"{self.root}/events/round_result":
                self._results.add(json.loads(message.payload)["round_id"])
        self._scanned = len(self.received)
        return self._results

    def messages(self, kind: str) -> list[dict[str, Any]]:
        """The events of one type, each once: a backend drops a resent ``seq`` (at-least-once)."""
        return [event for event in self.events() if event["type"] == kind]

    def events(self) -> list[dict[str, Any]]:
        by_seq: dict[int, dict[str, Any]] = {}
        for message in self.received:
            if "/events/" in message.topic or message.topic.endswith(("/roads", "/odds")):
                body = json.loads(message.payload)
                by_seq.setdefault(body["seq"], body)
        return [by_seq[seq] for seq in sorted(by_seq)]


@asynccontextmanager
async def listening(broker: Mosquitto, root: str, client_id: str) -> AsyncIterator[Backend]:
    """A backend subscribed to everything under ``root``, its subscription in place."""
    endpoint = BrokerEndpoint.from_url(broker.url("backend"))
    async with Subscription(endpoint, [f"{root}/#"], client_id=client_id) as feed:
        await feed.wait_subscribed()
        yield Backend(broker, feed, root)
