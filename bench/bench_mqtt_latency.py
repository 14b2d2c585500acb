# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Card-to-backend latency through ``table-controller run`` and a real mosquitto; start-up; memory.

Bench script (not part of the product, decides nothing about the game): it starts a mosquitto
(the test suite's set-up, ``tests/mosquitto.py``, with per-message logging turned down),
serves the virtual shoe on a pseudo-terminal in this process, runs ``table-controller run`` as
a subprocess against both, and plays whole shoes as a backend would: ``new_shoe``,
``open_betting`` and ``close_betting`` over MQTT as the table's prompts ask, and a card dealt
whenever the table asks for one.

Measured, on one monotonic clock in this process:

* card to backend: from the last byte of a ``CARD`` frame written to the pseudo-terminal to
  the arrival of the matching ``events/card`` message at a backend subscriber (matched by
  order and card code); with the ``events/prompt`` message the same card caused, when it
  caused one (card to prompt), and the shoe's receipt of the table's ``ACK`` (the input is in
  the journal by then: a part of the card-to-backend time);
* a bare broker hop, interleaved one per card in the same run: a QoS 1 publish of a payload as
  long as a card event, from a client in this process, to its arrival at the same subscriber,
  started after the same pause as a card (for reference: what the broker alone costs); and one
  more right after each card's messages, with no pause, printed beside it (a warm machine is
  faster);
* the start-up of ``table-controller run``: from spawning it to the arrival of its retained
  ``status`` birth (``online: true``), several times with a fresh journal and once more after
  the run, replaying the whole journal; beside the interpreter's own start-up and the import
  of the ``run`` module;
* the first rounds after a start: after each fresh start the table plays its first two rounds
  (a new shoe, the burn, two rounds), and the cards of the first and the second round after a
  start (these, and the main run's own) are reported apart from the steady state (the main
  run's cards from its third round on), with the first round's p99 against the steady p99;
* its resident memory (``VmRSS`` and peak ``VmHWM`` from ``/proc/<pid>/status``) after the
  first shoe and at the end;
* for attribution: one durable SQLite commit (WAL, ``synchronous=FULL``, the journal's and the
  outbox's setting) in the work directory, and the outbox's own ``added_at`` to ``acked_at``
  time of the card rows (millisecond resolution).

Targets: the first round after a start within twice the steady p99; start-up under 1.5 s;
peak resident memory over the run under 80 MB. The card latency's own target is set against a
minimal durable relay, in ``bench_card_path_floor.py``.

With ``--sign`` the table runs with a device key (created in the work directory): every
message it publishes is signed (``kid``, ``sig``), which is what the figures then include.

Usage: python bench/bench_mqtt_latency.py [--cards N] [--startups K] [--gap-ms MS]
       [--seed S] [--workdir DIR] [--keep] [--broker-log-all] [--sign]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import re
import shutil
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Final

import aiomqtt
import trustme

from simulators.virtual_shoe.deck import Shoe, default_cut_depth
from simulators.virtual_shoe.device import ShoeDevice
from simulators.virtual_shoe.faults import DealtCard, DealtCutCard
from simulators.virtual_shoe.server import PortEvents, PtyPort, VirtualShoe
from simulators.virtual_shoe.shuffle import seeded_order
from table_controller.contract.outgoing import DEFAULT_TOPIC_PREFIX
from table_controller.integrity.signing import create_key_file, load_key_file
from table_controller.mqtt.client.connect import NO_DELAY
from table_controller.mqtt.client.subscriber import Received, Subscription
from table_controller.mqtt.settings import BrokerEndpoint

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))  # the test suite's broker set-up lives in tests/

from tests.mosquitto import Mosquitto, mosquitto_missing, start_broker  # noqa: E402
from tests.wakeups import Wakeups  # noqa: E402

TABLE_ID: Final = "T07"
TABLE_ROOT: Final = f"{DEFAULT_TOPIC_PREFIX}/{TABLE_ID}"
HOP_TOPIC: Final = "baccarat/bench/hop"
DECKS: Final = 8
TARGET_START_S: Final = 1.5
#: The first round after a start: its cards' p99 at most this many times the steady p99.
TARGET_FIRST_ROUND_RATIO: Final = 2.0
#: Rounds after a start reported apart from the steady state.
FIRST_ROUNDS: Final = 2
TARGET_RSS_MB: Final = 80.0
#: Seconds allowed for any one step of the table before the bench gives up.
STEP_TIMEOUT_S: Final = 20.0
DEALING_ACTIONS: Final = frozenset({"deal", "player_draws", "banker_draws"})

_CARD_FRAME: Final = re.compile(rb"\$SH,(\d+),CARD,([0-9A-Z]{2})\*")
_HELLO_FRAME: Final = re.compile(rb"\$SH,\d+,HELLO[,*]")
_ACK_FRAME: Final = re.compile(rb"\$HO,\d+,ACK,(\d+)\*")


