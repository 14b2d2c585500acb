# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller journal verify|export|stats|recall FILE``: check, print, sum up, recall.

Edge module: both actions only read the journal (no lock, nothing written), so they work beside
the table service that writes it. ``verify`` exits 0 when the file passes every check and 1
otherwise (missing, unreadable, not a journal, damaged, chain broken); with ``--json`` it
prints one JSON object on every outcome, its ``fault`` naming what failed. ``export`` exits 1
when the file cannot be read. ``stats`` replays the journal and prints its game pace per dealer,
shoe or hour (``cli/journal_stats.py``); a file that cannot be replayed exits 2. ``recall``
replays the journal and prints its last rounds with every step, as the ``recall`` command
answers (``cli/journal_recall.py``); a file that cannot be replayed exits 2.

What ``verify`` covers, and says so: every row of the journal (inputs and audit rows) and the
table id in its metadata, through the hash chain, and SQLite's integrity check of the whole
file. The MQTT outbox in the same file is a delivery queue outside the chain (see
``runtime/journal/journal.py``): it is not covered.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from table_controller.cli import Subcommand, UsageError, add_table_flags, whole_number
from table_controller.procedure import TableProcedure
from table_controller.rules import VARIANTS
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
    stats.add_argument(
        "--variant", choices=sorted(VARIANTS), default="commission", help="the table's variant"
    )
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
    recall.add_argument(
        "--variant", choices=sorted(VARIANTS), default="commission", help="the table's variant"
    )
    add_table_flags(recall)


def run(args: argparse.Namespace) -> int:
    """Verify or export."""
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
    from table_controller.cli import journal_stats  # noqa: PLC0415 - verify stays light
    from table_controller.cli.replay import journal_table_id  # noqa: PLC0415

    journals = []
    for number, path in enumerate(args.files, start=1):
        table_id = journal_table_id(path) or f"journal-{number}"
        machine = TableProcedure(
            VARIANTS[args.variant],
            table_id=table_id,
            betting_phase=args.betting_phase,
            require_dealer=args.require_dealer,
            confirm_results=args.confirm_results,
        )
        timeline = journal_stats.timeline_of(path, machine)
        journals.append((table_id, timeline))
    rows = journal_stats.groups(journals, args.by)
    journal_stats.print_report(rows, by=args.by, as_json=args.json)
    return 0


def _recall(args: argparse.Namespace) -> int:
    from table_controller.cli import journal_recall  # noqa: PLC0415 - verify stays light
    from table_controller.cli.replay import journal_table_id  # noqa: PLC0415
    from table_controller.contract.commands import DEFAULT_ROUNDS  # noqa: PLC0415

    machine = TableProcedure(
        VARIANTS[args.variant],
        table_id=journal_table_id(args.file) or "journal",
        betting_phase=args.betting_phase,
        require_dealer=args.require_dealer,
        confirm_results=args.confirm_results,
    )
    last = DEFAULT_ROUNDS if args.last is None else args.last
    try:
        recall = journal_recall.recall_of(args.file, machine, last=last)
    except UsageError as error:  # read as replay's --inputs: say FILE instead
        raise UsageError(str(error).removeprefix("--inputs: ")) from None
    journal_recall.print_recall(recall, as_json=args.json)
    return 0


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"


def _counted(report: VerifyReport) -> str:
    """``65 rows (60 inputs, 5 audit rows)``: what the chain holds, by kind."""
    kinds = [_count(report.inputs, "input"), _count(report.audit_rows, "audit row")]
    other = report.rows - report.inputs - report.audit_rows
    if other:
        kinds.append(f"{_count(other, 'row')} of another type")
    return f"{_count(report.rows, 'row')} ({', '.join(kinds)})"


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
