# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest's store: every message exactly once, and the projections a casino queries.

Adapter: SQLAlchemy 2 Core on an async engine, PostgreSQL (asyncpg) or SQLite (aiosqlite).

* **Exactly once.** A message is inserted keyed by ``(table_id, seq)`` with ``ON CONFLICT DO
  NOTHING``; only when that insert added a row are the projections updated, in the same
  transaction. A duplicate changes nothing, and a crash before the commit leaves nothing.
* **Any order.** A round's row (and a shoe's) is rebuilt from all its stored messages ordered
  by ``seq`` (``projections.py``), never patched. On PostgreSQL two workers storing messages of
  one round take turns on a transaction-scoped advisory lock (round first, then its shoe), so
  the second rebuild sees the first's message; SQLite runs one writer at a time anyway.
* **Gaps** come from what is stored: the ``seq`` runs of a table (a window function, on both
  databases), up to the highest held or the newest ``status``'s ``last_seq``, without the ranges
  recorded as permanent.
* A payload that is not a message of the contract is rejected, counted and logged; it never
  raises.
"""

from __future__ import annotations

import asyncio
import enum
import hashlib
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Final, Self

import structlog
from alembic import command
from alembic.config import Config
from sqlalchemy import Column, Connection, Table, and_, delete, func, or_, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.engine import make_url
from sqlalchemy.engine.interfaces import DBAPIConnection
from sqlalchemy.exc import ArgumentError, OperationalError
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine, create_async_engine

from table_controller.ingest import projections as p
from table_controller.ingest.schema import (
    alarms,
    messages,
    permanent_gaps,
    round_history,
    round_settlements,
    rounds,
    shoes,
    table_status,
)

log = structlog.get_logger("table_controller.ingest")

#: How long an SQLite writer waits for another process's transaction.
SQLITE_BUSY_TIMEOUT_MS: Final = 30_000
#: The advisory lock that lets one process at a time migrate a PostgreSQL database.
_MIGRATION_LOCK: Final = 0x7461626C65  # "table"
_MIGRATIONS: Final = Path(__file__).with_name("migrations")


class StoreOutcome(enum.StrEnum):
    """What :meth:`IngestStore.store` did with a message."""

    STORED = "stored"
    DUPLICATE = "duplicate"
    STATUS = "status"
    REJECTED = "rejected"


@dataclass(frozen=True, slots=True, order=True)
class SeqRange:
    """The ``seq`` numbers from ``first`` to ``last``, both included."""

    first: int
    last: int


class StoreUrlError(ValueError):
    """A database URL the ingest cannot use; the message says which ones it takes."""


def engine_url(url: str) -> str:
    """``postgresql://`` -> ``postgresql+asyncpg://``, ``sqlite:///f`` -> ``sqlite+aiosqlite:///f``."""
    try:
        parsed = make_url(url)
    except ArgumentError as error:
        raise StoreUrlError(f"{url!r} is not a database URL: {error}") from None
    drivers = {"postgresql": "asyncpg", "postgres": "asyncpg", "sqlite": "aiosqlite"}
    backend = parsed.get_backend_name()
    driver = drivers.get(backend)
    if driver is None or parsed.drivername not in {backend, f"{backend}+{driver}"}:
        raise StoreUrlError(
            f"{parsed.drivername!r}: use postgresql://user@host/db or sqlite:///path/to/file"
        )
    if backend == "sqlite" and parsed.database in {None, "", ":memory:"}:
        raise StoreUrlError("sqlite needs a file (sqlite:///path/to/file), shared by workers")
    name = "postgresql" if backend == "postgres" else backend
    return parsed.set(drivername=f"{name}+{driver}").render_as_string(hide_password=False)


def _upgrade(connection: Connection) -> None:
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    config.attributes["connection"] = connection
    command.upgrade(config, "head")


def _lock_key(*parts: str) -> int:
    """A 64-bit advisory-lock key for a table's round or shoe (stable across processes)."""
    digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