class BenchError(RuntimeError):
    """The table did something the bench did not expect; the message says what."""


# --- statistics -------------------------------------------------------------------------------


def percentile(values: list[float], fraction: float) -> float:
    """The nearest-rank percentile (``fraction`` in (0, 1]) of a non-empty list."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


@dataclass(frozen=True, slots=True, kw_only=True)
class Summary:
    """p50, p99 and the maximum of one series, in milliseconds."""

    name: str
    count: int
    p50_ms: float
    p99_ms: float
    max_ms: float

    @classmethod
    def of(cls, name: str, nanoseconds: list[int]) -> Summary:
        millis = [value / 1e6 for value in nanoseconds]
        if not millis:
            return cls(name=name, count=0, p50_ms=math.nan, p99_ms=math.nan, max_ms=math.nan)
        return cls(
            name=name,
            count=len(millis),
            p50_ms=percentile(millis, 0.50),
            p99_ms=percentile(millis, 0.99),
            max_ms=max(millis),
        )

    def line(self) -> str:
        return (
            f"  {self.name:<44} n={self.count:<5} p50 {self.p50_ms:8.3f} ms"
            f"  p99 {self.p99_ms:8.3f} ms  max {self.max_ms:8.3f} ms"
        )


# --- the shoe's side: when a frame's last byte was written, when the host acknowledged ---------


@dataclass(frozen=True, slots=True, kw_only=True)
class FrameWrite:
    """The first transmission of one ``CARD`` frame."""

    seq: int
    card: str
    written_ns: int
    complete: bool


class _AckClock:
    """Stands between the pseudo-terminal and the shoe: notes when each ``ACK`` arrives."""

    def __init__(self, port: TimedPtyPort, shoe: PortEvents) -> None:
        self._port = port
        self._shoe = shoe

    def port_opened(self) -> None:
        self._shoe.port_opened()

    def port_closed(self) -> None:
        self._shoe.port_closed()

    def data_received(self, data: bytes) -> None:
        now = time.monotonic_ns()
        for match in _ACK_FRAME.finditer(data):
            self._port.acks.setdefault(int(match.group(1)), now)
        self._shoe.data_received(data)
        self._port.on_data()


class TimedPtyPort(PtyPort):
    """A ``PtyPort`` that timestamps each ``CARD`` frame right after its bytes were written.

    A frame counts as complete when ``os.write`` took all of it (nothing left waiting for the
    terminal); a resend (same ``seq``) keeps the first time. ``acks`` maps a ``seq`` to when
    the host's ``ACK`` of it arrived. Both forget their ``seq`` numbers at a ``HELLO``, when
    the shoe starts counting again.
    """

    def __init__(self, *, link: Path | None = None) -> None:
        super().__init__(link=link)
        self.card_writes: list[FrameWrite] = []
        self.acks: dict[int, int] = {}
        #: Called after bytes from the host were handled (the bench's waiters look again).
        self.on_data: Callable[[], None] = lambda: None
        self._written: set[int] = set()

    async def start(self, events: PortEvents) -> str:
        return await super().start(_AckClock(self, events))

    def write(self, data: bytes) -> None:
        super().write(data)
        now = time.monotonic_ns()
        if _HELLO_FRAME.search(data):
            self._written.clear()
            self.acks.clear()
        for match in _CARD_FRAME.finditer(data):
            seq = int(match.group(1))
            if seq not in self._written:
                self._written.add(seq)
                self.card_writes.append(
                    FrameWrite(
                        seq=seq,
                        card=match.group(2).decode(),
                        written_ns=now,
                        complete=not self._backlog,
                    )
                )


# --- the backend's side: every message, stamped on arrival -------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Arrival:
    """One message the backend subscriber got, with its arrival time."""

    at_ns: int
    topic: str
    retain: bool
    body: dict[str, Any]

    @property
    def seq(self) -> int:
        return int(self.body.get("seq", -1))


@dataclass
class Feed:
    """What the backend has received so far, sorted by kind; ``until`` waits for a condition."""

    cards: list[Arrival] = field(default_factory=list)
    prompts: list[Arrival] = field(default_factory=list)
    states: list[Arrival] = field(default_factory=list)
    statuses: list[Arrival] = field(default_factory=list)
    replies: dict[str, Arrival] = field(default_factory=dict)
    hops: dict[int, int] = field(default_factory=dict)
    topics: dict[str, int] = field(default_factory=dict)
    duplicates: int = 0
    _seqs: set[int] = field(default_factory=set)
    _wakeups: Wakeups = field(default_factory=Wakeups)

    def take(self, message: Received, at_ns: int) -> None:
        """Sort one message in and wake whoever waits."""
        if message.topic == HOP_TOPIC:
            self.hops.setdefault(int(json.loads(message.payload)["n"]), at_ns)
        else:
            body = json.loads(message.payload)
            arrival = Arrival(at_ns=at_ns, topic=message.topic, retain=message.retain, body=body)
            suffix = message.topic.removeprefix(TABLE_ROOT + "/")
            self.topics[suffix] = self.topics.get(suffix, 0) + 1
            if suffix == "status":
                self.statuses.append(arrival)
            elif "seq" not in body:
                pass  # the bench's own commands, echoed to the backend's wildcard
            elif arrival.seq in self._seqs and not message.retain:
                self.duplicates += 1  # QoS 1 may deliver twice; the first arrival counts
            else:
                self._seqs.add(arrival.seq)
                self._sort(suffix, arrival)
        self.wake()

    def forget_table(self) -> None:
        """Before a table starts on a fresh journal: its ``seq`` numbers start again from 1."""
        self.cards.clear()
        self.prompts.clear()
        self.states.clear()
        self.replies.clear()
        self.hops.clear()
        self._seqs.clear()

    def wake(self) -> None:
        """Let every ``until`` test its condition again."""
        self._wakeups.wake()

    def _sort(self, suffix: str, arrival: Arrival) -> None:
        if suffix == "events/card":
            self.cards.append(arrival)
        elif suffix == "events/prompt":
            self.prompts.append(arrival)
        elif suffix == "state":
            self.states.append(arrival)
        elif suffix == "commands/replies":
            self.replies[str(arrival.body.get("id"))] = arrival

    @property
    def state_seq(self) -> int:
        return self.states[-1].seq if self.states else -1

    @property
    def state(self) -> dict[str, Any] | None:
        return self.states[-1].body if self.states else None

    async def until(
        self, test: Callable[[], bool], what: str, timeout_s: float = STEP_TIMEOUT_S
    ) -> None:
        """Return once ``test()`` holds; raises ``BenchError`` naming ``what`` after a while."""
        try:
            await self._wakeups.until(test, timeout_s)
        except TimeoutError:
            raise BenchError(f"timed out waiting for {what}; last state: {self.state}") from None


async def collect(subscription: Subscription, feed: Feed) -> None:
    """Stamp and sort every message until cancelled."""
    while True:
        message = await subscription.get()
        feed.take(message, time.monotonic_ns())


# --- the service process -------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Start:
    """One start of ``table-controller run``: spawn to birth, and its idle memory."""

    birth_ns: int
    rss_kb: int


def vm_status(pid: int) -> dict[str, int]:
    """``VmRSS`` and ``VmHWM`` (kB) of a process."""
    values: dict[str, int] = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        key, _, rest = line.partition(":")
        if key in {"VmRSS", "VmHWM"}:
            values[key] = int(rest.split()[0])
    return values


#: The device key of ``--sign`` (signed messages), or None.
DEVICE_KEY: Path | None = None


async def spawn_service(
    workdir: Path, broker: Mosquitto, link: Path, journal: Path
) -> tuple[asyncio.subprocess.Process, int]:
    """Start ``table-controller run``; the process and the monotonic time just before the spawn."""
    env = dict(os.environ)
    if DEVICE_KEY is not None:
        env["TABLE_CONTROLLER_DEVICE_KEY"] = str(DEVICE_KEY)
    log = (workdir / "run.log").open("ab")
    try:
        started = time.monotonic_ns()
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "table_controller", "run",
            "--table-id", TABLE_ID, "--variant", "commission",
            "--port", str(link),
            "--journal", str(journal),
            "--broker", broker.url(TABLE_ID),
            "--display", "off",
            "--log-format", "json",
            env=env,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=log,
        )  # fmt: skip
    finally:
        log.close()
    return process, started


async def stop_service(process: asyncio.subprocess.Process) -> int:
    """SIGTERM and wait; the time it took to exit, in nanoseconds."""
    if process.returncode is not None:
        return 0
    started = time.monotonic_ns()
    process.send_signal(signal.SIGTERM)
    try:
        await asyncio.wait_for(process.wait(), 15)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise BenchError("table-controller run did not stop within 15 s of SIGTERM") from None
    if process.returncode != 0:
        raise BenchError(f"table-controller run exited with {process.returncode}")
    return time.monotonic_ns() - started


async def wait_birth(
    feed: Feed,
    since_ns: int,
    process: asyncio.subprocess.Process,
    timeout_s: float = STEP_TIMEOUT_S,
) -> int:
    """The arrival time of the first live ``online: true`` status after ``since_ns``."""

    def born() -> bool:
        if process.returncode is not None:
            raise BenchError(f"table-controller run exited with {process.returncode}")
        return any(
            s.body.get("online") is True and not s.retain and s.at_ns > since_ns
            for s in feed.statuses
        )

    await feed.until(born, "the table's birth (status online)", timeout_s)
    return next(
        s.at_ns
        for s in feed.statuses
        if s.body.get("online") is True and not s.retain and s.at_ns > since_ns
    )


async def reader_connected(feed: Feed, since_ns: int) -> None:
    """Wait for a live status reporting the shoe reader connected."""
    await feed.until(
        lambda: any(
            s.body.get("reader") == "connected" and not s.retain and s.at_ns > since_ns
            for s in feed.statuses
        ),
        "the reader connected (status reader=connected)",
    )


# --- driving the table as a backend --------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class CardSample:
    """One measured card."""

    card: str
    to_ack_ns: int
    to_event_ns: int
    to_prompt_ns: int | None
    #: Messages the table published between this card's event and its prompt.
    ahead_of_prompt: int | None
    #: Which round since the table started (1: the first round after the start).
    round_after_start: int


@dataclass
class Table:
    """The table as the bench drives it: commands over MQTT, cards from the virtual shoe."""

    feed: Feed
    publisher: aiomqtt.Client
    shoe: VirtualShoe
    port: TimedPtyPort
    seed: int
    gap_s: float
    samples: list[CardSample] = field(default_factory=list)
    #: Bare hops after the same pause as a card (the reference of the target).
    hops: list[int] = field(default_factory=list)
    #: Bare hops right after a card's messages, with no pause (shown for comparison).
    warm_hops: list[int] = field(default_factory=list)
    shoes_started: int = 0
    rounds_started: int = 0
    hop_payload_size: int = 0
    incomplete_writes: int = 0

    async def command(self, name: str, **args: object) -> None:
        """Send a command, wait for its reply (which must be ok), then for the new state."""
        command_id = uuid.uuid4().hex
        body = {"id": command_id, "command": name, "operator": "bench", "args": args}
        await self.publisher.publish(f"{TABLE_ROOT}/commands", json.dumps(body), qos=1)
        await self.feed.until(lambda: command_id in self.feed.replies, f"the reply to {name}")
        reply = self.feed.replies[command_id]
        if not reply.body.get("ok"):
            raise BenchError(f"{name} refused: {reply.body}")
        await self.feed.until(lambda: self.feed.state_seq > reply.seq, f"the state after {name}")

    async def new_shoe(self) -> None:
        """A freshly shuffled shoe in the virtual shoe, and ``new_shoe`` to the table."""
        self.shoes_started += 1
        cards = seeded_order(DECKS, self.seed * 1000 + self.shoes_started)
        self.shoe.shoe = Shoe(cards=cards, cut_depth=default_cut_depth(len(cards)))
        await self.command("new_shoe", shoe_id=f"B-{self.seed}-{self.shoes_started}")

    async def burn(self) -> None:
        before = self.feed.state_seq
        self.shoe.deal()
        await self.feed.until(lambda: self.feed.state_seq > before, "the state after a burn card")

    async def deal(self) -> None:
        """Deal one card the table asked for; measure it if it is a card (not the cut card).

        The card is dealt ``gap_s`` after the table's last message, as a dealer's hand would,
        so that it does not queue behind the table's own writes for the previous input.
        """
        await asyncio.sleep(self.gap_s)
        before = self.feed.state_seq
        writes = len(self.port.card_writes)
        dealt = self.shoe.deal()
        if isinstance(dealt, DealtCutCard):
            await self.feed.until(lambda: self.feed.state_seq > before, "the state after the cut")
            return
        if not isinstance(dealt, DealtCard):
            raise BenchError(f"the virtual shoe dealt {dealt!r}")
        index = len(self.samples)
        await self.feed.until(lambda: len(self.port.card_writes) > writes, "the CARD frame")
        await self.feed.until(lambda: len(self.feed.cards) > index, f"card event {index}")
        write = self.port.card_writes[writes]
        event = self.feed.cards[index]
        if not write.card == dealt.card == event.body.get("card"):
            raise BenchError(f"card {index}: dealt {dealt.card}, event {event.body}")
        self.incomplete_writes += not write.complete
        await self.feed.until(lambda: self.feed.state_seq > event.seq, "the state after a card")
        state_seq = self.feed.state_seq
        prompt = next(
            (p for p in reversed(self.feed.prompts) if event.seq < p.seq < state_seq), None
        )
        # The ACK left the table before the event, but this loop may read the socket first.
        await self.feed.until(lambda: write.seq in self.port.acks, f"the ACK of card {index}")
        ack = self.port.acks[write.seq]
        self.samples.append(
            CardSample(
                card=dealt.card,
                to_ack_ns=ack - write.written_ns,
                to_event_ns=event.at_ns - write.written_ns,
                to_prompt_ns=None if prompt is None else prompt.at_ns - write.written_ns,
                ahead_of_prompt=None if prompt is None else prompt.seq - event.seq - 1,
                round_after_start=self.rounds_started,
            )
        )
        if not self.hop_payload_size:
            self.hop_payload_size = len(json.dumps(event.body, separators=(",", ":")))
        await self.bare_hop(self.warm_hops)
        # The reference hop starts from the same pause as a card: after ``gap_s`` of quiet
        # the machine (its cores, the broker) wakes from idle for both, so a hop measured
        # right after the card's own traffic would be the faster, warm one.
        await asyncio.sleep(self.gap_s)
        await self.bare_hop(self.hops)

    async def bare_hop(self, into: list[int]) -> None:
        """One QoS 1 publish to receive through the same broker, to the same subscriber."""
        number = len(self.hops) + len(self.warm_hops)
        head = json.dumps({"n": number, "pad": ""}, separators=(",", ":"))
        pad = "x" * max(0, self.hop_payload_size - len(head))
        payload = json.dumps({"n": number, "pad": pad}, separators=(",", ":"))
        sent = time.monotonic_ns()
        await self.publisher.publish(HOP_TOPIC, payload, qos=1)
        await self.feed.until(lambda: number in self.feed.hops, f"bare hop {number}")
        into.append(self.feed.hops[number] - sent)

    async def step(self) -> None:
        """Do what the table's prompt asks."""
        state = self.feed.state
        prompt = None if state is None else state.get("prompt")
        action = None if prompt is None else prompt.get("action")
        if action is None or action == "shoe_over":
            await self.new_shoe()
        elif action == "burn":
            await self.burn()
        elif action in {"open_betting", "result"}:
            self.rounds_started += 1
            await self.command("open_betting")
            await self.command("close_betting")
        elif action in DEALING_ACTIONS:
            await self.deal()
        else:
            raise BenchError(f"the table asks for {action!r}: {state}")


