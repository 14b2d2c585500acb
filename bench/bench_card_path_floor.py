# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table's card latency against the floor: a minimal durable relay, in the same run.

Bench script (not part of the product). In one run, on the same kind of pseudo-terminal
(``os.openpty`` in raw mode) and through the same mosquitto, it measures:

* the table: ``table-controller run`` dealt whole shoes by the virtual shoe, as
  ``bench_mqtt_latency.py`` drives it (a backend sends the commands the prompts ask for), from
  the last byte of a ``CARD`` frame written to the pseudo-terminal to the arrival of its
  ``events/card`` at a backend subscriber (QoS 1);
* minimal relays, each a separate Python process given the same SRP/1 ``CARD`` frames:

  * ``durable`` (the floor): the frame is committed to SQLite (WAL, ``synchronous=FULL``, the
    journal's setting) on a writer thread, the ``ACK`` is written back to the shoe on the
    pseudo-terminal, then the card is published (QoS 1, a card event's size): the table's
    order, journal then ACK then publish, with nothing else;
  * ``durable-inline``: the same with the commit on the event loop's own thread (what the
    style rules out for the service, measured to show what the thread hand-over costs);
  * ``relay``: the ``ACK`` and the publish, no commit.

Each relay deals half its cards before the table and half after it, so that both sample the
same stretch of the machine's noise. Every card is dealt after the same pause (``--gap-ms``);
each relay card is followed by a bare QoS 1 publish-to-receive hop through the same broker,
printed for reference. Printed: p50 and p99 of the table and of each relay (line to message
and line to ``ACK``), and the ratio table p99 / ``durable`` p99 against its target, at most 2.

Usage: python bench/bench_card_path_floor.py [--cards N] [--gap-ms MS] [--relays a,b,c]
       [--seed S] [--workdir DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import re
import sqlite3
import sys
import tempfile
import time
import tty
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

import aiomqtt

ROOT: Final = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench.bench_mqtt_latency import (  # noqa: E402
    BenchError,
    Summary,
    plain_client,
    play,
    started_broker,
)
from drivers.srp.frames import SEQ_MODULUS, Frame, FrameType, Talker  # noqa: E402
from table_controller.mqtt.client.subscriber import Subscription  # noqa: E402
from table_controller.mqtt.settings import BrokerEndpoint  # noqa: E402
from tests.mosquitto import Mosquitto  # noqa: E402
from tests.wakeups import Wakeups  # noqa: E402

RELAYS: Final = ("durable", "durable-inline", "relay")
#: The relay the table is held against.
FLOOR: Final = "durable"
#: The table's card p99 at most this many times the floor relay's.
TARGET_RATIO: Final = 2.0
TOPIC: Final = "baccarat/tables/T07/events/card"
HOP_TOPIC: Final = "baccarat/bench/hop"
PAYLOAD_BYTES: Final = 209  # a card event's length, as in bench_mqtt_latency.py
STEP_TIMEOUT_S: Final = 10.0
CARD_CODES: Final = tuple(f"{rank}{suit}" for suit in "SHDC" for rank in "A23456789TJQK")
_ACK_FRAME: Final = re.compile(rb"\$HO,\d+,ACK,(\d+)\*")


def payload(number: int) -> bytes:
    """A JSON message of a card event's length that names its card number."""
    text = json.dumps({"n": number, "pad": ""})
    return json.dumps({"n": number, "pad": "x" * (PAYLOAD_BYTES - len(text))}).encode()


def card_frame(number: int) -> bytes:
    """The SRP/1 ``CARD`` frame a shoe sends for its card ``number`` (``seq`` = ``number``)."""
    card = CARD_CODES[number % len(CARD_CODES)]
    return Frame(talker=Talker.SHOE, seq=number, type=FrameType.CARD, fields=(card,)).encode()


# --- the relay process ---------------------------------------------------------------------


class Relay:
    """Reads card frames from a pseudo-terminal; commits, acknowledges and publishes each."""

    def __init__(self, kind: str, client: aiomqtt.Client, database: Path, fd: int) -> None:
        self._kind = kind
        self._client = client
        self._fd = fd
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="relay-writer")
        self._connection = sqlite3.connect(database, isolation_level=None, check_same_thread=False)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=FULL")
        self._connection.execute("CREATE TABLE IF NOT EXISTS lines (n INTEGER, line TEXT)")
        self._buffer = b""
        self._queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._tasks: set[asyncio.Task[None]] = set()
        self._acks = 0

    def commit(self, line: bytes) -> None:
        self._connection.execute("BEGIN IMMEDIATE")
        self._connection.execute("INSERT INTO lines VALUES (?, ?)", (len(line), line.decode()))
        self._connection.execute("COMMIT")

    def readable(self) -> None:
        self._buffer += os.read(self._fd, 4096)
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            self._queue.put_nowait(line)

    def acknowledge(self, seq: int) -> None:
        ack = Frame(talker=Talker.HOST, seq=self._acks, type=FrameType.ACK, fields=(str(seq),))
        self._acks += 1
        os.write(self._fd, ack.encode())

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            line = await self._queue.get()
            if self._kind == "durable":
                await loop.run_in_executor(self._writer, self.commit, line)
            elif self._kind == "durable-inline":
                self.commit(line)
            seq = int(line.split(b",")[1])
            self.acknowledge(seq)
            task = asyncio.create_task(self._client.publish(TOPIC, payload(seq), qos=1))
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)


