# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A real table's messages into the store: any order, duplicates, batches: equal to its journal."""

from __future__ import annotations

import asyncio
import random
from fractions import Fraction
from pathlib import Path

import pytest

from table_controller.ingest.checked_messages import Received
from table_controller.ingest.store import IngestStore, StoreOutcome
from tests.support.ingest_table import PlayedTable, play_table, replayed_rounds

#: The projections, each with an order that makes its dump comparable.
TABLES = {
    "rounds": "table_id, round_id",
    "round_settlements": "table_id, round_id, bet",
    "round_history": "table_id, seq",
    "shoes": "table_id, shoe_id",
    "alarms": "table_id, seq",
}


async def dump(store: IngestStore) -> dict[str, list[tuple[object, ...]]]:
    return {
        table: await store.execute(f"SELECT * FROM {table} ORDER BY {order}")
        for table, order in TABLES.items()
    }


async def fill(
    url: str, played: PlayedTable, order: list[int], *, largest_batch: int = 1
) -> dict[str, list[tuple[object, ...]]]:
    """Store the messages in ``order``, in batches of 1 to ``largest_batch`` (drawn, seeded)."""
    store = await IngestStore.open(url)
    sizes = random.Random(largest_batch)
    try:
        start = 0
        while start < len(order):
            size = sizes.randint(1, largest_batch)
            batch = [Received(*played.messages[i], None) for i in order[start : start + size]]
            start += size
            outcomes = await store.store_batch(batch)
            assert set(outcomes) <= {StoreOutcome.STORED, StoreOutcome.DUPLICATE}
        assert await store.gaps("V1") == []
        return await dump(store)
    finally:
        await store.close()


