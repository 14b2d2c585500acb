# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The consumer options of ``mqtt.client`` (the bench's aiomqtt subscribers), against mosquitto.

Manual acknowledgements (:class:`ManualAcks`) reach into aiomqtt; these tests fail if an aiomqtt
release moves what they use: a message not acknowledged is delivered again to the same session,
an acknowledged one is not; mosquitto holds back what is over the Receive Maximum. The ingest's
own connection (gmqtt) is tested in ``tests/ingest/test_broker.py``.
"""

from __future__ import annotations

import asyncio
import contextlib

import aiomqtt
import pytest

from table_controller.mqtt.client.connect import ManualAcks, new_client, payload_bytes
from table_controller.mqtt.settings import BrokerEndpoint
from tests.mosquitto import Mosquitto

pytestmark = pytest.mark.broker

TOPIC = "baccarat/tables/T1/events/test"


def endpoint(broker: Mosquitto) -> BrokerEndpoint:
    return BrokerEndpoint.from_url(broker.url("backend"), protocol="5")


def consumer(broker: Mosquitto, receive_maximum: int | None = None) -> aiomqtt.Client:
    return new_client(
        endpoint(broker), identifier="consumer", persistent=True, receive_maximum=receive_maximum
    )


async def publish(broker: Mosquitto, count: int) -> None:
    async with new_client(endpoint(broker), identifier="producer", persistent=False) as client:
        for n in range(count):
            await client.publish(TOPIC, str(n).encode(), qos=1)


async def received(client: aiomqtt.Client, count: int | None, quiet_s: float) -> list[bytes]:
    """Payloads until ``count`` came (or, with None, until ``quiet_s`` passed without one)."""
    payloads: list[bytes] = []
    messages = client.messages
    with contextlib.suppress(TimeoutError):
        while count is None or len(payloads) < count:
            async with asyncio.timeout(quiet_s):
                message = await anext(messages)
            payloads.append(payload_bytes(message.payload))
    return payloads


async def test_unacknowledged_messages_come_again_and_acknowledged_ones_do_not(
    broker: Mosquitto,
) -> None:
    client = consumer(broker)
    ManualAcks(client)
    async with client:
        await client.subscribe(TOPIC, qos=1)
    await publish(broker, 3)

    client = consumer(broker)
    ManualAcks(client)
    async with client:
        first = await received(client, 3, quiet_s=5)
        # Not acknowledged: the session still owes them.
    assert first == [b"0", b"1", b"2"]

    client = consumer(broker)
    manual = ManualAcks(client)
    async with client:
        again: list[bytes] = []
        async for message in client.messages:
            again.append(payload_bytes(message.payload))
            manual.ack(message.mid, message.qos)
            if len(again) == 3:
                break
        await asyncio.sleep(0.5)  # the acknowledgements leave before the disconnect
    assert again == first

    client = consumer(broker)
    ManualAcks(client)
    async with client:
        assert await received(client, None, quiet_s=1.5) == []


async def test_the_broker_sends_no_more_unacknowledged_messages_than_the_receive_maximum(
    broker: Mosquitto,
) -> None:
    for window, expected in ((None, 20), (50, 50)):
        client = consumer(broker, receive_maximum=window)
        ManualAcks(client)
        async with client:
            await client.subscribe(TOPIC, qos=1)
            await publish(broker, 80)
            held_back = await received(client, None, quiet_s=1.5)
            assert len(held_back) == expected, window
        # Leave nothing for the next window: a clean session.
        async with new_client(endpoint(broker), identifier="consumer", persistent=False):
            pass
