# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest store on SQLite and a real PostgreSQL: exactly once, status, gaps, bad input."""

from __future__ import annotations

import asyncio
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Connection, inspect
from sqlalchemy.ext.asyncio import create_async_engine

from table_controller.ingest.checked_messages import Received
from table_controller.ingest.database import (
    SCHEMA_HEAD,
    StoreUrlError,
    at_head,
    engine_url,
    migrate,
    migrations_config,
)
from table_controller.ingest.gap_queries import SeqRange
from table_controller.ingest.schema import metadata
from table_controller.ingest.store import IngestStore, StoreOutcome
from table_controller.ingest.table_keys import NOT_ITS_KEY, UNSIGNED

TOPIC = "baccarat/tables/T07/events/{}"


def message(kind: str, seq: int | None, **fields: Any) -> bytes:
    data: dict[str, Any] = {"schema": "baccarat-table/1", "type": kind, "table_id": "T07"}
    if seq is not None:
        data["seq"] = seq
    data["ts"] = fields.pop("ts", f"2026-11-29T12:{seq or 0:02d}:00.000Z")
    return json.dumps(data | fields).encode()


def result(seq: int, round_no: int = 1, **fields: Any) -> bytes:
    body = {
        "shoe_id": "S-1", "round_no": round_no, "round_id": f"S-1-{round_no}", "dealer": "D-1",
        "player": {"cards": ["QH", "4S", "9D"], "total": 3},
        "banker": {"cards": ["6C", "KD"], "total": 6}, "winner": "banker", "natural": False,
        "cards_dealt": 5, "player_pair": False, "banker_pair": False, "last_round": False,
        "settlement": {"player": -1, "banker": 0.95, "tie": -1, "big": "not_offered"},
    }  # fmt: skip
    return message("round_result", seq, **(body | fields))


async def put(store: IngestStore, payload: bytes, kind: str = "round_result") -> StoreOutcome:
    return await store.store(TOPIC.format(kind), payload, verified=None)


async def test_a_message_is_stored_once_and_its_duplicate_changes_nothing(
    store: IngestStore,
) -> None:
    assert await put(store, result(1)) is StoreOutcome.STORED
    before = await store.execute("SELECT * FROM rounds")
    assert await put(store, result(1, winner="player")) is StoreOutcome.DUPLICATE
    assert await store.execute("SELECT * FROM rounds") == before
    assert await store.execute("SELECT count(*) FROM messages") == [(1,)]
    assert store.counts == {StoreOutcome.STORED: 1, StoreOutcome.DUPLICATE: 1}


async def test_settlements_are_exact_fractions(store: IngestStore) -> None:
    await put(store, result(1))
    rows = await store.execute(
        "SELECT bet, offered, numerator, denominator FROM round_settlements ORDER BY bet"
    )
    held = {bet: (offered, n, d) for bet, offered, n, d in rows}
    assert held["banker"][1:] == (19, 20)
    numerator, denominator = held["banker"][1:]
    assert isinstance(numerator, int)
    assert isinstance(denominator, int)
    assert Fraction(numerator, denominator) == Fraction(19, 20)
    assert held["player"][1:] == (-1, 1)
    assert not held["big"][0]
    assert held["big"][1:] == (None, None)


async def test_gaps_come_from_the_stored_rows_and_the_status(store: IngestStore) -> None:
    for seq in (2, 3, 7, 8, 12):
        await put(store, result(seq, round_no=seq))
    assert await store.gaps("T07") == [SeqRange(1, 1), SeqRange(4, 6), SeqRange(9, 11)]
    status = message("status", None, online=True, session=3, last_seq=15, version="0.1.0")
    assert await store.store("baccarat/tables/T07/status", status, verified=None) is (
        StoreOutcome.STATUS
    )
    assert (await store.gaps("T07"))[-1] == SeqRange(13, 15)
    await store.record_gone("T07", [4, 5, 14], reason="gone")
    assert await store.permanent_gaps("T07") == [SeqRange(4, 5), SeqRange(14, 14)]
    assert await store.gaps("T07") == [
        SeqRange(1, 1), SeqRange(6, 6), SeqRange(9, 11), SeqRange(13, 13), SeqRange(15, 15),
    ]  # fmt: skip
    assert await store.gaps("T99") == []
    assert await store.tables() == ["T07"]


