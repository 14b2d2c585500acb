# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The journal's file format: its tables, rows, errors and the hash chain that links the rows.

Every row is chained: ``hash = SHA-256(prev_hash || canonical JSON of the row)``, and row 1's
``prev_hash`` is :func:`genesis_hash` of the format and table id (or, in a chain that does not
cover its table id, :data:`ZERO_GENESIS_HASH`). :func:`verify_chain` walks a chain and reports
every break. Pure but for reading rows from an SQLite cursor.
"""

from __future__ import annotations

import enum
import hashlib
import json
import sqlite3
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

#: Written in the ``meta`` table; ``replay`` recognises a journal file by it.
JOURNAL_FORMAT: Final = "table-controller-journal/1"
#: Row 1's ``prev_hash`` in a chain that does not cover its table id (see :func:`genesis_hash`).
ZERO_GENESIS_HASH: Final = "0" * 64
#: Row types: inputs, replayed through the procedure; audit rows, reader facts kept for the record.
INPUT_ROW: Final = "input"
AUDIT_ROW: Final = "audit"
#: The key of an audit row holding a reply given without the procedure (refused or repeated).
ANSWER_KEY: Final = "answer"
#: Beside an ``answer`` that gives its id (``recall``, ``resend``): the command it answered
#: (``command``, ``operator``, ``args``), which a repeat of the id must match.
ASKED_KEY: Final = "asked"

#: The key of an audit row holding a ``recall``'s reply by its seal: the id, how many rounds
#: and the SHA-256 of the reply (``history/recall.py``'s ``recall_answer``); the rounds are
#: the journal's own earlier rows, and every replay makes the reply again from them.
RECALL_ANSWER_KEY: Final = "recall_answer"
SQLITE_HEADER: Final = b"SQLite format 3\x00"

#: The journal's tables (the outbox adds its own to the same file).
SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (
    seq INTEGER PRIMARY KEY,
    event_id TEXT UNIQUE,
    ts_utc TEXT NOT NULL,
    monotonic_ns INTEGER NOT NULL,
    type TEXT NOT NULL,
    payload TEXT NOT NULL,
    prev_hash TEXT NOT NULL,
    hash TEXT NOT NULL
);
"""


class JournalError(Exception):
    """The journal cannot be used; the message says why."""


class JournalCorruptError(JournalError):
    """The journal failed an integrity check: play must stop; nothing is repaired."""


class JournalInUseError(JournalError):
    """Another process holds the journal's lock: it is another table service's journal."""

    def __init__(self, journal: Path, holder_pid: int | None) -> None:
        holder = "another process" if holder_pid is None else f"process {holder_pid}"
        super().__init__(f"journal {journal} is in use by {holder} (another table service)")
        self.journal = journal
        self.holder_pid = holder_pid


class DuplicateEventError(JournalError):
    """An input with this ``event_id`` is already recorded (a repeated command, for instance)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class JournalRow:
    """One recorded input."""

    seq: int
    event_id: str | None
    ts_utc: str
    monotonic_ns: int
    type: str
    payload: Mapping[str, Any]
    prev_hash: str
    hash: str


def canonical_json(value: object) -> str:
    """Sorted keys, no whitespace, UTF-8 kept: the form that is hashed."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def row_hash(prev_hash: str, row: Mapping[str, object]) -> str:
    """The chained hash of one row: ``row`` holds every column but the two hashes."""
    return hashlib.sha256((prev_hash + canonical_json(row)).encode("utf-8")).hexdigest()


#: The columns a row's hash covers, in the order :func:`hashed` takes them.
HASHED_COLUMNS: Final = ("seq", "event_id", "ts_utc", "monotonic_ns", "type", "payload")


def hashed(values: tuple[object, ...]) -> dict[str, object]:
    """A row's hashed columns by name, from their values in :data:`HASHED_COLUMNS` order."""
    return dict(zip(HASHED_COLUMNS, values, strict=True))


