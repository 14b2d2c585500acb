# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Test support for the reliability suite: the real service, a backend, a dealer that obeys.

Test support, not product code: it decides nothing about the game. It runs
``table-controller run`` as a subprocess, receives everything the table publishes as a backend
does (a persistent QoS 1 subscription to a real mosquitto), and deals from the virtual shoe on
a real pseudo-terminal whenever the table asks for a card, answering its prompts with commands
over MQTT: the shared scripted dealer (``tests.support.dealing``) says what each state asks for,
:class:`MqttTable` carries it out, and clears holds as a supervisor would.

The dealer never acts on a stale picture of the table. Before each step it sends a *barrier*:
a command the table does not know, refused at the edge and answered through the table's own
input queue. The table takes inputs one at a time and hands each input's messages to the
outbox before it records the next, and the outbox is published in ``seq`` order; so once the
barrier's reply and every ``seq`` before it have arrived, the latest ``state`` is the table's
state after everything the dealer did so far.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import signal
import sqlite3
import sys
import time
import uuid
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import aiomqtt

from simulators.virtual_shoe.deck import Shoe
from simulators.virtual_shoe.device import FrameAbandoned, ShoeDevice
from simulators.virtual_shoe.faults import (
    DealtCard,
    DealtCutCard,
    DealtMisread,
    FaultPlan,
    ShoeRanOut,
)
from simulators.virtual_shoe.server import PtyPort, VirtualShoe
from table_controller.mqtt.client.subscriber import Received, Subscription
from table_controller.mqtt.settings import BrokerEndpoint
from tests.mosquitto import PASSWORDS, Mosquitto
from tests.support.dealing import Record, ScriptedDealer, Step, step_of_state
from tests.support.table_process import table_controller
from tests.wakeups import Wakeups

TABLE_ID: Final = "T07"
ROOT: Final = f"baccarat/tables/{TABLE_ID}"
#: The supervisor operator the tables trust (over the broker login ``pit``).
SUPERVISOR: Final = "sup-1"
SUPERVISORS_ENV: Final = {"TABLE_CONTROLLER_SUPERVISORS": json.dumps({SUPERVISOR: ["pit"]})}
#: Retained snapshots that ``replay`` prints with the events.
SNAPSHOT_TOPICS: Final = frozenset({"roads", "odds"})
#: Seconds any one step may take; the longest fault (a stall) is a few seconds.
STEP_TIMEOUT_S: Final = 30.0


class DriverError(AssertionError):
    """The table did not do what the dealer waited for; the message says what."""


# --- the service process ----------------------------------------------------------------------


def run_args(
    *,
    journal: Path,
    table_id: str = TABLE_ID,
    variant: str = "commission",
    port: Path | None = None,
    broker_url: str | None = None,
    events_log: Path | None = None,
    card_source: str | None = None,
    extra: Sequence[str] = (),
) -> list[str]:
    """The ``table-controller run`` command line."""
    args = [
        sys.executable, "-m", "table_controller", "run",
        "--table-id", table_id, "--variant", variant,
        "--journal", str(journal), "--display", "off", "--log-format", "json",
    ]  # fmt: skip
    if port is not None:
        args += ["--port", str(port)]
    if broker_url is not None:
        args += ["--broker", broker_url]
    if events_log is not None:
        args += ["--events-log", str(events_log)]
    if card_source is not None:
        args += ["--card-source", card_source]
    return [*args, *extra]


@dataclass
class Service:
    """One ``table-controller run`` subprocess, started and stopped as the test says."""

    args: list[str]
    #: Where its standard error goes; None: nowhere.
    log: Path | None
    env: Mapping[str, str] = field(default_factory=dict)
    preexec_fn: Callable[[], None] | None = None
    process: asyncio.subprocess.Process | None = None
    starts: int = 0

    async def start(self) -> None:
        assert not self.running, "already running"
        with contextlib.ExitStack() as stack:
            log = None if self.log is None else stack.enter_context(self.log.open("ab"))
            self.process = await asyncio.create_subprocess_exec(
                *self.args,
                env={**os.environ, **SUPERVISORS_ENV, **self.env},
                stdout=asyncio.subprocess.DEVNULL,
                stderr=asyncio.subprocess.DEVNULL if log is None else log,
                preexec_fn=self.preexec_fn,
            )
        self.starts += 1

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.returncode is None

    async def stop(self) -> int:
        """SIGTERM and wait; its exit status."""
        process = self.process
        if process is None:
            return 0
        if process.returncode is None:
            process.send_signal(signal.SIGTERM)
            try:
                await asyncio.wait_for(process.wait(), 20)
            except TimeoutError:
                process.kill()
                await process.wait()
                raise DriverError("table-controller run ignored SIGTERM for 20 s") from None
        assert process.returncode is not None
        return process.returncode

    async def kill(self) -> None:
        """SIGKILL: the process dies where it stands."""
        process = self.process
        if process is not None and process.returncode is None:
            process.kill()
            await process.wait()

    def log_tail(self, chars: int = 3000) -> str:
        if self.log is None or not self.log.exists():
            return ""
        return self.log.read_text(errors="replace")[-chars:]


