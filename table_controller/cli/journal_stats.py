# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller journal stats FILE``: game pace from a journal, per dealer, shoe or hour.

Edge module. The journal is replayed through the table procedure, as ``replay`` does, and what
the table published is read into a pace :class:`~table_controller.history.pace.Timeline`
with each input's journal time stamp; the figures of each group are those the live table
publishes on ``<root>/stats``, over the group's time:

* ``--by shoe``: each shoe, from its start to its end;
* ``--by dealer``: every stint of each dealer (``-`` for the time no dealer was signed in);
* ``--by hour``: each hour of the day (UTC) the table was in use;
* no ``--by``: the whole journal, from its first input to its last.

Given several journals (a month of them, or every table of a pit), each group takes its spans
from all of them: a dealer's stints at every table are one row.
"""

from __future__ import annotations

import json
import math
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from table_controller.contract import PaceFigures, fields_of
from table_controller.history import (
    HOUR_S,
    Span,
    Timeline,
    figures_of,
    seconds_of,
    stamp_of,
)
from table_controller.procedure import ProcedureBug, TableProcedure
from table_controller.runtime import DecisionInterpreter

Grouping = Literal["shoe", "dealer", "hour"] | None
#: The group of the time no dealer was signed in (``--by dealer``).
NO_DEALER: Final = "-"
#: The columns of the text table: heading, figure, width.
COLUMNS: Final = (
    ("rounds", "rounds", 7),
    ("per hour", "rounds_per_hour", 9),
    ("round s", "median_round_seconds", 8),
    ("between s", "median_between_rounds_seconds", 10),
    ("voids", "voids", 6),
    ("misdeals", "misdeals", 9),
    ("exposed", "exposed_cards", 8),
    ("misreads", "misreads", 9),
    ("unneeded", "unnecessary_cards", 9),
    ("hold s", "hold_seconds", 8),
)


@dataclass(frozen=True, slots=True)
class Group:
    """One row of the report: a group's key and its figures."""

    key: str
    figures: PaceFigures


def timeline_of(path: Path, machine: TableProcedure) -> Timeline:
    """The journal replayed into a pace timeline (its chain verified first, as replay does).

    ``machine`` is a new procedure of the table as it ran (its variant, ``betting_phase``,
    ``require_dealer``, ``confirm_results``): the journal holds its inputs, and the same inputs
    through the same procedure give the same messages.
    """
    from table_controller.cli.replay import read_inputs  # noqa: PLC0415 - run's CLI stays light

    interpreter = DecisionInterpreter()
    timeline = Timeline()
    for recorded in read_inputs(path):
        if recorded.event is None or recorded.ts is None:
            continue
        try:
            decisions = machine.handle(recorded.event)
        except ProcedureBug as bug:
            decisions = list(bug.decisions)
        outcome = interpreter.interpret(decisions, machine.snapshot(), key="", ts=None)
        at = seconds_of(recorded.ts)
        if at is not None:
            timeline.read(at, [message.payload for message in outcome.messages])
    return timeline


def groups(journals: Sequence[tuple[str, Timeline]], by: Grouping) -> list[Group]:
    """The report's rows over the journals of one or more tables, by table id.

    A group takes its spans from every journal: a dealer who dealt at several tables is one
    row, and so is an hour of the day. Over several tables a shoe is ``<table_id>/<shoe_id>``.
    """
    parts: dict[str, list[tuple[Timeline, list[tuple[float, float]]]]] = {}
    tables = {table_id for table_id, _ in journals}
    for table_id, timeline in journals:
        if timeline.first is None or timeline.now is None:
            continue
        spans: dict[str, list[tuple[float, float]]] = {}
        for found, start, end in _spans(timeline, by, timeline.first, timeline.now):
            key = f"{table_id}/{found}" if by == "shoe" and len(tables) > 1 else found
            if end > start or by is None:
                spans.setdefault(key, []).append((start, end))
        for key, own in spans.items():
            parts.setdefault(key, []).append((timeline, own))
    return [Group(key, figures_of(found)) for key, found in sorted(parts.items(), key=_first)]


def _first(item: tuple[str, list[tuple[Timeline, list[tuple[float, float]]]]]) -> float:
    """When a group's first span began: the report's rows in time order."""
    return min(spans[0][0] for _, spans in item[1])


def _spans(
    timeline: Timeline, by: Grouping, first: float, now: float
) -> Iterator[tuple[str, float, float]]:
    if by is None:
        yield "all", first, now
    elif by == "shoe":
        for shoe in timeline.shoes:
            yield shoe.key, shoe.start, _end(shoe, now)
    elif by == "dealer":
        yield from _stints_and_gaps(timeline.stints, first, now)
    else:
        hour = math.floor(first / HOUR_S) * HOUR_S
        while hour <= now:
            yield stamp_of(hour)[:13], max(hour, first), min(hour + HOUR_S, now)
            hour += HOUR_S


def _stints_and_gaps(
    stints: list[Span], first: float, now: float
) -> Iterator[tuple[str, float, float]]:
    """Each dealer's stints, and the time between them as :data:`NO_DEALER`."""
    cursor = first
    for stint in stints:
        if stint.start > cursor:
            yield NO_DEALER, cursor, stint.start
        yield stint.key, stint.start, _end(stint, now)
        cursor = _end(stint, now)
    if now > cursor:
        yield NO_DEALER, cursor, now


def _end(span: Span, now: float) -> float:
    return now if span.end is None else span.end


def print_report(rows: list[Group], *, by: Grouping, as_json: bool) -> None:
    """The rows as a text table, or as one JSON object."""
    heading = by or "journal"
    if as_json:
        document = {
            "by": by,
            "groups": [{"key": row.key, **fields_of(row.figures)} for row in rows],
        }
        sys.stdout.write(json.dumps(document, ensure_ascii=False) + "\n")
        return
    width = max([len(heading), *(len(row.key) for row in rows)])
    print(f"{heading:<{width}}  " + " ".join(f"{name:>{size}}" for name, _, size in COLUMNS))
    for row in rows:
        values = fields_of(row.figures)
        cells = (f"{_cell(values[field]):>{size}}" for _, field, size in COLUMNS)
        print(f"{row.key:<{width}}  " + " ".join(cells))


def _cell(value: object) -> str:
    if value is None:
        return "-"
    if isinstance(value, float):
        return f"{value:.1f}"
    return str(value)
