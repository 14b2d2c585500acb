# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table's MQTT link: the one connection that drains the durable outbox to the broker.

Adapter: asyncio and network I/O. It holds no rules and decides nothing about the game: what
to publish is in the outbox before this module sees it.

* :class:`MqttLink` keeps one connection to the broker with client id ``table-<table_id>`` and
  a persistent session, sets a retained last will ``{"online": false, "session": n,
  "last_seq": s}`` on ``<root>/status``, subscribes to ``<root>/commands``, publishes the
  retained birth ``{"online": true, "session": n, "last_seq": s}`` with the same counter,
  publishes again the latest retained row of each retained topic (``state``, ``roads``, ...:
  a broker that lost its persistence has none), and then sends the outbox's unacknowledged
  rows oldest first, several QoS 1 publishes in flight (``max_inflight``; issued in ``seq``
  order, so the broker gets them in order). A row is acknowledged in the outbox only after
  ``publish()`` returned. Any :class:`aiomqtt.MqttError` (a timeout means "outcome unknown":
  paho may still deliver the message) closes the connection; after a capped, jittered
  exponential backoff it reconnects with a new session counter and sends every unacknowledged
  row again from the oldest, unchanged (same ``seq``).
* The dealing path never waits for this module. The table hands each input's rows over in
  memory as soon as they are planned (:meth:`MqttLink.offer`, on the event loop) and tells the
  link when the outbox file holds them (:meth:`MqttLink.stored`, any thread); the link keeps
  the unacknowledged tail in a :class:`~table_controller.mqtt.backlog.Backlog` and reads
  the file only for what the memory does not hold (rows an earlier run left, or a backlog too
  long for memory). A writer in another process may call :meth:`MqttLink.notify` instead, or
  rely on the idle poll. The link's SQLite calls run in a worker thread.
* Everything that asks the drainer to act (rows offered or stored, a PUBACK, a notify, a
  status change, a stop) posts :class:`Work` to one :class:`Wakeup`; the drainer takes all
  that is pending at once and does it in one place.
* Status messages (``<root>/status``: birth, will, refreshed online status, clean shutdown)
  carry no ``seq`` but ``last_seq`` (see
  :func:`~table_controller.mqtt.client.sending.status_message`).
* A reply the journal could not record (it refuses writes) is no outbox row: it is published
  once, without a ``seq``, while connected (:meth:`MqttLink.publish_unrecorded`), and lost
  otherwise; its command may be sent again.
* A clean stop (:meth:`MqttLink.request_stop`, or cancelling :meth:`MqttLink.run`) publishes
  the offline status itself, because a clean disconnect sends no will.

Known limit (docs/operations.md, section 6): a publish the broker's ACL denies is acknowledged as a
success (3.1.1) or with a reason code aiomqtt 2.5 ignores (5); ACLs are tested end to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Final, TypeAlias, TypeVar

import aiomqtt
import structlog

from drivers.backoff import JitterSource
from table_controller.contract import JsonValue, OutgoingMessage, ReaderState, Seal, utc_text
from table_controller.mqtt.backlog import Backlog
from table_controller.mqtt.client.connect import (
    error_text,
    heed_cancel,
    new_client,
    payload_bytes,
)
from table_controller.mqtt.client.republisher import Republisher
from table_controller.mqtt.client.sending import (
    Sender,
    Wakeup,
    Work,
    status_message,
    unrecorded_message,
)
from table_controller.mqtt.outbox import Outbox, OutboxError, OutboxRow
from table_controller.mqtt.settings import MqttSettings

#: Rows read from the outbox file at a time.
LOAD_PAGE_ROWS: Final = 500
#: Event-loop turns from offering a row to its packet on the socket (:meth:`MqttLink.let_out`).
TURNS_TO_THE_SOCKET: Final = 4

CommandCallback: TypeAlias = Callable[[bytes], None]
#: The reader's state as of now, for the status (``None``: the table has no reader).
ReaderOfNow: TypeAlias = Callable[[], ReaderState | None]

_LOG = structlog.get_logger("table_controller.mqtt")


