# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""How the table's MQTT link sends: the drainer's wake-up, the publishes, the status.

Adapter (asyncio): :class:`Wakeup` collects the :class:`Work` that anything posts for the
drainer of :class:`~table_controller.mqtt.client.link.MqttLink`; a :class:`Sender` keeps
one connection's window of QoS 1 publishes full, in ``seq`` order; :func:`status_message` is
the payload of the link's status.

Status messages (``<root>/status``: birth, will, refreshed online status, clean shutdown)
are connection-level: they are not outbox rows and carry no ``seq`` (a backend that
deduplicates by ``seq`` never mistakes one for a message of the stream). Their ``last_seq``
is the highest ``seq`` the table had given a message (in the outbox file or handed to the
link in memory) when the status was written: for the birth, a refreshed status and the
clean shutdown's, just before it is published; for the will, when it was registered on
connecting, so a will that the broker delivers later says nothing of the messages of its
own connection. Every message up to ``last_seq`` is in the durable outbox and reaches the
broker, before the status or after it (the rows left unacknowledged on connecting follow
the birth): a consumer that has received less has messages in flight or lost. The
``session`` counter tells a stale will from a current one
(:mod:`table_controller.mqtt.consumer`).
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import json
from collections.abc import Callable, Mapping

import aiomqtt

from table_controller import __version__
from table_controller.contract import (
    ABSENT,
    JsonValue,
    OutgoingMessage,
    ReaderState,
    Seal,
    Status,
    envelope,
    sealed,
)
from table_controller.mqtt.outbox import OutboxRow


class Work(enum.Flag):
    """What the drainer is asked to look at."""

    NOTHING = 0
    #: Rows were offered or acknowledged: top the window of publishes up.
    ROWS = enum.auto()
    #: The outbox file may hold rows the memory does not (a notify, or the idle poll).
    FILE = enum.auto()
    #: Acknowledged rows may be marked in the file (a PUBACK, or the file holds more rows).
    ACKS = enum.auto()
    #: The fields of the online status changed: publish it again.
    STATUS = enum.auto()
    #: Drain for the grace period, publish the offline status and return.
    STOP = enum.auto()


class Wakeup:
    """Work posted for the drainer, taken all at once. On the event loop only."""

    def __init__(self) -> None:
        self._pending = Work.NOTHING
        self._posted = asyncio.Event()

    def post(self, work: Work) -> None:
        self._pending |= work
        self._posted.set()

    async def take(self, timeout_s: float) -> Work:
        """Wait up to ``timeout_s`` for work; returns what is pending (``NOTHING``: idle)."""
        if not self._pending:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(timeout_s):
                    await self._posted.wait()
        self._posted.clear()
        work, self._pending = self._pending, Work.NOTHING
        return work


class Sender:
    """One connection's publishes in flight: issued in ``seq`` order, at most ``max_inflight``.

    Args:
        client: the connection.
        group: the connection's task group (a publish ends with it).
        next_row: the next row to send, if any; marks it handed out.
        sent: told the ``seq`` of each row the broker acknowledged.
        max_inflight: publishes awaiting their PUBACK at once.
        timeout_s: how long a publish may wait for its PUBACK.
    """

    def __init__(  # noqa: PLR0913 - keyword-only parts of one connection
        self,
        client: aiomqtt.Client,
        group: asyncio.TaskGroup,
        *,
        next_row: Callable[[], OutboxRow | None],
        sent: Callable[[int], None],
        max_inflight: int,
        timeout_s: float,
    ) -> None:
        self._client = client
        self._group = group
        self._next_row = next_row
        self._sent = sent
        self._max_inflight = max_inflight
        self._timeout_s = timeout_s
        self.in_flight: set[asyncio.Task[None]] = set()
        #: Publishes of messages no outbox row holds (:meth:`publish_aside`).
        self._aside: set[asyncio.Task[None]] = set()

    def top_up(self) -> None:
        """Start publishes until the window is full or nothing is left to send.

        Tasks start in the order they are created, so paho writes the PUBLISH packets in
        ``seq`` order however the PUBACKs come back.
        """
        while len(self.in_flight) < self._max_inflight:
            row = self._next_row()
            if row is None:
                return
            send = self._send(row)
            try:
                task = self._group.create_task(send, name=f"mqtt-publish-{row.seq}")
            except RuntimeError:  # the connection is ending: the next one sends it again
                send.close()
                return
            self.in_flight.add(task)
            task.add_done_callback(self.in_flight.discard)

    async def _send(self, row: OutboxRow) -> None:
        await self._client.publish(
            row.topic, row.payload, qos=row.qos, retain=row.retain, timeout=self._timeout_s
        )
        self._sent(row.seq)
        self.top_up()

    def publish_aside(self, topic: str, payload: str) -> bool:
        """Publish a message outside the rows' order (QoS 1, not retained); False: too late."""
        send = self._client.publish(topic, payload, qos=1, retain=False, timeout=self._timeout_s)
        try:
            task = self._group.create_task(send, name="mqtt-publish-unrecorded")
        except RuntimeError:  # the connection is ending
            send.close()
            return False
        self._aside.add(task)
        task.add_done_callback(self._aside.discard)
        return True

    def cancel(self) -> None:
        for task in (*self.in_flight, *self._aside):
            task.cancel()


def status_message(  # noqa: PLR0913 - keyword-only fields of one payload
    *,
    table_id: str,
    online: bool,
    session: int,
    last_seq: int,
    ts: str,
    reader: ReaderState | None,
    extra: Mapping[str, JsonValue] | None = None,
    seal: Seal | None = None,
) -> str:
    """The payload of ``<root>/status``: birth, will, refresh or clean shutdown.

    It carries no ``seq`` of its own but ``last_seq`` (see the module's docstring). ``extra``
    are the fields only the edge knows (``software``, ``public_key``), after the payload's;
    ``seal`` signs the whole (the device key).
    """
    payload = Status(
        reader=ABSENT if reader is None else reader,
        online=online,
        session=session,
        last_seq=last_seq,
        version=__version__,
    )
    message = envelope(payload.TYPE, payload, table_id=table_id, seq=None, ts=ts)
    if extra:
        message.update(extra)
    return json.dumps(
        sealed(message, seal), separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def unrecorded_message(message: OutgoingMessage, *, table_id: str, seal: Seal | None) -> str:
    """The payload of a message no outbox row holds: a reply the journal could not record.

    It carries no ``seq``: a number given now and never recorded could be given to another
    message after a restart, and a backend would drop that one as a duplicate.
    """
    body = envelope(message.event_type, message.payload, table_id=table_id, seq=None, ts=message.ts)
    return json.dumps(
        sealed(body, seal), separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )
