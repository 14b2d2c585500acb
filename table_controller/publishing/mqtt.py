# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""MQTT transport: the only module that imports aiomqtt (and paho); it drains the durable outbox.

Adapter: asyncio and network I/O. It holds no rules and decides nothing about the game: what
to publish is in the outbox before this module sees it (STACK.md section 4).

* :class:`MqttLink` keeps one connection to the broker with client id ``table-<table_id>`` and
  a persistent session, sets a retained last will ``{"online": false, "session": n,
  "last_seq": s}`` on ``<root>/status``, subscribes to ``<root>/commands``, publishes the
  retained birth ``{"online": true, "session": n, "last_seq": s}`` with the same counter,
  publishes again the latest
  retained row of each retained topic (``state``, ``roads``, ...: a broker that lost its
  persistence has none), and then sends the outbox's unacknowledged rows oldest first, several
  QoS 1 publishes in flight (``max_inflight``; issued in ``seq`` order, so the broker gets them
  in order). A row is acknowledged in the outbox only after ``publish()`` returned. Any
  :class:`aiomqtt.MqttError` (a timeout means "outcome unknown", STACK.md pitfall 1) closes the
  connection; after a capped, jittered exponential backoff it reconnects with a new session
  counter and sends every unacknowledged row again from the oldest, unchanged (same ``seq``).
* The dealing path never waits for this module. The table hands each input's rows over in
  memory as soon as they are planned (:meth:`MqttLink.offer`, on the event loop) and tells the
  link when the outbox file holds them (:meth:`MqttLink.stored`, any thread); the link keeps
  the unacknowledged tail in a :class:`~table_controller.publishing.backlog.Backlog` and reads
  the file only for what the memory does not hold (rows an earlier run left, or a backlog too
  long for memory). A writer in another process may call :meth:`MqttLink.notify` instead, or
  rely on the idle poll. The link's SQLite calls run in a worker thread.
* Status messages (``<root>/status``: birth, will, refreshed online status, clean shutdown)
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
  (:mod:`table_controller.publishing.consumer`).
* A clean stop (:meth:`MqttLink.request_stop`, or cancelling :meth:`MqttLink.run`) publishes
  the offline status itself, because a clean disconnect sends no will (STACK.md pitfall 3).
* :class:`Subscription` and :func:`publish_once` are the consumer side (``watch``, tests).

Known limit (STACK.md pitfall 2): a publish the broker's ACL denies is acknowledged as a
success (3.1.1) or with a reason code aiomqtt 2.5 ignores (5); ACLs are tested end to end.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import socket
import ssl
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from datetime import timedelta
from functools import partial
from pathlib import Path
from typing import Final, Literal, Self, TypeAlias, TypeVar
from urllib.parse import unquote, urlsplit

import aiomqtt
import paho.mqtt.client as paho
import structlog
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties

from table_controller import __version__
from table_controller.publishing.backlog import Backlog
from table_controller.publishing.messages import JsonValue, dumps, envelope
from table_controller.publishing.outbox import Outbox, OutboxError, OutboxRow, utc_now, utc_text

DEFAULT_TOPIC_PREFIX: Final = "baccarat/tables"
MQTT_PORT: Final = 1883
MQTTS_PORT: Final = 8883
#: A will arrives 1.5 x keepalive after a silent partition (STACK.md pitfall 5): 10-15 s.
DEFAULT_KEEPALIVE_S: Final = 12
#: How long the broker keeps an MQTT 5 session of a table that is away (a week).
DEFAULT_SESSION_EXPIRY_S: Final = 7 * 24 * 3600
#: Rows read from the outbox file at a time.
LOAD_PAGE_ROWS: Final = 500
#: Event-loop turns from offering a row to its packet on the socket (:meth:`MqttLink.let_out`).
TURNS_TO_THE_SOCKET: Final = 4

ProtocolName: TypeAlias = Literal["3.1.1", "5"]
CommandCallback: TypeAlias = Callable[[bytes], None]
StatusFields: TypeAlias = Callable[[], Mapping[str, JsonValue]]

