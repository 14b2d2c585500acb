# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The durable, hash-chained input journal (STACK.md section 5).

Adapter: file I/O through sqlite3. It stores *inputs* (the records ``replay`` reads), never
decisions, so that recovery is "replay the journal through the same core".

* One SQLite file in WAL mode with ``synchronous=FULL``: a committed append survives a power
  loss. Each append is its own ``BEGIN IMMEDIATE`` ... ``COMMIT`` (one fsync).
* Every row is chained: ``hash = SHA-256(prev_hash || canonical JSON of the row)``, so an edited,
  inserted, deleted or reordered row breaks the chain (:meth:`Journal.verify`). A rewritten tail
  needs a witness off the table device: the head ``{seq, hash}`` is published for that.
* The chain begins at the journal's metadata: row 1's ``prev_hash`` is :func:`genesis_hash` of
  its format and table id, so an edited table id breaks the chain at row 1. A chain that begins
  at the all-zero hash instead is accepted, and reported as not covering the table id.
* The MQTT outbox in the same file (``publishing/outbox.py``) is outside the chain: it is a
  delivery queue whose rows change when the broker acknowledges them and leave when they are
  pruned, and the messages of every input are made again from the inputs on start.
* On open: ``PRAGMA quick_check`` and a full chain check. A failed check raises
  :class:`JournalCorruptError`; nothing is repaired silently. :func:`check_file` is the
  read-only check of ``journal verify``: SQLite's ``integrity_check``, then the chain.
* One writer: the process that writes a journal holds :class:`JournalLock` on it for as long as
  it runs. Readers (``journal verify``, ``export``, ``replay``) take no lock and write nothing.

The class is synchronous and not thread-safe by design: the runtime owns one instance and calls
it from one writer thread.
"""

from __future__ import annotations

import enum
import fcntl
import hashlib
import json
import os
import re
import sqlite3
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final, Self
from urllib.parse import quote

#: Written in the ``meta`` table; ``replay`` recognises a journal file by it.
JOURNAL_FORMAT: Final = "table-controller-journal/1"
#: Row 1's ``prev_hash`` in a chain that does not cover its table id (see :func:`genesis_hash`).
ZERO_GENESIS_HASH: Final = "0" * 64
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


def genesis_hash(table_id: str | None) -> str:
    """Row 1's ``prev_hash``: the hash of the journal's format and table id."""
    header = canonical_json({"format": JOURNAL_FORMAT, "table_id": table_id})
    return hashlib.sha256(header.encode("utf-8")).hexdigest()


@dataclass(frozen=True, slots=True, kw_only=True)
class VerifyReport:
    """What :meth:`Journal.verify` found.

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


_DAMAGED_PAGE: Final = re.compile(r"\bpage (\d+)(?: cell \d+)?: (.*)", re.IGNORECASE | re.DOTALL)


def sqlite_damage(connection: sqlite3.Connection, *, thorough: bool = True) -> str | None:
    """What SQLite's integrity check finds in the file, in one line; None when it finds nothing.

    ``PRAGMA integrity_check(1)`` (``quick_check(1)`` unless ``thorough``): at most one finding,
    because a damaged page can make the check itself fail after its first finding, and
    Python's cursor reads a row ahead, which would lose that finding.
    """
    pragma = "integrity_check(1)" if thorough else "quick_check(1)"
    try:
        row = connection.execute(f"PRAGMA {pragma}").fetchone()
    except sqlite3.DatabaseError as error:
        return f"SQLite cannot read the file: {error}"
    finding = "no answer" if row is None else str(row[0])
    if finding == "ok":
        return None
    finding = finding.removeprefix("*** in database main ***").strip()
    page = _DAMAGED_PAGE.search(finding)
    if page is None:
        return f"SQLite reports the file damaged: {' '.join(finding.split())}"
    return f"SQLite reports page {page[1]} damaged: {' '.join(page[2].split())}"


