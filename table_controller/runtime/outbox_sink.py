# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A message sink that stores every message in the durable MQTT outbox.

Adapter. The outbox numbers the messages (``seq``) and the MQTT link drains it in order; a key
already stored is skipped, so replaying the journal after a crash adds only what is missing.

Live, each input's messages take two steps (``TableService._publish``):

1. :meth:`OutboxSink.stage`, on the event loop right after the procedure decided: the messages
   are numbered on from the last ``seq`` and offered to the MQTT link in memory
   (:meth:`LiveRows.offer`), so the broker gets them without a read back from the file;
2. the write :meth:`~OutboxSink.stage` returns runs on the journal's writer thread, after the
   input's own journal row and before the next one, and stores the same rows; then
   :meth:`LiveRows.stored` tells the link the file holds them (acks are marked only then).

A message may therefore reach the broker a moment before its outbox row is committed. It is
durable all the same: its input was committed to the journal (``synchronous=FULL``) before the
procedure saw it, and the journal's replay at start plans the same messages from the same rows,
with the same keys, timestamps and therefore the same ``seq`` and bytes. A write the file
refuses is kept and tried again with the next one, so the rows stay in ``seq`` order.

Because the rows are written in the order of the journal rows that caused them, every message
of a journal row up to the one of the last stored row is stored. The replay at start hands
those to :meth:`OutboxSink.add` again; it drops them before encoding anything, so a restart
costs the procedure's replay, not the re-encoding of every message the table ever published.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from typing import Protocol

from table_controller.contract import EdgeFields, OutgoingMessage, utc_text, with_edge_fields
from table_controller.mqtt import (
    Outbox,
    OutboxMessage,
    OutboxRow,
    stamp,
)
from table_controller.runtime.service_ports import MessageSink


class LiveRows(Protocol):
    """Who takes the outbox's rows as they are numbered and stored: the MQTT link."""

    def offer(self, rows: Sequence[OutboxRow]) -> None:
        """Rows just numbered, in ``seq`` order, to publish at once (on the event loop)."""

    def stored(self, seq: int) -> None:
        """The outbox file holds every row up to ``seq`` (any thread)."""

    def notify(self) -> None:
        """Rows were added to the file without being offered (any thread)."""


class OutboxSink:
    """Envelopes messages for ``<root>/<topic>`` and adds them to the outbox in ``seq`` order.

    Args:
        outbox: the writer's outbox (the journal's writer thread uses it).
        link: told of each row numbered and stored; None when nothing drains the outbox here.
        table_id: the envelope's ``table_id``.
        topic_root: ``<prefix>/<table_id>``, before each message's topic.
        edge_fields: fields added to the messages of a ``type`` (``software`` on
            ``shoe_started``); the outbox's seal signs each message once numbered.
    """

    def __init__(
        self,
        outbox: Outbox,
        *,
        link: LiveRows | None = None,
        table_id: str,
        topic_root: str,
        edge_fields: EdgeFields | None = None,
    ) -> None:
        self._outbox = outbox
        self._edge_fields = edge_fields
        self._link = link
        self._table_id = table_id
        self._root = topic_root
        self._last_seq = outbox.last_seq()
        #: Every message of the journal rows up to this one is stored (see module).
        self._stored_through = journal_row(outbox.last_key()) or 0
        #: Rows staged and not stored yet (a write the file refused keeps them for the next).
        self._unstored: list[OutboxRow] = []
        self._unstored_lock = threading.Lock()  # staged on the loop, stored on the writer

    def _outbox_messages(self, messages: list[OutgoingMessage]) -> list[OutboxMessage]:
        return [
            OutboxMessage(
                key=message.key,
                topic=f"{self._root}/{message.topic}",
                # The outbox writes the seq it assigns in place of 0.
                message=with_edge_fields(
                    message.enveloped(table_id=self._table_id, seq=0, ts=message.ts),
                    self._edge_fields,
                ),
                retain=message.retain,
                kept=message.kept,
            )
            for message in messages
        ]

    def add(self, messages: list[OutgoingMessage]) -> None:
        """Store the messages of one input now, skipping stored keys (the journal's replay)."""
        fresh = [m for m in messages if not self._stored(m.key)]
        if not fresh:
            return
        self._outbox.add(self._outbox_messages(fresh))
        self._last_seq = self._outbox.last_seq()
        if self._link is not None:
            self._link.notify()

    def _stored(self, key: str) -> bool:
        row = journal_row(key)
        return row is not None and row <= self._stored_through

    def stage(self, messages: list[OutgoingMessage]) -> Callable[[], None]:
        """Number the messages of a live input and hand them over; returns the write to do."""
        if not messages:
            return _nothing
        added_at = utc_text(self._outbox.now())
        rows = stamp(
            self._outbox_messages(messages),
            first_seq=self._last_seq + 1,
            added_at=added_at,
            seal=self._outbox.seal,
        )
        self._last_seq = rows[-1].seq
        with self._unstored_lock:
            self._unstored.extend(rows)
        if self._link is not None:
            self._link.offer(rows)
        return self._store

    def _store(self) -> None:
        """Store every row staged and not stored yet, in one transaction (writer thread).

        A write finds every row staged before it: when several stagings precede their writes,
        the first write stores them all and the others find nothing left, so the file never
        holds part of a journal row's messages, which the replay's stored-through point
        relies on.
        """
        with self._unstored_lock:
            rows, self._unstored = self._unstored, []
        if not rows:
            return
        try:
            self._outbox.insert(rows)
        except BaseException:  # OutboxError, say: kept, in order, for the next write
            with self._unstored_lock:
                self._unstored[:0] = rows
            raise
        if self._link is not None:
            self._link.stored(rows[-1].seq)


def journal_row(key: str | None) -> int | None:
    """The journal row a message key names (``"<row>.<index>"``); None for any other key."""
    head, dot, _ = (key or "").partition(".")
    return int(head) if dot and head.isascii() and head.isdigit() else None


def _nothing() -> None:
    """The write of an input that published nothing."""


class FanOutSink:
    """Hands the same messages to several sinks (the outbox and a JSON-lines copy)."""

    def __init__(self, *sinks: MessageSink) -> None:
        self.sinks = sinks

    def add(self, messages: list[OutgoingMessage]) -> None:
        """Each sink in turn."""
        for sink in self.sinks:
            sink.add(messages)

    def stage(self, messages: list[OutgoingMessage]) -> Callable[[], None]:
        """Each sink's stage in turn; the write runs each sink's write."""
        writes = [sink.stage(messages) for sink in self.sinks]

        def write_all() -> None:
            failures: list[Exception] = []
            for write in writes:
                try:
                    write()
                except Exception as error:  # noqa: BLE001 - the other sinks still write
                    failures.append(error)
            if failures:
                raise failures[0]

        return write_all
