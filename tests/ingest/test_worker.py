# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest worker with a real table and a real broker: a whole shoe, stored exactly once.

A real ``table-controller run`` (virtual shoe) deals a shoe over a real mosquitto; a real
``table-controller ingest`` stores it in SQLite and in PostgreSQL. Every ``seq`` the table
published is in the database once, byte for byte as published, and every round's row is the
table's journal replayed.
"""

from __future__ import annotations

import contextlib
import json
import signal
from pathlib import Path

import pytest

from table_controller.ingest.store import IngestStore
from tests.mosquitto import Mosquitto
from tests.support.ingest_workers import (
    RESENDERS_ENV,
    assert_rounds_are_the_journal_replayed,
    closing_counts,
    deal_and_store,
    deal_shoe,
    device_key,
    drain,
    ingest_process,
    observing,
    published_rows,
    seen_messages,
    virtual_table,
    wait_logged,
    wait_quarantined,
    wait_stored,
)

pytestmark = pytest.mark.broker


@pytest.mark.slow
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
    assert closing.startswith("table-controller ingest: "), closing
    assert closing_counts(log)["rejected"] == 0, closing

    await assert_rounds_are_the_journal_replayed(database_url, tmp_path / "V1.journal")


async def test_three_workers_of_one_group_share_a_shoe_and_store_each_seq_once(
    database_url: str, broker: Mosquitto, tmp_path: Path
) -> None:
    logs = [tmp_path / f"ingest-{n}.log" for n in range(3)]
    async with observing(broker) as backend, contextlib.AsyncExitStack() as workers:
        for n, log in enumerate(logs):
            await workers.enter_async_context(
                ingest_process(log, broker, database_url, "--client-id", f"w{n}")
            )
        for log in logs:
            await wait_logged(log, "ingest_connected")
        async with virtual_table(tmp_path, broker):
            await backend.wait_online()
            await deal_shoe(backend, "S-1", rounds=12)
            await drain(backend)
        seen = seen_messages(backend)
        held = await wait_stored(database_url, set(seen))
    assert held.keys() == seen.keys()
    assert all(held[seq].encode() == payload for seq, payload in seen.items())
    stored = [closing_counts(log)["stored"] for log in logs]
    assert sum(stored) == len(seen), stored  # each seq stored by exactly one worker
    assert all(count > len(seen) // 10 for count in stored), stored  # and the load is shared
    await assert_rounds_are_the_journal_replayed(database_url, tmp_path / "V1.journal")


async def test_a_worker_killed_mid_shoe_and_restarted_loses_nothing(
    database_url: str, broker: Mosquitto, tmp_path: Path
) -> None:
    log = tmp_path / "ingest.log"
    # No gap repair: what the killed worker had not committed comes back from its session.
    args = ("--client-id", "w1", "--no-gap-repair")
    async with observing(broker) as backend, virtual_table(tmp_path, broker):
        async with ingest_process(log, broker, database_url, *args) as worker:
            await wait_logged(log, "ingest_connected")
            await backend.wait_online()
            await deal_shoe(backend, "S-1", rounds=3)
            assert (await backend.command("open_betting"))["ok"]
            assert (await backend.command("close_betting"))["ok"]
            worker.kill()  # SIGKILL while round 4 is dealt and stored
            assert await worker.wait() == -signal.SIGKILL
        await backend.until_result("S-1-4")
        for round_no in range(5, 9):  # dealt while no worker runs: queued in its session
            assert (await backend.command("open_betting"))["ok"]
            assert (await backend.command("close_betting"))["ok"]
            await backend.until_result(f"S-1-{round_no}")
        async with ingest_process(log, broker, database_url, *args) as worker:
            await wait_logged(log, "ingest_connected", count=2)
            await drain(backend)
            seen = seen_messages(backend)
            held = await wait_stored(database_url, set(seen))
    assert held.keys() == seen.keys()
    assert sorted(seen) == list(range(1, max(seen) + 1))
    assert closing_counts(log)["stored"] > 50  # what queued in its session while it was away


async def test_a_signing_tables_messages_are_stored_verified_and_a_forged_one_kept_apart(
    database_url: str, broker: Mosquitto, tmp_path: Path
) -> None:
    signing, _ = await device_key(tmp_path)
    log = tmp_path / "ingest.log"
    async with observing(broker) as backend:
        async with ingest_process(log, broker, database_url, "--no-gap-repair") as worker:
            await wait_logged(log, "ingest_connected")
            async with virtual_table(tmp_path, broker, signing):
                seen = await deal_and_store(backend, database_url, rounds=2)
                prompt = next(m for m in backend.received if m.topic.endswith("/events/prompt"))
                forged = json.loads(prompt.payload) | {"seq": max(seen) + 1}  # its sig unchanged
                await backend.client.publish(prompt.topic, json.dumps(forged), qos=1)
                kept_apart = await wait_quarantined(database_url, 1)
        assert worker.returncode == 0
    store = await IngestStore.open(database_url)
    try:
        verdicts = await store.execute("SELECT seq, verified FROM messages")
        status = await store.execute("SELECT verified FROM table_status")
    finally:
        await store.close()
    # The forged copy is kept apart (its seq is the table's to take), never stored as a message.
    assert {row[0]: row[1] for row in verdicts} == dict.fromkeys(seen, True)
    assert kept_apart == [("V1", max(seen) + 1, "prompt", "signature does not match")]
    assert status == [(True,)]
    counts = closing_counts(log)
    assert (counts["signature_failed"], counts["unverified"], counts["quarantined"]) == (1, 0, 1)


async def test_a_broker_restarted_mid_shoe_loses_nothing(
    database_url: str, broker: Mosquitto, tmp_path: Path
) -> None:
    """What the broker drops on its restart comes back by gap repair.

    A message the table publishes again as soon as the broker is back, before the worker has
    subscribed again, may reach no worker (mosquitto did not keep the group's subscription
    across its restart in runs without gap repair). The gap it leaves is asked for with resend.
    """
    log = tmp_path / "ingest.log"
    args = ("--client-id", "w1", "--gap-wait", "1")
    async with ingest_process(log, broker, database_url, *args) as worker:
        await wait_logged(log, "ingest_connected")
        async with virtual_table(tmp_path, broker, RESENDERS_ENV):
            async with observing(broker) as backend:
                await backend.wait_online()
                await deal_shoe(backend, "S-1", rounds=3)
            broker.restart()  # its sessions saved, and the worker's with them
            await wait_logged(log, "ingest_connected", count=2, timeout_s=30)
            async with observing(broker) as backend:
                backend.sent = 100  # new command ids: a repeated one is answered, not carried out
                for round_no in range(4, 7):
                    assert (await backend.command("open_betting"))["ok"]
                    assert (await backend.command("close_betting"))["ok"]
                    await backend.until_result(f"S-1-{round_no}")
                await drain(backend)
        published = published_rows(tmp_path / "V1.journal")
        held = await wait_stored(database_url, set(published))
    assert worker.returncode == 0
    assert held == published
    assert "broker_unreachable" in log.read_text()
