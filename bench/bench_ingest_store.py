# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest store's throughput: a message per transaction against batches, same process.

A benchmark script, not part of the product. One real virtual table plays a shoe (the messages
of ``tests/support/ingest_table.py``: rounds, a void, corrections, every retained topic); its
messages are copied under ``--tables`` table ids and interleaved as a pit's tables publish them.
They are stored into a fresh PostgreSQL database (``tests/support/postgres.py``: Debian's server
in a temp directory) by ``--tasks`` concurrent tasks, as a worker's consumers do, first one
message per transaction (``IngestStore.store``, the baseline) and then in batches of ``--batch``
(``IngestStore.store_batch``, what the worker does), alternating ``--rounds`` times, each run on a
new database. It prints each run's messages per second, the medians and their ratio, and checks
that both ways stored every message once with the same rounds.

Run: ``python bench/bench_ingest_store.py [--tables 20] [--batch 50] [--rounds 3]``.
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TypeAlias

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from table_controller.ingest.checked_messages import Received
from table_controller.ingest.store import IngestStore, StoreOutcome
from tests.support.ingest_table import play_table
from tests.support.postgres import (
    Postgres,
    postgres_missing,
    psql,
    temporary_postgres,
)

Store: TypeAlias = Callable[[IngestStore, Sequence[Received], int, int], Awaitable[None]]


def fleet_messages(played: list[tuple[str, bytes]], tables: int) -> list[Received]:
    """The table's messages under ``tables`` ids, merged as independent tables publish them.

    Each table keeps its own order; which table publishes next is drawn at random (seeded), so
    the tables are not in step: their results do not all fall in one batch.
    """
    pending: list[list[Received]] = []
    for number in range(tables):
        table_id = f"B{number:03d}"
        pending.append(
            [
                Received(
                    topic.replace("/V1/", f"/{table_id}/"),
                    payload.replace(b'"table_id":"V1"', f'"table_id":"{table_id}"'.encode()),
                    None,
                )
                for topic, payload in reversed(played)
            ]
        )
    draw = random.Random(22)  # an order of publication, not a secret
    merged = []
    while pending:
        table = draw.randrange(len(pending))
        merged.append(pending[table].pop())
        if not pending[table]:
            pending.pop(table)
    return merged


async def one_by_one(store: IngestStore, work: Sequence[Received], tasks: int, _b: int) -> None:
    """The baseline: each task stores one message per transaction."""
    queue = iter(work)

    async def task() -> None:
        for message in queue:
            await store.store(message.topic, message.payload, verified=message.verified)

    await asyncio.gather(*(task() for _ in range(tasks)))


async def batched(store: IngestStore, work: Sequence[Received], tasks: int, batch: int) -> None:
    """Each task takes up to ``batch`` messages and stores them in one transaction."""
    chunks = iter([work[i : i + batch] for i in range(0, len(work), batch)])

    async def task() -> None:
        for chunk in chunks:
            await store.store_batch(chunk)

    await asyncio.gather(*(task() for _ in range(tasks)))


async def timed_run(
    server: Postgres, name: str, way: Store, work: Sequence[Received], options: argparse.Namespace
) -> tuple[float, list[tuple[object, ...]]]:
    """Messages per second of one way on a new database, and the rounds it left."""
    await asyncio.to_thread(psql, server, f"CREATE DATABASE {name}")
    store = await IngestStore.open(server.url(name))
    try:
        started = time.perf_counter()
        await way(store, work, options.tasks, options.batch)
        elapsed = time.perf_counter() - started
        assert store.counts[StoreOutcome.STORED] == len(work), store.counts
        rounds = await store.execute(
            "SELECT table_id, round_id, status, winner, player_cards, banker_cards FROM rounds "
            "ORDER BY table_id, round_id"
        )
        settlements = await store.execute("SELECT count(*) FROM round_settlements")
    finally:
        await store.close()
    return len(work) / elapsed, [*rounds, *settlements]


async def main_async(options: argparse.Namespace) -> int:
    with tempfile.TemporaryDirectory(prefix="tc-bench-ingest-") as directory:
        played = await play_table(Path(directory))
        work = fleet_messages(played.messages, options.tables)
        print(f"{len(work)} messages: {options.tables} tables x {len(played.messages)}")
        with temporary_postgres("tc-bench-ingest-postgres-") as server:
            rates: dict[str, list[float]] = {"single": [], "batched": []}
            outcomes: dict[str, list[tuple[object, ...]]] = {}
            for round_no in range(options.rounds):
                for name, way in (("single", one_by_one), ("batched", batched)):
                    rate, rows = await timed_run(server, f"{name}_{round_no}", way, work, options)
                    rates[name].append(rate)
                    outcomes.setdefault(name, rows)
                    print(f"  round {round_no + 1} {name:8} {rate:8.0f} messages/s")
    assert outcomes["single"] == outcomes["batched"], "the two ways left different rounds"
    single, together = (statistics.median(rates[name]) for name in ("single", "batched"))
    print(f"one per transaction: {single:.0f} messages/s (median of {options.rounds})")
    print(f"batches of {options.batch}: {together:.0f} messages/s")
    print(f"ratio batched / one per transaction: {together / single:.2f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=20)
    parser.add_argument("--batch", type=int, default=50)
    parser.add_argument("--tasks", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()
    if (missing := postgres_missing()) is not None:
        print(f"PostgreSQL cannot run here: {missing}", file=sys.stderr)
        return 2
    return asyncio.run(main_async(options))


if __name__ == "__main__":
    raise SystemExit(main())
