# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The queries that find a table's gaps: the ``seq`` it published that the store lacks.

Gaps come from what is stored, not from arrival order: the ``seq`` runs of a table (a window
function, ``lead``, on both databases), up to the highest held or the newest ``status``'s
``last_seq``, without the ranges recorded as permanent (``permanent_gaps``: the table no
longer holds them). A scan may start above a floor an earlier scan returned: messages are
never deleted, so what was complete stays complete.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import and_, func, select
from sqlalchemy.ext.asyncio import AsyncConnection

from table_controller.ingest import projections as p
from table_controller.ingest.schema import messages, permanent_gaps, table_status


@dataclass(frozen=True, slots=True, order=True)
class SeqRange:
    """The ``seq`` numbers from ``first`` to ``last``, both included."""

    first: int
    last: int


async def scan_gaps(
    connection: AsyncConnection, table_id: str, floor: int
) -> tuple[list[SeqRange], int]:
    """The gaps above ``floor``, and the new floor: every ``seq`` up to it held or gone.

    Only the rows above ``floor`` are read, through the primary key.
    """
    above = and_(messages.c.table_id == table_id, messages.c.seq > floor)
    following = func.lead(messages.c.seq).over(order_by=messages.c.seq)
    runs = select(messages.c.seq.label("seq"), following.label("next_seq")).where(above).subquery()
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
    permanent = await permanent_ranges(connection, table_id)
    if lowest is not None and lowest > floor + 1:
        missing.append((floor + 1, lowest - 1))
    held_to = max(highest or 0, floor)
    top = max(held_to, announced or 0)
    if top > held_to:
        missing.append((held_to + 1, top))
    gaps = [SeqRange(first, last) for first, last in p.without(missing, permanent)]
    return gaps, (gaps[0].first - 1 if gaps else top)


async def permanent_ranges(connection: AsyncConnection, table_id: str) -> list[tuple[int, int]]:
    """The ``(first, last)`` ranges recorded as permanent gaps of the table, in order."""
    found = await connection.execute(
        select(permanent_gaps.c.first_seq, permanent_gaps.c.last_seq)
        .where(permanent_gaps.c.table_id == table_id)
        .order_by(permanent_gaps.c.first_seq)
    )
    return [(first, last) for first, last in found]