# --- attribution -------------------------------------------------------------------------


def durable_commits(directory: Path, count: int) -> list[int]:
    """Nanoseconds per one-row SQLite commit with the journal's settings, in ``directory``."""
    path = directory / "fsync-probe.sqlite"
    connection = sqlite3.connect(path, isolation_level=None)
    try:
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        connection.execute("CREATE TABLE probe (n INTEGER PRIMARY KEY, body TEXT NOT NULL)")
        times: list[int] = []
        for number in range(count):
            started = time.monotonic_ns()
            connection.execute("BEGIN IMMEDIATE")
            connection.execute("INSERT INTO probe VALUES (?, ?)", (number, "x" * 200))
            connection.execute("COMMIT")
            times.append(time.monotonic_ns() - started)
    finally:
        connection.close()
    for leftover in directory.glob("fsync-probe.sqlite*"):
        leftover.unlink()
    return times


def outbox_card_times(journal: Path) -> list[int]:
    """Nanoseconds from ``added_at`` to ``acked_at`` of the outbox's card rows (ms resolution)."""
    connection = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        rows = connection.execute(
            "SELECT added_at, acked_at FROM outbox"
            " WHERE topic LIKE '%/events/card' AND acked_at IS NOT NULL"
        ).fetchall()
    finally:
        connection.close()

    def parse(text: str) -> datetime:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)

    return [int((parse(acked) - parse(added)).total_seconds() * 1e9) for added, acked in rows]