async def relay_main(kind: str, terminal: str, url: str, database: Path) -> None:
    endpoint = BrokerEndpoint.from_url(url)
    fd = os.open(terminal, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    tty.setraw(fd)
    async with plain_client(endpoint, f"floor-{kind}") as client:
        relay = Relay(kind, client, database, fd)
        asyncio.get_running_loop().add_reader(fd, relay.readable)
        print("ready", flush=True)
        await relay.run()


# --- the bench's side ------------------------------------------------------------------------


@dataclass(slots=True)
class Arrivals:
    """When each numbered message and ``ACK`` arrived."""

    cards: dict[int, int] = field(default_factory=dict)
    hops: dict[int, int] = field(default_factory=dict)
    acks: dict[int, int] = field(default_factory=dict)
    wakeups: Wakeups = field(default_factory=Wakeups)
    _line: bytes = b""

    async def collect(self, subscription: Subscription) -> None:
        async for message in subscription:
            now = time.monotonic_ns()
            number = int(json.loads(message.payload)["n"])
            target = self.hops if message.topic == HOP_TOPIC else self.cards
            target.setdefault(number, now)
            self.wakeups.wake()

    def shoe_readable(self, master: int) -> None:
        """Bytes from the relay on the shoe's side: note when each ``ACK`` arrived."""
        now = time.monotonic_ns()
        self._line += os.read(master, 4096)
        *frames, self._line = self._line.split(b"\n")
        for frame in frames:
            if match := _ACK_FRAME.search(frame):
                self.acks.setdefault(int(match.group(1)), now)
        self.wakeups.wake()

    async def until(self, table: dict[int, int], number: int, what: str) -> int:
        """When ``what`` ``number`` arrived, once it has."""
        try:
            await self.wakeups.until(lambda: number in table, STEP_TIMEOUT_S)
        except TimeoutError:
            raise BenchError(f"{what} {number} did not arrive") from None
        return table[number]


@dataclass(slots=True)
class RelaySeries:
    """What one relay measured, over all its parts."""

    card_ns: list[int] = field(default_factory=list)
    ack_ns: list[int] = field(default_factory=list)
    hop_ns: list[int] = field(default_factory=list)


async def measure_relay(  # noqa: PLR0913 - the run's parts, handed down once
    kind: str,
    numbers: range,
    *,
    broker: Mosquitto,
    workdir: Path,
    gap_s: float,
    into: RelaySeries,
) -> None:
    """Deal the cards ``numbers`` to a fresh ``kind`` relay process."""
    master, slave = os.openpty()
    tty.setraw(master)
    tty.setraw(slave)
    terminal = os.ttyname(slave)
    database = Path(tempfile.mkdtemp(prefix=f"floor-{kind}-", dir=workdir)) / "relay.db"
    process = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--serve", kind, terminal, broker.url("T07"), str(database),
        stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    backend = BrokerEndpoint.from_url(broker.url("backend"))
    arrivals = Arrivals()
    loop = asyncio.get_running_loop()
    try:
        assert process.stdout is not None
        async with asyncio.timeout(STEP_TIMEOUT_S):
            if (await process.stdout.readline()).strip() != b"ready":
                raise BenchError(f"the {kind} relay did not start")
        loop.add_reader(master, arrivals.shoe_readable, master)
        async with (
            Subscription(
                backend, [TOPIC, HOP_TOPIC], client_id=f"floor-{uuid.uuid4().hex[:6]}"
            ) as subscription,
            plain_client(backend, "floor-hop") as publisher,
        ):
            await subscription.wait_subscribed()
            collector = asyncio.create_task(arrivals.collect(subscription))
            try:
                for number in numbers:
                    await asyncio.sleep(gap_s)
                    os.write(master, card_frame(number))
                    written = time.monotonic_ns()
                    arrived = await arrivals.until(arrivals.cards, number, "card")
                    acked = await arrivals.until(arrivals.acks, number, "the ACK of card")
                    into.card_ns.append(arrived - written)
                    into.ack_ns.append(acked - written)
                    await asyncio.sleep(gap_s)
                    sent = time.monotonic_ns()
                    await publisher.publish(HOP_TOPIC, payload(number), qos=1)
                    into.hop_ns.append(await arrivals.until(arrivals.hops, number, "hop") - sent)
            finally:
                collector.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await collector
    finally:
        loop.remove_reader(master)
        process.terminate()
        await process.wait()
        os.close(master)
        os.close(slave)


@dataclass(frozen=True, slots=True)
class Outcome:
    """The run's figures: the table's and each relay's."""

    table_cards: Summary
    table_acks: Summary
    relays: dict[str, tuple[Summary, Summary, Summary]]


async def bench(args: argparse.Namespace, workdir: Path) -> Outcome:
    gap_s = args.gap_ms / 1000
    half = args.cards // 2
    series = {kind: RelaySeries() for kind in args.relays}
    with started_broker(log_all=False) as broker:

        async def deal(kind: str, numbers: range) -> None:
            await measure_relay(
                kind, numbers, broker=broker, workdir=workdir, gap_s=gap_s, into=series[kind]
            )

        for kind in args.relays:
            await deal(kind, range(half))
        table_args = argparse.Namespace(
            cards=args.cards, startups=0, seed=args.seed, gap_ms=args.gap_ms
        )
        (workdir / "table").mkdir()
        results = await play(workdir / "table", broker, table_args)
        for kind in args.relays:
            await deal(kind, range(half, args.cards))
    assert results.table is not None
    samples = results.table.samples
    to_event = [s.to_event_ns for s in samples]
    return Outcome(
        table_cards=Summary.of("table: card frame -> events/card", to_event),
        table_acks=Summary.of("table: card frame -> ACK read", [s.to_ack_ns for s in samples]),
        relays={
            kind: (
                Summary.of(f"{kind}: card frame -> message", measured.card_ns),
                Summary.of(f"{kind}: card frame -> ACK read", measured.ack_ns),
                Summary.of(f"{kind}: its bare hops", measured.hop_ns),
            )
            for kind, measured in series.items()
        },
    )


def report(outcome: Outcome) -> None:
    print(outcome.table_cards.line())
    print(outcome.table_acks.line())
    for cards, acks, hop in outcome.relays.values():
        print(cards.line())
        print(acks.line())
        print(hop.line())
    for kind, (cards, _, _) in outcome.relays.items():
        p50 = outcome.table_cards.p50_ms / cards.p50_ms
        p99 = outcome.table_cards.p99_ms / cards.p99_ms
        line = f"table / {kind}: p50 {p50:.2f}x, p99 {p99:.2f}x"
        if kind == FLOOR:
            verdict = "met" if p99 <= TARGET_RATIO else "MISSED"
            line += f" (target: p99 at most {TARGET_RATIO:g}x): {verdict}"
        print(line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=2000, help="for the table and each relay")
    parser.add_argument("--gap-ms", type=float, default=50.0)
    parser.add_argument("--relays", default=",".join(RELAYS))
    parser.add_argument("--seed", type=int, default=1, help="seed of the table's shoes")
    parser.add_argument("--workdir", default=None, help="where the journals go")
    parser.add_argument(
        "--serve", nargs=4, metavar=("KIND", "TTY", "URL", "DB"), help=argparse.SUPPRESS
    )
    args = parser.parse_args()
    if args.serve:
        kind, terminal, url, database = args.serve
        with contextlib.suppress(KeyboardInterrupt):
            asyncio.run(relay_main(kind, terminal, url, Path(database)))
        return 0
    args.relays = [kind for kind in args.relays.split(",") if kind]
    unknown = set(args.relays) - set(RELAYS)
    if unknown:
        parser.error(f"unknown relays: {sorted(unknown)}; choose from {RELAYS}")
    if not 2 <= args.cards < SEQ_MODULUS:
        parser.error(f"--cards must be from 2 to {SEQ_MODULUS - 1}")
    if FLOOR not in args.relays:
        parser.error(f"the relays must include {FLOOR!r}, the one the target is set against")
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    with tempfile.TemporaryDirectory(prefix="bench-floor-", dir=args.workdir) as folder:
        try:
            outcome = asyncio.run(bench(args, Path(folder)))
        except BenchError as error:
            print(f"bench failed: {error}", file=sys.stderr)
            return 1
    report(outcome)
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"command: python bench/bench_card_path_floor.py {' '.join(sys.argv[1:])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