def genesis_hash(table_id: str | None) -> str:
    """Row 1's ``prev_hash``: the hash of the journal's format and table id."""
    header = canonical_json({"format": JOURNAL_FORMAT, "table_id": table_id})
    return hashlib.sha256(header.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifyReport:
    """What :func:`verify_chain` (and ``Journal.verify``) found.

    ``rows`` counts every row of the chain: ``inputs`` (replayed through the procedure),
    ``audit_rows`` (facts kept for the record) and any row of another type.
    ``table_id_covered`` is False when the chain begins at :data:`ZERO_GENESIS_HASH`: the
    metadata's table id is then not checked.
    """

    rows: int
    inputs: int
    audit_rows: int
    table_id: str | None
    table_id_covered: bool
    head_seq: int
    head_hash: str
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


class Fault(enum.StrEnum):
    """Why a file failed :func:`check_file`."""

    #: No file at that path.
    MISSING = "missing"
    #: The operating system refuses to read it (permissions, a directory).
    UNREADABLE = "unreadable"
    #: Not an SQLite file, or an SQLite file without a journal's ``meta`` format.
    NOT_A_JOURNAL = "not_a_journal"
    #: SQLite reports the file damaged (its integrity check, or an error reading it).
    CORRUPT = "corrupt"
    #: The hash chain or the table id does not check out: rows were edited, inserted, deleted.
    CHAIN_BROKEN = "chain_broken"


class JournalUnreadableError(JournalError):
    """A journal file cannot be read (opened read-only); ``fault`` says which way."""

    def __init__(self, path: Path, fault: Fault, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.fault = fault
        self.reason = reason


@dataclass(frozen=True, slots=True, kw_only=True)
class FileCheck:
    """What :func:`check_file` found: a fault and its one-line reason, or the chain's report."""

    path: Path
    fault: Fault | None
    reason: str
    report: VerifyReport | None

    @property
    def ok(self) -> bool:
        return self.fault is None


StoredRow = tuple[int, str | None, str, int, str, str, str, str]


def reading(cursor: sqlite3.Cursor, path: Path) -> Iterator[StoredRow]:
    """The cursor's rows; a damaged page while reading them is a :class:`JournalCorruptError`."""
    try:
        yield from cursor
    except sqlite3.DatabaseError as error:
        raise JournalCorruptError(f"{path}: SQLite cannot read the rows: {error}") from None


def verify_chain(rows: Iterable[StoredRow], table_id: str | None) -> VerifyReport:
    """Walk a whole chain; report every break (edits, insertions, deletions, reorders).

    The chain's first link is checked against ``table_id`` (the metadata's: an edited table id
    breaks it), unless the chain begins at :data:`ZERO_GENESIS_HASH`.
    """
    problems: list[str] = []
    genesis = genesis_hash(table_id)
    table_id_covered = True
    expected_prev = genesis
    expected_seq = 1
    counts = {INPUT_ROW: 0, AUDIT_ROW: 0}
    count = 0
    last_seq, last_hash = 0, genesis
    for seq, event_id, ts_utc, monotonic_ns, type_, payload, prev_hash, digest in rows:
        count += 1
        if type_ in counts:
            counts[type_] += 1
        if seq != expected_seq:
            problems.append(f"row {seq}: expected seq {expected_seq} (rows missing or inserted)")
        if seq == 1 and prev_hash == ZERO_GENESIS_HASH:
            table_id_covered = False
        elif seq == 1 and prev_hash != genesis:
            problems.append(
                f"row {seq}: prev_hash does not match the chain's beginning for table id"
                f" {table_id!r} (the metadata's table id or row {seq} was edited)"
            )
        elif seq != 1 and prev_hash != expected_prev:
            problems.append(f"row {seq}: prev_hash does not match the previous row's hash")
        recomputed = row_hash(
            prev_hash, hashed((seq, event_id, ts_utc, monotonic_ns, type_, payload))
        )
        if recomputed != digest:
            problems.append(f"row {seq}: hash does not match its contents (edited)")
        expected_prev, expected_seq = digest, seq + 1
        last_seq, last_hash = seq, digest
    return VerifyReport(
        rows=count,
        inputs=counts[INPUT_ROW],
        audit_rows=counts[AUDIT_ROW],
        table_id=table_id,
        table_id_covered=table_id_covered,
        head_seq=last_seq,
        head_hash=last_hash,
        problems=tuple(problems),
    )
