# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor under the card latency target: the least a card's path can cost on this machine.

Bench script (not part of the product). ``bench_mqtt_latency.py`` measures the real service;
this one measures *minimal relays* written for the purpose, on the same kind of path, so that
the service's figure can be read against what the machine allows at all:

* ``relay``: a separate Python process reads a line from a pseudo-terminal and publishes it
  (QoS 1, a card event's size) with aiomqtt: no journal, no rules;
* ``durable``: the same, but the line is first committed to SQLite (WAL, ``synchronous=FULL``,
  the journal's setting) on a writer thread, as the service does before it publishes;
* ``durable-inline``: the commit on the event loop's own thread (what the style rules out for
  the service, measured to show what the thread hand-over costs).

Each card runs from right after its line was written to the pseudo-terminal to the arrival
of the relay's message at a subscriber, beside a bare QoS 1 publish-to-receive hop through
the same broker in the same run, one after every card, with the same pause between steps as
the service bench. Printed per relay: p50 and p99 of both, and ``(card p99 - bare p99) / bare
p99``, the quantity the latency target bounds at 1.

Usage: python bench/bench_card_path_floor.py [--cards N] [--gap-ms MS] [--relays a,b,c]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
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
    started_broker,
)
from table_controller.publishing.mqtt_settings import BrokerEndpoint  # noqa: E402
from table_controller.publishing.mqtt_subscriber import Subscription  # noqa: E402
from tests.wakeups import Wakeups  # noqa: E402

RELAYS: Final = ("relay", "durable", "durable-inline")
TOPIC: Final = "baccarat/tables/T07/events/card"
HOP_TOPIC: Final = "baccarat/bench/hop"
PAYLOAD_BYTES: Final = 209  # a card event's length, as in bench_mqtt_latency.py
STEP_TIMEOUT_S: Final = 10.0


def payload(number: int) -> bytes:
    """A JSON message of a card event's length that names its card number."""
    text = json.dumps({"n": number, "pad": ""})
    return json.dumps({"n": number, "pad": "x" * (PAYLOAD_BYTES - len(text))}).encode()


# --- the relay process ---------------------------------------------------------------------


class Relay:
    """Reads card lines from a pseudo-terminal and publishes each, after a commit if asked."""

    def __init__(self, kind: str, client: aiomqtt.Client, database: Path) -> None:
        self._kind = kind
        self._client = client
        self._writer = ThreadPoolExecutor(max_workers=1, thread_name_prefix="relay-writer")
        self._connection = sqlite3.connect(database, isolation_level=None, check_same_thread=False)
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=FULL")
        self._connection.execute("CREATE TABLE IF NOT EXISTS lines (n INTEGER, line TEXT)")
        self._buffer = b""
        self._queue: asyncio.Queue[bytes] = asyncio.Queue()
        self._tasks: set[asyncio.Task[None]] = set()

    def commit(self, line: bytes) -> None:
        self._connection.execute("BEGIN IMMEDIATE")
        self._connection.execute("INSERT INTO lines VALUES (?, ?)", (len(line), line.decode()))
        self._connection.execute("COMMIT")

    def readable(self, fd: int) -> None:
        self._buffer += os.read(fd, 4096)
        *lines, self._buffer = self._buffer.split(b"\n")
        for line in lines:
            self._queue.put_nowait(line)

    async def run(self) -> None:
        loop = asyncio.get_running_loop()
        while True:
            line = await self._queue.get()
            if self._kind == "durable":
                await loop.run_in_executor(self._writer, self.commit, line)
            elif self._kind == "durable-inline":
                self.commit(line)
            task = asyncio.create_task(
                self._client.publish(TOPIC, payload(int(line.split()[1])), qos=1)
            )
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)