async def test_a_gap_scan_above_a_floor_reads_only_newer_rows(store: IngestStore) -> None:
    for seq in (1, 2, 3, 4, 5, 8, 9, 10):
        await put(store, result(seq, round_no=seq))
    status = message("status", None, online=True, session=1, last_seq=13)
    await store.store("baccarat/tables/T07/status", status, verified=None)
    await store.record_gone("T07", [11], reason="gone")
    assert await store.scan_gaps("T07") == ([SeqRange(6, 7), SeqRange(12, 13)], 5)
    assert await store.scan_gaps("T07", 5) == ([SeqRange(6, 7), SeqRange(12, 13)], 5)
    for seq in (6, 7):
        await put(store, result(seq, round_no=seq))
    assert await store.scan_gaps("T07", 5) == ([SeqRange(12, 13)], 11)
    for seq in (12, 13):
        await put(store, result(seq, round_no=seq))
    assert await store.scan_gaps("T07", 11) == ([], 13)
    assert await store.scan_gaps("T07", 13) == ([], 13)
    assert await store.scan_gaps("T99") == ([], 0)


async def test_the_newest_session_status_wins_and_a_stale_will_is_ignored(
    store: IngestStore,
) -> None:
    topic = "baccarat/tables/T07/status"

    async def status(**fields: Any) -> None:
        await store.store(topic, message("status", None, **fields), verified=True)

    await status(online=True, session=4, last_seq=10, reader="connected")
    await status(online=False, session=3, last_seq=2)  # a late will of an older session
    assert await store.execute("SELECT online, session, last_seq FROM table_status") == [
        (True, 4, 10)
    ]
    await status(online=True, session=4, last_seq=12, reader="fault")
    await status(online=False, session=4, last_seq=10)  # this session's will
    await status(online=True, session=4, last_seq=11, reader="connected")  # late, same session
    assert await store.execute("SELECT online, session, last_seq, reader FROM table_status") == [
        (False, 4, 10, None)
    ]


async def test_a_batch_of_statuses_keeps_what_they_would_keep_one_at_a_time(
    store: IngestStore, tmp_path: Path
) -> None:
    """On PostgreSQL a batch's statuses are one statement: the same table rows as one by one."""
    fields: list[dict[str, Any]] = [
        {"online": True, "session": 4, "last_seq": 10, "reader": "connected"},
        {"online": False, "session": 3, "last_seq": 2},
        {"online": True, "session": 4, "last_seq": 12, "reader": "fault"},
        {"online": False, "session": 4, "last_seq": 10},
        {"online": True, "session": 4, "last_seq": 11, "reader": "connected"},
        {"online": False, "session": 4, "last_seq": 10, "reader": "offline"},
        {"online": True, "session": 2, "last_seq": 30},
    ]
    one_by_one = await IngestStore.open(f"sqlite:///{tmp_path / 'one_by_one.sqlite'}")
    query = "SELECT table_id, online, session, last_seq, reader FROM table_status"
    try:
        for turn, order in enumerate((fields, fields[::-1], fields[2:] + fields[:2])):
            table = f"T{turn:02d}"
            batch = [
                Received(f"baccarat/tables/{table}/status",
                         message("status", None, table_id=table, **one), verified=None)
                for one in order
            ]  # fmt: skip
            assert await store.store_batch(batch) == [StoreOutcome.STATUS] * len(batch)
            for received in batch:
                await one_by_one.store_batch([received])
        assert sorted(await store.execute(query)) == sorted(await one_by_one.execute(query))
    finally:
        await one_by_one.close()


