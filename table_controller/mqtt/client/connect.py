# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""One MQTT client as the table and its consumers use it, and the helpers around aiomqtt.

Adapter: the table's link (:mod:`~table_controller.mqtt.client.link`) and the consumer
tools (:mod:`~table_controller.mqtt.client.subscriber`) build their clients here, so both
connect the same way (persistent sessions, TLS, no Nagle delay).
"""

from __future__ import annotations

import asyncio
import socket
from typing import Final

import aiomqtt
import paho.mqtt.client as paho
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from table_controller.mqtt.settings import DEFAULT_SESSION_EXPIRY_S, BrokerEndpoint

#: paho leaves Nagle's algorithm on: a small publish written while the broker has not yet
#: acknowledged the previous segment would wait for that acknowledgement (a card's prompt
#: follows its card's event by a fraction of a millisecond).
NO_DELAY: Final = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)


def new_client(  # noqa: PLR0913 - keyword-only connection options
    endpoint: BrokerEndpoint,
    *,
    identifier: str,
    persistent: bool,
    will: aiomqtt.Will | None = None,
    session_expiry_s: int = DEFAULT_SESSION_EXPIRY_S,
    timeout_s: float = 10.0,
) -> aiomqtt.Client:
    """An unconnected client; ``persistent`` keeps the broker-side session across connects."""
    clean_session: bool | None = None
    clean_start: paho.CleanStartOption = paho.MQTT_CLEAN_START_FIRST_ONLY
    properties: Properties | None = None
    if endpoint.protocol == "5":
        protocol = aiomqtt.ProtocolVersion.V5
        # paho raises ValueError for clean_session with MQTT 5: clean start and a
        # session expiry instead.
        clean_start = not persistent
        properties = Properties(PacketTypes.CONNECT)  # type: ignore[no-untyped-call]
        properties.SessionExpiryInterval = session_expiry_s if persistent else 0
    else:
        protocol = aiomqtt.ProtocolVersion.V311
        clean_session = not persistent
    return aiomqtt.Client(
        endpoint.host,
        endpoint.port,
        username=endpoint.username,
        password=endpoint.password,
        identifier=identifier,
        protocol=protocol,
        will=will,
        clean_session=clean_session,
        clean_start=clean_start,
        properties=properties,
        keepalive=endpoint.keepalive_s,
        tls_context=endpoint.tls_context(),
        timeout=timeout_s,
        socket_options=NO_DELAY,
    )


def payload_bytes(payload: object) -> bytes:
    """A received message's payload as bytes, whatever type paho handed over."""
    if isinstance(payload, bytes | bytearray):
        return bytes(payload)
    if isinstance(payload, str):
        return payload.encode()
    if payload is None:
        return b""
    return str(payload).encode()


def heed_cancel() -> None:
    """Raise ``CancelledError`` if this task was asked to stop while an aiomqtt call returned.

    On Python 3.11, ``asyncio.wait_for``, which aiomqtt 2 wraps every acknowledged call in,
    returns the call's result instead of raising when the cancel and the broker's answer come
    in the same turn, and the request is lost (bpo-42130; 3.12 fixed it). A loop that went on
    would never end: a stopping link then waited out the service's whole shutdown grace.
    """
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def error_text(error: BaseException) -> str:
    """An error, or each error of a group, in the words of a log line."""
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(error_text(inner) for inner in error.exceptions)
    return f"{type(error).__name__}: {error}"