@contextlib.asynccontextmanager
async def service(
    args: list[str],
    log: Path | None,
    *,
    env: Mapping[str, str] | None = None,
    preexec_fn: Callable[[], None] | None = None,
) -> AsyncIterator[Service]:
    """A started service, killed on the way out if the test left it running."""
    running = Service(args=args, log=log, env=dict(env or {}), preexec_fn=preexec_fn)
    await running.start()
    try:
        yield running
    finally:
        await running.kill()


# --- the backend's side -----------------------------------------------------------------------


@dataclass
class Feed:
    """Everything a backend received from one or more tables, sorted as a backend reads it.

    Every message but ``status`` and a reply the table could not record (its journal refused
    writes) carries the table's ``seq``. A message received again (QoS 1 after a reconnect, or
    regenerated after a restart) must be byte-identical to the first copy of its ``seq``:
    anything else is an unmarked duplicate and fails :meth:`take` at once.
    """

    by_seq: dict[str, dict[int, Received]] = field(default_factory=dict)
    statuses: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    #: Replies without a ``seq`` (not recorded), by table and command id, with when they came.
    unrecorded: dict[tuple[str, str], tuple[float, dict[str, Any]]] = field(default_factory=dict)
    received: int = 0
    duplicates: int = 0
    unmarked_duplicates: list[str] = field(default_factory=list)
    _wakeups: Wakeups = field(default_factory=Wakeups)
    # Indexes kept as messages arrive: a soak's waits test them after every message, so a
    # scan of everything received would make a long soak quadratic.
    _bodies: dict[str, dict[int, dict[str, Any]]] = field(default_factory=dict)
    _contiguous: dict[str, int] = field(default_factory=dict)
    _latest: dict[tuple[str, str], int] = field(default_factory=dict)
    _replies: dict[tuple[str, str], dict[str, Any]] = field(default_factory=dict)

    def take(self, message: Received) -> None:
        self.received += 1
        table = message.topic.split("/")[2]
        body = json.loads(message.payload)
        if message.topic.endswith("/status"):
            self.statuses.append((table, body))
        elif message.topic.endswith("/commands"):
            pass  # our own commands, echoed by the wildcard
        elif message.topic.endswith("/commands/replies") and "seq" not in body:
            self.unrecorded.setdefault((table, str(body["id"])), (time.monotonic(), body))
        else:
            seen = self.by_seq.setdefault(table, {})
            seq = int(body["seq"])
            first = seen.setdefault(seq, message)
            if first is not message:
                self.duplicates += 1
                if (first.topic, first.payload) != (message.topic, message.payload):
                    self.unmarked_duplicates.append(f"{table} seq {body['seq']}")
            else:
                self._index(table, seq, message.topic, body)
        self._wakeups.wake()

    def _index(self, table: str, seq: int, topic: str, body: dict[str, Any]) -> None:
        self._bodies.setdefault(table, {})[seq] = body
        top = self._contiguous.get(table, 0)
        seen = self.by_seq[table]
        while top + 1 in seen:
            top += 1
        self._contiguous[table] = top
        if self._latest.get((table, topic), -1) < seq:
            self._latest[(table, topic)] = seq
        if topic.endswith("/commands/replies") and "id" in body:
            self._replies.setdefault((table, str(body["id"])), body)

    async def until(
        self,
        test: Callable[[], bool],
        what: str,
        timeout: float = STEP_TIMEOUT_S,  # noqa: ASYNC109 - a deadline per wait, named in errors
    ) -> None:
        try:
            await self._wakeups.until(test, timeout)
        except TimeoutError:
            raise DriverError(f"timed out after {timeout} s waiting for {what}") from None

    def messages(self, table: str = TABLE_ID) -> list[tuple[str, dict[str, Any]]]:
        """``(topic suffix, body)`` of each ``seq`` once, in ``seq`` order."""
        seen = self.by_seq.get(table, {})
        bodies = self._bodies.get(table, {})
        prefix = f"baccarat/tables/{table}/"
        return [(seen[seq].topic.removeprefix(prefix), bodies[seq]) for seq in sorted(seen)]

    def events(self, table: str = TABLE_ID) -> list[dict[str, Any]]:
        """The events, roads and odds, each once, in ``seq`` order (what ``replay`` prints)."""
        return [
            body
            for suffix, body in self.messages(table)
            if suffix.startswith("events/") or suffix in SNAPSHOT_TOPICS
        ]

    def missing(self, table: str = TABLE_ID) -> list[int]:
        """``seq`` numbers from 1 to the highest received that never arrived."""
        seen = self.by_seq.get(table, {})
        top = max(seen, default=0)
        return [
            seq for seq in range(self._contiguous.get(table, 0) + 1, top + 1) if seq not in seen
        ]

    def contiguous_to(self, seq: int, table: str = TABLE_ID) -> bool:
        return self._contiguous.get(table, 0) >= seq

    def latest(self, suffix: str, table: str = TABLE_ID) -> dict[str, Any] | None:
        seq = self._latest.get((table, f"baccarat/tables/{table}/{suffix}"))
        return None if seq is None else self._bodies[table][seq]

    def reply(self, command_id: str, table: str = TABLE_ID) -> dict[str, Any] | None:
        return self._replies.get((table, command_id))