def interpreter_times(count: int) -> tuple[list[int], list[int]]:
    """Nanoseconds to run ``python -c pass``, and to import the ``run`` module, ``count`` times."""
    bare: list[int] = []
    imports: list[int] = []
    for times, code in ((bare, "pass"), (imports, "import table_controller.cli.run")):
        for _ in range(count):
            started = time.monotonic_ns()
            subprocess.run([sys.executable, "-c", code], check=True, cwd=ROOT)  # noqa: S603
            times.append(time.monotonic_ns() - started)
    return bare, imports


# --- the run -------------------------------------------------------------------------------


@dataclass
class Results:
    """Everything one run measured."""

    table: Table | None = None
    fresh_starts: list[Start] = field(default_factory=list)
    #: The cards of the first rounds after each fresh start (the main run's are in ``table``).
    after_starts: list[CardSample] = field(default_factory=list)
    replay_start: Start | None = None
    replayed_rows: int = 0
    stops_ns: list[int] = field(default_factory=list)
    rss_after_first_shoe: dict[str, int] = field(default_factory=dict)
    rss_at_end: dict[str, int] = field(default_factory=dict)
    commits_ns: list[int] = field(default_factory=list)
    outbox_ns: list[int] = field(default_factory=list)
    python_ns: list[int] = field(default_factory=list)
    import_ns: list[int] = field(default_factory=list)


