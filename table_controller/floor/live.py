# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor's connection to the broker: every table's retained topics and alarms, and commands.

Adapter (aiomqtt, through ``mqtt.client``). :class:`FloorLink` subscribes to each table's
``status``, ``state``, ``limits``, ``stats``, ``roads``, ``events/alarm``,
``events/alarm_acknowledged`` and ``commands/replies`` (docs/mqtt-api.md), hands every message
but the replies to ``on_message`` as it comes, and says when the broker is lost and found
again (``on_connection``). A broker that cannot be reached is retried for ever, with backoff;
on each connection the broker sends the retained topics again, so the floor catches up at once.

:meth:`FloorLink.command` publishes one command (signed with the table's ``command_secret``
when one is known) and waits for the table's reply to its ``id``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Final

import aiomqtt
import structlog

from drivers.backoff import Backoff
from table_controller.contract.commands import CommandMessage
from table_controller.floor.model import FOLLOWED
from table_controller.ingress import sign
from table_controller.mqtt import BrokerEndpoint
from table_controller.mqtt.client import error_text, new_client, payload_bytes

_LOG = structlog.get_logger("table_controller.floor")
#: Seconds the floor waits for a table's reply to a command.
REPLY_TIMEOUT_S: Final = 10.0
#: The key of the secrets that stands for every table not named (as the ingest's).
ANY_TABLE: Final = "*"
REPLIES: Final = "commands/replies"


class BrokerUnavailable(RuntimeError):  # noqa: N818 - names the state, as the page says it
    """The broker cannot take the command now; the message says why."""


class FloorLink:
    """The floor's one MQTT connection.

    Args:
        endpoint: The broker.
        prefix: The tables' topic prefix.
        client_id: The floor's MQTT client id.
        on_message: Called with ``(table_id, kind, message)`` for every message but the
            replies; ``kind`` is the topic after the table's root (``state``, ``events/alarm``).
        on_connection: Called with None once connected and subscribed, and with the reason
            each time the connection is lost or cannot be made.
        secrets: The tables' ``command_secret`` by table id (``*``: any other table).
    """

    def __init__(  # noqa: PLR0913 - keyword-only parts of one connection
        self,
        endpoint: BrokerEndpoint,
        *,
        prefix: str,
        client_id: str,
        on_message: Callable[[str, str, Mapping[str, Any]], None],
        on_connection: Callable[[str | None], None],
        secrets: Mapping[str, bytes] | None = None,
    ) -> None:
        self.endpoint = endpoint
        self.prefix = prefix.strip("/")
        self.client_id = client_id
        self._on_message = on_message
        self._on_connection = on_connection
        self._secrets = dict(secrets or {})
        self._client: aiomqtt.Client | None = None
        self._waiting: dict[str, asyncio.Future[dict[str, Any]]] = {}
        self._backoff = Backoff(initial_s=0.2, cap_s=5.0)
        #: Messages received since start, and those that were not JSON objects.
        self.received = 0
        self.unreadable = 0

    @property
    def connected(self) -> bool:
        return self._client is not None

    def filters(self) -> list[str]:
        return [f"{self.prefix}/+/{kind}" for kind in (*FOLLOWED, REPLIES)]

    async def run(self) -> None:
        """Connect, follow the tables, reconnect when lost; until cancelled."""
        attempt = 0
        rng = random.Random()  # noqa: S311 - jitter, not security
        while True:
            client = new_client(self.endpoint, identifier=self.client_id, persistent=False)
            try:
                async with client:
                    for topic_filter in self.filters():
                        await client.subscribe(topic_filter, qos=1)
                    self._client = client
                    attempt = 0
                    self._on_connection(None)
                    async for message in client.messages:
                        self._take(message.topic.value, payload_bytes(message.payload))
            except aiomqtt.MqttError as error:
                self._lost(error_text(error))
            finally:
                self._client = None
            await asyncio.sleep(self._backoff.delay(attempt, rng))
            attempt += 1

    def _lost(self, reason: str) -> None:
        for future in self._waiting.values():
            if not future.done():
                future.set_exception(BrokerUnavailable(f"the broker connection was lost: {reason}"))
        self._on_connection(reason)

    def _take(self, topic: str, payload: bytes) -> None:
        root, _, rest = topic.partition(self.prefix + "/")
        if root or "/" not in rest:
            return
        table_id, _, kind = rest.partition("/")
        self.received += 1
        try:
            message = json.loads(payload)
        except ValueError:
            message = None
        if not isinstance(message, dict):
            self.unreadable += 1
            return
        if kind == REPLIES:
            waiting = self._waiting.get(str(message.get("id")))
            if waiting is not None and not waiting.done():
                waiting.set_result(message)
            return
        try:
            self._on_message(table_id, kind, message)
        except Exception:  # noqa: BLE001 - a bad message must not stop the floor's link
            _LOG.exception("floor could not show a message", topic=topic[:120])

    def secret_for(self, table_id: str) -> bytes | None:
        return self._secrets.get(table_id, self._secrets.get(ANY_TABLE))

    async def command(
        self,
        table_id: str,
        name: str,
        *,
        operator: str,
        args: Mapping[str, object],
        timeout_s: float = REPLY_TIMEOUT_S,
    ) -> dict[str, Any] | None:
        """Publish a command to ``table_id`` and wait for its reply; None: no reply in time.

        Raises:
            BrokerUnavailable: the floor is not connected, or lost the broker meanwhile.
            pydantic.ValidationError: the command is not one the contract takes.
        """
        command = CommandMessage.model_validate(
            {
                "id": f"floor-{uuid.uuid4().hex}",
                "command": name,
                "operator": operator,
                "args": dict(args),
            }
        )
        secret = self.secret_for(table_id)
        if secret is not None:
            command = sign(command, secret)
        client = self._client
        if client is None:
            raise BrokerUnavailable("the floor is not connected to the broker")
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[command.id] = future
        try:
            payload = json.dumps(command.model_dump(mode="json", exclude_none=True))
            try:
                await client.publish(f"{self.prefix}/{table_id}/commands", payload, qos=1)
            except aiomqtt.MqttError as error:
                raise BrokerUnavailable(error_text(error)) from None
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout_s):
                    return await future
            return None
        finally:
            del self._waiting[command.id]