@contextlib.asynccontextmanager
async def backend(
    broker: Mosquitto, *, client_id: str = "backend-reliability", filters: Sequence[str] = ()
) -> AsyncIterator[Feed]:
    """A backend with a persistent session, collecting into a :class:`Feed` until the exit."""
    feed = Feed()
    endpoint = BrokerEndpoint.from_url(broker.url("backend"))
    async with Subscription(
        endpoint,
        list(filters) or ["baccarat/tables/+/#"],
        client_id=client_id,
        persistent=True,
        backoff_max_s=0.5,
    ) as subscription:
        await subscription.wait_subscribed()

        async def collect() -> None:
            while True:
                feed.take(await subscription.get())

        collector = asyncio.create_task(collect(), name="backend feed")
        try:
            yield feed
        finally:
            collector.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await collector


@contextlib.asynccontextmanager
async def commander(broker: Mosquitto, user: str) -> AsyncIterator[aiomqtt.Client]:
    """An MQTT client logged in as ``user`` (``backend`` or ``pit``) to give commands."""
    client = aiomqtt.Client(
        broker.host,
        broker.port,
        username=user,
        password=PASSWORDS[user],
        identifier=f"{user}-commands-{os.getpid()}-{time.monotonic_ns()}",
    )
    async with client:
        yield client


# --- the table's dealer and pit, over MQTT -------------------------------------------------


