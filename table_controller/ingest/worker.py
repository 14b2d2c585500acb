# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest worker: the tables' messages from the broker into the store, committed first.

Adapter (gmqtt through ``broker.py``, MQTT 5). What it subscribes to, all QoS 1:

* ``$share/<group>/<prefix>/+/events/#``, ``.../+/commands/replies`` and the retained topics
  that carry a ``seq`` (``state``, ``roads``, ``odds``, ``stats``, ``limits``): every message
  with a ``seq``, through a shared subscription, so the broker hands each to one worker of the
  group;
* ``<prefix>/+/status`` normally: every worker keeps each table's status (its public key,
  ``last_seq``);
* the retained topics normally too, because a broker sends retained messages to no shared
  subscription: of that subscription (its subscription identifier) only the retained copies
  are stored; the live copies are left to the shared one, and the subscription is dropped
  after :data:`RETAINED_WINDOW_S`, once the broker has sent the retained copies.

**Batches.** A consumer takes what the queue holds, up to :data:`MAX_BATCH` messages, with
what arrives within :data:`BATCH_WINDOW_S` of the first when that is less, and stores them in
one transaction (``IngestStore.store_batch``); one consumer fills its batch at a time, the
others store theirs meanwhile. A batch's cost is mostly per transaction, not per message, so a
busy worker commits many messages at once instead of a few each. Each payload is parsed once,
here, and handed to the store with its verdict.

**At least once, stored exactly once.** The worker acknowledges a message (PUBACK) by hand,
after the store committed it (``BrokerConnection.ack``), and in the order the messages came
(:class:`AckQueue`), as MQTT asks. A worker killed before a commit has not acknowledged the
message: the broker delivers it again when the worker's persistent
session comes back (same client id), and a copy stored twice is a duplicate the store drops.