async def test_workers_storing_a_fleet_of_statuses_in_opposite_orders_do_not_deadlock(
    pg_database_url: str,
) -> None:
    """Every worker keeps every status: a fleet's births reach them in different orders."""
    stores = [await IngestStore.open(pg_database_url) for _ in range(2)]
    tables = [f"T{number:02d}" for number in range(1, 41)]

    def births(session: int, order: list[str]) -> list[Received]:
        return [
            Received(
                f"baccarat/tables/{table}/status",
                message("status", None, table_id=table, online=True, session=session,
                        last_seq=session * 10),
                None,
            )
            for table in order
        ]  # fmt: skip

    try:
        for session in range(1, 6):
            await asyncio.gather(
                stores[0].store_batch(births(session, tables)),
                stores[1].store_batch(births(session, tables[::-1])),
            )
        rows = await stores[0].execute("SELECT table_id, session FROM table_status")
        assert sorted(rows) == [(table, 5) for table in tables]
    finally:
        for opened in stores:
            await opened.close()


HOSTILE = [
    b"not json",
    b"[1, 2]",
    b"\xff\xfe",
    b'{"type": "round_result", "table_id": "T07", "ts": "2026-11-29T12:00:00Z"}',  # no seq
    message("round_result", 0),
    message("round_result", -3),
    message("round_result", 2**63),
    message("round_result", 4, table_id="T08"),  # another table's topic
    message("card", 5, table_id="a table id with blanks"),
    json.dumps({"type": "card", "table_id": "T07", "seq": True}).encode(),
    json.dumps({"type": "card", "table_id": "T07", "seq": "5"}).encode(),
    result(6, winner="dragon"),
    result(7, settlement={"banker": "lots"}),
    result(8, settlement={"banker": 1e400}),
    b'{"type": "round_result", "table_id": "T07", "seq": 9, "settlement": {"banker": 1e999999}}',
    result(10, settlement={"banker": None}),
    result(11, player={"cards": ["QH", "ZZ"], "total": 3}),
    result(12, player={"cards": ["QH", "4S"], "total": 13}),
    result(13, round_id="S-1-2"),
    result(14, ts="yesterday"),
    message("alarm", 15, code="misread"),  # no message text
    message("alarm", 16, code="x", message="has a \u0000 in it"),
    b'{"type": "card", "table_id": "T07", "seq": 17, "ts": NaN}',
    b'{"type": "card", "table_id": "T07", "seq": 18, "x": '
    + b"[" * 100_000
    + b"]" * 100_000
    + b"}",
    b'{"type": "card", "table_id": "T07", "seq": 19, "x": "' + b"a" * 1_000_001 + b'"}',
    message("status", None, online="yes", session=1, last_seq=0),
]


async def test_hostile_payloads_are_rejected_counted_and_change_nothing(
    store: IngestStore,
) -> None:
    for payload in HOSTILE:
        assert await put(store, payload) is StoreOutcome.REJECTED, payload[:200]
    assert store.counts == {StoreOutcome.REJECTED: len(HOSTILE)}
    for table in ("messages", "rounds", "alarms", "table_status"):
        assert await store.execute(f"SELECT count(*) FROM {table}") == [(0,)]
    assert await put(store, result(1)) is StoreOutcome.STORED