@dataclass
class MqttTable:
    """The scripted dealer at a table reached over MQTT, dealing from the virtual shoe.

    Commands go over MQTT as the backend (supervisor commands as the pit's login); cards come
    out of the virtual shoe on the table's pseudo-terminal.
    """

    feed: Feed
    backend: aiomqtt.Client
    pit: aiomqtt.Client
    shoe: VirtualShoe
    table_id: str = TABLE_ID
    counter: itertools.count[int] = field(default_factory=itertools.count)
    #: Makes command ids unique across dealers (a repeated id is answered, not carried out).
    prefix: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    #: Cards the table was told of by hand (misread or lost), in the order entered.
    entered: list[str] = field(default_factory=list)
    _lost_handled: int = 0
    _script: ScriptedDealer = field(init=False)

    def __post_init__(self) -> None:
        self._script = ScriptedDealer(
            (), operator="backend", ids=self.counter, prefix=f"{self.prefix}-c"
        )

    @property
    def root(self) -> str:
        return f"baccarat/tables/{self.table_id}"

    async def _send(self, client: aiomqtt.Client, body: Mapping[str, object]) -> str:
        await client.publish(f"{self.root}/commands", json.dumps(body), qos=1)
        return str(body["id"])

    async def send(self, body: Mapping[str, object]) -> str:
        """Send a command as the backend, waiting for nothing; its id."""
        return await self._send(self.backend, body)

    async def online(self, after: int = 0) -> int:
        """Wait for the table's birth with a session above ``after``; returns its session."""

        def born() -> int:
            return max(
                (
                    int(body["session"])
                    for table, body in self.feed.statuses
                    if table == self.table_id and body["online"]
                ),
                default=0,
            )

        await self.feed.until(lambda: born() > after, f"{self.table_id} online")
        # The birth goes out before the table subscribes to its commands: a command sent at
        # once to a table new to the broker could be lost, so knock until it answers.
        for _ in range(int(STEP_TIMEOUT_S)):
            with contextlib.suppress(DriverError):
                await self.barrier(timeout=1.0)
                return born()
        raise DriverError(f"{self.table_id} does not take commands")

    async def barrier(
        self,
        timeout: float = STEP_TIMEOUT_S,  # noqa: ASYNC109 - a deadline per wait, named in errors
    ) -> dict[str, Any]:
        """The table's state once it has handled everything sent to it so far (see module).

        While the table's journal refuses writes, its reply to the barrier is not recorded and
        comes without a ``seq``, marking no point in the stream: the barrier is sent again.
        """
        while True:
            command_id = f"{self.prefix}-barrier-{next(self.counter)}"
            await self._send(
                self.backend, {"id": command_id, "command": "barrier", "operator": "t"}
            )
            key = (self.table_id, command_id)
            await self.feed.until(
                lambda: self.feed.reply(command_id, self.table_id) is not None  # noqa: B023
                or key in self.feed.unrecorded,  # noqa: B023 - awaited in this iteration
                f"the reply to {command_id}",
                timeout,
            )
            if key not in self.feed.unrecorded:
                break
            await asyncio.sleep(0.1)  # the table is still held: it records again soon
        reply = self.feed.reply(command_id, self.table_id)
        assert reply is not None
        assert reply["ok"] is False  # refused at the edge: it changed nothing
        seq = int(reply["seq"])
        await self.feed.until(
            lambda: self.feed.contiguous_to(seq, self.table_id), f"every seq up to {seq}", timeout
        )
        return self.feed.latest("state", self.table_id) or {}  # {}: nothing happened yet

    async def command(self, name: str, *, supervisor: bool = False, **args: object) -> None:
        """Give a command and wait for its reply, which must be ok."""
        record = self._script.command(name, **args)
        if supervisor:
            record["operator"] = SUPERVISOR
        await self.give(record)

    async def give(self, record: Record) -> None:
        """Send a command record and wait for its reply, which must be ok."""
        supervisor = record["operator"] == SUPERVISOR
        command_id = await self._send(self.pit if supervisor else self.backend, record)
        await self.feed.until(
            lambda: self.feed.reply(command_id, self.table_id) is not None,
            f"the reply to {record['command']}",
        )
        reply = self.feed.reply(command_id, self.table_id)
        assert reply is not None
        if not reply["ok"]:
            raise DriverError(f"{record['command']} {record.get('args')} refused: {reply}")

    async def betting(self) -> None:
        """Open and close betting, as the scripted dealer does between rounds."""
        for record in self._script.betting():
            await self.give(record)

    async def deal(self) -> DealtCard | DealtCutCard | DealtMisread:
        """One draw; returns once the shoe's frame was acknowledged (or given up)."""
        dealt = self.shoe.deal()
        if isinstance(dealt, ShoeRanOut):
            raise DriverError("the shoe ran out")
        await self.settled()
        return dealt

    async def settled(
        self,
        timeout: float = STEP_TIMEOUT_S,  # noqa: ASYNC109 - a deadline per wait, named in errors
    ) -> None:
        """Wait until the shoe is plugged in and no frame waits for the table."""
        try:
            async with asyncio.timeout(timeout):
                while self.shoe.awaiting_ack or not self.shoe.plugged:
                    await self.shoe.changed()
        except TimeoutError:
            raise DriverError(f"the shoe still waits for the table after {timeout} s") from None

    def lost_cards(self) -> list[str]:
        """Cards whose frames the shoe gave up on, in draw order, not yet entered by hand."""
        # Card frames only: a heartbeat given up on (a table slow to acknowledge, under load)
        # carries no card and must not shift the count of those entered.
        abandoned = [
            e.card for e in self.shoe.events if isinstance(e, FrameAbandoned) and e.card is not None
        ]
        by_number = {d.number: d for d in self.shoe.dealt}
        lost: list[str] = []
        for number in abandoned[self._lost_handled :]:
            drawn = by_number.get(number)
            if isinstance(drawn, DealtCard):
                lost.append(drawn.card)
            elif isinstance(drawn, DealtMisread):
                lost.append(drawn.actual)
        return lost

    async def clear_hold(self, state: Mapping[str, Any]) -> None:
        """Do what a supervisor does for the table's hold (misread, lost frames)."""
        reason = state["hold_reason"]
        if reason == "misread":
            last = next(d for d in reversed(self.shoe.dealt) if isinstance(d, DealtMisread))
            await self.command("manual_card", supervisor=True, card=last.actual)
            self.entered.append(last.actual)
        elif reason == "lost_frames":
            lost = self.lost_cards()
            missing = int(state["missing_cards"])
            if len(lost) < missing:
                raise DriverError(f"the table misses {missing} cards; the shoe gave up {lost}")
            for card in lost[:missing]:
                await self.command("manual_card", supervisor=True, card=card)
                self.entered.append(card)
                self._lost_handled += 1
                # The hold ends early when the round completes with fewer entries (the other
                # lost frames were not cards of it): enter no more than the table still asks.
                if (await self.barrier())["hold_reason"] != "lost_frames":
                    break
        elif reason == "reader_offline":
            await asyncio.sleep(0.05)  # the reader comes back by itself
        else:
            raise DriverError(f"unexpected hold {reason!r}: {state}")

    async def enter_left_over(self, state: Mapping[str, Any]) -> bool:
        """Enter the cards drawn for lost frames that the round did not need; False: none."""
        lost = self.lost_cards()[: int(state.get("unresolved_lost_frames") or 0)]
        for card in lost:
            await self.command("manual_card", supervisor=True, card=card)
            self.entered.append(card)
            self._lost_handled += 1
        return bool(lost)

    async def step(self) -> str:
        """Do what the table asks now; returns the prompt's action."""
        state = await self.barrier()
        if await self.enter_left_over(state):
            return "manual_card"
        prompt = state.get("prompt")
        action = "shoe_over" if prompt is None else str(prompt["action"])
        match step_of_state(state):
            case Step.DEAL:
                await self.deal()
            case Step.BETTING:
                await self.betting()
            case Step.HOLD:
                await self.clear_hold(state)
            case Step.OVER:
                pass
        return action

    async def play_shoe(self, shoe: Shoe, shoe_id: str, *, max_steps: int = 5000) -> int:
        """Put ``shoe`` in the virtual shoe, start it and play until the table says it is over.

        Returns the number of rounds with a result.
        """
        self.shoe.shoe = shoe
        await self.command("new_shoe", shoe_id=shoe_id)
        for _ in range(max_steps):
            if await self.step() == "shoe_over":
                break
        else:
            raise DriverError(f"shoe {shoe_id} not over after {max_steps} steps")
        return sum(
            1
            for body in self.feed.events(self.table_id)
            if body["type"] == "round_result" and body["shoe_id"] == shoe_id
        )


