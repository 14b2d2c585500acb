# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Gap repair's bookkeeping on each database: leases between workers, replies recorded."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from table_controller.ingest.gap_queries import SeqRange
from table_controller.ingest.gap_repair import BEHIND_WAIT_FACTOR, GapRepair, RepairSettings
from table_controller.ingest.schema import gap_requests
from table_controller.ingest.store import IngestStore, StoreOutcome


async def never_published(topic: str, payload: bytes) -> None:
    raise AssertionError(f"nothing is asked here: {topic} {payload!r}")


def repair(store: IngestStore, worker: str) -> GapRepair:
    return GapRepair(store, never_published, RepairSettings(worker=worker, gap_wait_s=10))


def card(table: str, seq: int) -> bytes:
    body = {
        "schema": "baccarat-table/1", "type": "prompt", "table_id": table, "seq": seq,
        "ts": "2026-11-29T12:00:00.000Z", "action": "open_betting", "dealer": None,
    }  # fmt: skip
    return json.dumps(body).encode()


async def test_one_worker_at_a_time_holds_a_table_until_its_lease_runs_out(
    store: IngestStore,
) -> None:
    for table in ("T1", "T2"):
        topic = f"baccarat/tables/{table}/events/prompt"
        assert await store.store(topic, card(table, 1), verified=None) is StoreOutcome.STORED
    first, second = repair(store, "w1"), repair(store, "w2")
    now = datetime.now(UTC)
    assert await first._held_tables(now) == ["T1", "T2"]
    assert await second._held_tables(now) == []
    assert await first._held_tables(now + timedelta(seconds=5)) == ["T1", "T2"]  # renewed
    later = now + timedelta(seconds=5 + first.settings.lease_s + 1)  # w1 stopped renewing
    assert await second._held_tables(later) == ["T1", "T2"]
    assert await first._held_tables(later) == []


async def test_a_reply_is_recorded_and_only_what_is_not_held_becomes_a_permanent_gap(
    store: IngestStore,
) -> None:
    topic = "baccarat/tables/T1/events/prompt"
    for seq in (1, 2, 9):
        await store.store(topic, card("T1", seq), verified=None)
    worker = repair(store, "w1")
    async with store.engine.begin() as connection:
        for command_id in ("ingest-a", "ingest-b"):
            await connection.execute(
                gap_requests.insert().values(
                    command_id=command_id, table_id="T1", first_seq=2, last_seq=8,
                    worker="w1", asked_at=datetime.now(UTC),
                )
            )  # fmt: skip
    await worker.on_reply("T1", {"id": "ingest-a", "ok": True, "resent": 0, "gone": [2, 3, 4]})
    assert await store.permanent_gaps("T1") == [SeqRange(3, 4)]  # 2 came before it was pruned
    assert await store.gaps("T1") == [SeqRange(5, 8)]
    assert worker.gone == 2
    refused = {"id": "ingest-b", "ok": False, "error": "rate_limited", "message": "wait"}
    await worker.on_reply("T1", refused)
    assert worker.refused == 1
    await worker.on_reply("T1", {"id": "ingest-c", "ok": True, "gone": "all"})  # unreadable
    assert await store.permanent_gaps("T1") == [SeqRange(3, 4)]
    answers = await store.execute(
        "SELECT command_id, outcome, resent, gone FROM gap_requests"
        " WHERE answered_at IS NOT NULL ORDER BY command_id"
    )
    assert answers == [("ingest-a", "ok", 0, 3), ("ingest-b", "rate_limited", None, None)]


@dataclass
class Worker:
    """The worker's state as gap repair sees it, set by the test."""

    is_connected: bool = True
    is_behind: bool = True

    def connected(self) -> bool:
        return self.is_connected

    def behind(self) -> bool:
        return self.is_behind


async def test_a_gap_waits_longer_while_the_worker_is_behind_and_none_while_offline(
    store: IngestStore,
) -> None:
    topic = "baccarat/tables/T1/events/prompt"
    for seq in (1, 5):
        await store.store(topic, card("T1", seq), verified=None)
    asked: list[bytes] = []

    async def publish(_topic: str, payload: bytes) -> None:
        asked.append(payload)

    now = [0.0]
    state = Worker()
    worker = GapRepair(
        store, publish, RepairSettings(worker="w1", gap_wait_s=10),
        clock=lambda: now[0], worker=state,
    )  # fmt: skip
    state.is_connected = False
    await worker.tick()  # nothing looked at, nothing asked: no lease taken either
    assert await store.execute("SELECT count(*) FROM gap_leases") == [(0,)]
    state.is_connected = True
    await worker.tick()  # the gap 2-4 is seen open
    now[0] = 11.0
    await worker.tick()
    assert asked == []  # open longer than gap_wait_s, but the worker is behind
    now[0] = 10.0 * BEHIND_WAIT_FACTOR + 1
    await worker.tick()
    assert [json.loads(payload)["args"] for payload in asked] == [{"from_seq": 2, "to_seq": 4}]
    state.is_behind = False
    await store.store(topic, card("T1", 7), verified=None)
    await worker.tick()  # the gap 6 is seen open
    now[0] += 11.0
    await worker.tick()
    assert [json.loads(payload)["args"] for payload in asked][1:] == [{"from_seq": 6, "to_seq": 6}]
