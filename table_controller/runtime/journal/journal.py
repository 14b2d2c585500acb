# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The durable, hash-chained input journal (its format: docs/journal-format.md).

Adapter: file I/O through sqlite3. It stores *inputs* (the records ``replay`` reads), never
decisions, so that recovery is "replay the journal through the same core".

* One SQLite file in WAL mode with ``synchronous=FULL``: a committed append survives a power
  loss. Each append is its own ``BEGIN IMMEDIATE`` ... ``COMMIT`` (one fsync), whether it
  writes one row or, with :meth:`Journal.append_all`, several.
* Every row is chained: ``hash = SHA-256(prev_hash || canonical JSON of the row)``, so an edited,
  inserted, deleted or reordered row breaks the chain (:meth:`Journal.verify`). A rewritten tail
  needs a witness off the table device: the head ``{seq, hash}`` is published for that.
* The chain begins at the journal's metadata: row 1's ``prev_hash`` is :func:`genesis_hash` of
  its format and table id, so an edited table id breaks the chain at row 1. A chain that begins
  at the all-zero hash instead is accepted, and reported as not covering the table id.
* The MQTT outbox in the same file (``mqtt/outbox.py``) is outside the chain: it is a
  delivery queue whose rows change when the broker acknowledges them and leave when they are
  pruned, and the messages of every input are made again from the inputs on start.
* On open: ``PRAGMA quick_check`` and a full chain check. A failed check raises
  :class:`JournalCorruptError`; nothing is repaired silently. :func:`check_file` is the
  read-only check of ``journal verify``: SQLite's ``integrity_check``, then the chain.
* One writer: the process that writes a journal holds its
  :class:`~.lock.JournalLock` for as long as it runs. Readers
  (``journal verify``, ``export``, ``replay``) take no lock and write nothing.

The class is synchronous and not thread-safe by design: the runtime owns one instance and calls
it from one writer thread.
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, Self
from urllib.parse import quote

from table_controller.runtime.journal.format import (
    JOURNAL_FORMAT,
    SCHEMA,
    SQLITE_HEADER,
    DuplicateEventError,
    Fault,
    FileCheck,
    JournalCorruptError,
    JournalError,
    JournalRow,
    JournalUnreadableError,
    VerifyReport,
    canonical_json,
    genesis_hash,
    hashed,
    reading,
    row_hash,
    verify_chain,
)

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


def _open_forreading(path: Path) -> sqlite3.Connection:
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
        _open_forreading(path).close()
    except JournalUnreadableError:
        return False
    return True


def check_file(path: Path) -> FileCheck:
    """The read-only check of ``journal verify``: the file, SQLite's integrity check, the chain.

    Writes nothing and takes no lock, so it can check a live table's journal.
    """
    try:
        connection = _open_forreading(path)
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


def _roll_back(connection: sqlite3.Connection) -> None:
    """End the transaction a failed statement left open, if it left one.

    SQLite may roll a transaction back by itself when a write fails (``SQLITE_FULL``,
    ``SQLITE_IOERR``, ``SQLITE_BUSY``, ``SQLITE_NOMEM``); a ``ROLLBACK`` then fails with "no
    transaction is active" and would hide why the write failed.
    """
    if connection.in_transaction:
        connection.execute("ROLLBACK")


def _free_bytes(path: Path) -> int | None:
    """Bytes an unprivileged writer may still use on the file system of ``path``, if known."""
    try:
        stats = os.statvfs(path.parent)
    except OSError:
        return None
    return stats.f_bavail * stats.f_frsize