async def test_any_order_with_duplicates_gives_the_same_tables(
    database_url: str, tmp_path: Path
) -> None:
    played = await play_table(tmp_path)
    count = len(played.messages)
    in_order = await fill(database_url, played, list(range(count)))
    assert in_order["rounds"], "the table settled no round"
    for seed, largest_batch in ((1, 1), (2, 40), (3, 100)):
        shuffled = list(range(count)) + random.Random(seed).sample(range(count), count // 3)
        random.Random(seed).shuffle(shuffled)
        if database_url.startswith("sqlite"):
            url = f"sqlite:///{tmp_path / f'shuffled-{seed}.sqlite'}"
        else:
            url = await _fresh_postgres(database_url, seed)
        stored = await fill(url, played, shuffled, largest_batch=largest_batch)
        assert stored == in_order, f"permutation {seed}, batches up to {largest_batch}"


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_workers_storing_one_tables_rounds_at_once_give_the_same_tables(
    database_url: str, tmp_path: Path
) -> None:
    """Four workers (each its own connections) store one table's messages, interleaved, at once.

    Each round's and shoe's rebuild takes its advisory lock; the batches lock in one order. On
    PostgreSQL the transactions really overlap: the tables equal one-by-one storage, with no
    deadlock. (SQLite has one writer: nothing overlaps there.)
    """
    played = await play_table(tmp_path)
    count = len(played.messages)
    in_order = await fill(database_url, played, list(range(count)))
    for seed in (9, 10):
        stored = await store_at_once(await _fresh_postgres(database_url, seed), played, seed)
        assert stored == in_order, f"seed {seed}"


async def store_at_once(
    url: str, played: PlayedTable, seed: int, workers: int = 4
) -> dict[str, list[tuple[object, ...]]]:
    """Every message twice, shuffled, dealt to ``workers`` stores that write at once."""
    shuffled = list(range(len(played.messages))) * 2
    random.Random(seed).shuffle(shuffled)
    stores = [await IngestStore.open(url) for _ in range(workers)]

    async def work(store: IngestStore, share: list[int]) -> None:
        sizes = random.Random(len(share))
        while share:
            size = sizes.randint(1, 12)
            batch = [Received(*played.messages[i], None) for i in share[:size]]
            del share[:size]
            outcomes = await store.store_batch(batch)
            assert set(outcomes) <= {StoreOutcome.STORED, StoreOutcome.DUPLICATE}

    try:
        shares = [shuffled[n::workers] for n in range(workers)]
        pairs = zip(stores, shares, strict=True)
        await asyncio.gather(*(work(store, share) for store, share in pairs))
        assert await stores[0].gaps("V1") == []
        stored = sum(store.counts[StoreOutcome.STORED] for store in stores)
        assert stored == len(played.messages)
        return await dump(stores[0])
    finally:
        for store in stores:
            await store.close()


async def _fresh_postgres(url: str, seed: int) -> str:
    """Another database on the same PostgreSQL server as ``url``."""
    import asyncpg  # noqa: PLC0415 - only the PostgreSQL runs need it

    base, _, name = url.rpartition("/")
    connection = await asyncpg.connect(url)
    try:
        await connection.execute(f"CREATE DATABASE {name}_s{seed}")
    finally:
        await connection.close()
    return f"{base}/{name}_s{seed}"


async def test_every_round_row_equals_the_tables_journal_replayed(
    store: IngestStore, tmp_path: Path
) -> None:
    played = await play_table(tmp_path)
    for topic, payload in played.messages:
        await store.store(topic, payload, verified=None)
    expected = await replayed_rounds(played.journal)
    rows = await store.execute(
        "SELECT round_id, status, winner, player_cards, banker_cards, correction_no, seq,"
        " void_reason FROM rounds WHERE table_id = 'V1'"
    )
    assert {row[0] for row in rows} == set(expected)
    for round_id, status, winner, player, banker, correction_no, seq, reason in rows:
        want = expected[str(round_id)]
        assert (status, seq) == (want["status"], want["seq"]), round_id
        if status == "voided":
            assert reason == want["reason"]
            continue
        assert (winner, player, banker, correction_no) == (
            want["winner"],
            want["player_cards"],
            want["banker_cards"],
            want["correction_no"],
        ), round_id
    settlements = await store.execute(
        "SELECT round_id, bet, numerator, denominator FROM round_settlements"
    )
    held: dict[str, dict[str, Fraction | None]] = {}
    for round_id, bet, numerator, denominator in settlements:
        value = None if numerator is None else Fraction(int(str(numerator)), int(str(denominator)))
        held.setdefault(str(round_id), {})[str(bet)] = value
    assert held == {rid: want["settlement"] for rid, want in expected.items() if want["settlement"]}
    statuses = {row[0]: row[1] for row in rows}
    assert (statuses["S-A-3"], statuses["S-A-5"], statuses["S-A-7"]) == (
        "voided",
        "corrected",
        "voided",
    )


async def test_voids_and_corrections_keep_their_history_and_who_made_them(
    store: IngestStore, tmp_path: Path
) -> None:
    played = await play_table(tmp_path)
    for topic, payload in reversed(played.messages):
        await store.store(topic, payload, verified=None)
    history = await store.execute(
        "SELECT round_id, kind, correction_no, operator, winner, void_reason FROM round_history"
        " WHERE round_id IN ('S-A-3', 'S-A-5', 'S-A-7') ORDER BY seq"
    )
    assert [(r[0], r[1], r[2], r[3]) for r in history] == [
        ("S-A-3", "result", 0, None),
        ("S-A-5", "result", 0, None),
        ("S-A-7", "result", 0, None),
        ("S-A-3", "voided", 0, "pit"),
        ("S-A-5", "corrected", 1, "pit"),
        ("S-A-5", "corrected", 2, "pit"),
        ("S-A-7", "corrected", 1, "pit"),
        ("S-A-7", "voided", 0, "pit"),
    ]
    shoe = await store.execute(
        "SELECT status, rounds, rounds_settled, rounds_voided, rounds_corrected FROM shoes"
    )
    assert shoe == [("open", 14, 11, 2, 1)]