def _connect_read_only(path: Path) -> sqlite3.Connection:
    """A connection that cannot write, also to a journal in a directory this process cannot write.

    SQLite reads a WAL-mode file through its ``-shm`` index, which it must create when the
    journal is closed (no ``-wal`` file beside it): in a read-only directory it cannot, and the
    file is then opened ``immutable``, safe because no writer is using it (a writer has a ``-wal``).
    """
    uri = f"file:{quote(str(path))}?mode=ro"
    connection = sqlite3.connect(uri, uri=True, isolation_level=None, check_same_thread=False)
    try:
        connection.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.OperationalError as error:
        connection.close()
        cannot_create_index = error.sqlite_errorcode & 0xFF in {
            sqlite3.SQLITE_READONLY,
            sqlite3.SQLITE_CANTOPEN,
        }
        if not cannot_create_index or path.with_name(path.name + "-wal").exists():
            raise
        connection = sqlite3.connect(
            f"{uri}&immutable=1", uri=True, isolation_level=None, check_same_thread=False
        )
    except BaseException:
        connection.close()
        raise
    return connection


def _open_for_reading(path: Path) -> sqlite3.Connection:
    """A read-only connection to a journal, or :class:`JournalUnreadableError` saying why not."""
    try:
        with path.open("rb") as file:
            magic = file.read(len(SQLITE_HEADER))
    except FileNotFoundError:
        raise JournalUnreadableError(path, Fault.MISSING, "no such file") from None
    except OSError as error:
        reason = f"cannot read the file: {error.strerror}"
        raise JournalUnreadableError(path, Fault.UNREADABLE, reason) from None
    if magic != SQLITE_HEADER:
        reason = "not a table-controller journal (not an SQLite file)"
        raise JournalUnreadableError(path, Fault.NOT_A_JOURNAL, reason)
    try:
        connection = _connect_read_only(path)
    except sqlite3.Error as error:
        fault = Fault.CORRUPT if isinstance(error, sqlite3.DatabaseError) else Fault.UNREADABLE
        raise JournalUnreadableError(path, fault, f"SQLite cannot read the file: {error}") from None
    try:
        row = connection.execute("SELECT value FROM meta WHERE key = 'format'").fetchone()
    except sqlite3.Error as error:
        connection.close()
        if error.sqlite_errorcode & 0xFF in {sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB}:
            reason = f"SQLite cannot read the file: {error}"
            raise JournalUnreadableError(path, Fault.CORRUPT, reason) from None
        reason = f"not a table-controller journal (an SQLite file: {error})"
        raise JournalUnreadableError(path, Fault.NOT_A_JOURNAL, reason) from None
    if row is None or row[0] != JOURNAL_FORMAT:
        connection.close()
        found = None if row is None else row[0]
        reason = f"not a table-controller journal (an SQLite file of format {found!r})"
        raise JournalUnreadableError(path, Fault.NOT_A_JOURNAL, reason)
    return connection


def is_journal(path: Path) -> bool:
    """Whether the file is a table-controller journal (SQLite with our ``meta`` format)."""
    try:
        _open_for_reading(path).close()
    except JournalUnreadableError:
        return False
    return True


def check_file(path: Path) -> FileCheck:
    """The read-only check of ``journal verify``: the file, SQLite's integrity check, the chain.

    Writes nothing and takes no lock, so it can check a live table's journal.
    """
    try:
        connection = _open_for_reading(path)
        damage = sqlite_damage(connection)
        if damage is not None:
            connection.close()
            return FileCheck(path=path, fault=Fault.CORRUPT, reason=damage, report=None)
        with Journal.reading(connection, path) as journal:
            report = journal.verify()
    except JournalUnreadableError as error:
        return FileCheck(path=path, fault=error.fault, reason=error.reason, report=None)
    except JournalCorruptError as error:
        return FileCheck(path=path, fault=Fault.CORRUPT, reason=str(error), report=None)
    if not report.ok:
        reason = f"hash chain broken: {report.problems[0]}"
        return FileCheck(path=path, fault=Fault.CHAIN_BROKEN, reason=reason, report=report)
    return FileCheck(path=path, fault=None, reason="ok", report=report)