_LOG = structlog.get_logger("table_controller.mqtt")
_T = TypeVar("_T")


# --- settings -----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class BrokerEndpoint:
    """Where the broker is and how to log in: parsed from ``mqtt://`` or ``mqtts://`` URLs."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_file: Path | None = None
    cert_file: Path | None = None
    key_file: Path | None = None
    protocol: ProtocolName = "3.1.1"
    keepalive_s: int = DEFAULT_KEEPALIVE_S

    @classmethod
    def from_url(  # noqa: PLR0913 - keyword-only settings, each optional
        cls,
        url: str,
        *,
        ca_file: Path | None = None,
        cert_file: Path | None = None,
        key_file: Path | None = None,
        protocol: ProtocolName = "3.1.1",
        keepalive_s: int = DEFAULT_KEEPALIVE_S,
    ) -> Self:
        """Parse ``mqtt://[user:pass@]host[:port]`` or ``mqtts://…`` (credentials URL-quoted).

        Raises:
            ValueError: the URL or a setting is not usable; the message names it.
        """
        parts = urlsplit(url)
        if parts.scheme not in {"mqtt", "mqtts"}:
            raise ValueError(f"broker URL {url!r}: the scheme must be mqtt:// or mqtts://")
        if not parts.hostname:
            raise ValueError(f"broker URL {url!r}: no host")
        if parts.path not in {"", "/"} or parts.query or parts.fragment:
            raise ValueError(f"broker URL {url!r}: only mqtt[s]://[user:pass@]host[:port]")
        try:
            port = parts.port
        except ValueError:
            raise ValueError(f"broker URL {url!r}: the port is not a number 1-65535") from None
        tls = parts.scheme == "mqtts"
        if not tls and (ca_file or cert_file or key_file):
            raise ValueError("a CA or client certificate needs an mqtts:// broker URL")
        if (cert_file is None) != (key_file is None):
            raise ValueError("a client certificate needs its key, and a key its certificate")
        if protocol not in {"3.1.1", "5"}:
            raise ValueError(f"MQTT protocol {protocol!r}: use 3.1.1 or 5")
        if not 5 <= keepalive_s <= 600:
            raise ValueError(f"keepalive {keepalive_s} s: use 5-600 s (10-15 s recommended)")
        return cls(
            host=parts.hostname,
            port=port if port is not None else (MQTTS_PORT if tls else MQTT_PORT),
            tls=tls,
            username=None if parts.username is None else unquote(parts.username),
            password=None if parts.password is None else unquote(parts.password),
            ca_file=ca_file,
            cert_file=cert_file,
            key_file=key_file,
            protocol=protocol,
            keepalive_s=keepalive_s,
        )

    def tls_context(self) -> ssl.SSLContext | None:
        """The client's TLS context (server certificate and host name checked), if TLS."""
        if not self.tls:
            return None
        context = ssl.create_default_context(
            cafile=None if self.ca_file is None else str(self.ca_file)
        )
        if self.cert_file is not None and self.key_file is not None:
            context.load_cert_chain(str(self.cert_file), str(self.key_file))
        return context


def topic_root(prefix: str, table_id: str) -> str:
    """``<prefix>/<table_id>``: the ``<root>`` of mqtt-api.md."""
    return f"{prefix.rstrip('/')}/{table_id}"


