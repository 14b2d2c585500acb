# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The durable, hash-chained input journal (STACK.md section 5).

Adapter: file I/O through sqlite3. It stores *inputs* (the records ``replay`` reads), never
decisions, so that recovery is "replay the journal through the same core".

* One SQLite file in WAL mode with ``synchronous=FULL``: a committed append survives a power
  loss. Each append is its own ``BEGIN IMMEDIATE`` ... ``COMMIT`` (one fsync).
* Every row is chained: ``hash = SHA-256(prev_hash || canonical JSON of the row)``, so an edited,
  inserted, deleted or reordered row breaks the chain (:meth:`Journal.verify`). A rewritten tail
  needs a witness off the table device: the head ``{seq, hash}`` is published for that.
* On open: ``PRAGMA quick_check`` and a full chain check. A failed check raises
  :class:`JournalCorruptError`; nothing is repaired silently.
* One writer: the process that writes a journal holds :class:`JournalLock` on it for as long as
  it runs. Readers (``journal verify``, ``export``, ``replay``) take no lock and write nothing.

The class is synchronous and not thread-safe by design: the runtime owns one instance and calls
it from one writer thread.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Self

#: Written in the ``meta`` table; ``replay`` recognises a journal file by it.
JOURNAL_FORMAT: Final = "table-controller-journal/1"
GENESIS_HASH: Final = "0" * 64
#: Row types: inputs, replayed through the procedure; audit rows, reader facts kept for the record.
INPUT_ROW: Final = "input"
AUDIT_ROW: Final = "audit"
#: The key of an audit row holding a reply given without the procedure (refused or repeated).
ANSWER_KEY: Final = "answer"
SQLITE_HEADER: Final = b"SQLite format 3\x00"

