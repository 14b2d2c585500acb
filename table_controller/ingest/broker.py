# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest worker's connection to the broker: gmqtt, MQTT 5, each message acknowledged by hand.

Adapter. gmqtt reads the socket through an asyncio protocol, a buffer at a time, and hands
each message to a plain callback: a message costs the worker a fraction of what aiomqtt over
paho costs (``docs/benchmarks.md``, the ingest's section). One :class:`BrokerConnection` is one
connection: it does not reconnect (the worker does, with its backoff, on a new connection), and
it acknowledges a QoS 1 message only when :meth:`~BrokerConnection.ack` is called.

gmqtt's own way to acknowledge by hand (``optimistic_acknowledgement=False``) runs
``on_message`` as a task per message and sends the PUBACK when it returns; here the QoS 1
messages are taken from its handler's ``_handle_qos_1_publish_packet`` instead, and a batch's
PUBACKs written at once through the client's ``_connection``: the places this module reaches
inside gmqtt, which ``pyproject.toml`` pins below 0.9 for, and which ``tests/ingest/test_broker.py``
checks against a real broker.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Sequence
from typing import Any, Final, Self

import gmqtt
import msgspec
from gmqtt.mqtt.constants import MQTTCommands, MQTTv50
from gmqtt.mqtt.package import CommandWithMidPacket
from gmqtt.storage import PersistentStorage

from table_controller.mqtt import BrokerEndpoint

#: The reason codes of SUBACK and UNSUBACK from which on a request failed (MQTT 5, 3.9.3).
FAILED: Final = 0x80

log = logging.getLogger("table_controller.ingest.broker")
#: gmqtt logs each subscription and a lost connection's traceback; the worker logs what
#: matters itself (``broker_unreachable``), gmqtt's own errors still come through.
logging.getLogger("gmqtt").setLevel(logging.ERROR)


class BrokerError(Exception):
    """The broker was not reached, refused, did not answer in time, or the connection ended."""


class Delivery(msgspec.Struct, frozen=True, gc=False):
    """A message the broker delivered: its packet id (``mid``) is what :meth:`ack` takes.

    A msgspec struct, made for every message at a tenth of a frozen dataclass's cost.
    """

    topic: str
    payload: bytes
    qos: int = 1
    mid: int = 0
    retain: bool = False
    #: The identifiers of the subscriptions it matched (MQTT 5 Subscription Identifier).
    subscription_ids: tuple[int, ...] = ()


class _InFlight(PersistentStorage):  # type: ignore[misc]
    """gmqtt's store of the QoS 1 messages sent, telling when the broker acknowledged one."""

    def __init__(self) -> None:
        super().__init__()
        self.last_mid: int | None = None
        self.waiting: dict[int, asyncio.Future[None]] = {}

    def push_message(self, mid: int, raw_package: bytes) -> None:
        super().push_message(mid, raw_package)
        self.last_mid = mid

    def remove_message_by_mid(self, mid: int) -> None:
        super().remove_message_by_mid(mid)
        waiter = self.waiting.pop(mid, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(None)


class _Client(gmqtt.Client):  # type: ignore[misc]
    """gmqtt's client, never reconnecting by itself."""

    async def reconnect(self, delay: bool = False) -> None:
        """Never: the worker reconnects with its own backoff, on a new connection."""


class BrokerConnection:
    """One MQTT 5 connection (persistent session): ``async with BrokerConnection(...)``.

    Each message delivered is handed to ``deliver`` as it is read, in order; a QoS 1 message
    is acknowledged only by :meth:`ack`. :meth:`closed` returns when the connection ends.
    """

    def __init__(  # noqa: PLR0913 - keyword-only connection options
        self,
        endpoint: BrokerEndpoint,
        *,
        client_id: str,
        session_expiry_s: int,
        receive_maximum: int,
        timeout_s: float,
        deliver: Callable[[Delivery], None],
    ) -> None:
        self._endpoint = endpoint
        self._timeout_s = timeout_s
        self._deliver = deliver
        self._in_flight = _InFlight()
        client = _Client(
            client_id,
            clean_session=False,
            optimistic_acknowledgement=False,
            persistent_storage=self._in_flight,
            session_expiry_interval=session_expiry_s,
            receive_maximum=receive_maximum,
        )
        if endpoint.username is not None:
            client.set_auth_credentials(endpoint.username, endpoint.password)
        client.on_message = self._on_message
        client.on_disconnect = self._on_disconnect
        client.on_subscribe = self._on_answer
        client.on_unsubscribe = self._on_answer
        client._package_handler._handle_qos_1_publish_packet = self._on_qos_1  # noqa: SLF001
        self._client = client
        self._answers: dict[int, asyncio.Future[Sequence[int]]] = {}
        self._lost: asyncio.Future[str] | None = None
        self._open = False

    async def __aenter__(self) -> Self:
        self._lost = asyncio.get_running_loop().create_future()
        try:
            async with asyncio.timeout(self._timeout_s):
                await self._client.connect(
                    self._endpoint.host,
                    self._endpoint.port,
                    ssl=self._endpoint.tls_context() or False,
                    keepalive=self._endpoint.keepalive_s,
                    version=MQTTv50,
                )
        except TimeoutError:
            await self._close()
            raise BrokerError("the broker did not answer the connection in time") from None
        except (OSError, gmqtt.MQTTConnectError) as error:
            await self._close()
            raise BrokerError(error_text(error)) from None
        self._open = True
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self._close()

    async def _close(self) -> None:
        self._open = False
        self._fail_waiters("the connection was closed")
        try:
            async with asyncio.timeout(self._timeout_s):
                await self._client.disconnect()
        except Exception as error:  # noqa: BLE001 - closing a connection already going
            log.debug("disconnect: %s", error)

    async def closed(self) -> str:
        """Wait until the connection ends; why it ended."""
        assert self._lost is not None
        return await asyncio.shield(self._lost)

    def connected(self) -> bool:
        return self._open and self._lost is not None and not self._lost.done()

    async def subscribe(
        self, filters: Sequence[str], *, subscription_id: int | None = None
    ) -> None:
        """Subscribe to ``filters`` at QoS 1, marked with ``subscription_id`` if given.

        Raises:
            BrokerError: the broker refused a filter, did not answer, or the connection ended.
        """
        marks = {} if subscription_id is None else {"subscription_identifier": subscription_id}
        subscriptions = [gmqtt.Subscription(topic, qos=1) for topic in filters]
        codes = await self._request(lambda: self._client.subscribe(subscriptions, **marks))
        if any(code >= FAILED for code in codes):
            refused = [topic for topic, code in zip(filters, codes, strict=False) if code >= FAILED]
            raise BrokerError(f"the broker refused the subscriptions to {refused}")

    async def unsubscribe(self, filters: Sequence[str]) -> None:
        """Drop the subscriptions to ``filters``.

        Raises:
            BrokerError: the broker did not answer, or the connection ended.
        """
        await self._request(lambda: self._client.unsubscribe(list(filters)))

    async def publish(self, topic: str, payload: bytes) -> None:
        """Publish at QoS 1, not retained; return once the broker acknowledged it.

        Raises:
            BrokerError: not connected, no acknowledgement in time, or the connection ended.
        """
        self._require_connected()
        self._in_flight.last_mid = None
        self._client.publish(topic, payload, qos=1, retain=False)
        mid = self._in_flight.last_mid
        assert mid is not None
        waiter = asyncio.get_running_loop().create_future()
        self._in_flight.waiting[mid] = waiter
        await self._answered(waiter, "publish")

    def ack(self, mids: Sequence[int]) -> None:
        """Acknowledge the QoS 1 messages ``mids`` (their PUBACKs, in this order, in one write).

        Nothing is sent once the connection ended: the broker delivers them again.
        """
        if mids and self.connected():
            packets = b"".join(
                CommandWithMidPacket.build_package(MQTTCommands.PUBACK, mid, dup=False)
                for mid in mids
            )
            self._client._connection.send_package(packets)  # noqa: SLF001

    async def _request(self, send: Callable[[], int]) -> Sequence[int]:
        self._require_connected()
        mid = send()
        waiter: asyncio.Future[Sequence[int]] = asyncio.get_running_loop().create_future()
        self._answers[mid] = waiter
        codes: Sequence[int] = await self._answered(waiter, "request")
        return codes

    async def _answered(self, waiter: asyncio.Future[Any], what: str) -> Any:  # noqa: ANN401
        assert self._lost is not None
        try:
            async with asyncio.timeout(self._timeout_s):
                done, _ = await asyncio.wait(
                    (waiter, self._lost), return_when=asyncio.FIRST_COMPLETED
                )
        except TimeoutError:
            raise BrokerError(f"the broker did not answer the {what} in time") from None
        if waiter not in done:
            raise BrokerError(self._lost.result())
        return waiter.result()

    def _require_connected(self) -> None:
        if not self.connected():
            raise BrokerError("not connected to the broker")

    def _on_qos_1(self, mid: int, payload: bytes, topic: str, properties: dict[str, Any]) -> None:
        self._deliver(
            Delivery(
                topic,
                payload,
                1,
                mid,
                bool(properties.get("retain")),
                tuple(properties.get("subscription_identifier", ())),
            )
        )

    def _on_message(
        self, _client: object, topic: str, payload: bytes, qos: int, properties: dict[str, Any]
    ) -> int:
        """A message of QoS 0 (a QoS 2 one is downgraded to 1 by the subscriptions)."""
        self._deliver(
            Delivery(
                topic,
                payload,
                qos,
                0,
                bool(properties.get("retain")),
                tuple(properties.get("subscription_identifier", ())),
            )
        )
        return 0

    def _on_answer(self, _client: object, mid: int, codes: Sequence[int], *_: object) -> None:
        waiter = self._answers.pop(mid, None)
        if waiter is not None and not waiter.done():
            waiter.set_result(codes)

    def _on_disconnect(self, _client: object, packet: object, exc: object = None) -> None:
        reason = "the connection to the broker was lost"
        if isinstance(exc, BaseException):
            reason = f"{reason}: {error_text(exc)}"
        elif packet:
            reason = f"the broker disconnected: {packet!r}"
        self._fail_waiters(reason)

    def _fail_waiters(self, reason: str) -> None:
        if self._lost is not None and not self._lost.done():
            self._lost.set_result(reason)
        waiters: list[asyncio.Future[Any]] = [*self._answers.values()]
        waiters += self._in_flight.waiting.values()
        for waiter in waiters:
            if not waiter.done():
                # An error, not a cancellation: whoever waits goes on (reconnects, asks again).
                waiter.set_exception(BrokerError(reason))
        self._answers.clear()
        self._in_flight.waiting.clear()


def error_text(error: BaseException) -> str:
    """An error, or each error of a group, in the words of a log line."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(error_text(inner) for inner in error.exceptions)
    return f"{type(error).__name__}: {error}"
