# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest worker with a real table and a real broker: a whole shoe, stored exactly once.

A real ``table-controller run`` (virtual shoe) deals a shoe over a real mosquitto; a real
``table-controller ingest`` stores it in SQLite and in PostgreSQL. Every ``seq`` the table
published is in the database once, byte for byte as published, and every round's row is the
table's journal replayed.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from table_controller.ingest.store import IngestStore
from tests.mosquitto import Mosquitto
from tests.support.ingest_table import replayed_rounds
from tests.support.ingest_workers import (
    deal_shoe,
    drain,
    ingest_process,
    observing,
    seen_messages,
    virtual_table,
    wait_logged,
    wait_stored,
)

pytestmark = pytest.mark.broker


async def test_one_worker_stores_a_whole_shoe_exactly_once(
    database_url: str, broker: Mosquitto, tmp_path: Path
) -> None:
    log = tmp_path / "ingest.log"
    async with observing(broker) as backend:
        async with ingest_process(log, broker, database_url, "--client-id", "w1") as worker:
            await wait_logged(log, "ingest_connected")
            async with virtual_table(tmp_path, broker):
                await backend.wait_online()
                assert await deal_shoe(backend, "S-1") > 30
                await drain(backend)
            seen = seen_messages(backend)
            assert sorted(seen) == list(range(1, max(seen) + 1))
            held = await wait_stored(database_url, set(seen))
        assert worker.returncode == 0, log.read_text()
    assert held.keys() == seen.keys()
    assert all(held[seq].encode() == payload for seq, payload in seen.items())
    closing = log.read_text().splitlines()[-1]
    assert closing.startswith("table-controller ingest: ") and " 0 rejected" in closing, closing

    expected = await replayed_rounds(tmp_path / "V1.journal")
    store = await IngestStore.open(database_url)
    try:
        rows = await store.execute(
            "SELECT round_id, status, winner, player_cards, banker_cards, seq FROM rounds"
        )
        assert await store.gaps("V1") == []
    finally:
        await store.close()
    assert {row[0]: row[1:] for row in rows} == {
        round_id: (
            want["status"], want["winner"], want["player_cards"], want["banker_cards"], want["seq"]
        )
        for round_id, want in expected.items()
    }  # fmt: skip
