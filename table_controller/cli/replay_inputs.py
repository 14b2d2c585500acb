# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``replay``'s input sources: recorded inputs read back from JSON lines or a journal.

The source is chosen by the file's first bytes (:func:`read_inputs`): a journal is recognised
by its SQLite header, and its hash chain is verified before any row is read; a broken chain is
refused. Any bad file raises :class:`~table_controller.cli.UsageError`.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from table_controller.cli import UsageError
from table_controller.procedure import Input, RecordRejected, input_from_record
from table_controller.runtime.journal import (
    ANSWER_KEY,
    INPUT_ROW,
    RECALL_ANSWER_KEY,
    Journal,
    JournalError,
    is_journal,
)

#: The first 16 bytes of every SQLite database file: how a journal is recognised.
JOURNAL_HEADER: Final = b"SQLite format 3\x00"
#: The key of a journal's start row (an audit row ``run`` writes at every start).
STARTED_KEY: Final = "started"
#: The operator of a recorded command that names none.
DEFAULT_OPERATOR: Final = "replay"


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordedInput:
    """One input read back from a file, with where it came from and its wall time."""

    line_no: int
    ts: str | None
    event: Input | None
    #: A reply the table gave without the procedure (refused at the edge, or repeated).
    answer: Mapping[str, object] | None = None
    #: A ``recall``'s reply by its seal (``recall_answer``): made again from the rows before.
    recall: Mapping[str, object] | None = None
    #: A journal row's hash (a dispute's ``journal_head``); None for JSON lines.
    hash: str | None = None
    #: A start row's software identity (``version``, ``sha256``): what the table that started
    #: then put on its ``shoe_started`` messages.
    software: Mapping[str, object] | None = None


def read_inputs(path: Path) -> Iterator[RecordedInput]:
    """The inputs recorded in ``path``, whatever its kind; a bad file raises ``UsageError``."""
    if is_journal_file(path):
        return _journal_rows(path)
    return _json_lines(path)


def is_journal_file(path: Path) -> bool:
    """Whether ``path`` starts as a journal does (an SQLite file); unreadable: ``UsageError``."""
    try:
        with path.open("rb") as file:
            return file.read(len(JOURNAL_HEADER)) == JOURNAL_HEADER
    except OSError as error:
        raise UsageError(f"--inputs: cannot read {path}: {error.strerror}") from None


def journal_table_id(path: Path) -> str | None:
    """The table id a journal file was written for, if ``path`` is a journal."""
    if not is_journal(path):
        return None
    with Journal.open_read_only(path) as journal:
        return journal.meta("table_id")


def _journal_rows(path: Path) -> Iterator[RecordedInput]:
    if not is_journal(path):
        raise UsageError(f"--inputs: {path} is an SQLite file but not a table-controller journal")
    try:
        journal = Journal.open_read_only(path)
    except JournalError as error:
        raise UsageError(f"--inputs: {error}") from None
    with journal:
        try:
            return iter(_verified_rows(journal, path))
        except JournalError as error:  # a damaged page found while reading
            raise UsageError(f"--inputs: {error}") from None


def _verified_rows(journal: Journal, path: Path) -> list[RecordedInput]:
    report = journal.verify()
    if not report.ok:
        raise UsageError(f"--inputs: {path}: the hash chain is broken: {report.problems[0]}")
    recorded: list[RecordedInput] = []
    for row in journal.rows():
        if row.type != INPUT_ROW:
            answer = row.payload.get(ANSWER_KEY)
            if isinstance(answer, Mapping):
                recorded.append(
                    RecordedInput(line_no=row.seq, ts=row.ts_utc, event=None, answer=answer)
                )
            recalled = row.payload.get(RECALL_ANSWER_KEY)
            if isinstance(recalled, Mapping):
                recorded.append(
                    RecordedInput(line_no=row.seq, ts=row.ts_utc, event=None, recall=recalled)
                )
            software = _started_software(row.payload)
            if software is not None:
                recorded.append(
                    RecordedInput(line_no=row.seq, ts=row.ts_utc, event=None, software=software)
                )
            continue
        event = input_from_record(
            dict(row.payload),
            default_at=0.0,
            default_command_id=f"journal-{row.seq}",
            default_operator=DEFAULT_OPERATOR,
        )
        if isinstance(event, RecordRejected):
            raise UsageError(f"{path}, journal row {row.seq}: {event.reason}")
        recorded.append(RecordedInput(line_no=row.seq, ts=row.ts_utc, event=event, hash=row.hash))
    return recorded


def _started_software(payload: Mapping[str, object]) -> dict[str, object] | None:
    """The ``software`` a start row names (``integrity/at_start.py``), as messages carry it."""
    started = payload.get(STARTED_KEY)
    software = started.get("software") if isinstance(started, Mapping) else None
    if not isinstance(software, Mapping):
        return None
    return {name: software.get(name) for name in ("version", "sha256")}


def _json_lines(path: Path) -> Iterator[RecordedInput]:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"--inputs: cannot read {path} as UTF-8 text: {error}") from None
    recorded: list[RecordedInput] = []
    for line_no, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as error:
            raise UsageError(f"{path}, line {line_no}: not JSON: {error.msg}") from None
        event = input_from_record(
            record,
            default_at=float(line_no),
            default_command_id=f"line-{line_no}",
            default_operator=DEFAULT_OPERATOR,
        )
        if isinstance(event, RecordRejected):
            raise UsageError(f"{path}, line {line_no}: {event.reason}")
        ts = record.get("ts")
        if ts is not None and not isinstance(ts, str):
            raise UsageError(f"{path}, line {line_no}: 'ts' must be a string")
        recorded.append(RecordedInput(line_no=line_no, ts=ts, event=event))
    return iter(recorded)