async def test_a_quarantined_message_is_kept_apart_once_and_changes_nothing_else(
    store: IngestStore, caplog: pytest.LogCaptureFixture
) -> None:
    topic = TOPIC.format("round_result")
    forged = Received(
        topic, result(1, winner="player"), verified=False, quarantine="signature does not match"
    )
    status = message("status", None, online=False, session=99, last_seq=500, public_key="x")
    alarms = [
        Received(
            TOPIC.format("alarm"),
            message("alarm", seq, code="misread", message="x"),
            None,
            UNSIGNED,
        )
        for seq in range(2, 32)
    ]
    batch = [
        forged,
        forged,  # a second copy: one row
        Received("baccarat/tables/T07/status", status, verified=False, quarantine=NOT_ITS_KEY),
        *alarms,
        Received(topic, result(40, round_no=2), verified=True),
        Received(topic, b"not json", None, UNSIGNED),  # not a message at all: rejected
    ]
    outcomes = await store.store_batch(batch)
    assert outcomes == [StoreOutcome.QUARANTINED] * 33 + [
        StoreOutcome.STORED, StoreOutcome.REJECTED,
    ]  # fmt: skip
    assert await store.execute("SELECT seq, verified FROM messages") == [(40, True)]
    assert await store.execute("SELECT round_id, winner FROM rounds") == [("S-1-2", "banker")]
    for table in ("alarms", "table_status", "permanent_gaps", "table_keys"):
        assert await store.execute(f"SELECT count(*) FROM {table}") == [(0,)], table
    rows = await store.execute(
        "SELECT table_id, seq, type, reason FROM quarantine ORDER BY seq NULLS FIRST"
    )
    assert rows == [
        ("T07", None, "status", NOT_ITS_KEY),
        ("T07", 1, "round_result", "signature does not match"),
        *[("T07", seq, "alarm", UNSIGNED) for seq in range(2, 32)],
    ]
    (payload,) = await store.execute("SELECT payload FROM quarantine WHERE seq = 1")
    assert payload[0] == batch[0].payload.decode()
    assert store.counts[StoreOutcome.QUARANTINED] == 33
    lines = [r for r in caplog.records if "message_quarantined" in r.getMessage()]
    assert len(lines) == 1, [r.getMessage() for r in lines]  # one line per table, not 33
    # The slots the forgeries named are free: the genuine messages take them.
    assert await put(store, result(1)) is StoreOutcome.STORED
    assert await store.execute("SELECT round_id, winner FROM rounds ORDER BY round_id") == [
        ("S-1-1", "banker"), ("S-1-2", "banker"),
    ]  # fmt: skip
    assert await store.gaps("T07") == [SeqRange(2, 39)]
    again = await store.store_batch([forged])
    assert again == [StoreOutcome.QUARANTINED]
    assert await store.execute("SELECT count(*) FROM quarantine") == [(32,)]


def _differences(connection: Connection) -> list[Any]:
    return list(compare_metadata(MigrationContext.configure(connection), metadata))


async def test_a_batch_gives_each_message_its_own_outcome_in_one_transaction(
    store: IngestStore,
) -> None:
    topic = TOPIC.format("round_result")
    status = message("status", None, online=True, session=1, last_seq=9)
    alarm = message("alarm", 2, code="misread", message="x")
    batch = [
        Received(topic, result(3, round_no=2), None),
        Received(topic, b"not json", None),
        Received("baccarat/tables/T07/status", status, None),
        Received(topic, result(1), None),
        Received(topic, result(3, round_no=2, winner="player"), None),  # the same seq again
        Received(TOPIC.format("alarm"), alarm, verified=True),
    ]
    assert await store.store_batch(batch) == [
        StoreOutcome.STORED, StoreOutcome.REJECTED, StoreOutcome.STATUS, StoreOutcome.STORED,
        StoreOutcome.DUPLICATE, StoreOutcome.STORED,
    ]  # fmt: skip
    assert await store.execute("SELECT seq, verified FROM messages ORDER BY seq") == [
        (1, None), (2, True), (3, None),
    ]  # fmt: skip
    assert await store.execute("SELECT round_id, winner FROM rounds ORDER BY round_id") == [
        ("S-1-1", "banker"), ("S-1-2", "banker"),
    ]  # fmt: skip
    assert await store.execute("SELECT rounds FROM shoes") == [(2,)]
    assert await store.execute("SELECT seq FROM alarms") == [(2,)]
    assert await store.gaps("T07") == [SeqRange(4, 9)]
    again = await store.store_batch([Received(topic, result(1), None)])
    assert again == [StoreOutcome.DUPLICATE]
    assert store.counts == {
        StoreOutcome.STORED: 3, StoreOutcome.DUPLICATE: 2, StoreOutcome.STATUS: 1,
        StoreOutcome.REJECTED: 1,
    }  # fmt: skip
    assert await store.store_batch([]) == []