_SCHEMA: Final = """
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


#: The columns a row's hash covers, in the order :func:`_hashed` takes them.
HASHED_COLUMNS: Final = ("seq", "event_id", "ts_utc", "monotonic_ns", "type", "payload")


def _hashed(values: tuple[object, ...]) -> dict[str, object]:
    return dict(zip(HASHED_COLUMNS, values, strict=True))


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifyReport:
    """What :meth:`Journal.verify` found."""

    rows: int
    head_seq: int
    head_hash: str
    problems: tuple[str, ...]

    @property
    def ok(self) -> bool:
        return not self.problems


def is_journal(path: Path) -> bool:
    """Whether the file is a table-controller journal (SQLite with our ``meta`` format)."""
    try:
        with path.open("rb") as file:
            if file.read(len(SQLITE_HEADER)) != SQLITE_HEADER:
                return False
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            row = connection.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
        finally:
            connection.close()
    except (OSError, sqlite3.Error):
        return False
    return row is not None and row[0] == JOURNAL_FORMAT


class Journal:
    """An open journal file. Use :meth:`open`; close with :meth:`close` or ``with``."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._connection = connection
        self.path = path
        head = connection.execute(
            "SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        self._head_seq: int = head[0] if head else 0
        self._head_hash: str = head[1] if head else GENESIS_HASH

    @classmethod
    def open(cls, path: Path, *, table_id: str | None = None, verify: bool = True) -> Self:
        """Open or create the journal; on an existing file, check its integrity first."""
        try:
            connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            # No checkpoint inside an append: it would copy pages into the database file and
            # sync it within whichever card's commit crossed SQLite's threshold. The owner
            # calls checkpoint() between inputs instead.
            connection.execute("PRAGMA wal_autocheckpoint=0")
            if verify:
                check = connection.execute("PRAGMA quick_check").fetchone()
                if check is None or check[0] != "ok":
                    connection.close()
                    raise JournalCorruptError(f"{path}: SQLite quick_check failed: {check}")
            connection.executescript(_SCHEMA)
            connection.execute("BEGIN IMMEDIATE")
            connection.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('format', ?)", (JOURNAL_FORMAT,)
            )
            if table_id is not None:
                connection.execute(
                    "INSERT OR IGNORE INTO meta (key, value) VALUES ('table_id', ?)", (table_id,)
                )
            connection.execute("COMMIT")
        except sqlite3.DatabaseError as error:
            raise JournalCorruptError(f"{path}: not a usable journal: {error}") from None
        except sqlite3.Error as error:
            raise JournalError(f"{path}: cannot open: {error}") from None
        journal = cls(connection, path)
        found = journal.meta("format")
        if found != JOURNAL_FORMAT:
            journal.close()
            raise JournalCorruptError(f"{path}: format {found!r} is not {JOURNAL_FORMAT!r}")
        recorded_table = journal.meta("table_id")
        if table_id is not None and recorded_table != table_id:
            journal.close()
            raise JournalError(f"{path}: journal of table {recorded_table!r}, not {table_id!r}")
        if verify:
            report = journal.verify()
            if not report.ok:
                journal.close()
                raise JournalCorruptError(f"{path}: {report.problems[0]}")
        return journal

    @classmethod
    def open_read_only(cls, path: Path) -> Self:
        """Open an existing journal for reading only (``verify``, ``export``, ``replay``).

        Nothing is written, so a live table's journal can be checked while the table runs.
        """
        if not is_journal(path):
            raise JournalError(f"{path}: not a table-controller journal")
        try:
            connection = sqlite3.connect(
                f"file:{path}?mode=ro", uri=True, isolation_level=None, check_same_thread=False
            )
        except sqlite3.Error as error:
            raise JournalError(f"{path}: cannot open: {error}") from None
        return cls(connection, path)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._connection.close()

    def meta(self, key: str) -> str | None:
        row = self._connection.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    @property
    def head(self) -> tuple[int, str]:
        """``(seq, hash)`` of the last row: the witness to publish off the device."""
        return self._head_seq, self._head_hash

    def append(
        self,
        type_: str,
        payload: Mapping[str, Any],
        *,
        ts_utc: str,
        monotonic_ns: int,
        event_id: str | None = None,
    ) -> int:
        """Record one input durably and return its ``seq``; returns only after the commit."""
        payload_json = canonical_json(payload)
        seq = self._head_seq + 1
        digest = row_hash(
            self._head_hash,
            _hashed((seq, event_id, ts_utc, monotonic_ns, type_, payload_json)),
        )
        try:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                self._connection.execute(
                    "INSERT INTO events (seq, event_id, ts_utc, monotonic_ns, type, payload,"
                    " prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        seq,
                        event_id,
                        ts_utc,
                        monotonic_ns,
                        type_,
                        payload_json,
                        self._head_hash,
                        digest,
                    ),
                )
                self._connection.execute("COMMIT")
            except BaseException:
                self._connection.execute("ROLLBACK")
                raise
        except sqlite3.IntegrityError:
            raise DuplicateEventError(f"input {event_id!r} is already recorded") from None
        except sqlite3.Error as error:
            raise JournalError(f"cannot record input {seq}: {error}") from None
        self._head_seq, self._head_hash = seq, digest
        return seq

    def checkpoint(self) -> None:
        """Copy the write-ahead log into the database file, as far as readers allow.

        A ``PASSIVE`` checkpoint: it waits for no reader and blocks no writer. Called often,
        it stays small (the pages of the last few inputs) and keeps the log short.
        """
        try:
            self._connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()
        except sqlite3.Error as error:
            raise JournalError(f"cannot checkpoint the journal: {error}") from None

    def find_event(self, event_id: str) -> int | None:
        """The ``seq`` of the input recorded with ``event_id``, if any."""
        row = self._connection.execute(
            "SELECT seq FROM events WHERE event_id = ?", (event_id,)
        ).fetchone()
        return None if row is None else int(row[0])

    def rows(self, *, after: int = 0) -> Iterator[JournalRow]:
        """Every row after ``seq``, in order."""
        cursor = self._connection.execute(
            "SELECT seq, event_id, ts_utc, monotonic_ns, type, payload, prev_hash, hash"
            " FROM events WHERE seq > ? ORDER BY seq",
            (after,),
        )
        for seq, event_id, ts_utc, monotonic_ns, type_, payload, prev_hash, digest in cursor:
            yield JournalRow(
                seq=seq,
                event_id=event_id,
                ts_utc=ts_utc,
                monotonic_ns=monotonic_ns,
                type=type_,
                payload=json.loads(payload),
                prev_hash=prev_hash,
                hash=digest,
            )

    def verify(self) -> VerifyReport:
        """Walk the whole chain; report every break (edits, insertions, deletions, reorders)."""
        problems: list[str] = []
        expected_prev = GENESIS_HASH
        expected_seq = 1
        count = 0
        last_seq, last_hash = 0, GENESIS_HASH
        cursor = self._connection.execute(
            "SELECT seq, event_id, ts_utc, monotonic_ns, type, payload, prev_hash, hash"
            " FROM events ORDER BY seq"
        )
        for seq, event_id, ts_utc, monotonic_ns, type_, payload, prev_hash, digest in cursor:
            count += 1
            if seq != expected_seq:
                problems.append(
                    f"row {seq}: expected seq {expected_seq} (rows missing or inserted)"
                )
            if prev_hash != expected_prev:
                problems.append(f"row {seq}: prev_hash does not match the previous row's hash")
            recomputed = row_hash(
                prev_hash, _hashed((seq, event_id, ts_utc, monotonic_ns, type_, payload))
            )
            if recomputed != digest:
                problems.append(f"row {seq}: hash does not match its contents (edited)")
            expected_prev, expected_seq = digest, seq + 1
            last_seq, last_hash = seq, digest
        return VerifyReport(
            rows=count, head_seq=last_seq, head_hash=last_hash, problems=tuple(problems)
        )

    def backup(self, target: Path) -> None:
        """A consistent copy while the journal is in use (never copy a WAL file by hand)."""
        destination = sqlite3.connect(target)
        try:
            self._connection.backup(destination)
        finally:
            destination.close()


