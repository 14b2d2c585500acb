# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest's connection to the broker (``ingest/broker.py``), against a real mosquitto.

It reaches inside gmqtt for manual acknowledgements: these tests fail if a gmqtt release moves
what it uses, and show what the worker's "at least once" rests on: a message not acknowledged
is delivered again to the same session, an acknowledged one is not.
"""

from __future__ import annotations

import asyncio
import contextlib

import pytest

from table_controller.ingest.broker import BrokerConnection, BrokerError, Delivery
from table_controller.mqtt.client import publish_once
from table_controller.mqtt.settings import BrokerEndpoint
from tests.mosquitto import Mosquitto

pytestmark = pytest.mark.broker

TOPIC = "baccarat/tables/T1/events/test"


def endpoint(broker: Mosquitto, password: str | None = None) -> BrokerEndpoint:
    return BrokerEndpoint.from_url(broker.url("backend", password=password), protocol="5")


class Inbox:
    """What a connection delivered, awaited by count or until the broker is quiet."""

    def __init__(self) -> None:
        self.messages: list[Delivery] = []
        self._arrived = asyncio.Event()

    def deliver(self, message: Delivery) -> None:
        self.messages.append(message)
        self._arrived.set()

    async def until(self, count: int | None, quiet_s: float) -> list[Delivery]:
        """The messages once ``count`` came (or, with None, once ``quiet_s`` passed with none)."""
        with contextlib.suppress(TimeoutError):
            while count is None or len(self.messages) < count:
                self._arrived.clear()
                async with asyncio.timeout(quiet_s):
                    await self._arrived.wait()
        return self.messages


def connection(
    broker: Mosquitto, inbox: Inbox, *, password: str | None = None, receive_maximum: int = 100
) -> BrokerConnection:
    return BrokerConnection(
        endpoint(broker, password),
        client_id="consumer",
        session_expiry_s=600,
        receive_maximum=receive_maximum,
        timeout_s=10.0,
        deliver=inbox.deliver,
    )


async def publish(
    broker: Mosquitto, count: int, topic: str = TOPIC, *, retain: bool = False
) -> None:
    for n in range(count):
        await publish_once(endpoint(broker), topic, str(n).encode(), retain=retain)


async def test_unacknowledged_messages_come_again_and_acknowledged_ones_do_not(
    broker: Mosquitto,
) -> None:
    async with connection(broker, Inbox()) as consumer:
        await consumer.subscribe([TOPIC])
    await publish(broker, 3)

    inbox = Inbox()
    async with connection(broker, inbox):
        first = await inbox.until(3, quiet_s=5)
        # Not acknowledged: the session still owes them.
    assert [m.payload for m in first] == [b"0", b"1", b"2"]
    assert all(m.qos == 1 and m.mid > 0 and not m.retain for m in first)

    inbox = Inbox()
    async with connection(broker, inbox) as consumer:
        again = await inbox.until(3, quiet_s=5)
        consumer.ack([m.mid for m in again])
        await asyncio.sleep(0.5)  # the acknowledgements leave before the disconnect
    assert [m.payload for m in again] == [b"0", b"1", b"2"]

    inbox = Inbox()
    async with connection(broker, inbox):
        assert await inbox.until(None, quiet_s=1.5) == []


async def test_the_broker_sends_no_more_unacknowledged_messages_than_the_receive_maximum(
    broker: Mosquitto,
) -> None:
    inbox = Inbox()
    async with connection(broker, inbox, receive_maximum=50) as consumer:
        await consumer.subscribe([TOPIC])
        await publish(broker, 80)
        held_back = await inbox.until(None, quiet_s=1.5)
        assert len(held_back) == 50
        consumer.ack([m.mid for m in held_back])
        assert len(await inbox.until(80, quiet_s=5)) == 80


async def test_a_retained_copy_comes_with_its_subscription_identifier(broker: Mosquitto) -> None:
    retained = "baccarat/tables/T1/state"
    await publish(broker, 1, retained, retain=True)
    inbox = Inbox()
    async with connection(broker, inbox) as consumer:
        await consumer.subscribe([retained], subscription_id=2)
        (copy,) = await inbox.until(1, quiet_s=5)
        assert (copy.topic, copy.retain, copy.subscription_ids) == (retained, True, (2,))
        await consumer.unsubscribe([retained])
        await publish(broker, 1, retained, retain=True)
        assert await inbox.until(2, quiet_s=1.5) == [copy]


async def test_a_publish_returns_once_acknowledged_and_a_closed_connection_refuses(
    broker: Mosquitto,
) -> None:
    inbox = Inbox()
    async with connection(broker, inbox) as consumer:
        await consumer.subscribe([TOPIC])
        await consumer.publish(TOPIC, b"command")
        (echo,) = await inbox.until(1, quiet_s=5)
        assert echo.payload == b"command"
        consumer.ack([echo.mid])
    assert not consumer.connected()
    with pytest.raises(BrokerError, match="not connected"):
        await consumer.publish(TOPIC, b"late")


async def test_a_refused_login_and_a_lost_connection_are_broker_errors(broker: Mosquitto) -> None:
    with pytest.raises(BrokerError, match="MQTTConnectError"):
        async with connection(broker, Inbox(), password="wrong"):
            pass
    async with connection(broker, Inbox()) as consumer:
        broker.stop()
        async with asyncio.timeout(10):
            reason = await consumer.closed()
        assert "lost" in reason, reason
        assert not consumer.connected()
        with pytest.raises(BrokerError):
            await consumer.subscribe([TOPIC])


async def _read_packet(reader: asyncio.StreamReader) -> int:
    """The type byte of the next MQTT packet from a client; its body is read and dropped."""
    kind = (await reader.readexactly(1))[0]
    length, shift = 0, 0
    while True:
        byte = (await reader.readexactly(1))[0]
        length += (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            break
    await reader.readexactly(length)
    return kind


@pytest.mark.parametrize(("request_type", "ask"), [(0x82, "subscribe"), (0x32, "publish")])
async def test_a_broker_that_hangs_up_on_a_request_is_a_broker_error(
    request_type: int, ask: str
) -> None:
    """A peer that accepts the connection, then closes it on the request, unanswered."""

    async def hang_up(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with contextlib.suppress(asyncio.IncompleteReadError, ConnectionError):
            assert await _read_packet(reader) == 0x10  # CONNECT
            writer.write(bytes([0x20, 0x03, 0x00, 0x00, 0x00]))  # CONNACK, MQTT 5, accepted
            while (await _read_packet(reader)) & 0xF0 != request_type & 0xF0:
                pass
        writer.close()

    server = await asyncio.start_server(hang_up, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    async with server:
        consumer = BrokerConnection(
            BrokerEndpoint.from_url(f"mqtt://127.0.0.1:{port}", protocol="5"),
            client_id="consumer",
            session_expiry_s=600,
            receive_maximum=100,
            timeout_s=10.0,
            deliver=Inbox().deliver,
        )
        async with consumer:
            request = (
                consumer.subscribe([TOPIC]) if ask == "subscribe" else consumer.publish(TOPIC, b"1")
            )
            with pytest.raises(BrokerError, match=r"lost|disconnected"):
                await request
