# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A batch into PostgreSQL through asyncpg's own API: a fixed number of statements per batch.

Adapter. On PostgreSQL the store writes a batch here rather than through SQLAlchemy (which
keeps the schema, the migrations, the SQLite path and the ingest's bookkeeping): each set of
rows goes in as one statement over one array of the table's own row type (``INSERT INTO t
SELECT * FROM unnest($1::t[])``, binary-encoded by asyncpg, prepared once per connection), so a
batch of 200 messages costs the same dozen statements as a batch of 2. A batch that changes no
projection (cards, prompts, states: most of them) is a single statement. Otherwise, in the
batch's one transaction:

1. the messages, sorted by ``(table_id, seq)``, ``ON CONFLICT DO NOTHING RETURNING`` the keys
   that were new;
2. the ``round_history`` and ``alarms`` rows of the new messages;
3. the advisory locks of every round, then every shoe, they touch, each in sorted order (one
   pipelined ``executemany``), so that of two workers storing messages of one round the second
   rebuild sees the first's message;
4. the stored messages of those rounds read in one query, each round folded
   (``rebuilds.folded_round``), the rows upserted and their settlements replaced;
5. the same for the shoes, with their rounds counted by status in one query;
6. the quarantined messages, once per payload.

The statements name the schema's tables (``schema.py``); the order of their columns is read
from the database at :meth:`PostgresBatches.open`, as the migrations left it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from operator import itemgetter
from typing import Final

import asyncpg
from sqlalchemy import Table
from sqlalchemy.dialects import postgresql
from sqlalchemy.engine import make_url

from table_controller.ingest import projections as p
from table_controller.ingest.checked_messages import NumberedMessage
from table_controller.ingest.rebuilds import (
    folded_round,
    settlement_rows,
    shoe_row,
    touched,
    touches,
)
from table_controller.ingest.schema import (
    alarms,
    messages,
    quarantine,
    round_history,
    round_settlements,
    rounds,
    shoes,
    table_status,
)

_DIALECT: Final = postgresql.dialect()  # type: ignore[no-untyped-call]
#: The most connections a store holds for batches (the worker's consumers take one each).
MAX_CONNECTIONS: Final = 8


def lock_key(*parts: str) -> int:
    """A 64-bit advisory-lock key for a table's round or shoe (stable across processes)."""
    digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


def _insert(table: Table, tail: str = "ON CONFLICT DO NOTHING") -> str:
    """``INSERT INTO table SELECT * FROM unnest($1::table[]) tail``: rows as the table's type.

    Each row is one value of the table's own composite type (its columns in the database's
    order, :meth:`PostgresBatches.open` reads it), encoded by asyncpg in one pass.
    """
    # The schema's own names; the values go as parameters.
    return f"INSERT INTO {table.name} SELECT * FROM unnest($1::{table.name}[]) {tail}"  # noqa: S608


def _upsert(table: Table, where: str = "") -> str:
    """An :func:`_insert` that replaces every column but the key of a row already there.

    ``where``: the condition on the row there (``table``) and the new one (``EXCLUDED``) for
    it to be replaced; none: always.
    """
    key = [column.name for column in table.primary_key.columns]
    keys = ", ".join(f'"{name}"' for name in key)
    changed = ", ".join(
        f'"{column.name}" = EXCLUDED."{column.name}"'
        for column in table.columns
        if column.name not in key
    )
    condition = f" WHERE {where}" if where else ""
    return _insert(table, f"ON CONFLICT ({keys}) DO UPDATE SET {changed}{condition}")


def _stored_of(column: str) -> str:
    """The stored messages of some types with some ``(table_id, <column>)``: one query."""
    return (
        f"SELECT m.table_id, m.{column}, m.seq, m.type, m.payload"  # noqa: S608 - a column
        " FROM unnest($1::varchar[], $2::varchar[]) AS k(table_id, key)"
        f" JOIN messages m ON m.table_id = k.table_id AND m.{column} = k.key"
        " WHERE m.type = ANY($3::varchar[]) ORDER BY m.seq"
    )


