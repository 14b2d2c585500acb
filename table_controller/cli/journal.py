# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller journal verify|export|stats|recall FILE``: check, print, sum up, recall.

Edge module: every action only reads the journal (no lock, nothing written), so it works beside
the table service that writes it. ``verify`` exits 0 when the file passes every check and 1
otherwise (missing, unreadable, not a journal, damaged, chain broken); with ``--json`` it
prints one JSON object on every outcome, its ``fault`` naming what failed. ``export`` exits 1
when the file cannot be read.

What ``verify`` covers, and says so: every row of the journal (inputs and audit rows) and the
table id in its metadata, through the hash chain, and SQLite's integrity check of the whole
file. The MQTT outbox in the same file is a delivery queue outside the chain (see
``runtime/journal/journal.py``): it is not covered.

``stats`` and ``recall`` verify the chain, then replay the journal's inputs through the table
procedure as ``replay`` does; a file that cannot be replayed exits 2. ``stats`` reads what the
table published into a pace :class:`~table_controller.history.pace.Timeline` with each input's
journal time stamp, and prints the game pace per group: the figures the live table publishes
on ``<root>/stats``, over the group's time:

* ``--by shoe``: each shoe, from its start to its end;
* ``--by dealer``: every stint of each dealer (``-`` for the time no dealer was signed in);
* ``--by hour``: each hour of the day (UTC) the table was in use;
* no ``--by``: the whole journal, from its first input to its last.

Given several journals (a month of them, or every table of a pit), each group takes its spans
from all of them: a dealer's stints at every table are one row.

``recall`` feeds each input, with the messages it gives, to the recall book the live table
answers the ``recall`` command from, so the last rounds it prints, with every step, are those
the table gave (or would give) at the journal's end. Each step names its journal row (``seq``):
``journal export`` shows the row itself. Printed as text, a heading per round and one step a
line, or with ``--json`` as the ``rounds`` and ``between_rounds`` of the ``recall`` reply
(docs/mqtt-api.md).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final, Literal

from table_controller.cli import Subcommand, UsageError, add_table_flags, whole_number
from table_controller.cli.variant_flags import VARIANT_HELP, add_variant_flags, chosen_variant
from table_controller.contract import PaceFigures, Recall, RecalledHand, RecallStep, fields_of
from table_controller.history import (
    HOUR_S,
    RecallBook,
    Span,
    Timeline,
    figures_of,
    seconds_of,
    stamp_of,
)
from table_controller.procedure import ProcedureBug, TableProcedure
from table_controller.runtime import DecisionInterpreter
from table_controller.runtime.journal import (
    FileCheck,
    Journal,
    JournalError,
    VerifyReport,
    check_file,
)

