# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The projections' rows written for newly stored messages, in the messages' transaction.

A new round version adds its ``round_history`` row and an alarm its ``alarms`` row; then each
round and shoe the messages touch is rebuilt from all its stored messages ordered by ``seq``
(``projections.py`` folds them), never patched, so messages may arrive in any order.

The pure part (:func:`touches`, :func:`touched`, :func:`folded_round`, :func:`settlement_rows`,
:func:`shoe_row`) serves both databases; :func:`project` writes the rows on SQLite, through
SQLAlchemy, a round and a shoe at a time (SQLite runs one writer at a time).
PostgreSQL's batches write the same rows set by set, under advisory locks
(``postgres_batches.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from sqlalchemy import Column, and_, delete, func, select
from sqlalchemy.dialects import sqlite
from sqlalchemy.ext.asyncio import AsyncConnection

from table_controller.ingest import projections as p
from table_controller.ingest.checked_messages import NumberedMessage
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


@dataclass(slots=True)
class Touched:
    """What newly stored messages change: rows to add, and the rounds and shoes to rebuild."""

    history: list[dict[str, object]] = field(default_factory=list)
    alarms: list[dict[str, object]] = field(default_factory=list)
    rounds: set[tuple[str, str]] = field(default_factory=set)
    shoes: set[tuple[str, str]] = field(default_factory=set)


def touches(messages: Sequence[NumberedMessage]) -> bool:
    """Whether :func:`touched` of ``messages`` would find anything, without making its rows."""
    return any(
        one.item.version is not None
        or one.item.alarm is not None
        or (one.item.envelope.type in p.SHOE_TYPES and one.item.envelope.shoe_id is not None)
        for one in messages
    )


def touched(new: Sequence[NumberedMessage]) -> Touched:
    """The ``round_history`` and ``alarms`` rows of ``new``, and the rounds and shoes it touches."""
    found = Touched()
    for one in new:
        envelope, table_id = one.item.envelope, one.table_id
        if one.item.version is not None:
            assert envelope.round_id is not None
            found.history.append(
                {"table_id": table_id, "seq": one.seq, "round_id": envelope.round_id}
                | one.item.version.history_row
            )
            found.rounds.add((table_id, envelope.round_id))
            found.shoes.add((table_id, one.item.version.shoe_id))
        elif envelope.type in p.SHOE_TYPES and envelope.shoe_id is not None:
            found.shoes.add((table_id, envelope.shoe_id))
        elif one.item.alarm is not None:
            found.alarms.append(
                {
                    "table_id": table_id,
                    "seq": one.seq,
                    "shoe_id": envelope.shoe_id,
                    "round_id": envelope.round_id,
                }
                | one.item.alarm
            )
    return found


def folded_round(
    stored: Sequence[tuple[int, str, str]], known: Mapping[int, p.RoundVersion] | None = None
) -> p.RoundRow:
    """A round's row from its stored messages, each ``(seq, type, payload)``.

    ``known``: versions already read from the payloads stored under these ``seq`` (the batch's
    new messages, checked before they were inserted), by ``seq``; the others are read here.
    """
    known = known or {}
    return p.fold_round(
        [
            known.get(seq) or p.round_version(p.parse(payload.encode()), seq, kind)
            for seq, kind, payload in stored
        ]
    )


def settlement_rows(table_id: str, round_id: str, folded: p.RoundRow) -> list[dict[str, object]]:
    """The ``round_settlements`` rows of a round as it stands (none once voided)."""
    return [
        {
            "table_id": table_id,
            "round_id": round_id,
            "bet": bet,
            "offered": value is not None,
            "numerator": None if value is None else value.numerator,
            "denominator": None if value is None else value.denominator,
        }
        for bet, value in folded.settlement.items()
    ]


def shoe_row(
    stored: Sequence[tuple[int, str, str]], counts: tuple[int, int, int, int]
) -> dict[str, object]:
    """A shoe's row from its stored messages ``(seq, type, payload)`` and its rounds by status.

    ``counts``: its rows of ``rounds``: all, settled, voided, corrected.
    """
    parsed = [(seq, kind, p.parse(payload.encode())) for seq, kind, payload in stored]
    row = p.fold_shoe(
        [(seq, kind, p.timestamp(data), p.shoe_fields(data, kind)) for seq, kind, data in parsed]
    )
    total, settled, voided, corrected = counts
    return row | {
        "rounds": total,
        "rounds_settled": settled,
        "rounds_voided": voided,
        "rounds_corrected": corrected,
    }


async def project(connection: AsyncConnection, new: Sequence[NumberedMessage]) -> None:
    """The rows of ``round_history`` and ``alarms``, then each round and shoe rebuilt."""
    found = touched(new)
    if found.history:
        await connection.execute(
            sqlite.insert(round_history).on_conflict_do_nothing(),
            _uniform(found.history),
        )
    if found.alarms:
        await connection.execute(
            sqlite.insert(alarms).on_conflict_do_nothing(),
            _uniform(found.alarms),
        )
    known: dict[str, dict[int, p.RoundVersion]] = {}
    for one in new:
        if one.item.version is not None:
            known.setdefault(one.table_id, {})[one.seq] = one.item.version
    for table_id, round_id in sorted(found.rounds):
        await _rebuild_round(connection, table_id, round_id, known.get(table_id))
    for table_id, shoe_id in sorted(found.shoes):
        await _rebuild_shoe(connection, table_id, shoe_id)


async def _payloads(
    connection: AsyncConnection,
    table_id: str,
    column: Column[str],
    key: str,
    types: Sequence[str],
) -> list[tuple[int, str, str]]:
    """The ``(seq, type, payload)`` of the table's stored messages of ``types`` with ``key``."""
    found = await connection.execute(
        select(messages.c.seq, messages.c.type, messages.c.payload)
        .where(messages.c.table_id == table_id, column == key, messages.c.type.in_(types))
        .order_by(messages.c.seq)
    )
    return [(seq, kind, payload) for seq, kind, payload in found]


async def _rebuild_round(
    connection: AsyncConnection,
    table_id: str,
    round_id: str,
    known: Mapping[int, p.RoundVersion] | None,
) -> None:
    """The round's row and its settlement rows, from all its stored messages.

    ``known``: the versions of the table's messages inserted in this transaction, by ``seq``.
    """
    stored = await _payloads(
        connection, table_id, messages.c.round_id, round_id, sorted(p.ROUND_TYPES)
    )
    folded = folded_round(stored, known)
    statement = sqlite.insert(rounds).values(table_id=table_id, round_id=round_id, **folded.row)
    await connection.execute(
        statement.on_conflict_do_update(
            index_elements=[rounds.c.table_id, rounds.c.round_id], set_=folded.row
        )
    )
    key = and_(round_settlements.c.table_id == table_id, round_settlements.c.round_id == round_id)
    await connection.execute(delete(round_settlements).where(key))
    if folded.settlement:
        await connection.execute(
            round_settlements.insert(), settlement_rows(table_id, round_id, folded)
        )


async def _rebuild_shoe(connection: AsyncConnection, table_id: str, shoe_id: str) -> None:
    """The shoe's row, from its stored messages and its rounds' rows."""
    stored = await _payloads(
        connection, table_id, messages.c.shoe_id, shoe_id, sorted(p.SHOE_TYPES)
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
    row = shoe_row(stored, (total, settled, voided, corrected))
    await connection.execute(
        sqlite.insert(shoes)
        .values(table_id=table_id, shoe_id=shoe_id, **row)
        .on_conflict_do_update(index_elements=[shoes.c.table_id, shoes.c.shoe_id], set_=row)
    )