INSERT_MESSAGES: Final = _insert(messages, "ON CONFLICT DO NOTHING RETURNING table_id, seq")
INSERT_HISTORY: Final = _insert(round_history)
INSERT_ALARMS: Final = _insert(alarms)
INSERT_QUARANTINE: Final = _insert(quarantine)
UPSERT_ROUNDS: Final = _upsert(rounds)
UPSERT_SHOES: Final = _upsert(shoes)
#: A table's status replaced by one ranked as high or higher (``projections.status_rank``: the
#: newer session, then offline over online, then the higher ``last_seq``).
UPSERT_STATUSES: Final = _upsert(
    table_status,
    "EXCLUDED.session > table_status.session OR (EXCLUDED.session = table_status.session AND"
    " ((table_status.online AND NOT EXCLUDED.online) OR (EXCLUDED.online = table_status.online"
    " AND EXCLUDED.last_seq >= table_status.last_seq)))",
)
INSERT_SETTLEMENTS: Final = _insert(round_settlements, "")
DELETE_SETTLEMENTS: Final = (
    "DELETE FROM round_settlements s USING unnest($1::varchar[], $2::varchar[])"
    " AS k(table_id, round_id) WHERE s.table_id = k.table_id AND s.round_id = k.round_id"
)
ROUND_MESSAGES: Final = _stored_of("round_id")
SHOE_MESSAGES: Final = _stored_of("shoe_id")
SHOE_COUNTS: Final = (
    "SELECT r.table_id, r.shoe_id, count(*),"
    " count(*) FILTER (WHERE r.status = 'settled'),"
    " count(*) FILTER (WHERE r.status = 'voided'),"
    " count(*) FILTER (WHERE r.status = 'corrected')"
    " FROM unnest($1::varchar[], $2::varchar[]) AS k(table_id, shoe_id)"
    " JOIN rounds r ON r.table_id = k.table_id AND r.shoe_id = k.shoe_id"
    " GROUP BY r.table_id, r.shoe_id"
)
LOCK: Final = "SELECT pg_advisory_xact_lock($1)"
COLUMN_ORDER: Final = (
    "SELECT attname FROM pg_attribute WHERE attrelid = $1::regclass AND attnum > 0"
    " AND NOT attisdropped ORDER BY attnum"
)
#: The columns of ``messages`` in the order :meth:`PostgresBatches._messages` gives them.
MESSAGE_VALUES: Final = (
    "table_id", "seq", "topic", "type", "ts", "shoe_id", "round_id", "payload", "received_at",
    "verified",
)  # fmt: skip
WRITTEN: Final = (
    messages, round_history, alarms, quarantine, rounds, shoes, round_settlements, table_status
)  # fmt: skip
ROUND_TYPES: Final = sorted(p.ROUND_TYPES)
SHOE_TYPES: Final = sorted(p.SHOE_TYPES)


def asyncpg_dsn(url: str) -> str:
    """The ``postgresql://`` URL asyncpg takes, from SQLAlchemy's ``postgresql+asyncpg://``."""
    return make_url(url).set(drivername="postgresql").render_as_string(hide_password=False)


