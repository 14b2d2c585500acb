# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The worker's batches on each database: keys in memory, quarantine in the batch's transaction.

The messages are signed by the table's own signing code and handed to the worker as the MQTT
client hands them over; the statements each batch sends to the database are counted on the
engine. Judging signatures costs no statement per message: a batch of 200 takes as many
statements as a batch of 20, whether its messages are stored or quarantined.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from sqlalchemy import event

from table_controller.ingest.broker import Delivery
from table_controller.ingest.store import IngestStore, StoreOutcome
from table_controller.ingest.worker import IngestWorker, WorkerSettings
from table_controller.integrity.signing import DeviceKey
from table_controller.mqtt.settings import BrokerEndpoint

ROOT = "baccarat/tables/T1"


def worker(store: IngestStore) -> IngestWorker:
    endpoint = BrokerEndpoint.from_url("mqtt://127.0.0.1:1")
    return IngestWorker(store, WorkerSettings(endpoint=endpoint, client_id="w1"))


def delivered(topic: str, body: dict[str, object], mid: int) -> Delivery:
    return Delivery(f"{ROOT}/{topic}", json.dumps(body).encode(), qos=1, mid=mid)


def prompts(first: int, count: int, key: DeviceKey | None) -> list[Delivery]:
    """``count`` prompts from ``seq`` ``first``, signed with ``key`` (unsigned without one)."""
    batch = []
    for seq in range(first, first + count):
        body: dict[str, object] = {
            "schema": "baccarat-table/1", "type": "prompt", "table_id": "T1", "seq": seq,
            "ts": "2026-11-29T12:00:00.000Z", "action": "open_betting", "dealer": None,
        }  # fmt: skip
        batch.append(delivered("events/prompt", body if key is None else key.sign(body), seq))
    return batch


@contextmanager
def statements(store: IngestStore) -> Iterator[list[str]]:
    """The SQL statements sent to the database meanwhile (an ``executemany`` counts once).

    Those of SQLAlchemy's engine, and on PostgreSQL those of the store's batches (asyncpg's
    own API), counted by the store.
    """
    sent: list[str] = []
    batches = store.batches.statements if store.batches is not None else 0

    def count(*args: object) -> None:
        sent.append(str(args[2]))

    event.listen(store.engine.sync_engine, "before_cursor_execute", count)
    try:
        yield sent
    finally:
        event.remove(store.engine.sync_engine, "before_cursor_execute", count)
        if store.batches is not None:
            sent += ["(a statement of a batch)"] * (store.batches.statements - batches)


async def test_judging_signatures_costs_no_statement_per_message(store: IngestStore) -> None:
    table = DeviceKey.of(Ed25519PrivateKey.generate())
    ingest = worker(store)
    birth = {
        "schema": "baccarat-table/1", "type": "status", "table_id": "T1", "online": True,
        "session": 1, "last_seq": 0, "ts": "2026-11-29T12:00:00.000Z",
        "public_key": table.public_key,
    }  # fmt: skip
    first = [delivered("status", table.sign(birth), 0), *prompts(1, 19, table)]
    assert await ingest.handle_batch(first) == [StoreOutcome.STATUS] + [StoreOutcome.STORED] * 19
    with statements(store) as small:
        outcomes = await ingest.handle_batch(prompts(20, 20, table))
    assert outcomes == [StoreOutcome.STORED] * 20
    with statements(store) as large:
        outcomes = await ingest.handle_batch(prompts(40, 200, table))
    assert outcomes == [StoreOutcome.STORED] * 200
    assert len(large) == len(small) <= 2, large
    with statements(store) as forged:  # unsigned copies on the next seqs: all kept apart
        outcomes = await ingest.handle_batch(prompts(240, 200, None))
    assert outcomes == [StoreOutcome.QUARANTINED] * 200
    assert len(forged) == len(small), forged
    assert await store.execute("SELECT count(*), min(seq), max(seq) FROM messages") == [
        (239, 1, 239)
    ]
    assert await store.execute("SELECT count(*) FROM quarantine") == [(200,)]
    assert await store.execute("SELECT table_id, public_key FROM table_keys") == [
        ("T1", table.public_key)
    ]
    assert ingest.counts()["quarantined"] == 200

    # A new worker (a restart) reads the pins once, then judges from memory.
    again = worker(store)
    with statements(store) as restarted:
        outcomes = await again.handle_batch(prompts(240, 200, table))
    assert outcomes == [StoreOutcome.STORED] * 200
    assert len(restarted) == len(small) + 1, restarted  # the pins, read once
