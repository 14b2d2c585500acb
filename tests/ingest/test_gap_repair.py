# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Gap repair end to end: a real table, a real broker, a real worker, SQLite and PostgreSQL.

Messages deleted from the store come back: a worker sees the gap in what is stored, asks the
table with ``resend``, and the table publishes them again, byte for byte. Two workers share the
table: each gap is asked for once, by the worker holding the table's lease. Messages the table
pruned from its outbox come back ``gone``: recorded as a permanent gap, logged at error and
counted, and no longer asked for.
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta
from pathlib import Path

import pytest
from sqlalchemy import text

from table_controller.ingest.gap_queries import SeqRange
from table_controller.ingest.store import IngestStore
from table_controller.mqtt.outbox import Outbox
from table_controller.runtime.clock import utc_now
from tests.mosquitto import Mosquitto
from tests.support.ingest_workers import (
    RESENDERS_ENV,
    TABLE,
    closing_counts,
    deal_and_store,
    ingest_process,
    observing,
    stored,
    virtual_table,
    wait_logged,
    wait_stored,
)

pytestmark = pytest.mark.broker


#: Gaps are asked for a second after they open (10 s by default).
GAP_WAIT = ("--gap-wait", "1")


async def delete_stored(database: str, first: int, last: int) -> None:
    """Lose ``first..last`` on the way: their rows leave the store."""
    store = await IngestStore.open(database)
    try:
        async with store.engine.begin() as connection:
            await connection.execute(
                text("DELETE FROM messages WHERE table_id = :t AND seq BETWEEN :a AND :b"),
                {"t": TABLE, "a": first, "b": last},
            )
    finally:
        await store.close()


async def answered_requests(database: str, timeout_s: float = 30.0) -> list[tuple[object, ...]]:
    """The worker's ``resend`` requests once each has its answer recorded.

    The table republishes what was asked before it replies, so the messages can be stored
    while the reply that closes their request is still on its way.
    """
    store = await IngestStore.open(database)
    try:
        async with asyncio.timeout(timeout_s):
            while True:
                rows = await store.execute(
                    "SELECT first_seq, last_seq, outcome, gone FROM gap_requests ORDER BY asked_at"
                )
                if all(row[2] is not None for row in rows):
                    return rows
                await asyncio.sleep(0.1)
    finally:
        await store.close()


def prune_outbox(journal: Path) -> None:
    """Prune the stopped table's outbox as its retention would a year on (the newest row stays)."""
    with Outbox.open(journal, clock=utc_now) as outbox:
        assert outbox.prune_acked(acked_before=utc_now() + timedelta(days=365)) > 0


async def test_lost_messages_come_back_with_resend_and_pruned_ones_are_recorded_gone(
    database_url: str, broker: Mosquitto, tmp_path: Path
) -> None:
    logs = [tmp_path / "ingest-1.log", tmp_path / "ingest-2.log"]
    async with observing(broker) as backend, contextlib.AsyncExitStack() as workers:
        for n, log in enumerate(logs):
            await workers.enter_async_context(
                ingest_process(log, broker, database_url, "--client-id", f"w{n}", *GAP_WAIT)
            )
        for log in logs:
            await wait_logged(log, "ingest_connected")
        async with virtual_table(tmp_path, broker, RESENDERS_ENV):
            seen = await deal_and_store(backend, database_url, rounds=3)
            await delete_stored(database_url, 20, 45)
            await delete_stored(database_url, 60, 60)
            held = await wait_stored(database_url, set(seen))
            assert all(held[seq].encode() == seen[seq] for seq in range(20, 61))
            asked = await answered_requests(database_url)
            ranges = [(int(str(row[0])), int(str(row[1]))) for row in asked]
            # Each lost range asked for once, by one worker (a message still on its way to the
            # other worker may have been asked for too: a gap like any other).
            assert (20, 45) in ranges, asked
            assert (60, 60) in ranges, asked
            asked_seqs = [seq for first, last in ranges for seq in range(first, last + 1)]
            assert len(asked_seqs) == len(set(asked_seqs)), asked
            assert all(row[2:] == ("ok", 0) for row in asked), asked

        # The table stops; its outbox is pruned; seq 5-9 leave the store too.
        prune_outbox(tmp_path / f"{TABLE}.journal")
        await delete_stored(database_url, 5, 9)
        async with virtual_table(tmp_path, broker, RESENDERS_ENV):
            # A full scan finds rows removed by hand (every 20 looks, 5 s here), and the table
            # starts meanwhile: a loaded machine can take several of those.
            async with asyncio.timeout(30):
                while not any("messages_gone" in log.read_text() for log in logs):  # noqa: ASYNC110
                    await asyncio.sleep(0.1)
            store = await IngestStore.open(database_url)
            try:
                assert await store.permanent_gaps(TABLE) == [SeqRange(5, 9)]
                assert await store.gaps(TABLE) == []
            finally:
                await store.close()
    gone_lines = [line for log in logs for line in log.read_text().splitlines() if "_gone" in line]
    assert len(gone_lines) == 1
    assert '"level": "error"' in gone_lines[0]
    counts = [closing_counts(log) for log in logs]
    assert sum(c["gone"] for c in counts) == 5, counts
    assert sum(c["gaps_asked"] for c in counts) == len(asked) + 1, counts
    after = set(await stored(database_url))
    assert set(seen) - set(range(5, 10)) <= after
    assert not after & set(range(5, 10))


async def test_a_table_that_takes_only_signed_commands_takes_the_ingests_signed_resend(
    database_url: str, broker: Mosquitto, tmp_path: Path
) -> None:
    """``sign_all_commands``: the worker signs each resend with the key its secrets file names."""
    secret = "V1's command_secret, 16+ bytes"
    secrets = tmp_path / "secrets.toml"
    secrets.write_text(f'V1 = "{secret}"\n')
    signing = {
        **RESENDERS_ENV,
        "TABLE_CONTROLLER_COMMAND_SECRET": secret,
        "TABLE_CONTROLLER_SIGN_ALL_COMMANDS": "true",
    }
    log = tmp_path / "ingest.log"
    async with (
        observing(broker, secret=secret.encode()) as backend,
        ingest_process(log, broker, database_url, "--command-secrets", str(secrets), *GAP_WAIT),
    ):
        await wait_logged(log, "ingest_connected")
        async with virtual_table(tmp_path, broker, signing):
            seen = await deal_and_store(backend, database_url, rounds=2)
            await delete_stored(database_url, 10, 19)
            held = await wait_stored(database_url, set(seen))
            assert all(held[seq].encode() == seen[seq] for seq in range(10, 20))
            assert [row[2:] for row in await answered_requests(database_url)] == [("ok", 0)]
    assert closing_counts(log)["resend_refused"] == 0
