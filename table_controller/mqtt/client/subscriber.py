# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The consumer side of MQTT: what ``watch``, the benches and the tests subscribe with.

Adapter, not the table's path: :class:`Subscription` reconnects by itself and queues what it
receives; :func:`publish_once` sends one message (a command, say) and disconnects.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Self

import aiomqtt

from drivers.backoff import Backoff
from table_controller.mqtt.client.connect import error_text, new_client, payload_bytes
from table_controller.mqtt.settings import BrokerEndpoint


@dataclass(frozen=True, slots=True, kw_only=True)
class Received:
    """One message a :class:`Subscription` got."""

    topic: str
    payload: bytes
    retain: bool
    qos: int


class Subscription:
    """A subscriber that reconnects by itself: ``async with Subscription(...) as sub``.

    Messages are read with ``await sub.get()`` or ``async for message in sub``. With a
    ``client_id`` and ``persistent=True`` the broker keeps QoS 1 messages for it while it is
    away, so a broker restart (with persistence) loses nothing.
    """

    def __init__(  # noqa: PLR0913 - keyword-only subscription options
        self,
        endpoint: BrokerEndpoint,
        filters: Sequence[str],
        *,
        client_id: str | None = None,
        persistent: bool = False,
        qos: int = 1,
        backoff_initial_s: float = 0.2,
        backoff_max_s: float = 5.0,
    ) -> None:
        self.endpoint = endpoint
        self.filters = tuple(filters)
        self.client_id = client_id or f"watch-{uuid.uuid4().hex[:12]}"
        self.persistent = persistent
        self.qos = qos
        self._backoff = Backoff(initial_s=backoff_initial_s, cap_s=backoff_max_s)
        self._queue: asyncio.Queue[Received] = asyncio.Queue()
        self._subscribed = asyncio.Event()
        self._task: asyncio.Task[None] | None = None
        self.last_error: str | None = None
        self.connects = 0

    async def __aenter__(self) -> Self:
        self._task = asyncio.create_task(self._run(), name=f"mqtt-subscription-{self.client_id}")
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None

    def __aiter__(self) -> AsyncIterator[Received]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[Received]:
        while True:
            yield await self.get()

    async def get(self) -> Received:
        return await self._queue.get()

    async def wait_subscribed(self) -> None:
        """Return once the subscription is in place (the first time, or after a reconnect)."""
        await self._subscribed.wait()

    async def _run(self) -> None:
        attempt = 0
        rng = random.Random()  # noqa: S311  (jitter, not security)
        while True:
            client = new_client(
                self.endpoint, identifier=self.client_id, persistent=self.persistent
            )
            try:
                async with client:
                    for topic_filter in self.filters:
                        await client.subscribe(topic_filter, qos=self.qos)
                    self.connects += 1
                    attempt = 0
                    self._subscribed.set()
                    async for message in client.messages:
                        self._queue.put_nowait(
                            Received(
                                topic=message.topic.value,
                                payload=payload_bytes(message.payload),
                                retain=bool(message.retain),
                                qos=message.qos,
                            )
                        )
            except aiomqtt.MqttError as error:
                self._subscribed.clear()
                self.last_error = error_text(error)
            await asyncio.sleep(self._backoff.delay(attempt, rng))
            attempt += 1


async def publish_once(  # noqa: PLR0913 - keyword-only message options
    endpoint: BrokerEndpoint,
    topic: str,
    payload: bytes | str,
    *,
    qos: int = 1,
    retain: bool = False,
    client_id: str | None = None,
) -> None:
    """Connect, publish one message, disconnect (tools and tests; not the table's path).

    Raises:
        ConnectionError: the broker could not be reached or refused the login.
    """
    identifier = client_id or f"publish-{uuid.uuid4().hex[:12]}"
    try:
        async with new_client(endpoint, identifier=identifier, persistent=False) as client:
            await client.publish(topic, payload, qos=qos, retain=retain)
    except aiomqtt.MqttError as error:
        raise ConnectionError(error_text(error)) from None