**Trust.** Each message is judged against its table's key (``table_keys.py``): the keys of a
keys file, or else each table's key pinned from its first status signed by the key it names
(trust on first use), kept in ``table_keys`` so that a restart keeps it, and held in memory:
the database is read for keys once at the start, and again only for a table without a key
(its pin, made by another worker of the group). A message that fails is quarantined by the
store: never a row of ``messages``, a projection, the status, a key or a gap.
"""

from __future__ import annotations

import asyncio
import random
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, TypeAlias, TypeVar

import structlog
from sqlalchemy import select

from drivers.backoff import Backoff
from table_controller.contract import DEFAULT_TOPIC_PREFIX
from table_controller.ingest import projections as p
from table_controller.ingest.broker import BrokerConnection, BrokerError, Delivery, error_text
from table_controller.ingest.checked_messages import Received, check
from table_controller.ingest.database import dialect_insert
from table_controller.ingest.gap_repair import GapRepair, RepairSettings
from table_controller.ingest.schema import table_keys
from table_controller.ingest.store import IngestStore, StoreOutcome
from table_controller.ingest.table_keys import NOT_JUDGED, TableKeys
from table_controller.integrity import key_id, public_key_from_text
from table_controller.mqtt import BrokerEndpoint

log = structlog.get_logger("table_controller.ingest.worker")

#: The retained topics whose messages carry a ``seq`` (mqtt-api.md, "Topics").
RETAINED_SEQ_TOPICS: Final = ("state", "roads", "odds", "stats", "limits")
#: The subscription identifier of the normal subscription to the retained topics.
RETAINED_SUBSCRIPTION: Final = 2
#: How long the broker keeps a worker's session (and its unacknowledged messages) while the
#: worker is away.
DEFAULT_SESSION_EXPIRY_S: Final = 3600
#: How long the consumers may take to finish what they hold when the connection is lost.
DRAIN_S: Final = 5.0
_T = TypeVar("_T")
#: A message received and its place in the acknowledgement queue.
_Work: TypeAlias = tuple[Delivery, list[int | bool]]
#: The most messages a consumer stores in one transaction: what the queue holds, up to this.
MAX_BATCH: Final = 200
#: How long a batch waits for more messages after its first, when the queue holds less than a
#: full batch: a quiet worker still stores a message within this, and a busy one commits
#: many messages per transaction instead of one each.
BATCH_WINDOW_S: Final = 0.05
#: How many messages the broker may send the worker before it acknowledges them (MQTT 5
#: Receive Maximum): the most a worker holds unstored, and what lets batches fill.
RECEIVE_MAXIMUM: Final = 1000
#: How long the worker waits for the broker's answer (connect, subscribe, a command's
#: acknowledgement): a broker sending a backlog of a thousand messages answers late.
BROKER_TIMEOUT_S: Final = 60.0
#: How long the normal subscription to the retained topics stays: the broker sends the
#: retained copies at once; after this it is dropped, so the live copies (which the shared
#: subscription delivers) no longer reach every worker.
RETAINED_WINDOW_S: Final = 10.0
#: Seconds between two log lines of the counters.
COUNTS_EVERY_S: Final = 60.0


class AckQueue:
    """Acknowledges messages in the order they arrived, each once its store is done.

    Pure. ``received`` registers a message (its packet id and QoS), ``done`` marks it stored
    and returns the ones now acknowledgeable, oldest first: those done with nothing older still
    pending. A new connection starts a new queue (packet ids belong to one connection).
    """

    def __init__(self) -> None:
        self._pending: deque[list[int | bool]] = deque()

    def received(self, mid: int, qos: int) -> list[int | bool]:
        entry: list[int | bool] = [mid, qos, False]
        self._pending.append(entry)
        return entry

    def done(self, entry: list[int | bool]) -> list[tuple[int, int]]:
        entry[2] = True
        ready = []
        while self._pending and self._pending[0][2]:
            mid, qos, _ = self._pending.popleft()
            ready.append((int(mid), int(qos)))
        return ready

    def __len__(self) -> int:
        return len(self._pending)


@dataclass(frozen=True, slots=True, kw_only=True)
class WorkerSettings:
    """Where the worker reads from and how it stores; see ``table-controller ingest``."""

    endpoint: BrokerEndpoint
    client_id: str
    group: str = "ingest"
    prefix: str = DEFAULT_TOPIC_PREFIX
    concurrency: int = 4
    session_expiry_s: int = DEFAULT_SESSION_EXPIRY_S
    repair: RepairSettings | None = None
    #: The tables' public keys by table id (a keys file); None: each pinned from its status.
    table_keys: dict[str, str] | None = None
    #: Quarantine an unsigned message, and a signed one of a table without a key.
    require_signatures: bool = False

    @property
    def root(self) -> str:
        return self.prefix.rstrip("/")


def subscriptions(group: str, prefix: str) -> tuple[list[str], list[str]]:
    """The shared and status filters, and the normal filters of the retained topics."""
    root = prefix.rstrip("/")
    shared = [f"$share/{group}/{root}/+/{topic}" for topic in ("events/#", "commands/replies")]
    shared += [f"$share/{group}/{root}/+/{topic}" for topic in RETAINED_SEQ_TOPICS]
    retained = [f"{root}/+/{topic}" for topic in RETAINED_SEQ_TOPICS]
    return [*shared, f"{root}/+/status"], retained


class IngestWorker:
    """One worker: connects, subscribes, stores; reconnects with backoff until stopped."""

    def __init__(self, store: IngestStore, settings: WorkerSettings) -> None:
        self.store = store
        self.settings = settings
        from_file = settings.table_keys is not None
        self.keys = TableKeys(
            keys={
                table_id: public_key_from_text(text)
                for table_id, text in (settings.table_keys or {}).items()
            },
            from_file=from_file,
            require_signatures=settings.require_signatures,
        )
        #: Whether the pins of ``table_keys`` were read (never with a keys file).
        self._pins_read = from_file
        self.connects = 0
        self._client: BrokerConnection | None = None
        self._generation = 0
        #: Records the replies this worker stores to the resends the ingest asked (whichever
        #: worker asked); asks for gaps only when ``settings.repair`` is given.
        self.repair = GapRepair(
            store,
            self._publish_command,
            settings.repair or RepairSettings(worker=settings.client_id, prefix=settings.prefix),
            worker=self,
        )
        self._waiting = 0

    def behind(self) -> bool:
        """Whether the worker had more than a batch to store when it last took one."""
        return self._waiting > MAX_BATCH

    def connected(self) -> bool:
        return self._client is not None

    async def _publish_command(self, topic: str, payload: bytes) -> None:
        client = self._client
        if client is None:
            raise ConnectionError("not connected to the broker")
        try:
            await client.publish(topic, payload)
        except BrokerError as error:
            raise ConnectionError(str(error)) from None

    def counts(self) -> dict[str, int]:
        """What the worker did since it started (the log's and the closing line's figures)."""
        outcomes = self.store.counts
        repair = self.repair
        return {
            "stored": outcomes[StoreOutcome.STORED],
            "duplicates": outcomes[StoreOutcome.DUPLICATE],
            "statuses": outcomes[StoreOutcome.STATUS],
            "rejected": outcomes[StoreOutcome.REJECTED],
            "quarantined": outcomes[StoreOutcome.QUARANTINED],
            "signature_failed": self.keys.failed,
            "unverified": self.keys.unverified,
            "gaps_asked": repair.asked,
            "resend_refused": repair.refused,
            "gone": repair.gone,
        }

    async def run(self) -> None:
        """Ingest until cancelled; gap repair and a counters line beside it."""
        async with asyncio.TaskGroup() as tasks:
            if self.settings.repair is not None:
                tasks.create_task(self.repair.run(), name="gap-repair")
            tasks.create_task(self._log_counts(), name="ingest-counts")
            await self._connect_forever()

    async def _log_counts(self) -> None:
        while True:
            await asyncio.sleep(COUNTS_EVERY_S)
            log.info("ingest_counts", **self.counts())

    async def _connect_forever(self) -> None:
        backoff = Backoff(initial_s=0.2, cap_s=10.0)
        rng = random.Random()  # noqa: S311 - jitter, not security
        attempt = 0
        reported: str | None = None
        while True:
            connects = self.connects
            try:
                await self._session()
            except BrokerError as error:
                if self.connects > connects:  # it was connected: a new outage starts afresh
                    attempt, reported = 0, None
                text = str(error)
                if text != reported:
                    log.warning("broker_unreachable", error=text, retrying=True)
                reported = text
            self._client = None
            await asyncio.sleep(backoff.delay(attempt, rng))
            attempt += 1

    async def _session(self) -> None:
        settings = self.settings
        acks = AckQueue()  # packet ids belong to one connection
        # Unbounded: the broker sends no more than RECEIVE_MAXIMUM unacknowledged messages,
        # and nothing is acknowledged before it is stored.
        queue: asyncio.Queue[_Work | None] = asyncio.Queue()

        def deliver(message: Delivery) -> None:
            queue.put_nowait((message, acks.received(message.mid, message.qos)))

        connection = BrokerConnection(
            settings.endpoint,
            client_id=settings.client_id,
            session_expiry_s=settings.session_expiry_s,
            receive_maximum=RECEIVE_MAXIMUM,
            timeout_s=BROKER_TIMEOUT_S,
            deliver=deliver,
        )
        shared, retained = subscriptions(settings.group, settings.prefix)
        async with connection:
            self._generation += 1
            await connection.subscribe(shared)
            await connection.subscribe(retained, subscription_id=RETAINED_SUBSCRIPTION)
            self._client = connection
            self.connects += 1
            log.info("ingest_connected", client_id=settings.client_id, group=settings.group)
            gathering = asyncio.Lock()
            consumers = [
                asyncio.create_task(
                    self._consume(connection, acks, queue, gathering), name=f"ingest-{n}"
                )
                for n in range(settings.concurrency)
            ]
            dropper = asyncio.create_task(_drop_later(connection, retained), name="retained-window")
            try:
                raise BrokerError(await connection.closed())
            finally:
                dropper.cancel()
                await _stop(consumers, queue)

    async def _consume(
        self,
        connection: BrokerConnection,
        acks: AckQueue,
        queue: asyncio.Queue[_Work | None],
        gathering: asyncio.Lock,
    ) -> None:
        generation = self._generation
        stopping = False
        while not stopping:
            async with gathering:  # one consumer fills its batch at a time
                work = await queue.get()
                if work is None:
                    return
                batch, stopping = await _gather(queue, work)
            self._waiting = len(batch) + queue.qsize()
            try:
                await self.handle_batch([message for message, _ in batch])
            except Exception:  # a batch must not stop the worker
                log.exception("messages_not_handled", count=len(batch))
            ready = [ready for _, entry in batch for ready in acks.done(entry)]
            if generation == self._generation and connection is self._client:
                connection.ack([mid for mid, qos in ready if qos > 0])

    async def handle_batch(self, batch: Sequence[Delivery]) -> list[StoreOutcome]:
        """Store messages in one transaction; live copies of the retained subscription skipped.

        The statuses of the batch are looked at first, so that a table's key pinned from its
        status applies to the messages beside it.
        """
        if not self._pins_read:
            await self._retrying("table_keys_unread", self._read_pins)
            self._pins_read = True
        parsed: list[tuple[str, bytes, str | None, dict[str, object] | None]] = []
        root = f"{self.settings.root}/"
        for message in batch:
            if _live_copy(message):
                continue
            topic, payload = message.topic, message.payload
            parsed.append((topic, payload, _table_of(topic, root), _parse(payload)))
        if not parsed:
            return []
        for topic, payload, table_id, data in parsed:
            if table_id is not None and data is not None and data.get("type") == "status":
                await self._pin_from(table_id, topic, payload, data)
        received = await self._judged(parsed)
        outcomes = await self._retrying(
            "store_failed", lambda: self.store.store_batch(received), messages=len(received)
        )
        for (_, _, table_id, data), outcome in zip(parsed, outcomes, strict=True):
            if (
                outcome is StoreOutcome.STORED
                and data is not None
                and table_id is not None
                and data.get("type") == "command_reply"
                and data.get("command") == "resend"
            ):
                await self._after_stored(table_id, data)
        return outcomes

    async def _judged(
        self, parsed: Sequence[tuple[str, bytes, str | None, dict[str, object] | None]]
    ) -> list[Received]:
        """Each message with the verdict on its signature (see ``table_keys.py``).

        A payload that is not a message of the contract is not judged: the store rejects it.
        """
        received = []
        now = asyncio.get_running_loop().time()
        keys = self.keys
        for topic, payload, table_id, data in parsed:
            verdict = NOT_JUDGED
            if data is not None and table_id is not None:
                if keys.should_look_up(table_id, data, now):
                    await self._look_up(table_id)
                verdict = keys.verdict(table_id, data)
            received.append(Received(topic, payload, verdict.verified, verdict.quarantine, data))
        return received

    async def _after_stored(self, table_id: str, data: dict[str, object]) -> None:
        """A resend reply stored (not quarantined): gap repair records it, if it asked it."""
        try:
            await self.repair.on_reply(table_id, data)
        except Exception as error:  # noqa: BLE001 - the gap stays open, asked again
            log.warning("resend_reply_not_recorded", error=error_text(error))

    async def _look_up(self, table_id: str) -> None:
        """Read the table's pin from the database: another worker's, made since."""
        found = await self._retrying("table_keys_unread", lambda: self._pinned(table_id))
        if found is not None:
            self.keys.pin(table_id, found)

    async def _pin_from(
        self, table_id: str, topic: str, payload: bytes, status: dict[str, object]
    ) -> None:
        """Pin the key a table's status names, if it is the table's first signed by that key.

        The pin is written with ``ON CONFLICT DO NOTHING`` and read back: of two workers
        pinning a table at once, the first pin stands for both, and for every restart.
        """
        text = self.keys.pin_candidate(table_id, status)
        if text is None:
            return
        try:
            check(Received(topic, payload, None))
        except p.BadMessage:
            return  # the store rejects it: no key is pinned from it
        session = status.get("session")
        pinned = await self._retrying(
            "table_keys_unread",
            lambda: self._pin(table_id, text, session if isinstance(session, int) else None),
        )
        if self.keys.pin(table_id, pinned):
            log.info(
                "table_key_pinned",
                table_id=table_id,
                kid=key_id(self.keys.keys[table_id]),
                by_this_worker=pinned == text,
            )

    async def _pin(self, table_id: str, text: str, session: int | None) -> str:
        """Pin ``text`` as the table's key unless a key is pinned already; the pinned key."""
        insert = dialect_insert(table_keys, postgres=self.store.postgres).values(
            table_id=table_id, public_key=text, session=session, pinned_at=datetime.now(UTC)
        )
        async with self.store.engine.begin() as connection:
            await connection.execute(insert.on_conflict_do_nothing())
            pinned = await connection.scalar(
                select(table_keys.c.public_key).where(table_keys.c.table_id == table_id)
            )
        return str(pinned)

    async def _pinned(self, table_id: str) -> str | None:
        async with self.store.engine.connect() as connection:
            found = await connection.scalar(
                select(table_keys.c.public_key).where(table_keys.c.table_id == table_id)
            )
        return None if found is None else str(found)

    async def _read_pins(self) -> None:
        """Every pinned key, into memory (once, at the first batch)."""
        async with self.store.engine.connect() as connection:
            rows = await connection.execute(select(table_keys.c.table_id, table_keys.c.public_key))
            for table_id, text in rows:
                if not self.keys.pin(table_id, text):
                    log.error("table_key_unreadable", table_id=table_id)

    async def _retrying(
        self, event: str, operation: Callable[[], Awaitable[_T]], **fields: object
    ) -> _T:
        """``operation``, retried while the database is unreachable (nothing acknowledged).

        Each failure is logged as ``event`` with ``fields``, one line and no traceback.
        """
        backoff = Backoff(initial_s=0.5, cap_s=10.0)
        rng = random.Random()  # noqa: S311 - jitter, not security
        attempt = 0
        while True:
            try:
                return await operation()
            except Exception as error:  # noqa: BLE001 - a database outage, any driver's error
                log.error(event, error=error_text(error), **fields)  # noqa: TRY400
            await asyncio.sleep(backoff.delay(attempt, rng))
            attempt += 1