async def test_on_postgresql_a_batch_costs_the_same_statements_whatever_its_rounds(
    pg_database_url: str,
) -> None:
    """Rounds, settlements and shoes are rebuilt set by set: ten rounds cost what two do."""
    store = await IngestStore.open(pg_database_url)
    try:
        assert store.batches is not None
        topic = TOPIC.format("round_result")
        sent = []
        for seqs in (range(1, 3), range(3, 13)):
            before = store.batches.statements
            batch = [Received(topic, result(seq, round_no=seq), None) for seq in seqs]
            assert await store.store_batch(batch) == [StoreOutcome.STORED] * len(seqs)
            sent.append(store.batches.statements - before)
        assert sent[0] == sent[1]
        assert await store.execute("SELECT count(*), min(round_no), max(round_no) FROM rounds") == [
            (12, 1, 12)
        ]
        assert await store.execute("SELECT count(*) FROM round_settlements") == [(12 * 4,)]
        assert await store.execute("SELECT rounds, rounds_settled FROM shoes") == [(12, 12)]
    finally:
        await store.close()


async def test_the_migrated_schema_is_the_declared_one(
    store: IngestStore, database_url: str
) -> None:
    engine = create_async_engine(engine_url(database_url))
    try:
        async with engine.connect() as connection:
            assert await connection.run_sync(_differences) == []
            version = await connection.exec_driver_sql("SELECT version_num FROM alembic_version")
            assert version.all() == [("0003",)]  # the newest revision
            assert await connection.run_sync(at_head)
    finally:
        await engine.dispose()


def test_the_head_an_open_trusts_is_alembics_newest_revision() -> None:
    """A database at ``SCHEMA_HEAD`` opens without alembic: it must be the newest revision."""
    assert ScriptDirectory.from_config(migrations_config()).get_heads() == [SCHEMA_HEAD]


async def test_each_migration_goes_down_and_up_again(database_url: str) -> None:
    """A release rolled back: ``downgrade`` drops what each revision added, and up rebuilds it."""
    opened = await IngestStore.open(database_url)
    await opened.close()
    engine = create_async_engine(engine_url(database_url))

    def tables(connection: Connection) -> set[str]:
        return set(inspect(connection).get_table_names()) - {"alembic_version"}

    try:
        trust = {"quarantine", "table_keys"}
        repair = {"gap_requests", "gap_leases"}
        for revision, gone in (("0002", trust), ("0001", trust | repair), ("base", set())):
            async with engine.begin() as connection:
                await connection.run_sync(migrate, revision, down=True)
                left = await connection.run_sync(tables)
            assert left == (set(metadata.tables) - gone if gone else set()), revision
        async with engine.begin() as connection:
            await connection.run_sync(migrate)
            assert await connection.run_sync(_differences) == []
    finally:
        await engine.dispose()


async def test_opening_again_keeps_the_data(store: IngestStore, database_url: str) -> None:
    await put(store, result(1))
    again = await IngestStore.open(database_url)
    try:
        assert await again.execute("SELECT count(*) FROM rounds") == [(1,)]
    finally:
        await again.close()


@pytest.mark.parametrize(
    ("url", "expected"),
    [
        ("postgresql://u:p@h:5/db", "postgresql+asyncpg://u:p@h:5/db"),
        ("postgres://h/db", "postgresql+asyncpg://h/db"),
        ("sqlite:///var/lib/ingest.db", "sqlite+aiosqlite:///var/lib/ingest.db"),
        ("sqlite+aiosqlite:////abs.db", "sqlite+aiosqlite:////abs.db"),
    ],
)
def test_database_urls_get_their_async_driver(url: str, expected: str) -> None:
    assert engine_url(url) == expected


@pytest.mark.parametrize(
    "url", ["mysql://h/db", "sqlite://", "sqlite:///:memory:", "postgresql+psycopg2://h/d", "::"]
)
def test_other_database_urls_are_refused_with_a_clear_error(url: str) -> None:
    with pytest.raises(StoreUrlError, match=r"postgresql|sqlite|URL"):
        engine_url(url)
