# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest worker: the tables' messages from the broker into the store, committed first.

Adapter (aiomqtt, MQTT 5). What it subscribes to, all QoS 1:

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

**Batches.** A consumer takes what the queue holds, up to :data:`MAX_BATCH` messages, and
stores them in one transaction (``IngestStore.store_batch``): under load a worker commits many
messages at once instead of one by one.

**At least once, stored exactly once.** The client acknowledges a message (PUBACK) by hand,
after the store committed it (paho's manual acknowledgement, through aiomqtt's client), and in
the order the messages came (:class:`AckQueue`), as MQTT asks. A worker killed before a commit
has not acknowledged the message: the broker delivers it again when the worker's persistent
session comes back (same client id), and a copy stored twice is a duplicate the store drops.

**Signatures.** A table that signs names its public key in its ``status``; each message is
checked against the first key known for its table (the status received, or the one stored):
``verified`` is True or False; None when the table does not sign, or signs and no key is known
yet (counted as ``unverified``). A failure is counted and logged, and the message is stored.
"""

from __future__ import annotations

import asyncio
import json
import random
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Final, TypeAlias

import aiomqtt
import structlog
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey
from paho.mqtt.packettypes import PacketTypes
from paho.mqtt.properties import Properties
from paho.mqtt.subscribeoptions import SubscribeOptions
from sqlalchemy import select

from drivers.backoff import Backoff
from table_controller.ingest.checked_messages import Received
from table_controller.ingest.gap_repair import GapRepair, RepairSettings
from table_controller.ingest.schema import table_status
from table_controller.ingest.store import IngestStore, StoreOutcome
from table_controller.integrity.signing import public_key_from_text, verify
from table_controller.publishing.mqtt_client import (
    ManualAcks,
    error_text,
    new_client,
    payload_bytes,
)
from table_controller.publishing.mqtt_settings import DEFAULT_TOPIC_PREFIX, BrokerEndpoint

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
#: A message received and its place in the acknowledgement queue.
_Work: TypeAlias = tuple[aiomqtt.Message, list[int | bool]]
#: The most messages a consumer stores in one transaction: what the queue holds, up to this.
MAX_BATCH: Final = 200
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


@dataclass(slots=True)
class TableKeys:
    """Each table's public key, from its status (or the stored one); the verdict of a message."""

    keys: dict[str, Ed25519PublicKey] = field(default_factory=dict)
    failed: int = 0
    unverified: int = 0

    def learn(self, table_id: str, text: object) -> None:
        """Keep ``text`` (a status's ``public_key``) as the table's key, if none is known."""
        if table_id in self.keys or not isinstance(text, str):
            return
        try:
            self.keys[table_id] = public_key_from_text(text)
        except ValueError as error:
            log.warning("public_key_unreadable", table_id=table_id, error=str(error))

    def verdict(self, table_id: str, topic: str, message: Mapping[str, object]) -> bool | None:
        """True or False against the table's key; None: unsigned, or no key known yet."""
        key = self.keys.get(table_id)
        if key is None:
            if "sig" in message:
                self.unverified += 1
            return None
        checked = verify(message, key)
        if checked is True:
            return True
        self.failed += 1
        log.warning(
            "signature_failed",
            table_id=table_id,
            topic=topic[:200],
            seq=message.get("seq"),
            type=str(message.get("type"))[:64],
            reason=checked,
        )
        return False


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
        self.keys = TableKeys()
        self.connects = 0
        self._client: aiomqtt.Client | None = None
        self._generation = 0
        #: Records every resend reply this worker stores (whoever asked); asks for gaps only
        #: when ``settings.repair`` is given.
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
            await client.publish(topic, payload, qos=1, retain=False)
        except aiomqtt.MqttError as error:
            raise ConnectionError(error_text(error)) from None

    def counts(self) -> dict[str, int]:
        """What the worker did since it started (the log's and the closing line's figures)."""
        outcomes = self.store.counts
        repair = self.repair
        return {
            "stored": outcomes[StoreOutcome.STORED],
            "duplicates": outcomes[StoreOutcome.DUPLICATE],
            "statuses": outcomes[StoreOutcome.STATUS],
            "rejected": outcomes[StoreOutcome.REJECTED],
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
            except aiomqtt.MqttError as error:
                if self.connects > connects:  # it was connected: a new outage starts afresh
                    attempt, reported = 0, None
                text = error_text(error)
                if text != reported:
                    log.warning("broker_unreachable", error=text, retrying=True)
                reported = text
            self._client = None
            await asyncio.sleep(backoff.delay(attempt, rng))
            attempt += 1

    async def _session(self) -> None:
        settings = self.settings
        client = new_client(
            settings.endpoint,
            identifier=settings.client_id,
            persistent=True,
            session_expiry_s=settings.session_expiry_s,
            receive_maximum=RECEIVE_MAXIMUM,
            timeout_s=BROKER_TIMEOUT_S,
        )
        manual = ManualAcks(client)
        shared, retained = subscriptions(settings.group, settings.prefix)
        async with client:
            self._generation += 1
            acks = AckQueue()
            options = SubscribeOptions(qos=1)
            await client.subscribe([(topic, options) for topic in shared])
            marked = Properties(PacketTypes.SUBSCRIBE)  # type: ignore[no-untyped-call]
            marked.SubscriptionIdentifier = RETAINED_SUBSCRIPTION
            await client.subscribe([(topic, options) for topic in retained], properties=marked)
            self._client = client
            self.connects += 1
            log.info("ingest_connected", client_id=settings.client_id, group=settings.group)
            # Unbounded: the broker sends no more than RECEIVE_MAXIMUM unacknowledged messages,
            # and nothing is acknowledged before it is stored.
            queue: asyncio.Queue[_Work | None] = asyncio.Queue()
            consumers = [
                asyncio.create_task(self._consume(client, manual, acks, queue), name=f"ingest-{n}")
                for n in range(settings.concurrency)
            ]
            dropper = asyncio.create_task(_drop_later(client, retained), name="retained-window")
            try:
                async for message in client.messages:
                    queue.put_nowait((message, acks.received(message.mid, message.qos)))
            finally:
                dropper.cancel()
                await _stop(consumers, queue)

    async def _consume(
        self,
        client: aiomqtt.Client,
        manual: ManualAcks,
        acks: AckQueue,
        queue: asyncio.Queue[_Work | None],
    ) -> None:
        generation = self._generation
        stopping = False
        while not stopping and (work := await queue.get()) is not None:
            batch = [work]
            while len(batch) < MAX_BATCH and not queue.empty():
                more = queue.get_nowait()
                if more is None:
                    stopping = True
                    break
                batch.append(more)
            self._waiting = len(batch) + queue.qsize()
            try:
                await self.handle_batch([message for message, _ in batch])
            except Exception:  # a batch must not stop the worker
                log.exception("messages_not_handled", count=len(batch))
            for _, entry in batch:
                for mid, qos in acks.done(entry):
                    if qos > 0 and generation == self._generation and client is self._client:
                        manual.ack(mid, qos)

    async def handle_batch(self, batch: Sequence[aiomqtt.Message]) -> list[StoreOutcome]:
        """Store messages in one transaction; live copies of the retained subscription skipped."""
        received: list[tuple[Received, str | None, dict[str, object] | None]] = []
        for message in batch:
            if _live_copy(message):
                continue
            topic = message.topic.value
            payload = payload_bytes(message.payload)
            table_id = _table_of(topic, self.settings.root)
            data = _parse(payload)
            verified = await self._verdict(table_id, topic, data)
            received.append((Received(topic, payload, verified), table_id, data))
        if not received:
            return []
        outcomes = await self._store([one for one, _, _ in received])
        for (_, table_id, data), outcome in zip(received, outcomes, strict=True):
            if (
                outcome is StoreOutcome.STORED
                and data is not None
                and table_id is not None
                and data.get("type") == "command_reply"
                and data.get("command") == "resend"
            ):
                try:
                    await self.repair.on_reply(table_id, data)
                except Exception as error:  # noqa: BLE001 - the gap stays open, asked again
                    log.warning("resend_reply_not_recorded", error=error_text(error))
        return outcomes

    async def _verdict(
        self, table_id: str | None, topic: str, data: dict[str, object] | None
    ) -> bool | None:
        """The message's signature checked against its table's key (see :class:`TableKeys`)."""
        if data is None or table_id is None:
            return None
        if data.get("type") == "status":
            self.keys.learn(table_id, data.get("public_key"))
        elif table_id not in self.keys.keys and "sig" in data:
            try:
                self.keys.learn(table_id, await self._stored_key(table_id))
            except Exception as error:  # noqa: BLE001 - verified stays None
                log.warning("public_key_lookup_failed", error=error_text(error))
        return self.keys.verdict(table_id, topic, data)

    async def _store(self, batch: Sequence[Received]) -> list[StoreOutcome]:
        """Store, retrying while the database is unreachable (unacknowledged meanwhile)."""
        backoff = Backoff(initial_s=0.5, cap_s=10.0)
        rng = random.Random()  # noqa: S311 - jitter, not security
        attempt = 0
        while True:
            try:
                return await self.store.store_batch(batch)
            except Exception as error:  # noqa: BLE001 - a database outage, any driver's error
                log.error(  # noqa: TRY400 - one line per outage, no traceback
                    "store_failed", messages=len(batch), error=error_text(error)
                )
            await asyncio.sleep(backoff.delay(attempt, rng))
            attempt += 1

    async def _stored_key(self, table_id: str) -> str | None:
        async with self.store.engine.connect() as connection:
            found = await connection.scalar(
                select(table_status.c.public_key).where(table_status.c.table_id == table_id)
            )
        return None if found is None else str(found)


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


async def _drop_later(client: aiomqtt.Client, retained: list[str]) -> None:
    """Unsubscribe from the retained topics' normal subscription once its copies came."""
    await asyncio.sleep(RETAINED_WINDOW_S)
    try:
        await client.unsubscribe(retained)
    except aiomqtt.MqttError as error:  # the connection is going: the next one subscribes again
        log.info("retained_unsubscribe_failed", error=error_text(error))


def _live_copy(message: aiomqtt.Message) -> bool:
    """A live (not retained) message of the normal subscription to the retained topics."""
    if message.retain or message.properties is None:
        return False
    identifiers = getattr(message.properties, "SubscriptionIdentifier", None) or []
    return RETAINED_SUBSCRIPTION in identifiers


def _table_of(topic: str, root: str) -> str | None:
    head, _, rest = topic.partition(f"{root}/")
    if head or not rest:
        return None
    return rest.split("/", 1)[0] or None


def _parse(payload: bytes) -> dict[str, object] | None:
    try:
        data = json.loads(payload)
    except (ValueError, UnicodeDecodeError):
        return None
    return data if isinstance(data, dict) else None
