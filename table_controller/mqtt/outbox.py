# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The durable MQTT outbox: every message the table publishes, in order, until the broker has it.

Adapter: file I/O through sqlite3 (docs/journal-format.md, "The outbox tables"). It decides
nothing about what is published; it only keeps the messages, numbers them and remembers which
ones the broker acked.

* The outbox lives in the journal's SQLite file (or any other file), on its own connection, in
  WAL mode with a ``busy_timeout``, so the journal's writer thread and the MQTT drainer can
  share the file. Writes are ``BEGIN IMMEDIATE`` ... ``COMMIT`` with ``synchronous=FULL``:
  the table's writer syncs its rows off the card's path (after the card's event is out), so
  the journal's next commit, which shares the file's write-ahead log, does not also take them
  to the disk. Acknowledgements alone commit without an fsync (:meth:`Outbox.mark_acked`).
* ``seq`` is the envelope's ``seq`` (docs/mqtt-api.md, "`seq`: order, gaps and duplicates"):
  +1 per message for the life of the table, across restarts, and never reused, even after
  :meth:`Outbox.prune_acked`.
* ``key`` is an idempotency key chosen by the caller (the journal input that caused the message
  and its index, or a command id and its receipt): :meth:`Outbox.add` skips a key that is already
  there and returns the ``seq`` it got the first time, so re-adding an input's messages after a
  crash adds only the missing ones and every message keeps its ``seq``.
* A row stays unacknowledged until :meth:`Outbox.mark_acked`, which the drainer calls only after
  the broker confirmed the QoS 1 publish. A resend is the same row: same topic, payload and seq.
* A row is kept after its acknowledgement (for ``resend``) until :meth:`Outbox.prune_acked`,
  unless it was added not ``kept`` (a ``recall``'s reply, which the journal makes again): such a
  row leaves as soon as it is acknowledged, but for the newest row, which always stays.
* The session counter for birth and will (docs/mqtt-api.md, ``status``) is kept here as well,
  raised once per connection attempt.

An :class:`Outbox` instance is synchronous and is used by one thread at a time; open one
instance per thread (the dealing path's writer thread, the MQTT drainer).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Final, Self, TypeVar

from table_controller.contract import JsonValue, Seal, sealed, utc_text

#: How long a writer waits for the other connection's transaction before giving up.
BUSY_TIMEOUT_MS: Final = 10_000

_SCHEMA: Final = """
CREATE TABLE IF NOT EXISTS outbox (
    seq INTEGER PRIMARY KEY,
    key TEXT UNIQUE NOT NULL,
    topic TEXT NOT NULL,
    payload TEXT NOT NULL,
    qos INTEGER NOT NULL,
    retain INTEGER NOT NULL,
    added_at TEXT NOT NULL,
    acked_at TEXT,
    kept INTEGER NOT NULL DEFAULT 1
);
CREATE INDEX IF NOT EXISTS outbox_unacked ON outbox (seq) WHERE acked_at IS NULL;
CREATE TABLE IF NOT EXISTS outbox_meta (key TEXT PRIMARY KEY, value INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS outbox_retained (
    topic TEXT PRIMARY KEY,
    seq INTEGER NOT NULL,
    payload TEXT NOT NULL
);
"""
#: An outbox made before rows could be added not kept gets the column, then the index.
_KEPT_COLUMN: Final = "ALTER TABLE outbox ADD COLUMN kept INTEGER NOT NULL DEFAULT 1"
_UNKEPT_INDEX: Final = "CREATE INDEX IF NOT EXISTS outbox_unkept ON outbox (seq) WHERE kept = 0"
#: Acknowledged rows not kept leave, but the newest row (its key tells the journal's replay
#: which messages the outbox holds).
_FORGET_UNKEPT: Final = (
    "DELETE FROM outbox WHERE kept = 0 AND acked_at IS NOT NULL"
    " AND seq < (SELECT MAX(seq) FROM outbox)"
)


class OutboxError(Exception):
    """The outbox file cannot be used; the message says why."""


@dataclass(frozen=True, slots=True, kw_only=True)
class OutboxMessage:
    """A message to add. The outbox writes its ``seq`` into ``message["seq"]``.

    ``message`` is the whole envelope (``contract.envelope.envelope``); any ``seq`` it holds
    is replaced by the one the outbox assigns, in the same position.
    """

    key: str
    topic: str
    message: Mapping[str, JsonValue]
    qos: int = 1
    retain: bool = False
    #: Kept once acknowledged, for ``resend``; False: it leaves as soon as the broker has it.
    kept: bool = True


@dataclass(frozen=True, slots=True, kw_only=True)
class OutboxRow:
    """One stored message, exactly as it is (re)sent."""

    seq: int
    key: str
    topic: str
    payload: str
    qos: int
    retain: bool
    added_at: str
    acked_at: str | None
    #: Kept once acknowledged (see :class:`OutboxMessage`).
    kept: bool = True


def _parse_utc(text: str) -> datetime:
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


def _payload_with_seq(message: Mapping[str, JsonValue], seq: int, seal: Seal | None) -> str:
    """The stored text: the message with its ``seq``, signed last when there is a seal."""
    stamped = sealed({**message, "seq": seq}, seal)
    return json.dumps(stamped, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


_T = TypeVar("_T")

_SELECT_ROWS: Final = (
    "SELECT seq, key, topic, payload, qos, retain, added_at, acked_at, kept FROM outbox"
)
_INSERT_ROW: Final = (
    "INSERT INTO outbox (seq, key, topic, payload, qos, retain, added_at, acked_at, kept)"
    " VALUES (?, ?, ?, ?, ?, ?, ?, NULL, ?)"
)


def stamp(
    messages: Sequence[OutboxMessage], *, first_seq: int, added_at: str, seal: Seal | None = None
) -> list[OutboxRow]:
    """The rows the messages become, numbered from ``first_seq`` on (for :meth:`Outbox.insert`).

    With ``seal`` (the device key), each payload is signed once numbered: the row holds the
    signed bytes, which every resend sends unchanged.
    """
    return [
        OutboxRow(
            seq=first_seq + index,
            key=item.key,
            topic=item.topic,
            payload=_payload_with_seq(item.message, first_seq + index, seal),
            qos=item.qos,
            retain=item.retain,
            added_at=added_at,
            acked_at=None,
            kept=item.kept,
        )
        for index, item in enumerate(messages)
    ]


def _store_row(connection: sqlite3.Connection, row: OutboxRow) -> None:
    connection.execute(
        _INSERT_ROW,
        (
            row.seq, row.key, row.topic, row.payload, row.qos, int(row.retain), row.added_at,
            int(row.kept),
        ),
    )  # fmt: skip
    if row.retain:
        connection.execute(
            "INSERT INTO outbox_retained (topic, seq, payload) VALUES (?, ?, ?)"
            " ON CONFLICT(topic) DO UPDATE SET seq = excluded.seq,"
            " payload = excluded.payload WHERE excluded.seq > outbox_retained.seq",
            (row.topic, row.seq, row.payload),
        )


def _row(values: tuple[object, ...]) -> OutboxRow:
    seq, key, topic, payload, qos, retain, added_at, acked_at, kept = values
    assert isinstance(seq, int)
    assert isinstance(qos, int)
    return OutboxRow(
        seq=seq,
        key=str(key),
        topic=str(topic),
        payload=str(payload),
        qos=qos,
        retain=bool(retain),
        added_at=str(added_at),
        acked_at=None if acked_at is None else str(acked_at),
        kept=bool(kept),
    )


class Outbox:
    """An open outbox. Use :meth:`open`; close with :meth:`close` or ``with``."""

    def __init__(
        self,
        connection: sqlite3.Connection,
        path: Path,
        clock: Callable[[], datetime],
        seal: Seal | None = None,
    ) -> None:
        self._connection = connection
        self.path = path
        self._clock = clock
        #: Signs each message as it is numbered (None: stored unsigned).
        self.seal = seal

    @classmethod
    def open(cls, path: Path, *, clock: Callable[[], datetime], seal: Seal | None = None) -> Self:
        """Open or create the outbox tables in ``path`` (the journal's file is fine).

        ``clock`` gives the aware UTC wall time its rows are dated with
        (``table_controller.runtime.clock.utc_now``, or a fixed one in tests); ``seal`` signs
        every message added (the device key), or None.

        Raises:
            OutboxError: the file is not a usable SQLite database.
        """
        try:
            connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
            connection.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            connection.execute("PRAGMA journal_mode=WAL")
            connection.execute("PRAGMA synchronous=FULL")
            connection.execute("BEGIN IMMEDIATE")
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    connection.execute(statement)
            columns = {row[1] for row in connection.execute("PRAGMA table_info(outbox)")}
            if "kept" not in columns:
                connection.execute(_KEPT_COLUMN)
            connection.execute(_UNKEPT_INDEX)
            connection.execute("COMMIT")
        except sqlite3.Error as error:
            raise OutboxError(f"{path}: cannot open the outbox: {error}") from None
        return cls(connection, path, clock, seal)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def now(self) -> datetime:
        """The outbox's wall time (its clock): the MQTT link dates its status messages with it."""
        return self._clock()

    def close(self) -> None:
        self._connection.close()

    def _write(self, work: Callable[[sqlite3.Connection], _T]) -> _T:
        connection = self._connection
        connection.execute("BEGIN IMMEDIATE")
        try:
            result = work(connection)
            connection.execute("COMMIT")
        except BaseException:
            # A write that fails for want of room (SQLITE_FULL) was rolled back by SQLite
            # already; a second ROLLBACK would raise and hide why it failed.
            if connection.in_transaction:
                connection.execute("ROLLBACK")
            raise
        return result

    def add(self, messages: Sequence[OutboxMessage]) -> list[int]:
        """Store the messages of one input in one transaction and return their ``seq`` in order.

        A message whose ``key`` is already stored is skipped and its first ``seq`` returned.
        Returns only after the commit: the messages survive a crash from then on.
        """
        added_at = utc_text(self._clock())

        def work(connection: sqlite3.Connection) -> list[int]:
            last = _meta(connection, "last_seq")
            seqs: list[int] = []
            for item in messages:
                found = connection.execute(
                    "SELECT seq FROM outbox WHERE key = ?", (item.key,)
                ).fetchone()
                if found is not None:
                    seqs.append(int(found[0]))
                    continue
                last += 1
                (row,) = stamp([item], first_seq=last, added_at=added_at, seal=self.seal)
                _store_row(connection, row)
                seqs.append(last)
            _set_meta(connection, "last_seq", last)
            return seqs

        try:
            return self._write(work)
        except sqlite3.Error as error:
            raise OutboxError(f"cannot add to the outbox: {error}") from None

    def insert(self, rows: Sequence[OutboxRow]) -> None:
        """Store rows numbered beforehand (:func:`stamp`) in one transaction.

        The numbering must go on exactly from :meth:`last_seq` and every key must be new:
        the rows were planned live by the one writer, so anything else means a second writer
        or a bug, and nothing is stored.

        Raises:
            OutboxError: the rows do not follow on, a key is already stored, or the file
                refused the write (a full disk, say); nothing was stored.
        """
        if not rows:
            return

        def work(connection: sqlite3.Connection) -> None:
            last = _meta(connection, "last_seq")
            for expected, row in enumerate(rows, start=last + 1):
                if row.seq != expected:
                    msg = f"row seq {row.seq} does not follow on (expected {expected})"
                    raise OutboxError(msg)
                _store_row(connection, row)
            _set_meta(connection, "last_seq", rows[-1].seq)

        try:
            self._write(work)
        except sqlite3.IntegrityError as error:
            raise OutboxError(f"cannot insert into the outbox: a key is stored: {error}") from None
        except sqlite3.Error as error:
            raise OutboxError(f"cannot insert into the outbox: {error}") from None

    def unacked_after(self, seq: int, *, limit: int) -> tuple[list[OutboxRow], int]:
        """Up to ``limit`` unacknowledged rows after ``seq``, and :meth:`last_seq`, read at once."""
        connection = self._connection
        connection.execute("BEGIN")
        try:
            cursor = connection.execute(
                _SELECT_ROWS + " WHERE acked_at IS NULL AND seq > ? ORDER BY seq LIMIT ?",
                (seq, limit),
            )
            rows = [_row(values) for values in cursor]
            last = _meta(connection, "last_seq")
        finally:
            connection.execute("COMMIT")
        return rows, last

    def oldest_unacked(self) -> OutboxRow | None:
        """The next message to send (again): the unacknowledged row with the lowest ``seq``."""
        found = self._connection.execute(
            _SELECT_ROWS + " WHERE acked_at IS NULL ORDER BY seq LIMIT 1"
        ).fetchone()
        return None if found is None else _row(found)

    def mark_acked(self, seq: int) -> None:
        """Record that the broker acknowledged message ``seq`` (idempotent).

        The acknowledged rows not kept leave with it (the newest row stays).
        """
        acked_at = utc_text(self._clock())

        def work(connection: sqlite3.Connection) -> None:
            connection.execute(
                "UPDATE outbox SET acked_at = ? WHERE seq = ? AND acked_at IS NULL",
                (acked_at, seq),
            )
            connection.execute(_FORGET_UNKEPT)

        # An ack lost to a power cut costs one resend (a duplicate with the same seq), never a
        # message: so acks commit without an fsync and hold the write lock only briefly,
        # which keeps the dealing path's adds from queueing behind a draining backlog.
        self._connection.execute("PRAGMA synchronous=NORMAL")
        try:
            self._write(work)
        finally:
            self._connection.execute("PRAGMA synchronous=FULL")

    def mark_acked_many(self, seqs: Sequence[int]) -> None:
        """:meth:`mark_acked` for several rows in one transaction (idempotent)."""
        if not seqs:
            return
        acked_at = utc_text(self._clock())

        def work(connection: sqlite3.Connection) -> None:
            connection.executemany(
                "UPDATE outbox SET acked_at = ? WHERE seq = ? AND acked_at IS NULL",
                [(acked_at, seq) for seq in seqs],
            )
            connection.execute(_FORGET_UNKEPT)

        self._connection.execute("PRAGMA synchronous=NORMAL")  # see mark_acked
        try:
            self._write(work)
        except sqlite3.Error as error:
            raise OutboxError(f"cannot mark rows acknowledged: {error}") from None
        finally:
            self._connection.execute("PRAGMA synchronous=FULL")

    def depth(self) -> int:
        """How many messages wait for the broker."""
        found = self._connection.execute(
            "SELECT count(*) FROM outbox WHERE acked_at IS NULL"
        ).fetchone()
        return int(found[0])

    def oldest_age(self) -> timedelta | None:
        """How long the oldest waiting message has waited; ``None`` when nothing waits."""
        row = self.oldest_unacked()
        if row is None:
            return None
        return max(self._clock() - _parse_utc(row.added_at), timedelta(0))

    def last_seq(self) -> int:
        """The highest ``seq`` ever assigned (0 for a new table)."""
        return _meta(self._connection, "last_seq")

    def last_key(self) -> str | None:
        """The ``key`` of the row with the highest ``seq`` still stored (None: no row)."""
        found = self._connection.execute(
            "SELECT key FROM outbox ORDER BY seq DESC LIMIT 1"
        ).fetchone()
        return None if found is None else str(found[0])

    def rows(self, *, after: int = 0) -> list[OutboxRow]:
        """Every stored row after ``seq``, acknowledged or not, in order (for tools and tests)."""
        cursor = self._connection.execute(_SELECT_ROWS + " WHERE seq > ? ORDER BY seq", (after,))
        return [_row(values) for values in cursor]

    def rows_between(self, first: int, last: int, *, limit: int) -> tuple[list[OutboxRow], int]:
        """Up to ``limit`` stored rows of ``first..last`` and :meth:`last_seq`, read at once.

        For ``resend``: rows acknowledged or not, in ``seq`` order, both ends included. A
        ``seq`` at most :meth:`last_seq` that is not among the rows was pruned
        (:meth:`prune_acked`): it is gone for good.
        """
        connection = self._connection
        connection.execute("BEGIN")
        try:
            cursor = connection.execute(
                _SELECT_ROWS + " WHERE seq BETWEEN ? AND ? ORDER BY seq LIMIT ?",
                (first, last, limit),
            )
            rows = [_row(values) for values in cursor]
            last_seq = _meta(connection, "last_seq")
        finally:
            connection.execute("COMMIT")
        return rows, last_seq

    def retained_rows(self) -> list[tuple[int, str, str]]:
        """``(seq, topic, payload)`` of the latest row of every retained topic, by ``seq``."""
        cursor = self._connection.execute(
            "SELECT seq, topic, payload FROM outbox_retained ORDER BY seq"
        )
        return [(int(seq), str(topic), str(payload)) for seq, topic, payload in cursor]

    def retained(self) -> dict[str, str]:
        """The latest payload added for every retained topic (``state``, ``roads``, ...)."""
        cursor = self._connection.execute("SELECT topic, payload FROM outbox_retained")
        return {str(topic): str(payload) for topic, payload in cursor}

    def prune_acked(self, *, acked_before: datetime) -> int:
        """Delete acknowledged rows acked before the given time (or not kept); how many went.

        ``seq`` numbering and the latest retained values are kept, and so is the newest row:
        its key tells the journal's replay which messages the outbox already holds.

        Raises:
            OutboxError: the file refused the delete; nothing was deleted.
        """
        cutoff = utc_text(acked_before)
        try:
            cursor = self._write(
                lambda connection: connection.execute(
                    "DELETE FROM outbox WHERE acked_at IS NOT NULL AND (acked_at < ? OR kept = 0)"
                    " AND seq < (SELECT MAX(seq) FROM outbox)",
                    (cutoff,),
                )
            )
        except sqlite3.Error as error:
            raise OutboxError(f"cannot prune the outbox: {error}") from None
        return int(cursor.rowcount)

    def next_session(self) -> int:
        """Raise the persistent session counter and return it (call once per connection)."""

        def work(connection: sqlite3.Connection) -> int:
            session = _meta(connection, "session") + 1
            _set_meta(connection, "session", session)
            return session

        return self._write(work)

    def session(self) -> int:
        """The current session counter (0 before the first connection)."""
        return _meta(self._connection, "session")


def _meta(connection: sqlite3.Connection, key: str) -> int:
    found = connection.execute("SELECT value FROM outbox_meta WHERE key = ?", (key,)).fetchone()
    return 0 if found is None else int(found[0])


def _set_meta(connection: sqlite3.Connection, key: str, value: int) -> None:
    connection.execute(
        "INSERT INTO outbox_meta (key, value) VALUES (?, ?)"
        " ON CONFLICT(key) DO UPDATE SET value = excluded.value",
        (key, value),
    )