def _no_reader() -> ReaderState | None:
    return None


_T = TypeVar("_T")


@dataclass(slots=True)
class LinkCounters:
    """What the link did so far (for health checks, metrics and tests)."""

    connects: int = 0
    published: int = 0
    #: Latest retained rows published again on connecting (duplicates by ``seq``).
    republished: int = 0
    commands_received: int = 0
    errors: int = 0
    last_error: str | None = None


class MqttLink:
    """The table's one connection: birth and will, outbox drainer, command subscription.

    Run :meth:`run` as a task; it returns after :meth:`request_stop`, or when cancelled, and
    publishes the offline status first when it can.

    Args:
        settings: broker, table and timing.
        outbox: an outbox instance for this link alone (its SQLite calls run in a thread);
            its clock dates the status messages and the pruning.
        rng: the jitter source for the backoff (seeded in tests).
        status_fields: added to every status (``software``, ``public_key``).
        seal: signs every status (the device key); the outbox's rows are signed already.
    """

    def __init__(
        self,
        settings: MqttSettings,
        outbox: Outbox,
        *,
        rng: JitterSource | None = None,
        status_fields: Mapping[str, JsonValue] | None = None,
        seal: Seal | None = None,
    ) -> None:
        self.settings = settings
        self._status_fields = status_fields
        self._seal = seal
        self._outbox = outbox
        self._rng = rng or random.Random()  # noqa: S311  (jitter, not security)
        self._on_command: CommandCallback | None = None
        self._reader: ReaderOfNow = _no_reader
        self._loop: asyncio.AbstractEventLoop | None = None
        self._wakeup = Wakeup()
        self._stop_requested = False
        #: Set while a connection is up and drained; what :meth:`wait_connected` awaits.
        self._connected = asyncio.Event()
        self._session = 0
        self._backlog = Backlog(memory_rows=settings.memory_rows)
        #: The connection being drained, while there is one: where :meth:`offer` sends at once.
        self._sender: Sender | None = None
        #: The outbox connection is used by one thread at a time: this one.
        self._file_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mqtt-outbox")
        #: The highest ``seq`` the outbox file is known to hold.
        self._stored_upto = 0
        self.counters = LinkCounters()
        #: ``resend``: stored rows published again, paced, behind the live ones.
        self.republisher = Republisher(
            read=self._read_range,
            per_second=settings.resend_per_second,
            timeout_s=settings.publish_timeout_s,
        )

    @property
    def connected(self) -> bool:
        return self._connected.is_set()

    @property
    def session(self) -> int:
        """The session counter of the current (or last) connection."""
        return self._session

    @property
    def depth(self) -> int:
        """Messages waiting for the broker (known to this link; read on the event loop)."""
        return self._backlog.depth

    def offer(self, rows: Sequence[OutboxRow]) -> None:
        """Rows just planned, in ``seq`` order, to publish at once. On the event loop only."""
        self._backlog.offer(rows)
        if self._sender is not None:
            self._sender.top_up()
        self._wakeup.post(Work.ROWS)

    async def let_out(self) -> None:
        """Return once the rows just offered are written to the broker's socket.

        aiomqtt 2 writes a publish four event-loop turns after the turn that offered it: the
        publish task starts and paho queues the packet; aiomqtt asks for the socket to be
        watched for writing (through ``call_soon_threadsafe``); the watch is set; the socket
        is written. The table awaits this after handing out an input's first message, so that
        the rest of its work (the shoe's acknowledgement, the outbox's copy, the next round's
        odds) does not stand between a card and its event. Only latency depends on the count:
        ``test_let_out_leaves_nothing_to_write`` checks it against the aiomqtt installed.
        """
        sender = self._sender
        if sender is None or not sender.in_flight:
            return  # not connected, or nothing was offered: nothing to wait for
        for _ in range(TURNS_TO_THE_SOCKET):
            await asyncio.sleep(0)

    def publish_unrecorded(self, message: OutgoingMessage) -> None:
        """Publish a message no outbox row holds, once and without a ``seq``. On the event loop.

        For a reply the journal could not record. It goes out at once while connected; without
        a connection it is dropped (and logged), since nothing would send it again.
        """
        topic = f"{self.settings.root}/{message.topic}"
        payload = unrecorded_message(message, table_id=self.settings.table_id, seal=self._seal)
        sender = self._sender
        if sender is None or not sender.publish_aside(topic, payload):
            _LOG.warning("mqtt_unrecorded_not_sent", topic=topic, reason="not connected")

    def stored(self, seq: int) -> None:
        """The outbox file now holds every row up to ``seq``. Safe from any thread."""
        if self._loop is None:
            self._stored_upto = max(self._stored_upto, seq)
            return
        self._post_threadsafe(partial(self._note_stored, seq))

    def notify(self) -> None:
        """Wake the drainer: rows were added to the file. Safe from any thread, never blocks."""
        self._post_threadsafe(partial(self._wakeup.post, Work.FILE))

    def refresh_status(self) -> None:
        """Publish the retained online status again (its fields changed). Any thread."""
        self._post_threadsafe(partial(self._wakeup.post, Work.STATUS))

    def request_stop(self) -> None:
        """Ask :meth:`run` to drain for a moment, publish offline, disconnect and return."""
        self._post_threadsafe(self._set_stop)

    async def wait_connected(self) -> None:
        """Return once the birth is out, commands subscribed and the backlog read from the file."""
        await self._connected.wait()

    def _post_threadsafe(self, call: Callable[[], None]) -> None:
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):  # the loop is closed: nothing to wake
                loop.call_soon_threadsafe(call)

    def _note_stored(self, seq: int) -> None:
        self._stored_upto = max(self._stored_upto, seq)
        # Acks wait for it; and the file may now hold rows the memory had no room for.
        self._wakeup.post(Work.ACKS | Work.ROWS)

    def _set_stop(self) -> None:
        self._stop_requested = True
        self._wakeup.post(Work.STOP)

    async def _in_file(self, call: Callable[[], _T]) -> _T:
        """Run an outbox call on the link's own thread (never two at once on its connection)."""
        return await asyncio.get_running_loop().run_in_executor(self._file_thread, call)

    async def run(
        self,
        *,
        on_command: CommandCallback | None = None,
        reader: ReaderOfNow | None = None,
    ) -> None:
        """Connect, drain and reconnect until stopped; never raises ``MqttError``.

        Args:
            on_command: receives the raw payload of every message on ``<root>/commands``; it
                must not block (put the bytes on the runtime's input queue). Replies go
                through the outbox like every other message.
            reader: the reader's state for the birth and will, read at every connect and
                :meth:`refresh_status`.
        """
        self._on_command = on_command
        self._reader = reader or _no_reader
        self._loop = asyncio.get_running_loop()
        self._file_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mqtt-outbox")
        pruner = asyncio.create_task(self._prune_periodically(), name="mqtt-prune")
        try:
            await self._reconnecting()
        finally:
            pruner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pruner
            # Waits for the one call that may be running: the outbox is the caller's again.
            self._file_thread.shutdown(wait=True)

    async def _reconnecting(self) -> None:
        attempt = 0
        backoff = self.settings.backoff
        while not self._stop_requested:
            connects = self.counters.connects
            try:
                await self._connection()
            except* aiomqtt.MqttError as group:
                if self.counters.connects > connects:
                    attempt = 0  # it was up: the broker is back soon, not a long outage
                self._connected.clear()
                self.counters.errors += 1
                text = error_text(group)
                if self.counters.last_error is None or attempt == 0:
                    _LOG.warning("mqtt_link_down", error=text, broker=self.settings.broker.host)
                self.counters.last_error = text
            else:
                return
            await self._pause(backoff.delay(attempt, self._rng))
            attempt += 1

    async def _pause(self, delay_s: float) -> None:
        """Wait before reconnecting, unless a stop comes first (other work waits for the link)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + delay_s
        while not self._stop_requested and (left := deadline - loop.time()) > 0:
            await self._wakeup.take(left)

    async def _connection(self) -> None:
        """One connection's life; returns after a clean stop, raises ``MqttError`` otherwise."""
        settings = self.settings
        outbox = self._outbox
        session = await self._in_file(outbox.next_session)
        self._session = session
        will = aiomqtt.Will(
            topic=settings.status_topic,
            payload=await self._status_payload(online=False),
            qos=1,
            retain=True,
        )
        client = new_client(
            settings.broker,
            identifier=settings.identifier,
            persistent=True,
            will=will,
            session_expiry_s=settings.session_expiry_s,
            timeout_s=settings.publish_timeout_s,
        )
        # aiomqtt warns above 10 pending publishes; up to max_inflight (and the status) is normal.
        client.pending_calls_threshold = settings.max_inflight + 4
        async with client:
            # Subscribed before the birth: a backend that sees the table online can command it.
            await client.subscribe(settings.commands_topic, qos=1)
            await self._publish_status(client)
            self.counters.connects += 1
            if self.counters.last_error is not None:
                depth = await self._in_file(outbox.depth)
                _LOG.info("mqtt_link_up", session=session, depth=depth)
            self.counters.last_error = None
            try:
                async with asyncio.TaskGroup() as group:
                    receiver = group.create_task(self._receive(client), name="mqtt-commands")
                    await self._drain(client, group)
                    receiver.cancel()
            except asyncio.CancelledError:
                await self._publish_offline(client)
                raise
            finally:
                # The file may hold rows whose "stored" word has not come yet: ask it.
                self._stored_upto = max(
                    self._stored_upto, await self._in_file(self._outbox.last_seq)
                )
                await self._flush_acks()
            await self._publish_offline(client)

    async def _status_payload(self, *, online: bool) -> str:
        """The status as of now: ``last_seq`` is the newest row the file or the memory holds."""
        last_seq = max(await self._in_file(self._outbox.last_seq), self._backlog.newest)
        return status_message(
            table_id=self.settings.table_id,
            online=online,
            session=self._session,
            last_seq=last_seq,
            ts=utc_text(self._outbox.now()),
            reader=self._reader(),
            extra=self._status_fields,
            seal=self._seal,
        )

    async def _publish_status(self, client: aiomqtt.Client) -> None:
        """The retained online status (the birth, or a refresh)."""
        await client.publish(
            self.settings.status_topic,
            await self._status_payload(online=True),
            qos=1,
            retain=True,
        )
        heed_cancel()

    async def _publish_offline(self, client: aiomqtt.Client) -> None:
        """The clean shutdown's status (a clean disconnect sends no will); best effort."""
        self._connected.clear()
        payload = await self._status_payload(online=False)
        try:
            await asyncio.wait_for(
                client.publish(self.settings.status_topic, payload, qos=1, retain=True),
                timeout=self.settings.shutdown_grace_s,
            )
        except (aiomqtt.MqttError, TimeoutError) as error:
            _LOG.warning("mqtt_offline_status_not_sent", error=error_text(error))

    async def _receive(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            if not message.topic.matches(self.settings.commands_topic):
                continue
            self.counters.commands_received += 1
            if self._on_command is not None:
                self._on_command(payload_bytes(message.payload))

    async def _load(self) -> None:
        """Read into memory the unacknowledged rows that only the outbox file holds."""
        backlog = self._backlog
        asked = min(backlog.room, LOAD_PAGE_ROWS)
        if asked == 0:
            return
        rows, file_last_seq = await self._in_file(
            partial(self._outbox.unacked_after, backlog.loaded_upto, limit=asked)
        )
        backlog.loaded(rows, file_last_seq=file_last_seq, asked=asked)
        self._stored_upto = max(self._stored_upto, file_last_seq)

    async def _republish_retained(self, client: aiomqtt.Client) -> None:
        """The latest acknowledged row of each retained topic, again, before anything new.

        A broker restarted without its persistence has lost them; one that kept them gets a
        duplicate that its ``seq`` marks. Rows not yet acknowledged follow in the backlog.
        """
        retained = await self._in_file(self._outbox.retained_rows)
        oldest = self._backlog.oldest_unacked
        for seq, topic, payload in retained:
            if oldest is not None and seq >= oldest:
                continue
            await client.publish(
                topic, payload, qos=1, retain=True, timeout=self.settings.publish_timeout_s
            )
            heed_cancel()
            self.counters.republished += 1

    async def _drain(self, client: aiomqtt.Client, group: asyncio.TaskGroup) -> None:
        """Do the posted work until a stop (plus grace): the drainer's one loop.

        Rows offered while connected are sent by :meth:`offer` itself and each PUBACK tops the
        window up again, so this loop marks acks, reads the file, refreshes the status,
        watches for a stop and polls.
        """
        loop = asyncio.get_running_loop()
        settings = self.settings
        backlog = self._backlog
        backlog.reconnected()
        await self._load()
        await self._republish_retained(client)
        sender = Sender(
            client,
            group,
            next_row=backlog.next_to_send,
            sent=self._sent,
            max_inflight=settings.max_inflight,
            timeout_s=settings.publish_timeout_s,
        )
        self._sender = sender
        self.republisher.connected(
            client, live_idle=lambda: backlog.unsent == 0 and not sender.in_flight
        )
        self._connected.set()
        stop_deadline: float | None = None
        work = Work.ACKS  # acks that waited for the file while there was no connection
        try:
            while True:
                if self._stop_requested:
                    if stop_deadline is None:
                        stop_deadline = loop.time() + settings.shutdown_grace_s
                    if (backlog.depth == 0 and not sender.in_flight) or (
                        loop.time() >= stop_deadline
                    ):
                        return
                if work & Work.ACKS:
                    await self._flush_acks()
                if work & Work.STATUS:
                    await self._publish_status(client)
                if backlog.unsent < settings.max_inflight and (
                    work & Work.FILE
                    or (backlog.wants_load and self._stored_upto > backlog.loaded_upto)
                ):
                    await self._load()
                sender.top_up()
                wait_s = settings.poll_interval_s
                if stop_deadline is not None:
                    wait_s = min(wait_s, max(stop_deadline - loop.time(), 0.0))
                # Idle for a whole poll interval: another writer may have added rows.
                work = await self._wakeup.take(wait_s) or Work.FILE
        finally:
            self._sender = None
            self.republisher.disconnected()
            sender.cancel()

    async def _read_range(self, first: int, last: int, limit: int) -> tuple[list[OutboxRow], int]:
        return await self._in_file(partial(self._outbox.rows_between, first, last, limit=limit))

    def _sent(self, seq: int) -> None:
        """The broker acknowledged ``seq``."""
        self._backlog.acked(seq)
        self.counters.published += 1
        self._wakeup.post(Work.ACKS | Work.ROWS)

    async def _prune_periodically(self) -> None:
        """Delete acknowledged rows past the retention, now and then every interval."""
        retention = self.settings.retention
        if retention is None:
            return
        while True:
            try:
                pruned = await self._in_file(
                    partial(self._outbox.prune_acked, acked_before=self._outbox.now() - retention)
                )
            except OutboxError as error:  # not fatal: the rows wait for the next time
                _LOG.warning("mqtt_outbox_not_pruned", error=str(error))
            else:
                if pruned:
                    _LOG.info("mqtt_outbox_pruned", rows=pruned, retention_days=retention.days)
            await asyncio.sleep(self.settings.prune_interval_s)

    async def _flush_acks(self) -> None:
        """Mark acknowledged rows in the outbox file, in one batch, off the publishing path."""
        seqs = self._backlog.take_acks(stored_upto=self._stored_upto)
        if not seqs:
            return
        try:
            # Shielded: the acks are taken, so the write must happen even if this task is
            # cancelled meanwhile (a stop); a cancelled executor call would never run.
            await asyncio.shield(self._in_file(partial(self._outbox.mark_acked_many, seqs)))
        except OutboxError as error:
            # Not fatal: the rows are only sent again after a restart (same seq).
            self._backlog.put_back_acks(seqs)
            _LOG.warning("mqtt_acks_not_recorded", error=str(error), count=len(seqs))
