# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest's store: every message exactly once, and the projections a casino queries.

Adapter: SQLAlchemy 2 Core on an async engine, PostgreSQL (asyncpg) or SQLite (aiosqlite);
the URL, the engine and the migrations are ``database.py``'s. On PostgreSQL the batches
themselves go through asyncpg's own API, a fixed number of statements per batch
(``postgres_batches.py``); what is checked, and what a batch's outcomes are, is decided here for
both databases.

* **Exactly once.** A message is inserted keyed by ``(table_id, seq)`` with ``ON CONFLICT DO
  NOTHING``; only when that insert added a row are the projections updated, in the same
  transaction. A duplicate changes nothing, and a crash before the commit leaves nothing.
* **Any order.** A round's row (and a shoe's) is rebuilt from all its stored messages ordered
  by ``seq`` (``rebuilds.py``, folding with ``projections.py``), never patched. On PostgreSQL
  two workers storing messages of one round take turns on a transaction-scoped advisory lock
  (the batch's rounds, then its shoes, each in sorted order), so the second rebuild sees the
  first's message; SQLite runs one writer at a time anyway.
* **Gaps** come from what is stored (``gap_queries.py``): the ``seq`` runs of a table, up to
  the highest held or the newest ``status``'s ``last_seq``, without the ranges recorded as
  permanent.
* A payload that is not a message of the contract is rejected (``checked_messages.py``),
  counted and logged; it never raises.
* **Quarantine.** A message whose signature did not verify (the worker's verdict, in
  ``Received.quarantine``) is written to ``quarantine`` in the batch's transaction, once per
  payload, and nowhere else: it takes no ``(table_id, seq)`` slot, feeds no projection and no
  status. It is counted, and logged at most once per table per ``log_budget.EVERY_S``.
"""

from __future__ import annotations

import enum
import hashlib
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Self

import structlog
from sqlalchemy import Table, and_, or_, select, text
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from table_controller.ingest import projections as p
from table_controller.ingest.checked_messages import (
    CheckedMessage,
    NumberedMessage,
    Received,
    check,
)
from table_controller.ingest.database import (
    dialect_insert,
    engine_url,
    migrate_to_head,
    open_engine,
)
from table_controller.ingest.gap_queries import SeqRange, permanent_ranges, scan_gaps
from table_controller.ingest.log_budget import LogBudget
from table_controller.ingest.postgres_batches import PostgresBatches
from table_controller.ingest.rebuilds import project
from table_controller.ingest.schema import messages, permanent_gaps, quarantine, table_status

log = structlog.get_logger("table_controller.ingest")


class StoreOutcome(enum.StrEnum):
    """What :meth:`IngestStore.store` did with a message."""

    STORED = "stored"
    DUPLICATE = "duplicate"
    STATUS = "status"
    REJECTED = "rejected"
    QUARANTINED = "quarantined"


@dataclass(slots=True)
class _SortedOut:
    """A batch sorted out: each message's outcome so far, and where the others go."""

    outcomes: list[StoreOutcome | None]
    #: The messages with a ``seq`` to insert, by ``(table_id, seq)``.
    checked: dict[tuple[str, int], NumberedMessage] = field(default_factory=dict)
    #: ``(index, table_id, row)`` of each status.
    statuses: list[tuple[int, str, dict[str, object]]] = field(default_factory=list)
    #: The ``quarantine`` row of each message kept apart, in the batch's order.
    quarantined: list[dict[str, object]] = field(default_factory=list)


class IngestStore:
    """The database of the ingest; open with :meth:`open`, one per process, shared by tasks."""

    def __init__(self, engine: AsyncEngine, batches: PostgresBatches | None = None) -> None:
        self._engine = engine
        self._postgres = engine.dialect.name == "postgresql"
        #: On PostgreSQL, where the batches go (asyncpg's own API); None: through SQLAlchemy.
        self.batches = batches
        if self._postgres and batches is None:
            raise ValueError("a PostgreSQL store writes its batches with asyncpg: use open()")
        #: How many messages had each outcome since the store was opened.
        self.counts: Counter[StoreOutcome] = Counter()
        self._quarantine_lines = LogBudget()

    @classmethod
    async def open(cls, url: str) -> Self:
        """Connect and migrate the schema to its newest revision.

        Raises:
            StoreUrlError: the URL is not a PostgreSQL or SQLite one.
        """
        engine = open_engine(url)
        try:
            await migrate_to_head(engine)
            postgres = engine.dialect.name == "postgresql"
            batches = await PostgresBatches.open(engine_url(url)) if postgres else None
        except BaseException:
            await engine.dispose()
            raise
        return cls(engine, batches)

    async def close(self) -> None:
        if self.batches is not None:
            await self.batches.close()
        await self._engine.dispose()

    @property
    def engine(self) -> AsyncEngine:
        """The database, for the ingest's own bookkeeping (gap repair's leases and requests)."""
        return self._engine

    @property
    def postgres(self) -> bool:
        return self._postgres

    def _insert(self, table: Table) -> postgresql.Insert | sqlite.Insert:
        return dialect_insert(table, postgres=self._postgres)

    def _reject(self, topic: str, reason: str) -> StoreOutcome:
        self.counts[StoreOutcome.REJECTED] += 1
        log.warning("message_rejected", topic=topic[:200], reason=reason[:300])
        return StoreOutcome.REJECTED

    async def store(
        self, topic: str, payload: bytes, *, verified: bool | None, quarantine: str | None = None
    ) -> StoreOutcome:
        """Store one message as received on ``topic``; see :class:`StoreOutcome`."""
        (outcome,) = await self.store_batch([Received(topic, payload, verified, quarantine)])
        return outcome

    async def store_batch(self, batch: Sequence[Received]) -> list[StoreOutcome]:
        """Store messages in one transaction; the outcome of each, in their order.

        The messages with a ``seq`` go in with one insert, sorted by ``(table_id, seq)`` so that
        two workers' batches wait on each other's rows in one order; the rounds and shoes they
        change are rebuilt once each, locked in sorted order (rounds, then shoes). A second copy
        of a ``seq`` in the batch is a duplicate. The quarantined messages go in the same
        transaction (after the messages, sorted too). Statuses are kept after the messages.
        """
        now = datetime.now(UTC)
        sorted_out = self._sort_out(batch, now)
        outcomes, checked = sorted_out.outcomes, sorted_out.checked
        statuses, quarantined = sorted_out.statuses, sorted_out.quarantined
        if checked or quarantined:
            ordered = [checked[key] for key in sorted(checked)]
            if self.batches is not None:
                added = await self.batches.store(ordered, quarantined, now)
            else:
                added = await self._store_sqlite(ordered, quarantined, now)
            for one in ordered:
                fresh = (one.table_id, one.seq) in added
                outcomes[one.index] = StoreOutcome.STORED if fresh else StoreOutcome.DUPLICATE
            self._log_quarantined(quarantined)
        if statuses:
            await self._store_statuses(statuses, now)
            for index, _table, _row in statuses:
                outcomes[index] = StoreOutcome.STATUS
        done = [outcome for outcome in outcomes if outcome is not None]
        assert len(done) == len(batch)
        self.counts.update(outcome for outcome in done if outcome is not StoreOutcome.REJECTED)
        return done

    async def _store_sqlite(
        self,
        ordered: Sequence[NumberedMessage],
        quarantined: Sequence[dict[str, object]],
        now: datetime,
    ) -> set[tuple[str, int]]:
        """A batch through SQLAlchemy in one transaction; the ``(table_id, seq)`` new."""
        async with self._engine.begin() as connection:
            added = await self._insert_messages(connection, ordered, now) if ordered else set()
            new = [one for one in ordered if one.key in added]
            await project(connection, new)
            if quarantined:
                await self._insert_quarantined(connection, quarantined)
        return added

    def _sort_out(self, batch: Sequence[Received], now: datetime) -> _SortedOut:
        """Each message checked and put where it goes (rejects counted and logged here)."""
        out = _SortedOut([None] * len(batch))
        for index, received in enumerate(batch):
            try:
                item = check(received)
            except p.BadMessage as error:
                out.outcomes[index] = self._reject(received.topic, str(error))
                continue
            seq = item.envelope.seq
            if received.quarantine is not None:
                out.quarantined.append(_quarantine_row(received, item, now))
                out.outcomes[index] = StoreOutcome.QUARANTINED
            elif seq is None:
                row = (item.status or {}) | {"verified": received.verified}
                out.statuses.append((index, item.envelope.table_id, row))
            elif (item.envelope.table_id, seq) in out.checked:
                out.outcomes[index] = StoreOutcome.DUPLICATE
            else:
                out.checked[item.envelope.table_id, seq] = NumberedMessage(index, received, item)
        return out

    def _log_quarantined(self, rows: Sequence[dict[str, object]]) -> None:
        """A ``message_quarantined`` line per table per ``log_budget.EVERY_S`` at most."""
        now = time.monotonic()
        for row in rows:
            left_out = self._quarantine_lines.allow(str(row["table_id"]), now)
            if left_out is not None:
                log.warning(
                    "message_quarantined",
                    table_id=row["table_id"],
                    topic=str(row["topic"])[:200],
                    seq=row["seq"],
                    type=row["type"],
                    reason=str(row["reason"])[:300],
                    not_logged=left_out,
                )

    async def _insert_quarantined(
        self, connection: AsyncConnection, rows: Sequence[dict[str, object]]
    ) -> None:
        """Insert the quarantined messages, each payload once, in key order (as messages are)."""
        unique = {(str(row["table_id"]), str(row["sha256"])): row for row in rows}
        await connection.execute(
            self._insert(quarantine).on_conflict_do_nothing(),
            [unique[key] for key in sorted(unique)],
        )

    async def _insert_messages(
        self, connection: AsyncConnection, ordered: Sequence[NumberedMessage], now: datetime
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

    async def _store_statuses(
        self, statuses: Sequence[tuple[int, str, dict[str, object]]], now: datetime
    ) -> None:
        """Keep each table's newest status (``projections.status_rank``): conditional upserts.

        In table order: every worker keeps every status, and a fleet's births reach the workers
        in different orders; rows locked in one order make them wait on each other, not
        deadlock. Which of a table's statuses is kept does not depend on their order. On
        PostgreSQL, one statement of each table's status that the upserts would keep.
        """
        if self.batches is not None:
            newest = _newest_statuses(statuses)
            await self.batches.statuses(
                [{"table_id": table_id} | row | {"received_at": now} for table_id, row in newest]
            )
            return
        async with self._engine.begin() as connection:
            for _index, table_id, row in sorted(statuses, key=_by_table):
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
            return await scan_gaps(connection, table_id, floor)

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
            ranges = await permanent_ranges(connection, table_id)
        return [SeqRange(first, last) for first, last in ranges]

    async def execute(self, sql: str, **parameters: object) -> list[tuple[object, ...]]:
        """Run one read-only SQL query (the documented ones); its rows."""
        async with self._engine.connect() as connection:
            found = await connection.execute(text(sql), parameters)
            return [tuple(row) for row in found]


def _quarantine_row(received: Received, item: CheckedMessage, now: datetime) -> dict[str, object]:
    """The ``quarantine`` row of a message kept apart."""
    assert received.quarantine is not None
    return {
        "table_id": item.envelope.table_id,
        "sha256": hashlib.sha256(received.payload).hexdigest(),
        "seq": item.envelope.seq,
        "type": item.envelope.type,
        "topic": received.topic,
        "reason": received.quarantine,
        "payload": received.payload.decode("utf-8"),
        "received_at": now,
    }


def _newest_statuses(
    statuses: Sequence[tuple[int, str, dict[str, object]]],
) -> list[tuple[str, dict[str, object]]]:
    """Each table's status that its upserts in the batch's order would leave, by table.

    An upsert replaces a status ranked as high or lower (``projections.status_rank``): of a
    table's statuses, the last of the highest rank.
    """
    newest: dict[str, dict[str, object]] = {}
    for _index, table_id, row in statuses:
        held = newest.get(table_id)
        if held is None or p.status_rank(row) >= p.status_rank(held):
            newest[table_id] = row
    return sorted(newest.items())


def _by_table(status: tuple[int, str, dict[str, object]]) -> tuple[str, int]:
    """A batch's status by table, then by its place in the batch."""
    index, table_id, _row = status
    return table_id, index