class IngestStore:
    """The database of the ingest; open with :meth:`open`, one per process, shared by tasks."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine
        self._postgres = engine.dialect.name == "postgresql"
        #: How many messages had each outcome since the store was opened.
        self.counts: Counter[StoreOutcome] = Counter()

    @classmethod
    async def open(cls, url: str) -> Self:
        """Connect and migrate the schema to its newest revision.

        Raises:
            StoreUrlError: the URL is not a PostgreSQL or SQLite one.
        """
        target = engine_url(url)
        engine = create_async_engine(target, pool_pre_ping=True)
        if engine.dialect.name == "sqlite":
            from sqlalchemy import event  # noqa: PLC0415 - only SQLite needs it

            @event.listens_for(engine.sync_engine, "connect")
            def _sqlite_settings(dbapi_connection: DBAPIConnection, _record: object) -> None:
                cursor = dbapi_connection.cursor()
                cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
                cursor.execute("PRAGMA journal_mode = WAL")
                cursor.close()

        store = cls(engine)
        try:
            await store._migrate()
        except BaseException:
            await engine.dispose()
            raise
        return store

    async def _migrate(self) -> None:
        for attempt in range(5):
            try:
                async with self._engine.begin() as connection:
                    if self._postgres:
                        await connection.execute(
                            select(func.pg_advisory_xact_lock(_MIGRATION_LOCK))
                        )
                    await connection.run_sync(_upgrade)
            except OperationalError:
                # Another SQLite process migrating at the same moment: its schema will do.
                if self._postgres or attempt == 4:
                    raise
                await asyncio.sleep(0.2 * (attempt + 1))
            else:
                return

    async def close(self) -> None:
        await self._engine.dispose()

    def _insert(self, table: Table) -> postgresql.Insert | sqlite.Insert:
        return (postgresql.insert if self._postgres else sqlite.insert)(table)

    def _reject(self, topic: str, reason: str) -> StoreOutcome:
        self.counts[StoreOutcome.REJECTED] += 1
        log.warning("message_rejected", topic=topic[:200], reason=reason[:300])
        return StoreOutcome.REJECTED

    async def store(self, topic: str, payload: bytes, *, verified: bool | None) -> StoreOutcome:
        """Store one message as received on ``topic``; see :class:`StoreOutcome`."""
        try:
            data = p.parse(payload)
            envelope = p.envelope(data, topic)
            if envelope.type == "status":
                row = p.status_row(data)
            elif envelope.type in p.ROUND_TYPES:
                p.round_version(data, envelope.seq or 0, envelope.type)
            elif envelope.type in p.SHOE_TYPES:
                p.shoe_fields(data, envelope.type)
            elif envelope.type == "alarm":
                p.alarm_row(data)
        except p.BadMessage as error:
            return self._reject(topic, str(error))
        now = datetime.now(UTC)
        if envelope.seq is None:
            await self._store_status(envelope.table_id, row | {"verified": verified}, now)
            self.counts[StoreOutcome.STATUS] += 1
            return StoreOutcome.STATUS
        async with self._engine.begin() as connection:
            added = await connection.execute(
                self._insert(messages)
                .values(
                    table_id=envelope.table_id,
                    seq=envelope.seq,
                    topic=topic,
                    type=envelope.type,
                    ts=envelope.ts,
                    shoe_id=envelope.shoe_id,
                    round_id=envelope.round_id,
                    payload=payload.decode("utf-8"),
                    received_at=now,
                    verified=verified,
                )
                .on_conflict_do_nothing()
                .returning(messages.c.seq)
            )
            if added.first() is None:
                self.counts[StoreOutcome.DUPLICATE] += 1
                return StoreOutcome.DUPLICATE
            await self._project(connection, envelope, data)
        self.counts[StoreOutcome.STORED] += 1
        return StoreOutcome.STORED

    async def _project(
        self, connection: AsyncConnection, envelope: p.Envelope, data: dict[str, object]
    ) -> None:
        table_id, seq = envelope.table_id, envelope.seq
        assert seq is not None
        if envelope.type in p.ROUND_TYPES:
            assert envelope.round_id is not None
            version = p.round_version(data, seq, envelope.type)
            await connection.execute(
                self._insert(round_history)
                .values(table_id=table_id, seq=seq, round_id=envelope.round_id)
                .values(version.history_row)
                .on_conflict_do_nothing()
            )
            await self._rebuild_round(connection, table_id, envelope.round_id)
            await self._rebuild_shoe(connection, table_id, version.shoe_id)
        elif envelope.type in p.SHOE_TYPES and envelope.shoe_id is not None:
            await self._rebuild_shoe(connection, table_id, envelope.shoe_id)
        elif envelope.type == "alarm":
            await connection.execute(
                self._insert(alarms)
                .values(table_id=table_id, seq=seq, shoe_id=envelope.shoe_id)
                .values(round_id=envelope.round_id, **p.alarm_row(data))
                .on_conflict_do_nothing()
            )

    async def _lock(self, connection: AsyncConnection, *parts: str) -> None:
        if self._postgres:
            await connection.execute(select(func.pg_advisory_xact_lock(_lock_key(*parts))))

    async def _payloads(
        self,
        connection: AsyncConnection,
        table_id: str,
        column: Column[str],
        key: str,
        types: Sequence[str],
    ) -> list[tuple[int, str, dict[str, object]]]:
        found = await connection.execute(
            select(messages.c.seq, messages.c.type, messages.c.payload)
            .where(messages.c.table_id == table_id, column == key, messages.c.type.in_(types))
            .order_by(messages.c.seq)
        )
        return [(seq, kind, p.parse(payload.encode())) for seq, kind, payload in found]

    async def _rebuild_round(
        self, connection: AsyncConnection, table_id: str, round_id: str
    ) -> None:
        await self._lock(connection, "round", table_id, round_id)
        stored = await self._payloads(
            connection, table_id, messages.c.round_id, round_id, sorted(p.ROUND_TYPES)
        )
        folded = p.fold_round([p.round_version(data, seq, kind) for seq, kind, data in stored])
        statement = self._insert(rounds).values(table_id=table_id, round_id=round_id, **folded.row)
        await connection.execute(
            statement.on_conflict_do_update(
                index_elements=[rounds.c.table_id, rounds.c.round_id], set_=folded.row
            )
        )
        key = and_(
            round_settlements.c.table_id == table_id, round_settlements.c.round_id == round_id
        )
        await connection.execute(delete(round_settlements).where(key))
        if folded.settlement:
            await connection.execute(
                round_settlements.insert(),
                [
                    {
                        "table_id": table_id,
                        "round_id": round_id,
                        "bet": bet,
                        "offered": value is not None,
                        "numerator": None if value is None else value.numerator,
                        "denominator": None if value is None else value.denominator,
                    }
                    for bet, value in folded.settlement.items()
                ],
            )

    async def _rebuild_shoe(self, connection: AsyncConnection, table_id: str, shoe_id: str) -> None:
        await self._lock(connection, "shoe", table_id, shoe_id)
        stored = await self._payloads(
            connection, table_id, messages.c.shoe_id, shoe_id, sorted(p.SHOE_TYPES)
        )
        row = p.fold_shoe(
            [
                (seq, kind, p.timestamp(data), p.shoe_fields(data, kind))
                for seq, kind, data in stored
            ]
        )
        counted = await connection.execute(
            select(
                func.count(),
                func.count().filter(rounds.c.status == "settled"),
                func.count().filter(rounds.c.status == "voided"),
                func.count().filter(rounds.c.status == "corrected"),
            ).where(rounds.c.table_id == table_id, rounds.c.shoe_id == shoe_id)
        )
        total, settled, voided, corrected = counted.one()
        row |= {
            "rounds": total,
            "rounds_settled": settled,
            "rounds_voided": voided,
            "rounds_corrected": corrected,
        }
        await connection.execute(
            self._insert(shoes)
            .values(table_id=table_id, shoe_id=shoe_id, **row)
            .on_conflict_do_update(index_elements=[shoes.c.table_id, shoes.c.shoe_id], set_=row)
        )

    async def _store_status(self, table_id: str, row: dict[str, object], now: datetime) -> None:
        """Keep the newest status (``projections.status_rank``): one conditional upsert."""
        row = row | {"received_at": now}
        new = self._insert(table_status).values(table_id=table_id, **row)
        old = table_status.c
        newer = or_(
            new.excluded.session > old.session,
            and_(
                new.excluded.session == old.session,
                or_(
                    and_(old.online, ~new.excluded.online),
                    and_(
                        new.excluded.online == old.online,
                        new.excluded.last_seq >= old.last_seq,
                    ),
                ),
            ),
        )
        async with self._engine.begin() as connection:
            await connection.execute(
                new.on_conflict_do_update(
                    index_elements=[table_status.c.table_id], set_=row, where=newer
                )
            )

    async def gaps(self, table_id: str) -> list[SeqRange]:
        """The ``seq`` ranges missing below the highest held or announced, permanent ones out."""
        async with self._engine.connect() as connection:
            following = func.lead(messages.c.seq).over(order_by=messages.c.seq)
            runs = (
                select(messages.c.seq.label("seq"), following.label("next_seq"))
                .where(messages.c.table_id == table_id)
                .subquery()
            )
            holes = await connection.execute(
                select(runs.c.seq, runs.c.next_seq).where(runs.c.next_seq > runs.c.seq + 1)
            )
            missing = [(seq + 1, next_seq - 1) for seq, next_seq in holes]
            bounds = await connection.execute(
                select(func.min(messages.c.seq), func.max(messages.c.seq)).where(
                    messages.c.table_id == table_id
                )
            )
            lowest, highest = bounds.one()
            announced = await connection.scalar(
                select(table_status.c.last_seq).where(table_status.c.table_id == table_id)
            )
            permanent = await self._permanent(connection, table_id)
        if lowest is not None and lowest > 1:
            missing.append((1, lowest - 1))
        top = max(highest or 0, announced or 0)
        if top > (highest or 0):
            missing.append(((highest or 0) + 1, top))
        return [SeqRange(first, last) for first, last in p.without(missing, permanent)]

    async def tables(self) -> list[str]:
        """Every table the store has a message or a status of."""
        async with self._engine.connect() as connection:
            found = await connection.execute(
                select(messages.c.table_id).union(select(table_status.c.table_id))
            )
            return sorted(row[0] for row in found)

    async def record_gone(self, table_id: str, seqs: Sequence[int], *, reason: str) -> None:
        """Record ``seqs`` as a permanent gap: the table no longer holds them."""
        runs = p.ranges_of([seq for seq in seqs if 1 <= seq <= p.MAX_SEQ])
        if not runs:
            return
        now = datetime.now(UTC)
        async with self._engine.begin() as connection:
            await connection.execute(
                self._insert(permanent_gaps).on_conflict_do_nothing(),
                [
                    {
                        "table_id": table_id,
                        "first_seq": first,
                        "last_seq": last,
                        "reason": reason,
                        "recorded_at": now,
                    }
                    for first, last in runs
                ],
            )
        log.warning("permanent_gap", table_id=table_id, ranges=runs, reason=reason)

    async def permanent_gaps(self, table_id: str) -> list[SeqRange]:
        async with self._engine.connect() as connection:
            ranges = await self._permanent(connection, table_id)
        return [SeqRange(first, last) for first, last in ranges]

    @staticmethod
    async def _permanent(connection: AsyncConnection, table_id: str) -> list[tuple[int, int]]:
        found = await connection.execute(
            select(permanent_gaps.c.first_seq, permanent_gaps.c.last_seq)
            .where(permanent_gaps.c.table_id == table_id)
            .order_by(permanent_gaps.c.first_seq)
        )
        return [(first, last) for first, last in found]

    async def execute(self, sql: str, **parameters: object) -> list[tuple[object, ...]]:
        """Run one read-only SQL query (the documented ones); its rows."""
        async with self._engine.connect() as connection:
            found = await connection.execute(text(sql), parameters)
            return [tuple(row) for row in found]