def quiet(broker: Mosquitto) -> None:
    """Restart the broker without a log line per packet (the test set-up logs everything)."""
    broker.stop()
    text = broker.config_path.read_text().replace("log_type all\n", "log_type error\n")
    broker.config_path.write_text(text)
    broker.start()


@contextlib.contextmanager
def started_broker(*, log_all: bool) -> Iterator[Mosquitto]:
    missing = mosquitto_missing()
    if missing is not None:
        raise BenchError(missing)
    broker = start_broker(trustme.CA())
    try:
        if not log_all:
            quiet(broker)
        yield broker
    finally:
        broker.close()


def plain_client(endpoint: BrokerEndpoint, name: str) -> aiomqtt.Client:
    """An aiomqtt client logged in as ``endpoint`` says, with a unique id starting ``name``."""
    return aiomqtt.Client(
        endpoint.host,
        endpoint.port,
        username=endpoint.username,
        password=endpoint.password,
        identifier=f"{name}-{uuid.uuid4().hex[:8]}",
        socket_options=NO_DELAY,  # as the table's own client
    )


def new_virtual_shoe(link: Path, seed: int) -> tuple[VirtualShoe, TimedPtyPort]:
    port = TimedPtyPort(link=link)
    shoe = Shoe(cards=seeded_order(DECKS, seed), cut_depth=None)
    return VirtualShoe(shoe=shoe, session=ShoeDevice(), port=port), port