@contextlib.asynccontextmanager
async def mqtt_table(
    broker: Mosquitto,
    feed: Feed,
    link: Path,
    *,
    faults: FaultPlan | None = None,
    shoe: Shoe | None = None,
) -> AsyncIterator[MqttTable]:
    """A virtual shoe on a pseudo-terminal at ``link`` and the two command logins.

    ``faults`` count draws from this shoe's first (a new virtual shoe starts at 1).
    """
    plan = faults or FaultPlan()
    async with (
        VirtualShoe(
            shoe=shoe or Shoe(cards=(), cut_depth=None),
            session=ShoeDevice(faults=plan),
            port=PtyPort(link=link),
            faults=plan,
        ) as virtual,
        commander(broker, "backend") as backend_client,
        commander(broker, "pit") as pit_client,
    ):
        yield MqttTable(feed=feed, backend=backend_client, pit=pit_client, shoe=virtual)


# --- what the checks compare ------------------------------------------------------------


def journal_query(journal: Path, sql: str) -> list[tuple[Any, ...]]:
    """The rows ``sql`` selects from a journal file, opened read-only."""
    with contextlib.closing(sqlite3.connect(f"file:{journal}?mode=ro", uri=True)) as connection:
        return connection.execute(sql).fetchall()


def outbox_last_seq(journal: Path) -> int:
    """The last ``seq`` the table gave a message (read from its stopped journal file)."""
    found = journal_query(journal, "SELECT value FROM outbox_meta WHERE key = 'last_seq'")
    return int(found[0][0]) if found else 0