@dataclass(frozen=True, slots=True, kw_only=True)
class MqttSettings:
    """Everything :class:`MqttLink` needs; build it with :meth:`from_url`."""

    broker: BrokerEndpoint
    table_id: str
    topic_prefix: str = DEFAULT_TOPIC_PREFIX
    client_id: str | None = None
    session_expiry_s: int = DEFAULT_SESSION_EXPIRY_S
    publish_timeout_s: float = 10.0
    backoff_initial_s: float = 0.5
    backoff_max_s: float = 30.0
    #: How often the drainer looks at the outbox when nobody called ``notify()``.
    poll_interval_s: float = 0.5
    #: QoS 1 publishes awaiting their PUBACK at once (paho's own limit is 20).
    max_inflight: int = 16
    #: Unacknowledged rows held in memory; beyond it they are read back from the outbox file.
    memory_rows: int = 5_000
    #: How long a clean stop keeps draining before it publishes the offline status.
    shutdown_grace_s: float = 2.0
    #: Acknowledged rows older than this leave the outbox (when the link starts, then every
    #: ``prune_interval_s``, connected or not); None keeps them all. The journal keeps every
    #: input whatever this is.
    retention: timedelta | None = None
    #: Seconds between two prunings, connected or not.
    prune_interval_s: float = 3600.0

    @classmethod
    def from_url(  # noqa: PLR0913 - keyword-only settings, each optional
        cls,
        url: str,
        *,
        table_id: str,
        ca_file: Path | None = None,
        cert_file: Path | None = None,
        key_file: Path | None = None,
        protocol: ProtocolName = "3.1.1",
        keepalive_s: int = DEFAULT_KEEPALIVE_S,
        topic_prefix: str = DEFAULT_TOPIC_PREFIX,
        client_id: str | None = None,
    ) -> Self:
        """Settings from a broker URL and the table's id.

        Raises:
            ValueError: a value is not usable; the message names it.
        """
        if not table_id or any(char in table_id for char in "/+#\0"):
            raise ValueError(f"table id {table_id!r}: must be non-empty, without / + # or NUL")
        if any(char in topic_prefix for char in "+#\0") or not topic_prefix.strip("/"):
            raise ValueError(f"topic prefix {topic_prefix!r}: no wildcards, not empty")
        broker = BrokerEndpoint.from_url(
            url,
            ca_file=ca_file,
            cert_file=cert_file,
            key_file=key_file,
            protocol=protocol,
            keepalive_s=keepalive_s,
        )
        return cls(broker=broker, table_id=table_id, topic_prefix=topic_prefix, client_id=client_id)

    @property
    def identifier(self) -> str:
        return self.client_id or f"table-{self.table_id}"

    @property
    def root(self) -> str:
        return topic_root(self.topic_prefix, self.table_id)

    @property
    def status_topic(self) -> str:
        return f"{self.root}/status"

    @property
    def commands_topic(self) -> str:
        return f"{self.root}/commands"

    @property
    def replies_topic(self) -> str:
        return f"{self.root}/commands/replies"


def backoff_delay(attempt: int, *, initial_s: float, cap_s: float, jitter: float) -> float:
    """Seconds to wait before reconnect ``attempt`` (0-based): capped exponential, jittered.

    ``jitter`` in [0, 1) (from the caller's random source) spreads the delay over half to all
    of the exponential step, so tables that lost the same broker do not return in lockstep.
    """
    step = min(cap_s, initial_s * float(2 ** min(attempt, 32)))
    return step * (0.5 + jitter / 2)


def status_message(  # noqa: PLR0913 - keyword-only fields of one payload
    *,
    table_id: str,
    online: bool,
    session: int,
    last_seq: int,
    ts: str,
    fields: Mapping[str, JsonValue],
) -> str:
    """The payload of ``<root>/status``: birth, will, refresh or clean shutdown.

    It carries no ``seq`` of its own but ``last_seq`` (see the module's docstring).
    """
    payload: dict[str, JsonValue] = {
        **fields,
        "online": online,
        "session": session,
        "last_seq": last_seq,
    }
    payload.setdefault("version", __version__)
    return dumps(envelope("status", payload, table_id=table_id, seq=None, ts=ts))


#: paho leaves Nagle's algorithm on: a small publish written while the broker has not yet
#: acknowledged the previous segment would wait for that acknowledgement (a card's prompt
#: follows its card's event by a fraction of a millisecond).
NO_DELAY: Final = ((socket.IPPROTO_TCP, socket.TCP_NODELAY, 1),)