async def born(feed: Feed, spawned: int, process: asyncio.subprocess.Process) -> Start:
    """A table's start: from its spawn to its birth message, and its resident memory then."""
    birth = await wait_birth(feed, spawned, process)
    return Start(birth_ns=birth - spawned, rss_kb=vm_status(process.pid)["VmRSS"])


@dataclass(frozen=True, slots=True, kw_only=True)
class BenchRun:
    """What every table of one run shares: the work directory, broker, feed, publisher, options."""

    workdir: Path
    broker: Mosquitto
    feed: Feed
    publisher: aiomqtt.Client
    args: argparse.Namespace

    async def dealing(
        self, spawned: int, *, shoe: VirtualShoe, port: TimedPtyPort, seed: int
    ) -> Table:
        """The bench's dealer at a table spawned at ``spawned``, once the table has its reader."""
        await reader_connected(self.feed, spawned)
        port.on_data = self.feed.wake
        return Table(
            feed=self.feed,
            publisher=self.publisher,
            shoe=shoe,
            port=port,
            seed=seed,
            gap_s=self.args.gap_ms / 1000,
        )


async def first_rounds(table: Table) -> None:
    """Play a started table's first ``FIRST_ROUNDS`` rounds, from its new shoe on."""
    while True:
        state = table.feed.state
        prompt = None if state is None else state.get("prompt")
        action = None if prompt is None else prompt.get("action")
        if table.rounds_started >= FIRST_ROUNDS and action in {"open_betting", "result"}:
            return
        await table.step()


async def fresh_start(run: BenchRun, number: int) -> tuple[Start, int, list[CardSample]]:
    """Start a table with an empty journal, note its birth and memory, play its first rounds.

    Returns the start, the nanoseconds it took to stop after SIGTERM, and the cards measured.
    """
    link = run.workdir / f"shoe-start-{number}"
    virtual, port = new_virtual_shoe(link, number)
    run.feed.forget_table()
    async with virtual:
        journal = run.workdir / f"start-{number}.journal"
        process, spawned = await spawn_service(run.workdir, run.broker, link, journal)
        try:
            start = await born(run.feed, spawned, process)
            table = await run.dealing(
                spawned, shoe=virtual, port=port, seed=run.args.seed + 100 + number
            )
            await first_rounds(table)
        finally:
            stop_ns = await stop_service(process)
    return start, stop_ns, table.samples


async def play(workdir: Path, broker: Mosquitto, args: argparse.Namespace) -> Results:
    results = Results()
    backend = BrokerEndpoint.from_url(broker.url("backend"))
    feed = Feed()
    filters = [f"{TABLE_ROOT}/#", HOP_TOPIC]
    async with (
        Subscription(backend, filters, client_id=f"bench-backend-{uuid.uuid4().hex[:8]}") as sub,
        plain_client(backend, "bench-publisher") as publisher,
    ):
        await sub.wait_subscribed()
        collector = asyncio.create_task(collect(sub, feed), name="bench collector")
        run = BenchRun(workdir=workdir, broker=broker, feed=feed, publisher=publisher, args=args)
        try:
            for number in range(args.startups):
                start, stop_ns, samples = await fresh_start(run, number)
                results.fresh_starts.append(start)
                results.stops_ns.append(stop_ns)
                results.after_starts += samples
            await measure_cards(run, results)
        finally:
            collector.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await collector
    return results