def lock_path(journal: Path) -> Path:
    """The lock file of a journal: ``<journal>.lock``, beside it."""
    return journal.with_name(journal.name + ".lock")


class JournalLock:
    """The one writer's hold on a journal, from :meth:`acquire` until :meth:`release` or exit.

    An exclusive ``flock`` on a file of its own (:func:`lock_path`), not on the journal: SQLite
    keeps POSIX locks on the journal, and closing any descriptor of that file in the process
    would drop those. The kernel releases a ``flock`` when its process ends, however it ends
    (``kill -9`` included), so a dead service leaves nothing that blocks its restart. The file
    holds the holder's PID, for the refusal of a second writer; it is never removed, since a
    removed file lets a newcomer lock a new file of the same name beside a holder of the old one.
    """

    def __init__(self, descriptor: int) -> None:
        self._descriptor: int | None = descriptor

    @classmethod
    def acquire(cls, journal: Path) -> Self:
        """Lock ``journal`` for this process, or raise at once if another process holds it.

        Raises:
            JournalInUseError: another process holds the lock; the error names its PID when
                the lock file holds one.
            JournalError: the lock file cannot be opened or locked.
        """
        path = lock_path(journal)
        try:
            descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o640)
        except OSError as error:
            raise JournalError(f"{path}: cannot open the journal's lock file: {error}") from None
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _pid_in(descriptor)
            os.close(descriptor)
            raise JournalInUseError(journal, holder) from None
        except OSError as error:
            os.close(descriptor)
            raise JournalError(f"{path}: cannot lock the journal: {error}") from None
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, f"{os.getpid()}\n".encode(), 0)
        return cls(descriptor)

    def release(self) -> None:
        """Give the journal up (idempotent); the lock file stays, empty."""
        if self._descriptor is None:
            return
        descriptor, self._descriptor = self._descriptor, None
        try:
            os.ftruncate(descriptor, 0)
        finally:
            os.close(descriptor)  # which releases the flock

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.release()


def _pid_in(descriptor: int) -> int | None:
    """The PID a lock file holds; None while its holder has not written it yet."""
    text = os.pread(descriptor, 32, 0).decode("ascii", errors="replace").strip()
    return int(text) if text.isdigit() else None
