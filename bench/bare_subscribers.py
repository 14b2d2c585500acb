# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Bare subscribers, one per MQTT client the ingest could use: what each costs per message.

A benchmark helper, run by ``bench_ingest_cpu.py --clients``, not part of the product. Each
kind connects as the worker does (MQTT 5 over TLS, a persistent session, Receive Maximum
``RECEIVE_MAXIMUM``, the worker's shared subscriptions), acknowledges by hand a batch of
``MAX_BATCH`` at a time, stores nothing, and stops after ``count`` messages, printing its CPU
seconds when subscribed (``ready``) and when done (``done``).

Run: ``python bench/bare_subscribers.py KIND URL CA NAME COUNT``; KIND is one of
:data:`KINDS`, run on asyncio's own loop, ``worker`` on uvloop as the worker process runs;
``+uvloop`` or ``+asyncio`` after it chooses the loop. ``BARE_PROFILE=FILE`` writes cProfile's
statistics (CPU time) of the run there.
"""

from __future__ import annotations

import asyncio
import cProfile
import os
import sys
import time
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import aiomqtt
import gmqtt
import paho.mqtt.client as paho
import uvloop
from paho.mqtt.enums import MQTTErrorCode
from paho.mqtt.subscribeoptions import SubscribeOptions

from table_controller.ingest.broker import BrokerConnection, Delivery
from table_controller.ingest.worker import MAX_BATCH, RECEIVE_MAXIMUM, subscriptions
from table_controller.mqtt.client import new_client
from table_controller.mqtt.settings import BrokerEndpoint


def ready() -> None:
    print("ready", time.process_time(), flush=True)


def done() -> None:
    cpu = time.process_time()
    if PROFILE:
        profile = PROFILE.pop()
        profile.disable()
        profile.dump_stats(os.environ["BARE_PROFILE"])
    print("done", cpu, flush=True)


def aiomqtt_client(endpoint: BrokerEndpoint, name: str) -> tuple[aiomqtt.Client, paho.Client]:
    """An aiomqtt client with the worker's Receive Maximum, and its paho client, acking by hand.

    Both reached inside aiomqtt 2 (``paho.Client.ack`` acknowledges a message).
    """
    client = new_client(endpoint, identifier=name, persistent=True)
    properties = client._properties  # noqa: SLF001 - a bench of aiomqtt 2's insides
    if properties is not None:  # MQTT 5
        properties.ReceiveMaximum = RECEIVE_MAXIMUM
    inner: paho.Client = client._client  # noqa: SLF001
    inner.manual_ack_set(on=True)
    return client, inner


#: The profile of the run, with ``BARE_PROFILE=FILE`` (cProfile's statistics, CPU time).
PROFILE: list[cProfile.Profile] = []


async def aiomqtt_kind(endpoint: BrokerEndpoint, name: str, count: int) -> None:
    """The worker's former client: aiomqtt over paho, messages through ``client.messages``."""
    client, acks = aiomqtt_client(endpoint, name)
    shared, _ = subscriptions(name, "baccarat/tables")
    async with client:
        await client.subscribe([(topic, SubscribeOptions(qos=1)) for topic in shared])
        ready()
        got, held = 0, []
        async for message in client.messages:
            held.append(message)
            got += 1
            if len(held) == MAX_BATCH or got == count:
                for one in held:
                    acks.ack(one.mid, one.qos)
                held = []
            if got == count:
                break
        done()


async def gmqtt_kind(endpoint: BrokerEndpoint, name: str, count: int) -> None:
    """gmqtt, acknowledged by hand: ``on_message`` a coroutine resolved once the batch is done.

    gmqtt sends a PUBACK when the coroutine ``on_message`` returned returns (its
    ``optimistic_acknowledgement=False``): one task per message.
    """
    client = gmqtt.Client(
        name,
        clean_session=False,
        optimistic_acknowledgement=False,
        session_expiry_interval=3600,
        receive_maximum=RECEIVE_MAXIMUM,
    )
    client.set_auth_credentials(endpoint.username or "", endpoint.password)
    loop = asyncio.get_running_loop()
    finished = loop.create_future()
    state: dict[str, Any] = {"got": 0, "batch": loop.create_future()}

    async def on_message(*_: object) -> int:
        state["got"] += 1
        batch = state["batch"]
        if state["got"] % MAX_BATCH == 0 or state["got"] == count:
            state["batch"] = loop.create_future()
            batch.set_result(None)
            if state["got"] == count:
                finished.set_result(None)
        await batch
        return 0

    client.on_message = on_message
    await client.connect(endpoint.host, endpoint.port, ssl=endpoint.tls_context(), version=5)
    subscribed: asyncio.Future[None] = loop.create_future()

    def on_subscribe(*_: object) -> None:
        if not subscribed.done():
            subscribed.set_result(None)

    client.on_subscribe = on_subscribe
    shared, _ = subscriptions(name, "baccarat/tables")
    client.subscribe([gmqtt.Subscription(topic, qos=1) for topic in shared])
    await subscribed
    ready()
    await finished
    await asyncio.sleep(0)
    done()
    await client.disconnect()


async def paho_kind(
    endpoint: BrokerEndpoint, name: str, count: int, *, buffered: bool = False
) -> None:
    """An aiomqtt connection, paho's messages taken from its callback: no task each."""
    client, inner = aiomqtt_client(endpoint, name)
    if buffered:
        inner.__class__ = BufferedPaho
    held: list[paho.MQTTMessage] = []
    arrived = asyncio.Event()

    def on_message(_client: object, _userdata: object, message: paho.MQTTMessage) -> None:
        held.append(message)
        arrived.set()

    shared, _ = subscriptions(name, "baccarat/tables")
    async with client:
        inner.on_message = on_message
        await client.subscribe([(topic, SubscribeOptions(qos=1)) for topic in shared])
        ready()
        got = 0
        while got < count:
            await arrived.wait()
            arrived.clear()
            batch, held[:] = held[:], []
            got += len(batch)
            for one in batch:
                inner.ack(one.mid, one.qos)
        done()


def _buffered_paho() -> type:

    class Buffered(paho.Client):
        """paho reading its socket 64 KiB at a time, its small reads served from that."""

        _rbuf = b""
        _roff = 0

        def _sock_recv(self, bufsize: int) -> bytes:
            if self._roff >= len(self._rbuf):
                self._rbuf = super()._sock_recv(65536)
                self._roff = 0
                if not self._rbuf:
                    return b""
            start = self._roff
            self._roff = start + bufsize
            return self._rbuf[start : start + bufsize]

        def loop_read(self, max_packets: int = 1) -> MQTTErrorCode:
            result = super().loop_read(max_packets)
            while result == MQTTErrorCode.MQTT_ERR_SUCCESS and self._roff < len(self._rbuf):
                result = super().loop_read(max_packets)
            return result

    return Buffered


BufferedPaho: Any = None


async def paho_buffered_kind(endpoint: BrokerEndpoint, name: str, count: int) -> None:
    global BufferedPaho  # noqa: PLW0603 - made on first use
    BufferedPaho = _buffered_paho()
    await paho_kind(endpoint, name, count, buffered=True)


async def worker_kind(endpoint: BrokerEndpoint, name: str, count: int) -> None:
    """The worker's own connection (``ingest/broker.py``: gmqtt, acknowledged by hand)."""
    held: list[Delivery] = []
    arrived = asyncio.Event()

    def deliver(message: Delivery) -> None:
        held.append(message)
        arrived.set()

    connection = BrokerConnection(
        endpoint,
        client_id=name,
        session_expiry_s=3600,
        receive_maximum=RECEIVE_MAXIMUM,
        timeout_s=60.0,
        deliver=deliver,
    )
    shared, _ = subscriptions(name, "baccarat/tables")
    async with connection:
        await connection.subscribe(shared)
        ready()
        got = 0
        while got < count:
            await arrived.wait()
            arrived.clear()
            while held:
                batch, held[:] = held[:MAX_BATCH], held[MAX_BATCH:]
                got += len(batch)
                connection.ack([one.mid for one in batch])
        done()


KINDS: dict[str, Callable[[BrokerEndpoint, str, int], Coroutine[Any, Any, None]]] = {
    "aiomqtt": aiomqtt_kind,
    "gmqtt": gmqtt_kind,
    "paho": paho_kind,
    "paho-buffered": paho_buffered_kind,
}
#: The worker's own client.
KINDS["worker"] = worker_kind


def main() -> None:
    kind, url, ca, name, count = sys.argv[1:6]
    endpoint = BrokerEndpoint.from_url(url, ca_file=Path(ca), protocol="5")
    base, _, loop = kind.partition("+")
    loop = loop or ("uvloop" if base == "worker" else "asyncio")  # as the worker process runs
    run = KINDS[base](endpoint, name, int(count))
    if os.environ.get("BARE_PROFILE"):
        PROFILE.append(cProfile.Profile(time.process_time))
        PROFILE[0].enable()
    if loop == "uvloop":
        uvloop.run(run)
    else:
        asyncio.run(run)


if __name__ == "__main__":
    main()