def _client(  # noqa: PLR0913 - keyword-only connection options
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
        # clean_session with MQTT 5 raises ValueError (STACK.md pitfall 5): clean start and a
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


def _as_bytes(payload: object) -> bytes:
    if isinstance(payload, bytes | bytearray):
        return bytes(payload)
    if isinstance(payload, str):
        return payload.encode()
    if payload is None:
        return b""
    return str(payload).encode()


def _heed_cancel() -> None:
    """Raise ``CancelledError`` if this task was asked to stop while an aiomqtt call returned.

    On Python 3.11, ``asyncio.wait_for``, which aiomqtt 2 wraps every acknowledged call in,
    returns the call's result instead of raising when the cancel and the broker's answer come
    in the same turn, and the request is lost (bpo-42130; 3.12 fixed it). A loop that went on
    would never end: a stopping link then waited out the service's whole shutdown grace.
    """
    task = asyncio.current_task()
    if task is not None and task.cancelling():
        raise asyncio.CancelledError


def _error_text(error: BaseException) -> str:
    if isinstance(error, BaseExceptionGroup):
        return "; ".join(_error_text(inner) for inner in error.exceptions)
    return f"{type(error).__name__}: {error}"


# --- the table's link ---------------------------------------------------------------------


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
        outbox: an outbox instance for this link alone (its SQLite calls run in a thread).
        on_command: receives the raw payload of every message on ``<root>/commands``; it
            must not block (put the bytes on the runtime's input queue). Replies go through
            the outbox like every other message.
        status_fields: extra fields of the birth and will (reader state, ...), read at
            every connect and :meth:`refresh_status`.
        rng: the jitter source for the backoff (seeded in tests).
    """

    def __init__(
        self,
        settings: MqttSettings,
        outbox: Outbox,
        *,
        on_command: CommandCallback | None = None,
        status_fields: StatusFields | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        self._outbox = outbox
        self._on_command = on_command
        self._status_fields = status_fields or dict
        self._rng = rng or random.Random()  # noqa: S311  (jitter, not security)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._stop = asyncio.Event()
        self._connected = asyncio.Event()
        self._status_dirty = asyncio.Event()
        self._session = 0
        self._backlog = Backlog(memory_rows=settings.memory_rows)
        #: Set whenever the drainer has something to look at (rows, a PUBACK, a notify, a stop).
        self._kick = asyncio.Event()
        #: Set by :meth:`notify`: another writer added rows to the file.
        self._file_hint = False
        self._acks_ready = asyncio.Event()
        #: The connection being drained, while there is one: where :meth:`offer` sends at once.
        self._sender: _Sender | None = None
        #: The outbox connection is used by one thread at a time: this one.
        self._file_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mqtt-outbox")
        #: The highest ``seq`` the outbox file is known to hold.
        self._stored_upto = 0
        self.counters = LinkCounters()

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
        self._kick.set()

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

    def stored(self, seq: int) -> None:
        """The outbox file now holds every row up to ``seq``. Safe from any thread."""
        loop = self._loop
        if loop is None:
            self._note_stored(seq)
            return
        with contextlib.suppress(RuntimeError):
            loop.call_soon_threadsafe(self._note_stored, seq)

    def _note_stored(self, seq: int) -> None:
        self._stored_upto = max(self._stored_upto, seq)
        self._acks_ready.set()
        self._kick.set()  # the file may now hold rows the memory had no room for

    async def wait_connected(self) -> None:
        """Return once the birth is out, commands subscribed and the backlog read from the file."""
        await self._connected.wait()

    def notify(self) -> None:
        """Wake the drainer: rows were added. Safe from any thread, never blocks."""
        loop = self._loop
        if loop is None:
            return
        with contextlib.suppress(RuntimeError):  # the loop is closed: nothing to wake
            loop.call_soon_threadsafe(self._hint_file)

    def refresh_status(self) -> None:
        """Publish the retained online status again (``status_fields`` changed). Any thread."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._status_dirty.set)

    def _hint_file(self) -> None:
        self._file_hint = True
        self._kick.set()

    def request_stop(self) -> None:
        """Ask :meth:`run` to drain for a moment, publish offline, disconnect and return."""
        loop = self._loop
        if loop is not None:
            with contextlib.suppress(RuntimeError):
                loop.call_soon_threadsafe(self._set_stop)

    async def _in_file(self, call: Callable[[], _T]) -> _T:
        """Run an outbox call on the link's own thread (never two at once on its connection)."""
        return await asyncio.get_running_loop().run_in_executor(self._file_thread, call)

    def _set_stop(self) -> None:
        self._stop.set()
        self._kick.set()

    async def run(self) -> None:
        """Connect, drain and reconnect until stopped; never raises ``MqttError``."""
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
        while not self._stop.is_set():
            connects = self.counters.connects
            try:
                await self._connection()
            except* aiomqtt.MqttError as group:
                if self.counters.connects > connects:
                    attempt = 0  # it was up: the broker is back soon, not a long outage
                self._connected.clear()
                self.counters.errors += 1
                text = _error_text(group)
                if self.counters.last_error is None or attempt == 0:
                    _LOG.warning("mqtt_link_down", error=text, broker=self.settings.broker.host)
                self.counters.last_error = text
            else:
                return
            delay = backoff_delay(
                attempt,
                initial_s=self.settings.backoff_initial_s,
                cap_s=self.settings.backoff_max_s,
                jitter=self._rng.random(),
            )
            attempt += 1
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(delay):
                    await self._stop.wait()

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
        client = _client(
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
            await client.publish(
                settings.status_topic,
                await self._status_payload(online=True),
                qos=1,
                retain=True,
            )
            _heed_cancel()
            self.counters.connects += 1
            if self.counters.last_error is not None:
                depth = await self._in_file(outbox.depth)
                _LOG.info("mqtt_link_up", session=session, depth=depth)
            self.counters.last_error = None
            try:
                async with asyncio.TaskGroup() as group:
                    receiver = group.create_task(self._receive(client), name="mqtt-commands")
                    refresher = group.create_task(self._refresh_status(client), name="mqtt-status")
                    recorder = group.create_task(self._record_acks(), name="mqtt-acks")
                    await self._drain(client, group)
                    receiver.cancel()
                    refresher.cancel()
                    recorder.cancel()
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
            ts=utc_text(utc_now()),
            fields=self._status_fields(),
        )

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
            _LOG.warning("mqtt_offline_status_not_sent", error=_error_text(error))

    async def _receive(self, client: aiomqtt.Client) -> None:
        async for message in client.messages:
            if not message.topic.matches(self.settings.commands_topic):
                continue
            self.counters.commands_received += 1
            if self._on_command is not None:
                self._on_command(_as_bytes(message.payload))

    async def _refresh_status(self, client: aiomqtt.Client) -> None:
        while True:
            await self._status_dirty.wait()
            self._status_dirty.clear()
            await client.publish(
                self.settings.status_topic,
                await self._status_payload(online=True),
                qos=1,
                retain=True,
            )
            _heed_cancel()

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
            _heed_cancel()
            self.counters.republished += 1

    async def _drain(self, client: aiomqtt.Client, group: asyncio.TaskGroup) -> None:
        """Send rows oldest first, ``max_inflight`` at once, until a stop (plus grace).

        Rows offered while connected are sent by :meth:`offer` itself and each PUBACK tops the
        window up again, so this loop only reads the file, watches for a stop and polls.
        """
        loop = asyncio.get_running_loop()
        backlog = self._backlog
        backlog.reconnected()
        await self._load()
        await self._republish_retained(client)
        sender = _Sender(self, client, group)
        self._sender = sender
        self._connected.set()
        stop_deadline: float | None = None
        try:
            while True:
                if self._stop.is_set():
                    if stop_deadline is None:
                        stop_deadline = loop.time() + self.settings.shutdown_grace_s
                    if (backlog.depth == 0 and not sender.in_flight) or (
                        loop.time() >= stop_deadline
                    ):
                        return
                look_in_file = self._file_hint
                self._file_hint = False
                if backlog.unsent < self.settings.max_inflight and (
                    look_in_file
                    or (backlog.wants_load and self._stored_upto > backlog.loaded_upto)
                ):
                    await self._load()
                sender.top_up()
                if await self._wait_for_work(stop_deadline):
                    self._file_hint = True
        finally:
            self._sender = None
            sender.cancel()

    async def _wait_for_work(self, stop_deadline: float | None) -> bool:
        """Wait for a kick or the poll interval; True when idle (look in the file)."""
        wait_s = self.settings.poll_interval_s
        if stop_deadline is not None:
            wait_s = min(wait_s, max(stop_deadline - asyncio.get_running_loop().time(), 0.0))
        try:
            async with asyncio.timeout(wait_s):
                await self._kick.wait()
        except TimeoutError:
            return True  # idle: another writer may have added rows without a notify
        finally:
            self._kick.clear()
        return False

    def _sent(self, seq: int) -> None:
        """The broker acknowledged ``seq``."""
        self._backlog.acked(seq)
        self.counters.published += 1
        self._acks_ready.set()
        self._kick.set()

    async def _prune_periodically(self) -> None:
        """Delete acknowledged rows past the retention, now and then every interval."""
        retention = self.settings.retention
        if retention is None:
            return
        while True:
            try:
                pruned = await self._in_file(
                    partial(self._outbox.prune_acked, acked_before=utc_now() - retention)
                )
            except OutboxError as error:  # not fatal: the rows wait for the next time
                _LOG.warning("mqtt_outbox_not_pruned", error=str(error))
            else:
                if pruned:
                    _LOG.info("mqtt_outbox_pruned", rows=pruned, retention_days=retention.days)
            await asyncio.sleep(self.settings.prune_interval_s)

    async def _record_acks(self) -> None:
        """Mark acknowledged rows in the outbox file, in batches, off the publishing path."""
        while True:
            await self._acks_ready.wait()
            self._acks_ready.clear()
            await self._flush_acks()

    async def _flush_acks(self) -> None:
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


class _Sender:
    """One connection's publishes in flight: issued in ``seq`` order, at most ``max_inflight``."""

    def __init__(self, link: MqttLink, client: aiomqtt.Client, group: asyncio.TaskGroup) -> None:
        self._link = link
        self._client = client
        self._group = group
        self.in_flight: set[asyncio.Task[None]] = set()

    def top_up(self) -> None:
        """Start publishes until the window is full or nothing is left to send.

        Tasks start in the order they are created, so paho writes the PUBLISH packets in
        ``seq`` order however the PUBACKs come back.
        """
        link = self._link
        while len(self.in_flight) < link.settings.max_inflight:
            row = link._backlog.next_to_send()  # noqa: SLF001 - the link's own helper
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
        link = self._link
        await self._client.publish(
            row.topic,
            row.payload,
            qos=row.qos,
            retain=row.retain,
            timeout=link.settings.publish_timeout_s,
        )
        link._sent(row.seq)  # noqa: SLF001 - the link's own helper
        self.top_up()

    def cancel(self) -> None:
        for task in self.in_flight:
            task.cancel()


# --- the consumer side --------------------------------------------------------------------


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
        self._backoff = (backoff_initial_s, backoff_max_s)
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
            client = _client(self.endpoint, identifier=self.client_id, persistent=self.persistent)
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
                                payload=_as_bytes(message.payload),
                                retain=bool(message.retain),
                                qos=message.qos,
                            )
                        )
            except aiomqtt.MqttError as error:
                self._subscribed.clear()
                self.last_error = _error_text(error)
            initial_s, cap_s = self._backoff
            await asyncio.sleep(
                backoff_delay(attempt, initial_s=initial_s, cap_s=cap_s, jitter=rng.random())
            )
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
        async with _client(endpoint, identifier=identifier, persistent=False) as client:
            await client.publish(topic, payload, qos=qos, retain=retain)
    except aiomqtt.MqttError as error:
        raise ConnectionError(_error_text(error)) from None


def with_credentials(endpoint: BrokerEndpoint, username: str, password: str) -> BrokerEndpoint:
    """The same broker with another login."""
    return replace(endpoint, username=username, password=password)
