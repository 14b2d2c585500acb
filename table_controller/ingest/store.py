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


@dataclass(frozen=True, slots=True)
class Received:
    """A message as the broker delivered it, and the verdict on its signature (or None)."""

    topic: str
    payload: bytes
    verified: bool | None


@dataclass(frozen=True, slots=True)
class _Item:
    """A message checked against the contract, with what its projections need."""

    envelope: p.Envelope
    status: dict[str, object] | None = None
    version: p.RoundVersion | None = None
    alarm: dict[str, object] | None = None


@dataclass(frozen=True, slots=True)
class _Checked:
    """A message with a ``seq`` to insert: where it stands in its batch, and its check."""

    index: int
    received: Received
    item: _Item

    @property
    def table_id(self) -> str:
        return self.item.envelope.table_id

    @property
    def seq(self) -> int:
        assert self.item.envelope.seq is not None
        return self.item.envelope.seq


def _uniform(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """Rows for one executemany: every row with every column any of them sets (None if not)."""
    columns = dict.fromkeys(key for row in rows for key in row)
    return [{key: row.get(key) for key in columns} for row in rows]


def _check(received: Received) -> _Item:
    """Parse and check one message; raises :class:`projections.BadMessage`."""
    data = p.parse(received.payload)
    envelope = p.envelope(data, received.topic)
    kind = envelope.type
    if kind == "status":
        return _Item(envelope, status=p.status_row(data))
    if kind in p.ROUND_TYPES:
        return _Item(envelope, version=p.round_version(data, envelope.seq or 0, kind))
    if kind in p.SHOE_TYPES:
        p.shoe_fields(data, kind)
    elif kind == "alarm":
        return _Item(envelope, alarm=p.alarm_row(data))
    return _Item(envelope)


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


def migrate(connection: Connection, revision: str = "head", *, down: bool = False) -> None:
    """Bring the schema up (or ``down``) to alembic's ``revision``: ``head``, ``0001``, ``base``.

    Down is for rolling a release back: each revision's ``downgrade`` drops what it added,
    its data included.
    """
    config = Config()
    config.set_main_option("script_location", str(_MIGRATIONS))
    config.attributes["connection"] = connection
    (command.downgrade if down else command.upgrade)(config, revision)


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
                    await connection.run_sync(migrate)
            except OperationalError:
                # Another SQLite process migrating at the same moment: its schema will do.
                if self._postgres or attempt == 4:
                    raise
                await asyncio.sleep(0.2 * (attempt + 1))
            else:
                return

    async def close(self) -> None:
        await self._engine.dispose()

    @property
    def engine(self) -> AsyncEngine:
        """The database, for the ingest's own bookkeeping (gap repair's leases and requests)."""
        return self._engine

    @property
    def postgres(self) -> bool:
        return self._postgres

    def _insert(self, table: Table) -> postgresql.Insert | sqlite.Insert:
        return (postgresql.insert if self._postgres else sqlite.insert)(table)

    def _reject(self, topic: str, reason: str) -> StoreOutcome:
        self.counts[StoreOutcome.REJECTED] += 1
        log.warning("message_rejected", topic=topic[:200], reason=reason[:300])
        return StoreOutcome.REJECTED

    async def store(self, topic: str, payload: bytes, *, verified: bool | None) -> StoreOutcome:
        """Store one message as received on ``topic``; see :class:`StoreOutcome`."""
        (outcome,) = await self.store_batch([Received(topic, payload, verified)])
        return outcome

    async def store_batch(self, batch: Sequence[Received]) -> list[StoreOutcome]:
        """Store messages in one transaction; the outcome of each, in their order.

        The messages with a ``seq`` go in with one insert, sorted by ``(table_id, seq)`` so that
        two workers' batches wait on each other's rows in one order; the rounds and shoes they
        change are rebuilt once each, locked in sorted order (rounds, then shoes). A second copy
        of a ``seq`` in the batch is a duplicate. Statuses are kept after the messages.
        """
        outcomes: list[StoreOutcome | None] = [None] * len(batch)
        checked: dict[tuple[str, int], _Checked] = {}
        statuses: list[tuple[int, str, dict[str, object]]] = []
        for index, received in enumerate(batch):
            try:
                item = _check(received)
            except p.BadMessage as error:
                outcomes[index] = self._reject(received.topic, str(error))
                continue
            seq = item.envelope.seq
            if seq is None:
                row = (item.status or {}) | {"verified": received.verified}
                statuses.append((index, item.envelope.table_id, row))
            elif (item.envelope.table_id, seq) in checked:
                outcomes[index] = StoreOutcome.DUPLICATE
            else:
                checked[item.envelope.table_id, seq] = _Checked(index, received, item)
        now = datetime.now(UTC)
        if checked:
            ordered = [checked[key] for key in sorted(checked)]
            async with self._engine.begin() as connection:
                added = await self._insert_messages(connection, ordered, now)
                new = [one for one in ordered if (one.table_id, one.seq) in added]
                await self._project(connection, new)
            for one in ordered:
                fresh = (one.table_id, one.seq) in added
                outcomes[one.index] = StoreOutcome.STORED if fresh else StoreOutcome.DUPLICATE
        if statuses:
            await self._store_statuses(statuses, now)
            for index, _table, _row in statuses:
                outcomes[index] = StoreOutcome.STATUS
        done = [outcome for outcome in outcomes if outcome is not None]
        assert len(done) == len(batch)
        self.counts.update(outcome for outcome in done if outcome is not StoreOutcome.REJECTED)
        return done

    async def _insert_messages(
        self, connection: AsyncConnection, ordered: Sequence[_Checked], now: datetime
    ) -> set[tuple[str, int]]:
        """Insert the messages; the ``(table_id, seq)`` of those that were not held yet."""
        rows = [
            {
                "table_id": one.table_id,
                "seq": one.seq,
                "topic": one.received.topic,
                "type": one.item.envelope.type,
                "ts": one.item.envelope.ts,
                "shoe_id": one.item.envelope.shoe_id,
                "round_id": one.item.envelope.round_id,
                "payload": one.received.payload.decode("utf-8"),
                "received_at": now,
                "verified": one.received.verified,
            }
            for one in ordered
        ]
        statement = (
            self._insert(messages)
            .on_conflict_do_nothing()
            .returning(messages.c.table_id, messages.c.seq)
        )
        found = await connection.execute(statement, rows)
        return {(table_id, seq) for table_id, seq in found}

    async def _project(self, connection: AsyncConnection, new: Sequence[_Checked]) -> None:
        """The rows of ``round_history`` and ``alarms``, then each round and shoe rebuilt."""
        history: list[dict[str, object]] = []
        alarm_rows: list[dict[str, object]] = []
        round_keys: set[tuple[str, str]] = set()
        shoe_keys: set[tuple[str, str]] = set()
        for one in new:
            envelope, table_id = one.item.envelope, one.table_id
            if one.item.version is not None:
                assert envelope.round_id is not None
                history.append(
                    {"table_id": table_id, "seq": one.seq, "round_id": envelope.round_id}
                    | one.item.version.history_row
                )
                round_keys.add((table_id, envelope.round_id))
                shoe_keys.add((table_id, one.item.version.shoe_id))
            elif envelope.type in p.SHOE_TYPES and envelope.shoe_id is not None:
                shoe_keys.add((table_id, envelope.shoe_id))
            elif one.item.alarm is not None:
                alarm_rows.append(
                    {
                        "table_id": table_id,
                        "seq": one.seq,
                        "shoe_id": envelope.shoe_id,
                        "round_id": envelope.round_id,
                    }
                    | one.item.alarm
                )
        if history:
            await connection.execute(
                self._insert(round_history).on_conflict_do_nothing(), _uniform(history)
            )
        if alarm_rows:
            await connection.execute(
                self._insert(alarms).on_conflict_do_nothing(), _uniform(alarm_rows)
            )
        for table_id, round_id in sorted(round_keys):
            await self._rebuild_round(connection, table_id, round_id)
        for table_id, shoe_id in sorted(shoe_keys):
            await self._rebuild_shoe(connection, table_id, shoe_id)

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

    async def _store_statuses(
        self, statuses: Sequence[tuple[int, str, dict[str, object]]], now: datetime
    ) -> None:
        """Keep each table's newest status (``projections.status_rank``): conditional upserts."""
        async with self._engine.begin() as connection:
            for _index, table_id, row in statuses:
                await connection.execute(self._newer_status(table_id, row | {"received_at": now}))

    def _newer_status(
        self, table_id: str, row: dict[str, object]
    ) -> postgresql.Insert | sqlite.Insert:
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
        return new.on_conflict_do_update(
            index_elements=[table_status.c.table_id], set_=row, where=newer
        )

    async def gaps(self, table_id: str) -> list[SeqRange]:
        """The ``seq`` ranges missing below the highest held or announced, permanent ones out."""
        missing, _floor = await self.scan_gaps(table_id)
        return missing

    async def scan_gaps(self, table_id: str, floor: int = 0) -> tuple[list[SeqRange], int]:
        """The gaps above ``floor``, and the new floor: every ``seq`` up to it held or gone.

        ``floor`` is one such figure from an earlier scan (0: none), so that a scan reads the
        rows above it, through the primary key, not the table's whole history: messages are
        never deleted, so what was complete stays complete.
        """
        async with self._engine.connect() as connection:
            above = and_(messages.c.table_id == table_id, messages.c.seq > floor)
            following = func.lead(messages.c.seq).over(order_by=messages.c.seq)
            runs = (
                select(messages.c.seq.label("seq"), following.label("next_seq"))
                .where(above)
                .subquery()
            )
            holes = await connection.execute(
                select(runs.c.seq, runs.c.next_seq).where(runs.c.next_seq > runs.c.seq + 1)
            )
            missing = [(seq + 1, next_seq - 1) for seq, next_seq in holes]
            bounds = await connection.execute(
                select(func.min(messages.c.seq), func.max(messages.c.seq)).where(above)
            )
            lowest, highest = bounds.one()
            announced = await connection.scalar(
                select(table_status.c.last_seq).where(table_status.c.table_id == table_id)
            )
            permanent = await self._permanent(connection, table_id)
        if lowest is not None and lowest > floor + 1:
            missing.append((floor + 1, lowest - 1))
        held_to = max(highest or 0, floor)
        top = max(held_to, announced or 0)
        if top > held_to:
            missing.append((held_to + 1, top))
        gaps = [SeqRange(first, last) for first, last in p.without(missing, permanent)]
        return gaps, (gaps[0].first - 1 if gaps else top)

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