async def relay_main(kind: str, terminal: str, url: str, database: Path) -> None:
    endpoint = BrokerEndpoint.from_url(url)
    fd = os.open(terminal, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
    tty.setraw(fd)
    async with plain_client(endpoint, f"floor-{kind}") as client:
        relay = Relay(kind, client, database)
        asyncio.get_running_loop().add_reader(fd, relay.readable, fd)
        print("ready", flush=True)
        await relay.run()


# --- the bench's side ------------------------------------------------------------------------


@dataclass(slots=True)
class Arrivals:
    """When each numbered message arrived, by topic kind."""

    cards: dict[int, int] = field(default_factory=dict)
    hops: dict[int, int] = field(default_factory=dict)
    wakeups: Wakeups = field(default_factory=Wakeups)

    async def collect(self, subscription: Subscription) -> None:
        async for message in subscription:
            now = time.monotonic_ns()
            number = int(json.loads(message.payload)["n"])
            target = self.hops if message.topic == HOP_TOPIC else self.cards
            target.setdefault(number, now)
            self.wakeups.wake()

    async def until(self, table: dict[int, int], number: int) -> int:
        """When message ``number`` arrived, once it has."""
        try:
            await self.wakeups.until(lambda: number in table, STEP_TIMEOUT_S)
        except TimeoutError:
            raise BenchError(f"message {number} did not arrive") from None
        return table[number]


@dataclass(frozen=True, slots=True)
class Outcome:
    relay: str
    cards: Summary
    bare: Summary

    @property
    def added_hops(self) -> float:
        return (self.cards.p99_ms - self.bare.p99_ms) / self.bare.p99_ms


async def measure(
    kind: str, url: str, backend: BrokerEndpoint, args: argparse.Namespace
) -> Outcome:
    master, slave = os.openpty()
    tty.setraw(slave)
    terminal = os.ttyname(slave)
    workdir = Path(tempfile.mkdtemp(prefix="bench-floor-", dir=args.workdir))
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        __file__,
        "--serve",
        kind,
        terminal,
        url,
        str(workdir / "relay.db"),
        stdout=asyncio.subprocess.PIPE,
    )
    arrivals = Arrivals()
    card_ns: list[int] = []
    hop_ns: list[int] = []
    try:
        assert process.stdout is not None
        async with asyncio.timeout(STEP_TIMEOUT_S):
            if (await process.stdout.readline()).strip() != b"ready":
                raise BenchError(f"the {kind} relay did not start")
        async with (
            Subscription(
                backend, [TOPIC, HOP_TOPIC], client_id=f"floor-{uuid.uuid4().hex[:6]}"
            ) as subscription,
            plain_client(backend, "floor-hop") as publisher,
        ):
            await subscription.wait_subscribed()
            collector = asyncio.create_task(arrivals.collect(subscription))
            gap_s = args.gap_ms / 1000
            try:
                for number in range(args.cards):
                    os.write(master, f"CARD {number:06d}\n".encode())
                    written = time.monotonic_ns()
                    card_ns.append(await arrivals.until(arrivals.cards, number) - written)
                    await asyncio.sleep(gap_s)
                    sent = time.monotonic_ns()
                    await publisher.publish(HOP_TOPIC, payload(number), qos=1)
                    hop_ns.append(await arrivals.until(arrivals.hops, number) - sent)
                    await asyncio.sleep(gap_s)
            finally:
                collector.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await collector
    finally:
        process.terminate()
        await process.wait()
        os.close(master)
        os.close(slave)
    return Outcome(
        relay=kind,
        cards=Summary.of(f"{kind}: line -> message", card_ns),
        bare=Summary.of("bare hop (QoS 1 publish -> receive)", hop_ns),
    )


async def bench(args: argparse.Namespace) -> list[Outcome]:
    with started_broker(log_all=False) as broker:
        backend = BrokerEndpoint.from_url(broker.url("backend"))
        return [await measure(kind, broker.url("T07"), backend, args) for kind in args.relays]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cards", type=int, default=2000)
    parser.add_argument("--gap-ms", type=float, default=50.0)
    parser.add_argument("--relays", default=",".join(RELAYS))
    parser.add_argument("--workdir", default=None, help="where the relay's database goes")
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
    print(f"load average at the start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    for outcome in asyncio.run(bench(args)):
        print(f"{outcome.relay}:")
        print(outcome.cards.line())
        print(outcome.bare.line())
        print(f"  added at p99: {outcome.added_hops:.2f} bare hops (target <= 1)")
    print(f"load average at the end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"command: python bench/bench_card_path_floor.py {' '.join(sys.argv[1:])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