class PostgresBatches:
    """The store's batches on PostgreSQL; :attr:`statements` counts what it sent."""

    def __init__(self, pool: asyncpg.Pool, order: Mapping[str, Sequence[str]]) -> None:
        self._pool = pool
        #: Each written table's columns in the database's order (its composite type's).
        self._order = {name: tuple(columns) for name, columns in order.items()}
        #: A message's row as the table's type, from its values in :data:`MESSAGE_VALUES`' order.
        places = [MESSAGE_VALUES.index(name) for name in order[messages.name]]
        self._message_row = itemgetter(*places)
        #: Statements sent (an ``executemany`` counts once): what a batch costs the database.
        self.statements = 0

    @classmethod
    async def open(cls, url: str) -> PostgresBatches:
        """Connect, and read the order of the written tables' columns (the schema migrated)."""
        pool = await asyncpg.create_pool(asyncpg_dsn(url), min_size=1, max_size=MAX_CONNECTIONS)
        try:
            async with pool.acquire() as connection:
                order = {
                    table.name: [row[0] for row in await connection.fetch(COLUMN_ORDER, table.name)]
                    for table in WRITTEN
                }
        except BaseException:
            await pool.close()
            raise
        for table in WRITTEN:
            assert sorted(order[table.name]) == sorted(table.columns.keys()), table.name
        assert sorted(MESSAGE_VALUES) == sorted(messages.columns.keys())
        return cls(pool, order)

    def _rows(self, table: Table, rows: Iterable[Mapping[str, object]]) -> list[tuple[object, ...]]:
        """The rows as values of the table's composite type (None where a row has no column)."""
        names = self._order[table.name]
        return [tuple(map(row.get, names)) for row in rows]

    async def close(self) -> None:
        await self._pool.close()

    async def store(
        self,
        ordered: Sequence[NumberedMessage],
        quarantined: Sequence[Mapping[str, object]],
        now: datetime,
    ) -> set[tuple[str, int]]:
        """Store a batch in one transaction; the ``(table_id, seq)`` of the messages new.

        A batch that changes no projection and keeps nothing apart is one statement, which is
        its own transaction.
        """
        if not quarantined and not touches(ordered):
            async with self._pool.acquire() as connection:
                return await self._messages(connection, ordered, now) if ordered else set()
        async with self._pool.acquire() as connection, connection.transaction():
            added = await self._messages(connection, ordered, now) if ordered else set()
            await self._project(connection, [one for one in ordered if one.key in added])
            if quarantined:
                unique = {(str(row["table_id"]), str(row["sha256"])): row for row in quarantined}
                await self._execute(
                    connection,
                    INSERT_QUARANTINE,
                    [self._rows(quarantine, [unique[key] for key in sorted(unique)])],
                )
        return added

    async def statuses(self, rows: Sequence[Mapping[str, object]]) -> None:
        """Keep each table's status unless the one held ranks higher: one statement.

        ``rows``: at most one per table (the batch's highest ranked), in table order, so that
        workers storing a fleet's statuses lock their rows in one order.
        """
        async with self._pool.acquire() as connection:
            await self._execute(connection, UPSERT_STATUSES, [self._rows(table_status, rows)])

    async def _execute(
        self, connection: asyncpg.Connection, sql: str, arguments: Sequence[object]
    ) -> None:
        self.statements += 1
        await connection.execute(sql, *arguments)

    async def _fetch(
        self, connection: asyncpg.Connection, sql: str, *arguments: object
    ) -> list[asyncpg.Record]:
        self.statements += 1
        found: list[asyncpg.Record] = await connection.fetch(sql, *arguments)
        return found

    async def _messages(
        self, connection: asyncpg.Connection, ordered: Sequence[NumberedMessage], now: datetime
    ) -> set[tuple[str, int]]:
        row = self._message_row
        values = []
        for one in ordered:
            envelope, received = one.item.envelope, one.received
            values.append(
                row(
                    (
                        envelope.table_id, envelope.seq, received.topic, envelope.type,
                        envelope.ts, envelope.shoe_id, envelope.round_id,
                        received.payload.decode("utf-8"), now, received.verified,
                    )
                )
            )  # fmt: skip
        found = await self._fetch(connection, INSERT_MESSAGES, values)
        return {(row[0], row[1]) for row in found}

    async def _project(
        self, connection: asyncpg.Connection, new: Sequence[NumberedMessage]
    ) -> None:
        found = touched(new)
        if found.history:
            await self._execute(
                connection, INSERT_HISTORY, [self._rows(round_history, found.history)]
            )
        if found.alarms:
            await self._execute(connection, INSERT_ALARMS, [self._rows(alarms, found.alarms)])
        round_keys, shoe_keys = sorted(found.rounds), sorted(found.shoes)
        locks = [(lock_key("round", *key),) for key in round_keys]
        locks += [(lock_key("shoe", *key),) for key in shoe_keys]
        if not locks:
            return
        self.statements += 1
        await connection.executemany(LOCK, locks)
        if round_keys:
            versions = {
                (one.table_id, one.seq): one.item.version
                for one in new
                if one.item.version is not None
            }
            await self._rounds(connection, round_keys, versions)
        if shoe_keys:
            await self._shoes(connection, shoe_keys)

    async def _rounds(
        self,
        connection: asyncpg.Connection,
        keys: Sequence[tuple[str, str]],
        new: Mapping[tuple[str, int], p.RoundVersion],
    ) -> None:
        """Each round rebuilt from all its stored messages; its settlements replaced.

        ``new``: the versions of the messages this batch inserted, by ``(table_id, seq)``: their
        stored payloads are the ones checked, so they are not read again.
        """
        table_ids, round_ids = [key[0] for key in keys], [key[1] for key in keys]
        stored: dict[tuple[str, str], list[tuple[int, str, str]]] = {key: [] for key in keys}
        known: dict[tuple[str, str], dict[int, p.RoundVersion]] = {key: {} for key in keys}
        for row in await self._fetch(connection, ROUND_MESSAGES, table_ids, round_ids, ROUND_TYPES):
            key, seq = (row[0], row[1]), row[2]
            stored[key].append((seq, row[3], row[4]))
            version = new.get((row[0], seq))
            if version is not None:
                known[key][seq] = version
        rows, settlements = [], []
        for (table_id, round_id), versions in stored.items():
            folded = folded_round(versions, known[table_id, round_id])
            rows.append({"table_id": table_id, "round_id": round_id, **folded.row})
            settlements += settlement_rows(table_id, round_id, folded)
        await self._execute(connection, UPSERT_ROUNDS, [self._rows(rounds, rows)])
        await self._execute(connection, DELETE_SETTLEMENTS, [table_ids, round_ids])
        if settlements:
            await self._execute(
                connection, INSERT_SETTLEMENTS, [self._rows(round_settlements, settlements)]
            )

    async def _shoes(self, connection: asyncpg.Connection, keys: Sequence[tuple[str, str]]) -> None:
        """Each shoe rebuilt from its stored messages and its rounds' rows."""
        table_ids, shoe_ids = [key[0] for key in keys], [key[1] for key in keys]
        stored: dict[tuple[str, str], list[tuple[int, str, str]]] = {key: [] for key in keys}
        for row in await self._fetch(connection, SHOE_MESSAGES, table_ids, shoe_ids, SHOE_TYPES):
            stored[row[0], row[1]].append((row[2], row[3], row[4]))
        counts = {
            (row[0], row[1]): (row[2], row[3], row[4], row[5])
            for row in await self._fetch(connection, SHOE_COUNTS, table_ids, shoe_ids)
        }
        rows = [
            {"table_id": table_id, "shoe_id": shoe_id}
            | shoe_row(found, counts.get((table_id, shoe_id), (0, 0, 0, 0)))
            for (table_id, shoe_id), found in stored.items()
        ]
        await self._execute(connection, UPSERT_SHOES, [self._rows(shoes, rows)])