BROKEN = 1
#: What the hash chain covers, and what is in the file but outside it (``verify --json``).
COVERED = ("rows", "table_id")
NOT_COVERED = ("outbox",)
#: ``stats --by``: a row per shoe, dealer or hour, or one row for the whole journal (None).
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
#: A step's text, by kind: the fields shown after the kind, in this order.
_SHOWN: Final = {
    "card": ("card", "position", "source", "supervisor", "reason"),
    "prompt": ("action", "count", "reason"),
    "command": ("command", "id", "operator", "supervisor", "args", "error", "message"),
    "result": ("winner", "player", "banker", "natural", "last_round"),
    "correction": ("correction_no", "winner", "player", "banker", "operator", "supervisor"),
    "void": ("reason", "cards", "was_settled", "operator", "supervisor"),
    "alarm": ("code", "card", "message"),
    "staff": ("action", "staff_id", "dealer", "supervisor"),
    "shoe_started": ("shoe_id",),
    "last_round": ("shoe_id", "reason"),
    "shoe_ended": ("shoe_id", "reason"),
    "shoe_voided": ("shoe_id", "cards", "operator", "supervisor"),
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``journal`` actions and their flags."""
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    verify = actions.add_parser(
        "verify",
        help="check the file, its rows' hash chain and its table id (not the MQTT outbox)",
    )
    verify.add_argument("file", type=Path, metavar="FILE")
    verify.add_argument(
        "--json", action="store_true", help="one JSON object on stdout, whatever the outcome"
    )
    export = actions.add_parser("export", help="print every recorded row's payload as a JSON line")
    export.add_argument("file", type=Path, metavar="FILE")
    stats = actions.add_parser(
        "stats",
        help="game pace per dealer, shoe or hour: rounds, rounds per hour, round times, "
        "voids, misdeals, exposed cards, misreads, unnecessary cards, hold time",
    )
    stats.add_argument("files", type=Path, nargs="+", metavar="FILE", help="one or more journals")
    stats.add_argument("--by", choices=("dealer", "shoe", "hour"), default=None)
    stats.add_argument("--json", action="store_true", help="one JSON object on stdout")
    add_variant_flags(stats, variant_help=f"the table's variant: {VARIANT_HELP}")
    add_table_flags(stats)
    recall = actions.add_parser(
        "recall",
        help="the last rounds with every step (cards, prompts, commands, result or void, "
        "corrections, alarms), as the recall command answers",
    )
    recall.add_argument("file", type=Path, metavar="FILE")
    recall.add_argument(
        "--last", type=whole_number(1), default=None, metavar="N",
        help="how many of the last rounds (default: as many as the recall command's, 10)",
    )  # fmt: skip
    recall.add_argument("--json", action="store_true", help="one JSON object on stdout")
    add_variant_flags(recall, variant_help=f"the table's variant: {VARIANT_HELP}")
    add_table_flags(recall)


def run(args: argparse.Namespace) -> int:
    """Verify, export, sum up or recall, as ``args.action`` asks."""
    if args.action == "export":
        return _export(args.file)
    if args.action == "stats":
        return _stats(args)
    if args.action == "recall":
        return _recall(args)
    check = check_file(args.file)
    if args.json:
        sys.stdout.write(json.dumps(summary(check)) + "\n")
    else:
        _print(check)
    return 0 if check.ok else BROKEN


SUBCOMMAND = Subcommand(
    help="verify a journal's hash chain, or export its inputs as JSON lines",
    description="Check or export a table's durable input journal (read-only).",
    add_arguments=add_arguments,
    handler=run,
)


def summary(check: FileCheck) -> dict[str, object]:
    """The ``--json`` object: the same keys on every outcome, ``null`` where nothing was read."""
    report = check.report
    return {
        "file": str(check.path),
        "ok": check.ok,
        "fault": None if check.fault is None else check.fault.value,
        "message": check.reason,
        "rows": None if report is None else report.rows,
        "inputs": None if report is None else report.inputs,
        "audit_rows": None if report is None else report.audit_rows,
        "table_id": None if report is None else report.table_id,
        "covered": [
            item
            for item in COVERED
            if report is not None and (item != "table_id" or report.table_id_covered)
        ],
        "not_covered": [
            *NOT_COVERED,
            *(["table_id"] if report is not None and not report.table_id_covered else []),
        ],
        "head": None if report is None else {"seq": report.head_seq, "hash": report.head_hash},
        "problems": [check.reason] if report is None else list(report.problems),
    }


def _print(check: FileCheck) -> None:
    report = check.report
    if report is None:
        print(f"table-controller journal: {check.path}: {check.reason}", file=sys.stderr)
        return
    if not report.ok:
        for problem in report.problems:
            print(f"{check.path}: {problem}")
        print(f"{check.path}: BROKEN chain ({len(report.problems)} problems in {report.rows} rows)")
        return
    table = f"table id {report.table_id!r}"
    if report.table_id_covered:
        chained, not_covered = f"{_counted(report)} and {table}", "the MQTT outbox"
    else:
        chained = _counted(report)
        not_covered = f"{table} (the chain begins at the zero hash), the MQTT outbox"
    print(
        f"{check.path}: ok: {chained} in the hash chain, head seq {report.head_seq}"
        f" {report.head_hash}; not covered: {not_covered}"
    )


def _counted(report: VerifyReport) -> str:
    """``65 rows (60 inputs, 5 audit rows)``: what the chain holds, by kind."""
    kinds = [_count(report.inputs, "input"), _count(report.audit_rows, "audit row")]
    other = report.rows - report.inputs - report.audit_rows
    if other:
        kinds.append(f"{_count(other, 'row')} of another type")
    return f"{_count(report.rows, 'row')} ({', '.join(kinds)})"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _export(path: Path) -> int:
    try:
        with Journal.open_read_only(path) as journal:
            for row in journal.rows():
                record = {**row.payload}
                record.setdefault("ts", row.ts_utc)
                sys.stdout.write(json.dumps(record, separators=(",", ":")) + "\n")
    except JournalError as error:
        print(f"table-controller journal: {error}", file=sys.stderr)
        return BROKEN
    return 0


def _stats(args: argparse.Namespace) -> int:
    from table_controller.cli.replay import journal_table_id  # noqa: PLC0415 - verify stays light

    journals = []
    for number, path in enumerate(args.files, start=1):
        table_id = journal_table_id(path) or f"journal-{number}"
        machine = TableProcedure(
            chosen_variant(args),
            table_id=table_id,
            betting_phase=args.betting_phase,
            require_dealer=args.require_dealer,
            confirm_results=args.confirm_results,
        )
        timeline = timeline_of(path, machine)
        journals.append((table_id, timeline))
    rows = groups(journals, args.by)
    print_report(rows, by=args.by, as_json=args.json)
    return 0


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
    from table_controller.cli.replay import read_inputs  # noqa: PLC0415 - verify stays light

    interpreter = DecisionInterpreter()
    timeline = Timeline()
    for recorded in read_inputs(path, machine.variant):
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


def _recall(args: argparse.Namespace) -> int:
    from table_controller.cli.replay import journal_table_id  # noqa: PLC0415 - verify stays light
    from table_controller.contract.commands import DEFAULT_ROUNDS  # noqa: PLC0415

    machine = TableProcedure(
        chosen_variant(args),
        table_id=journal_table_id(args.file) or "journal",
        betting_phase=args.betting_phase,
        require_dealer=args.require_dealer,
        confirm_results=args.confirm_results,
    )
    last = DEFAULT_ROUNDS if args.last is None else args.last
    try:
        recall = recall_of(args.file, machine, last=last)
    except UsageError as error:  # read as replay's --inputs: say FILE instead
        raise UsageError(str(error).removeprefix("--inputs: ")) from None
    print_recall(recall, as_json=args.json)
    return 0


def recall_of(path: Path, machine: TableProcedure, *, last: int) -> Recall:
    """The last ``last`` rounds of the journal at ``path``, replayed as the table ran.

    ``machine`` is a new procedure of the table as it ran (its variant, ``betting_phase``,
    ``require_dealer``, ``confirm_results``): the same inputs through the same procedure give
    the same messages, so the same recall. A bad file raises
    :class:`~table_controller.cli.UsageError`.
    """
    from table_controller.cli.replay import read_inputs  # noqa: PLC0415 - verify stays light

    interpreter = DecisionInterpreter()
    book = RecallBook(max_rounds=last)
    for recorded in read_inputs(path, machine.variant):
        if recorded.event is None:
            continue
        origin = f"journal row {recorded.line_no}"
        try:
            decisions = machine.handle(recorded.event, origin=origin)
        except ProcedureBug as bug:
            decisions = list(bug.decisions)
        outcome = interpreter.interpret(
            decisions, machine.snapshot(), key=str(recorded.line_no), ts=recorded.ts
        )
        book.observe(recorded.event, recorded.line_no, recorded.ts, outcome.messages)
    return book.recall(last)


def print_recall(recall: Recall, *, as_json: bool) -> None:
    """The recall as text (a heading per round, a step a line) or as one JSON object."""
    if as_json:
        sys.stdout.write(json.dumps(recall, ensure_ascii=False) + "\n")
        return
    for found in recall["rounds"]:
        dealer = found["dealer"] or "-"
        print(
            f"round {found['round_id']} (shoe {found['shoe_id']}, round {found['round_no']}, "
            f"dealer {dealer}): {found['status']}"
        )
        for step in found["steps"]:
            print(step_line(step))
    if recall["between_rounds"]:
        print("since the last round")
        for step in recall["between_rounds"]:
            print(step_line(step))
    if not recall["rounds"] and not recall["between_rounds"]:
        print("no rounds in this journal")


def step_line(step: RecallStep) -> str:
    """One step: ``  seq 812  2026-11-29T12:39:05.881Z  card 9S player shoe``."""
    kind = step["kind"]
    shown = _SHOWN.get(kind, ())
    parts = [
        "??" if name == "card" and step.get(name) is None else _text(name, step.get(name))
        for name in shown
        if step.get(name) is not None or (name == "card" and name in step)
    ]
    if kind == "command":
        parts.insert(0, "ok" if step.get("ok") else "refused")
    text = " ".join(part for part in parts if part)
    return f"  seq {step['seq']:>6}  {step['ts'] or '-':<24}  {kind} {text}".rstrip()


def _text(name: str, value: object) -> str:  # noqa: PLR0911 - a case per kind of value
    if name in {"player", "banker"} and isinstance(value, dict):
        hand: RecalledHand = value  # type: ignore[assignment]  # a result's hand
        return f"{name} {' '.join(hand['cards'])} ({hand['total']})"
    if isinstance(value, bool):
        return name if value else ""
    if isinstance(value, list):
        return f"{name} [{' '.join('??' if card is None else str(card) for card in value)}]"
    if isinstance(value, dict):
        return " ".join(f"{key}={item}" for key, item in value.items())
    if name in {"card", "position", "source", "action", "command", "winner", "code", "shoe_id"}:
        return str(value)
    if name == "message":
        return f"- {value}"
    return f"{name} {value}"
