# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller journal verify|export FILE``: check the hash chain; print the inputs.

Edge module: opens the journal read-only in spirit (it never appends), prints, exits 0 when the
chain is whole, 1 when it is broken or the file is not a journal.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from table_controller.runtime.journal import Journal, JournalError, is_journal

BROKEN = 1


def register(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the ``journal`` sub-command and its actions."""
    parser = subparsers.add_parser(
        "journal",
        help="verify a journal's hash chain, or export its inputs as JSON lines",
        description="Check or export a table's durable input journal.",
    )
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)
    verify = actions.add_parser("verify", help="check the file and its hash chain")
    verify.add_argument("file", type=Path, metavar="FILE")
    verify.add_argument("--json", action="store_true", help="one JSON object on stdout")
    export = actions.add_parser("export", help="print every recorded input as a JSON line")
    export.add_argument("file", type=Path, metavar="FILE")
    parser.set_defaults(handler=run)


def _open(path: Path) -> Journal | None:
    if not is_journal(path):
        print(f"table-controller journal: {path}: not a table-controller journal", file=sys.stderr)
        return None
    try:
        return Journal.open_read_only(path)
    except JournalError as error:
        print(f"table-controller journal: {error}", file=sys.stderr)
        return None


def run(args: argparse.Namespace) -> int:
    """Verify or export."""
    journal = _open(args.file)
    if journal is None:
        return BROKEN
    with journal:
        if args.action == "export":
            for row in journal.rows():
                record = {**row.payload}
                record.setdefault("ts", row.ts_utc)
                sys.stdout.write(json.dumps(record, separators=(",", ":")) + "\n")
            return 0
        report = journal.verify()
    if args.json:
        summary = {
            "file": str(args.file),
            "ok": report.ok,
            "rows": report.rows,
            "head": {"seq": report.head_seq, "hash": report.head_hash},
            "problems": list(report.problems),
        }
        sys.stdout.write(json.dumps(summary) + "\n")
    elif report.ok:
        print(
            f"{args.file}: ok, {report.rows} inputs, head seq {report.head_seq} {report.head_hash}"
        )
    else:
        for problem in report.problems:
            print(f"{args.file}: {problem}")
        print(f"{args.file}: BROKEN chain ({len(report.problems)} problems in {report.rows} rows)")
    return 0 if report.ok else BROKEN