class Journal:
    """An open journal file. Use :meth:`open`; close with :meth:`close` or ``with``."""

    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self._connection = connection
        self.path = path
        head = connection.execute(
            "SELECT seq, hash FROM events ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        self._head_seq: int = head[0] if head else 0
        self._head_hash: str = head[1] if head else genesis_hash(self.meta("table_id"))

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
            if verify and (damage := sqlite_damage(connection, thorough=False)) is not None:
                connection.close()
                raise JournalCorruptError(f"{path}: {damage}")
            connection.executescript(_SCHEMA)
            connection.execute("BEGIN IMMEDIATE")
            connection.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('format', ?)", (JOURNAL_FORMAT,)
            )
            if table_id is not None:  # only before row 1: the chain begins at the table id
                connection.execute(
                    "INSERT OR IGNORE INTO meta (key, value) SELECT 'table_id', ?"
                    " WHERE NOT EXISTS (SELECT 1 FROM events)",
                    (table_id,),
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

        Nothing is written and no lock is taken, so a live table's journal can be read while
        the table runs, and a journal in a directory this process cannot write can be read.

        Raises:
            JournalUnreadableError: the file is missing, unreadable, not a journal or damaged.
        """
        return cls.reading(_open_for_reading(path), path)

    @classmethod
    def reading(cls, connection: sqlite3.Connection, path: Path) -> Self:
        """A journal on a read-only connection; closes it if its rows cannot be read."""
        try:
            return cls(connection, path)
        except sqlite3.Error as error:
            connection.close()
            reason = f"SQLite cannot read the rows: {error}"
            raise JournalUnreadableError(path, Fault.CORRUPT, reason) from None

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
        """Every row after ``seq``, in order.

        Raises:
            JournalCorruptError: SQLite cannot read the rows (a damaged page).
        """
        cursor = self._connection.execute(
            "SELECT seq, event_id, ts_utc, monotonic_ns, type, payload, prev_hash, hash"
            " FROM events WHERE seq > ? ORDER BY seq",
            (after,),
        )
        for seq, event_id, ts_utc, monotonic_ns, type_, payload, prev_hash, digest in _reading(
            cursor, self.path
        ):
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
        """Walk the whole chain; report every break (edits, insertions, deletions, reorders).

        The chain's first link is checked against the table id in the metadata (an edited
        table id breaks it), unless the chain begins at :data:`ZERO_GENESIS_HASH`.

        Raises:
            JournalCorruptError: SQLite cannot read the rows (a damaged page).
        """
        problems: list[str] = []
        table_id = self.meta("table_id")
        genesis = genesis_hash(table_id)
        table_id_covered = True
        expected_prev = genesis
        expected_seq = 1
        counts = {INPUT_ROW: 0, AUDIT_ROW: 0}
        count = 0
        last_seq, last_hash = 0, genesis
        cursor = self._connection.execute(
            "SELECT seq, event_id, ts_utc, monotonic_ns, type, payload, prev_hash, hash"
            " FROM events ORDER BY seq"
        )
        for seq, event_id, ts_utc, monotonic_ns, type_, payload, prev_hash, digest in _reading(
            cursor, self.path
        ):
            count += 1
            if type_ in counts:
                counts[type_] += 1
            if seq != expected_seq:
                problems.append(
                    f"row {seq}: expected seq {expected_seq} (rows missing or inserted)"
                )
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
                prev_hash, _hashed((seq, event_id, ts_utc, monotonic_ns, type_, payload))
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

    def backup(self, target: Path) -> None:
        """A consistent copy while the journal is in use (never copy a WAL file by hand)."""
        destination = sqlite3.connect(target)
        try:
            self._connection.backup(destination)
        finally:
            destination.close()


_Row = tuple[int, str | None, str, int, str, str, str, str]


def _reading(cursor: sqlite3.Cursor, path: Path) -> Iterator[_Row]:
    """The cursor's rows; a damaged page while reading them is a :class:`JournalCorruptError`."""
    try:
        yield from cursor
    except sqlite3.DatabaseError as error:
        raise JournalCorruptError(f"{path}: SQLite cannot read the rows: {error}") from None


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