async def everything_received(feed: Feed, journal: Path, table_id: str = TABLE_ID) -> None:
    """After the service stopped: wait until the backend has every ``seq`` it published."""
    last = outbox_last_seq(journal)
    try:
        await feed.until(lambda: feed.contiguous_to(last, table_id), f"seq up to {last}", 10)
    except DriverError:
        seen = feed.by_seq.get(table_id, {})
        missing = [seq for seq in range(1, last + 1) if seq not in seen]
        raise DriverError(
            f"the table published seq up to {last}; never at the backend: {missing}, of which"
            f" the table's outbox holds unacknowledged: {unacknowledged(journal)}"
        ) from None


def unacknowledged(journal: Path) -> list[tuple[int, str]]:
    """``(seq, topic)`` of the outbox rows the broker never acknowledged."""
    unacked = "SELECT seq, topic FROM outbox WHERE acked_at IS NULL ORDER BY seq"
    return [(int(seq), str(topic)) for seq, topic in journal_query(journal, unacked)]


def dealt_cards(dealt: Sequence[object]) -> list[str]:
    """The cards that left the shoe (recognised or not), in draw order; not the cut card."""
    cards: list[str] = []
    for item in dealt:
        if isinstance(item, DealtCard):
            cards.append(item.card)
        elif isinstance(item, DealtMisread):
            cards.append(item.actual)
    return cards


def published_cards(events: Sequence[Mapping[str, Any]], shoe_id: str) -> list[str]:
    """Every card the table reported for a shoe, in order.

    The burn's face-up card and the cards it burned, then, in ``seq`` order, the card of each
    card event and of each ``unnecessary_card`` alarm (a card drawn when none was due, for
    instance after a lost frame that completed the round: reported and discarded).
    """
    face_up: list[str] = []
    burned: list[str] = []
    dealt: list[str] = []
    for body in events:
        if not _of_shoe(body, shoe_id):
            continue
        if body["type"] == "burn":
            face_up = face_up or [body["first_card"]]
            burned = burned or list(body.get("cards") or [])
        elif body["type"] == "card" or (
            body["type"] == "alarm" and body.get("code") == "unnecessary_card"
        ):
            dealt.append(body["card"])
    return face_up + burned + dealt


def _of_shoe(body: Mapping[str, Any], shoe_id: str) -> bool:
    if "shoe_id" in body:
        return bool(body["shoe_id"] == shoe_id)
    return str(body.get("round_id", "")).startswith(f"{shoe_id}-")


def without_envelope(body: Mapping[str, Any]) -> dict[str, Any]:
    """A message without what differs between two runs of the same inputs (``ts``, ``seq``)."""
    return {key: value for key, value in body.items() if key not in {"ts", "seq"}}


async def check_each_card_kept_once(
    feed: Feed,
    journal: Path,
    dealt: Sequence[str],
    shoe_id: str,
    *,
    table_id: str = TABLE_ID,
) -> None:
    """Nothing lost, nothing doubled: the whole path of each card, from the shoe to the backend.

    Each card that left the shoe was journaled once and reported once to the backend, every
    ``seq`` reached the backend (a duplicate only as a marked resend), and the journal
    verifies and replays to exactly what the backend got.
    """
    events = feed.events(table_id)
    assert journal_cards(journal) == list(dealt)
    assert published_cards(events, shoe_id) == list(dealt)
    assert feed.missing(table_id) == []
    assert feed.unmarked_duplicates == []
    await verified_and_replayed(journal, events)


def journal_cards(journal: Path) -> list[str]:
    """The cards recorded as inputs, in journal order (a card recorded twice shows twice)."""
    rows = journal_query(journal, "SELECT payload FROM events WHERE type = 'input' ORDER BY seq")
    records = [json.loads(payload) for (payload,) in rows]
    return [record["card"] for record in records if "card" in record and "command" not in record]


async def replayed(journal: Path, variant: str = "commission") -> list[dict[str, Any]]:
    """What ``table-controller replay --json`` prints for the journal."""
    status, out, err = await table_controller(
        "replay", "--variant", variant, "--inputs", str(journal), "--json"
    )
    assert status == 0, err[-2000:]
    return [json.loads(line) for line in out.splitlines()]


async def verified_and_replayed(journal: Path, events: Sequence[Mapping[str, Any]]) -> None:
    """The journal verifies, and its replay prints exactly ``events`` (what the backend got)."""
    status, out, err = await table_controller("journal", "verify", str(journal))
    assert status == 0, out + err[-2000:]
    assert await replayed(journal) == events
