#!/usr/bin/env python3
# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0

"""Back up table journals while the table plays, and verify every copy before keeping it.

Operations script (standard library only; any Python 3.11). For each journal it:

1. copies it with SQLite's online backup API from a read-only connection: one consistent
   snapshot, taken while the service keeps writing (never copy a journal in WAL mode with
   ``cp``: the committed rows still in the ``-wal`` file would be missing or torn);
2. flushes the copy to disk and runs ``table-controller journal verify --json`` on it;
3. keeps it as ``<DIR>/<name>-<UTC time>-seq<head>.journal`` only if the hash chain is whole,
   and removes the oldest copies of that journal beyond ``--keep``.

It prints one JSON line per journal and exits 0 when every journal was backed up and
verified, 1 otherwise. Usage::

    table-controller-backup --to /var/backups/table-controller /var/lib/table-controller
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from urllib.parse import quote

#: Where the operations guide installs the service.
INSTALLED_CLI = Path("/opt/table-controller/bin/table-controller")
JOURNAL_SUFFIX = ".journal"
FAILED = 1


class BackupError(Exception):
    """One journal could not be backed up; the message says why."""


def journals(sources: list[Path]) -> list[Path]:
    """The journal files named, and the ``*.journal`` files of the directories named."""
    found: list[Path] = []
    for source in sources:
        if source.is_dir():
            found.extend(sorted(source.glob(f"*{JOURNAL_SUFFIX}")))
        else:
            found.append(source)
    return found


def snapshot(journal: Path, target: Path) -> None:
    """A consistent copy of ``journal`` at ``target``, written through to the disk."""
    if not journal.is_file():
        raise BackupError(f"{journal}: no such file")
    source = sqlite3.connect(f"file:{quote(str(journal.resolve()))}?mode=ro", uri=True)
    try:
        destination = sqlite3.connect(target)
        try:
            source.backup(destination)  # all pages in one step: one read transaction
            # A backup is one file: no WAL beside it to lose or forget.
            destination.execute("PRAGMA journal_mode=DELETE")
            check = destination.execute("PRAGMA integrity_check").fetchone()
            if check is None or check[0] != "ok":
                raise BackupError(f"{journal}: the copy fails SQLite's integrity check: {check}")
        finally:
            destination.close()
    except sqlite3.Error as error:
        raise BackupError(f"{journal}: {error}") from None
    finally:
        source.close()
    with target.open("rb") as written:
        os.fsync(written.fileno())


def verify(cli: str, copy: Path) -> dict[str, object]:
    """``table-controller journal verify --json`` on the copy; its summary if the chain is whole."""
    done = subprocess.run(  # noqa: S603 - the operator's own table-controller
        [cli, "journal", "verify", "--json", str(copy)],
        capture_output=True,
        text=True,
        check=False,
    )
    try:
        summary: dict[str, object] = json.loads(done.stdout.splitlines()[-1])
    except (IndexError, json.JSONDecodeError):
        raise BackupError(f"{copy}: verify gave no summary: {done.stderr.strip()}") from None
    if done.returncode != 0 or summary.get("ok") is not True:
        raise BackupError(f"{copy}: the copy failed verification: {summary.get('problems')}")
    return summary


def backups_of(directory: Path, name: str) -> list[Path]:
    """The kept backups of journal ``name``, oldest first (by time, then by head ``seq``)."""
    pattern = re.compile(
        rf"{re.escape(name)}-(\d{{8}}T\d{{6}}Z)-seq(\d+){re.escape(JOURNAL_SUFFIX)}"
    )
    found = []
    for path in directory.iterdir():
        match = pattern.fullmatch(path.name)
        if match is not None:
            found.append((match[1], int(match[2]), path))
    return [path for _, _, path in sorted(found)]


def prune(directory: Path, name: str, keep: int) -> list[Path]:
    """Remove the oldest backups of journal ``name`` beyond the newest ``keep``."""
    copies = backups_of(directory, name)
    removed = copies[: max(0, len(copies) - keep)]
    for old in removed:
        old.unlink()
    return removed


def back_up(
    journal: Path, *, directory: Path, cli: str, keep: int, now: dt.datetime
) -> dict[str, object]:
    """Back up, verify and keep one journal; the summary printed for it."""
    name = journal.name.removesuffix(JOURNAL_SUFFIX)
    stamp = now.astimezone(dt.UTC).strftime("%Y%m%dT%H%M%SZ")
    partial = directory / f".{name}-{stamp}{JOURNAL_SUFFIX}.partial"
    try:
        snapshot(journal, partial)
        summary = verify(cli, partial)
        head = summary.get("head")
        seq = head.get("seq") if isinstance(head, dict) else None
        final = directory / f"{name}-{stamp}-seq{seq}{JOURNAL_SUFFIX}"
        partial.replace(final)
    finally:
        partial.unlink(missing_ok=True)
    directory_fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(directory_fd)  # the rename itself survives a power loss
    finally:
        os.close(directory_fd)
    removed = prune(directory, name, keep)
    return {
        "journal": str(journal),
        "backup": str(final),
        "ok": True,
        "rows": summary.get("rows"),
        "head": head,
        "removed": [str(path) for path in removed],
    }


def default_cli() -> str | None:
    """The installed ``table-controller``, else the one on ``PATH``."""
    if os.access(INSTALLED_CLI, os.X_OK):
        return str(INSTALLED_CLI)
    return shutil.which("table-controller")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    """The command line, checked: a wrong value stops with its name (exit 2)."""
    parser = argparse.ArgumentParser(
        prog="table-controller-backup",
        description="Back up table journals while in use; keep only verified copies.",
    )
    parser.add_argument(
        "sources",
        nargs="+",
        type=Path,
        metavar="SOURCE",
        help="a journal file, or a directory of *.journal files",
    )
    parser.add_argument(
        "--to",
        required=True,
        type=Path,
        metavar="DIR",
        help="where the copies go (best on another disk, or copied off-device)",
    )
    parser.add_argument(
        "--keep",
        type=int,
        default=30,
        metavar="N",
        help="copies of each journal to keep (default 30)",
    )
    parser.add_argument(
        "--table-controller",
        dest="cli",
        metavar="PATH",
        help="the table-controller program that verifies the copies",
    )
    args = parser.parse_args(argv)
    if args.keep < 1:
        parser.error("--keep: at least 1")
    args.cli = args.cli or default_cli()
    if args.cli is None:
        parser.error("--table-controller: not installed at /opt/table-controller, not on PATH")
    if not args.to.is_dir():
        parser.error(f"--to: {args.to}: no such directory")
    return args


def main(argv: list[str] | None = None) -> int:
    """Back up every journal named; 0 when all were backed up and verified."""
    args = parse_args(argv)
    found = journals(args.sources)
    if not found:
        print("table-controller-backup: no journal found", file=sys.stderr)
        return FAILED
    status = 0
    for journal in found:
        try:
            result = back_up(
                journal,
                directory=args.to,
                cli=args.cli,
                keep=args.keep,
                now=dt.datetime.now(dt.UTC),
            )
        except (BackupError, OSError) as error:
            result = {"journal": str(journal), "ok": False, "error": str(error)}
            status = FAILED
        sys.stdout.write(json.dumps(result) + "\n")
    return status


if __name__ == "__main__":
    sys.exit(main())