async def measure_cards(run: BenchRun, results: Results) -> None:
    link = run.workdir / "shoe"
    journal = run.workdir / f"{TABLE_ID}.journal"
    virtual, port = new_virtual_shoe(link, run.args.seed)
    run.feed.forget_table()
    async with virtual:
        process, spawned = await spawn_service(run.workdir, run.broker, link, journal)
        try:
            results.fresh_starts.append(await born(run.feed, spawned, process))
            table = await run.dealing(spawned, shoe=virtual, port=port, seed=run.args.seed)
            results.table = table
            while len(table.samples) < run.args.cards:
                if table.shoes_started == 2 and not results.rss_after_first_shoe:
                    results.rss_after_first_shoe = vm_status(process.pid)
                await table.step()
            results.rss_at_end = vm_status(process.pid)
        finally:
            results.stops_ns.append(await stop_service(process))
        # Once more, replaying the whole journal before its birth.
        results.replayed_rows = journal_rows(journal)
        process, spawned = await spawn_service(run.workdir, run.broker, link, journal)
        try:
            results.replay_start = await born(run.feed, spawned, process)
        finally:
            await stop_service(process)
    results.outbox_ns = outbox_card_times(journal)


def journal_rows(journal: Path) -> int:
    """How many rows the journal holds (its ``events`` table)."""
    connection = sqlite3.connect(f"file:{journal}?mode=ro", uri=True)
    try:
        (count,) = connection.execute("SELECT count(*) FROM events").fetchone()
    finally:
        connection.close()
    return int(count)


# --- the report ------------------------------------------------------------------------------


def mb(kilobytes: int) -> float:
    return kilobytes / 1024


def verdict(met: bool) -> str:
    return "met" if met else "MISSED"


def report_first_rounds(results: Results, steady: Summary) -> None:
    """The first rounds after a start (fresh starts and the main run's), against the steady p99."""
    assert results.table is not None
    after_start = [*results.after_starts, *results.table.samples]
    starts = len(results.fresh_starts)
    print(f"the first rounds after a start ({starts} starts), card frame -> events/card:")
    summaries = [
        Summary.of(
            f"round {number} after the start",
            [s.to_event_ns for s in after_start if s.round_after_start == number],
        )
        for number in range(1, FIRST_ROUNDS + 1)
    ]
    for summary in summaries:
        print(summary.line())
    print(steady.line())
    ratio = summaries[0].p99_ms / steady.p99_ms
    print(
        f"first round after a start: p99 / steady p99 = {ratio:.2f} "
        f"(target <= {TARGET_FIRST_ROUND_RATIO:g}): {verdict(ratio <= TARGET_FIRST_ROUND_RATIO)}; "
        f"max of the first {FIRST_ROUNDS} rounds / steady p99 = "
        f"{max(s.max_ms for s in summaries) / steady.p99_ms:.2f}"
    )


