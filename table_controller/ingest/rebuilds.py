# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The projections' rows written for newly stored messages, in the messages' transaction.

A new round version adds its ``round_history`` row and an alarm its ``alarms`` row; then each
round and shoe the messages touch is rebuilt from all its stored messages ordered by ``seq``
(``projections.py`` folds them), never patched, so messages may arrive in any order. On
PostgreSQL a rebuild first takes a transaction-scoped advisory lock on its round or shoe
(rounds in sorted order, then shoes), so that of two workers storing messages of one round
the second rebuild sees the first's message; SQLite runs one writer at a time anyway.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from sqlalchemy import Column, and_, delete, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from table_controller.ingest import projections as p
from table_controller.ingest.checked_messages import NumberedMessage
from table_controller.ingest.database import dialect_insert
from table_controller.ingest.schema import (
    alarms,
    messages,
    round_history,
    round_settlements,
    rounds,
    shoes,
)


def _uniform(rows: list[dict[str, object]]) -> list[dict[str, object]]:
    """Rows for one executemany: every row with every column any of them sets (None if not)."""
    columns = dict.fromkeys(key for row in rows for key in row)
    return [{key: row.get(key) for key in columns} for row in rows]


def _lock_key(*parts: str) -> int:
    """A 64-bit advisory-lock key for a table's round or shoe (stable across processes)."""
    digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "big", signed=True)


async def project(
    connection: AsyncConnection, new: Sequence[NumberedMessage], *, postgres: bool
) -> None:
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
            dialect_insert(round_history, postgres=postgres).on_conflict_do_nothing(),
            _uniform(history),
        )
    if alarm_rows:
        await connection.execute(
            dialect_insert(alarms, postgres=postgres).on_conflict_do_nothing(), _uniform(alarm_rows)
        )
    for table_id, round_id in sorted(round_keys):
        await _rebuild_round(connection, table_id, round_id, postgres=postgres)
    for table_id, shoe_id in sorted(shoe_keys):
        await _rebuild_shoe(connection, table_id, shoe_id, postgres=postgres)


async def _lock(connection: AsyncConnection, *parts: str, postgres: bool) -> None:
    """On PostgreSQL, wait for and take the transaction's advisory lock on ``parts``."""
    if postgres:
        await connection.execute(select(func.pg_advisory_xact_lock(_lock_key(*parts))))


async def _payloads(
    connection: AsyncConnection,
    table_id: str,
    column: Column[str],
    key: str,
    types: Sequence[str],
) -> list[tuple[int, str, dict[str, object]]]:
    """The ``(seq, type, payload)`` of the table's stored messages of ``types`` with ``key``."""
    found = await connection.execute(
        select(messages.c.seq, messages.c.type, messages.c.payload)
        .where(messages.c.table_id == table_id, column == key, messages.c.type.in_(types))
        .order_by(messages.c.seq)
    )
    return [(seq, kind, p.parse(payload.encode())) for seq, kind, payload in found]


async def _rebuild_round(
    connection: AsyncConnection, table_id: str, round_id: str, *, postgres: bool
) -> None:
    """The round's row and its settlement rows, from all its stored messages."""
    await _lock(connection, "round", table_id, round_id, postgres=postgres)
    stored = await _payloads(
        connection, table_id, messages.c.round_id, round_id, sorted(p.ROUND_TYPES)
    )
    folded = p.fold_round([p.round_version(data, seq, kind) for seq, kind, data in stored])
    statement = dialect_insert(rounds, postgres=postgres).values(
        table_id=table_id, round_id=round_id, **folded.row
    )
    await connection.execute(
        statement.on_conflict_do_update(
            index_elements=[rounds.c.table_id, rounds.c.round_id], set_=folded.row
        )
    )
    key = and_(round_settlements.c.table_id == table_id, round_settlements.c.round_id == round_id)
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


async def _rebuild_shoe(
    connection: AsyncConnection, table_id: str, shoe_id: str, *, postgres: bool
) -> None:
    """The shoe's row, from its stored messages and its rounds' rows."""
    await _lock(connection, "shoe", table_id, shoe_id, postgres=postgres)
    stored = await _payloads(
        connection, table_id, messages.c.shoe_id, shoe_id, sorted(p.SHOE_TYPES)
    )
    row = p.fold_shoe(
        [(seq, kind, p.timestamp(data), p.shoe_fields(data, kind)) for seq, kind, data in stored]
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
        dialect_insert(shoes, postgres=postgres)
        .values(table_id=table_id, shoe_id=shoe_id, **row)
        .on_conflict_do_update(index_elements=[shoes.c.table_id, shoes.c.shoe_id], set_=row)
    )