class JournalWriteError(JournalError):
    """SQLite refused to record a row: the disk is full, or the file cannot be written.

    Args:
        path: the journal file.
        doing: what was being written (``cannot record input 57``).
        error: SQLite's error, whose words and code name the cause.
    """

    def __init__(self, path: Path, doing: str, error: sqlite3.Error) -> None:
        self.path = path
        #: SQLite's own words: ``database or disk is full``.
        self.reason = str(error)
        # An error the sqlite3 module raises itself (a closed connection) has no SQLite code.
        name, number = (getattr(error, a, None) for a in ("sqlite_errorname", "sqlite_errorcode"))
        #: SQLite's (extended) result code: ``SQLITE_FULL``, ``SQLITE_IOERR_WRITE`` ...
        self.code = name if isinstance(name, str) else type(error).__name__
        #: The disk, or the room the file may take, is full (``SQLITE_FULL``).
        self.disk_full = isinstance(number, int) and number & 0xFF == sqlite3.SQLITE_FULL
        #: Bytes left on the journal's file system when the write failed (None: unknown).
        self.free_bytes = _free_bytes(path)
        super().__init__(f"{path}: {doing}: {self.cause}")

    @property
    def cause(self) -> str:
        """SQLite's words and code, and the room left: ``database or disk is full (...)``."""
        room = "" if self.free_bytes is None else f"; {self.free_bytes} bytes free on its disk"
        return f"{self.reason} ({self.code}{room})"


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
            connection.executescript(SCHEMA)
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
        return cls.reading(_open_forreading(path), path)

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
        return self._insert(type_, [(payload, event_id)], ts_utc, monotonic_ns)[0]

    def append_all(
        self, type_: str, payloads: Sequence[Mapping[str, Any]], *, ts_utc: str, monotonic_ns: int
    ) -> list[int]:
        """Record rows without event ids in one transaction (one fsync); their ``seq``.

        All or none, and only after the commit: the answers to many commands at once.
        """
        entries = [(payload, None) for payload in payloads]
        return self._insert(type_, entries, ts_utc, monotonic_ns)

    def _insert(
        self,
        type_: str,
        entries: Sequence[tuple[Mapping[str, Any], str | None]],
        ts_utc: str,
        monotonic_ns: int,
    ) -> list[int]:
        """Chain and insert rows (payload, event id) in one ``BEGIN IMMEDIATE`` ... ``COMMIT``."""
        seq, head_hash = self._head_seq, self._head_hash
        rows: list[tuple[object, ...]] = []
        for payload, event_id in entries:
            payload_json = canonical_json(payload)
            seq += 1
            columns = (seq, event_id, ts_utc, monotonic_ns, type_, payload_json)
            digest = row_hash(head_hash, hashed(columns))
            rows.append((*columns, head_hash, digest))
            head_hash = digest
        try:
            self._connection.execute("BEGIN IMMEDIATE")
            try:
                self._connection.executemany(
                    "INSERT INTO events (seq, event_id, ts_utc, monotonic_ns, type, payload,"
                    " prev_hash, hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                    rows,
                )
                self._connection.execute("COMMIT")
            except BaseException:
                _roll_back(self._connection)
                raise
        except sqlite3.IntegrityError:
            event_id = next((given for _, given in entries if given is not None), None)
            raise DuplicateEventError(f"input {event_id!r} is already recorded") from None
        except sqlite3.Error as error:
            raise JournalWriteError(
                self.path, f"cannot record input {self._head_seq + 1}", error
            ) from None
        first = self._head_seq + 1
        self._head_seq, self._head_hash = seq, head_hash
        return list(range(first, seq + 1))

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
        for seq, event_id, ts_utc, monotonic_ns, type_, payload, prev_hash, digest in reading(
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
        table_id = self.meta("table_id")
        cursor = self._connection.execute(
            "SELECT seq, event_id, ts_utc, monotonic_ns, type, payload, prev_hash, hash"
            " FROM events ORDER BY seq"
        )
        return verify_chain(reading(cursor, self.path), table_id)

    def backup(self, target: Path) -> None:
        """A consistent copy while the journal is in use (never copy a WAL file by hand)."""
        destination = sqlite3.connect(target)
        try:
            self._connection.backup(destination)
        finally:
            destination.close()