def report(results: Results, args: argparse.Namespace) -> None:
    table = results.table
    assert table is not None
    samples = table.samples
    card = Summary.of("card frame -> events/card", [s.to_event_ns for s in samples])
    steady = Summary.of(
        f"steady state (round {FIRST_ROUNDS + 1} on)",
        [s.to_event_ns for s in samples if s.round_after_start > FIRST_ROUNDS],
    )
    bare = Summary.of("bare hop after the same pause as a card", table.hops)
    warm = Summary.of("bare hop right after a card (no pause)", table.warm_hops)
    prompts = [s.to_prompt_ns for s in samples if s.to_prompt_ns is not None]
    prompt = Summary.of("card frame -> events/prompt (when one follows)", prompts)
    ack = Summary.of(
        "  of which: card frame -> ACK read (journaled)", [s.to_ack_ns for s in samples]
    )
    after_ack = Summary.of(
        "  of which: ACK read -> events/card", [s.to_event_ns - s.to_ack_ns for s in samples]
    )
    print(
        f"cards measured: {len(samples)} in {table.shoes_started} shoes; bare hops: "
        f"{len(table.hops)} (payload {table.hop_payload_size} bytes, as a card event)"
    )
    print(
        f"CARD frames not written whole at once: {table.incomplete_writes}; "
        f"duplicate deliveries: {table.feed.duplicates}"
    )
    print("latency (monotonic clock of this process):")
    for summary in (card, ack, after_ack, prompt, bare, warm):
        print(summary.line())
    added = (card.p99_ms - bare.p99_ms) / bare.p99_ms
    print(f"service added at p99: (card p99 - bare p99) / bare p99 = {added:.2f} bare hops")
    added_prompt = (prompt.p99_ms - bare.p99_ms) / bare.p99_ms
    print(
        f"card to prompt at p99: (prompt p99 - bare p99) / bare p99 = {added_prompt:.2f} bare hops"
    )
    ahead = [s.ahead_of_prompt for s in samples if s.ahead_of_prompt is not None]
    if ahead:
        print(
            f"  messages published between a card event and its prompt: median "
            f"{statistics.median(ahead):g}, max {max(ahead)}"
        )
    added_p50 = (card.p50_ms - bare.p50_ms) / bare.p50_ms
    print(f"service added at p50: {added_p50:.2f} bare hops")
    added_warm = (card.p99_ms - warm.p99_ms) / warm.p99_ms
    print(f"against the hop right after a card instead: {added_warm:.2f} bare hops at p99")
    report_first_rounds(results, steady)
    print("attribution:")
    print(Summary.of("one durable SQLite commit (WAL, FULL)", results.commits_ns).line())
    print(Summary.of("outbox card row added_at -> acked_at (1 ms res.)", results.outbox_ns).line())
    print(f"  messages received per topic: {dict(sorted(table.feed.topics.items()))}")

    births = [start.birth_ns / 1e9 for start in results.fresh_starts]
    worst = max(births)
    print(
        f"start-up, spawn -> status birth, fresh journal ({len(births)} starts): median "
        f"{statistics.median(births):.3f} s, max {worst:.3f} s "
        f"(target < {TARGET_START_S:g} s): {verdict(worst < TARGET_START_S)}"
    )
    if results.replay_start is not None:
        print(
            f"start-up replaying the run's journal ({results.replayed_rows} rows): "
            f"{results.replay_start.birth_ns / 1e9:.3f} s"
        )
    print(
        f"  python -c pass: median {statistics.median(results.python_ns) / 1e9:.3f} s; "
        f"import table_controller.cli.run: median "
        f"{statistics.median(results.import_ns) / 1e9:.3f} s"
    )
    stops = [value / 1e9 for value in results.stops_ns]
    print(f"  SIGTERM -> exit: median {statistics.median(stops):.3f} s, max {max(stops):.3f} s")
    idle = [mb(start.rss_kb) for start in results.fresh_starts]
    print(f"resident memory: idle after birth median {statistics.median(idle):.1f} MB")
    first = results.rss_after_first_shoe
    end = results.rss_at_end
    if first:
        print(
            f"  after the first shoe: VmRSS {mb(first['VmRSS']):.1f} MB, "
            f"VmHWM {mb(first['VmHWM']):.1f} MB"
        )
    peak = mb(end["VmHWM"])
    print(
        f"  at the end ({len(samples)} cards): VmRSS {mb(end['VmRSS']):.1f} MB, "
        f"VmHWM {peak:.1f} MB (target < {TARGET_RSS_MB:g} MB): "
        f"{verdict(peak < TARGET_RSS_MB)}"
    )
    load = " ".join(Path("/proc/loadavg").read_text().split()[:3])
    print(f"load average at the end: {load}")
    print(
        f"command: {' '.join([Path(sys.executable).name, *sys.argv])}  "
        f"(cards {args.cards}, startups {args.startups}, seed {args.seed}, gap {args.gap_ms:g} ms"
        f"{', signed messages' if args.sign else ''})"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--cards", type=int, default=2000, help="cards to measure (>= 2000)")
    parser.add_argument("--startups", type=int, default=5, help="fresh start-ups to time")
    parser.add_argument("--seed", type=int, default=1, help="seed of the shoes' order")
    parser.add_argument(
        "--gap-ms",
        type=float,
        default=50.0,
        help="pause before each measured card, after the table's last message (default 50)",
    )
    parser.add_argument("--workdir", type=Path, help="where the journal goes (default: a temp dir)")
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    parser.add_argument(
        "--broker-log-all", action="store_true", help="keep mosquitto's log line per packet"
    )
    parser.add_argument(
        "--sign", action="store_true", help="run the table with a device key (signed messages)"
    )
    args = parser.parse_args()
    workdir = args.workdir or Path(tempfile.mkdtemp(prefix="bench-mqtt-"))
    workdir.mkdir(parents=True, exist_ok=True)
    if args.sign:
        global DEVICE_KEY  # noqa: PLW0603 - set once, before any table starts
        DEVICE_KEY = workdir / "device.key"
        if not DEVICE_KEY.exists():
            create_key_file(DEVICE_KEY)
        print(f"signed messages: device key {load_key_file(DEVICE_KEY).kid}")
    try:
        load = Path("/proc/loadavg").read_text().split()[:3]
        print(f"load average at the start: {' '.join(load)} ({os.cpu_count()} CPUs)")
        commits_before = durable_commits(workdir, 200)
        with started_broker(log_all=args.broker_log_all) as broker:
            results = asyncio.run(play(workdir, broker, args))
        results.commits_ns = commits_before + durable_commits(workdir, 200)
        results.python_ns, results.import_ns = interpreter_times(5)
        report(results, args)
    except BenchError as error:
        print(f"bench failed: {error}", file=sys.stderr)
        print(f"service log kept: {workdir / 'run.log'}", file=sys.stderr)
        return 1
    if not args.keep and args.workdir is None:
        shutil.rmtree(workdir, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