async def _gather(queue: asyncio.Queue[_Work | None], first: _Work) -> tuple[list[_Work], bool]:
    """A batch from ``first`` on: what the queue holds, up to :data:`MAX_BATCH`.

    When that is less than a full batch, what comes within :data:`BATCH_WINDOW_S` of ``first``
    joins it. True: the stop mark was taken (the batch is the consumer's last).
    """
    batch = [first]
    deadline = asyncio.get_running_loop().time() + BATCH_WINDOW_S
    for waited in (False, True):
        while len(batch) < MAX_BATCH and not queue.empty():
            more = queue.get_nowait()
            if more is None:
                return batch, True
            batch.append(more)
        left = deadline - asyncio.get_running_loop().time()
        if waited or len(batch) >= MAX_BATCH or left <= 0:
            break
        await asyncio.sleep(left)
    return batch, False


async def _stop(consumers: list[asyncio.Task[None]], queue: asyncio.Queue[_Work | None]) -> None:
    """The connection ended: the consumers store what they were handed, then stop.

    A store is not cut off half-way on a lost connection (what it holds is committed or rolled
    back in its own time, not while a transaction waits); on shutdown, or past
    :data:`DRAIN_S`, the consumers are cancelled, and what they had not stored comes again.
    """
    for _ in consumers:
        queue.put_nowait(None)
    try:
        await asyncio.wait(consumers, timeout=DRAIN_S)
    finally:
        for consumer in consumers:
            consumer.cancel()
        await asyncio.gather(*consumers, return_exceptions=True)


async def _drop_later(connection: BrokerConnection, retained: list[str]) -> None:
    """Unsubscribe from the retained topics' normal subscription once its copies came."""
    await asyncio.sleep(RETAINED_WINDOW_S)
    try:
        await connection.unsubscribe(retained)
    except BrokerError as error:  # the connection is going: the next one subscribes again
        log.info("retained_unsubscribe_failed", error=error_text(error))


def _live_copy(message: Delivery) -> bool:
    """A live (not retained) message of the normal subscription to the retained topics."""
    return not message.retain and RETAINED_SUBSCRIPTION in message.subscription_ids


def _table_of(topic: str, root: str) -> str | None:
    """The table id of a topic under ``root`` (the prefix and a slash); None: not under it."""
    head, _, rest = topic.partition(root)
    if head or not rest:
        return None
    return rest.split("/", 1)[0] or None


def _parse(payload: bytes) -> dict[str, object] | None:
    """The payload parsed once for the worker and the store; None: the store rejects it."""
    try:
        return p.parse(payload, exact=False)
    except p.BadMessage:
        return None
