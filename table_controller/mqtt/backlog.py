# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the MQTT drainer still has to send, in memory: the outbox's unacknowledged tail.

Pure: no I/O, no clock, no asyncio. :class:`~table_controller.mqtt.client.link.MqttLink` owns
one :class:`Backlog`, feeds it from two sides and publishes what it hands out:

* **offered** rows come straight from the table (``OutboxSink.stage``) the moment their
  messages are planned, before the outbox's own commit, so the dealing path's messages reach
  the broker without a read back from SQLite;
* **loaded** rows come from the outbox file: at start (what an earlier run left unsent), after
  the memory was full (a long broker outage), and when another writer added rows.

The outbox stays the record: a row acknowledged here is marked in the file only once the
file holds it (:meth:`Backlog.take_acks` with the stored watermark), and whatever the memory
dropped is loaded again from the file. Rows are kept in ``seq`` order, which is the order of
publication; several may be in flight at once, and after a reconnect every unacknowledged row
is sent again from the oldest, unchanged (same ``seq``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence
from typing import Final

from table_controller.mqtt.outbox import OutboxRow

#: Rows kept in memory before further offers are left to be loaded from the outbox file.
DEFAULT_MEMORY_ROWS: Final = 5_000


class Backlog:
    """The unacknowledged rows in ``seq`` order, with the send and acknowledgement state."""

    def __init__(self, *, memory_rows: int = DEFAULT_MEMORY_ROWS) -> None:
        if memory_rows < 1:
            raise ValueError("the backlog must hold at least one row")
        self._memory_rows = memory_rows
        self._rows: deque[OutboxRow] = deque()
        #: How many rows from the front were handed out for sending on this connection.
        self._sent = 0
        #: Every unacknowledged row with ``seq <= _complete_upto`` is in ``_rows`` (or acked).
        self._complete_upto = 0
        #: The highest ``seq`` known to exist (offered or seen in the file).
        self._newest = 0
        #: Nothing was loaded from the file yet: an earlier run may have left rows.
        self._fresh = True
        self._acked: set[int] = set()
        self._acks_to_record: list[int] = []

    # --- feeding --------------------------------------------------------------------------

    def offer(self, rows: Iterable[OutboxRow]) -> None:
        """Rows just planned, in ``seq`` order; kept unless memory is full or a row is missing."""
        for row in rows:
            self._newest = max(self._newest, row.seq)
            if row.seq <= self._complete_upto:
                continue  # already here, or acknowledged
            if (
                not self._fresh
                and row.seq == self._complete_upto + 1
                and len(self._rows) < self._memory_rows
            ):
                self._rows.append(row)
                self._complete_upto = row.seq

    @property
    def wants_load(self) -> bool:
        """Whether rows exist that only the outbox file holds, and there is room for them."""
        if len(self._rows) >= self._memory_rows:
            return False
        return self._fresh or self._newest > self._complete_upto

    @property
    def loaded_upto(self) -> int:
        """Load rows after this ``seq`` (everything up to it is here or acknowledged)."""
        return self._complete_upto

    @property
    def room(self) -> int:
        return max(self._memory_rows - len(self._rows), 0)

    def loaded(self, rows: Sequence[OutboxRow], *, file_last_seq: int, asked: int) -> None:
        """Unacknowledged rows read from the file after :attr:`loaded_upto`, at most ``asked``.

        ``file_last_seq`` is the file's highest ``seq`` read in the same transaction: when
        fewer rows than asked came back, every row up to it is here or acknowledged.
        """
        self._fresh = False
        self._newest = max(self._newest, file_last_seq)
        for row in rows:
            if row.seq > self._complete_upto and row.seq not in self._acked:
                self._rows.append(row)
                self._complete_upto = row.seq
        if len(rows) < asked:
            self._complete_upto = max(self._complete_upto, file_last_seq)

    # --- sending --------------------------------------------------------------------------

    def next_to_send(self) -> OutboxRow | None:
        """The oldest row not yet handed out on this connection; marks it handed out."""
        while self._sent < len(self._rows):
            row = self._rows[self._sent]
            self._sent += 1
            if row.seq not in self._acked:
                return row
        return None

    @property
    def unsent(self) -> int:
        return len(self._rows) - self._sent

    def acked(self, seq: int) -> None:
        """The broker acknowledged ``seq``; rows leave the front once all before them did."""
        self._acked.add(seq)
        self._acks_to_record.append(seq)
        while self._rows and self._rows[0].seq in self._acked:
            self._acked.discard(self._rows.popleft().seq)
            self._sent = max(self._sent - 1, 0)

    def reconnected(self) -> None:
        """A new connection: every unacknowledged row is sent again, oldest first."""
        self._sent = 0

    def take_acks(self, *, stored_upto: int) -> list[int]:
        """Acknowledged ``seq`` that the file holds, to be marked there; the rest wait."""
        ready = [seq for seq in self._acks_to_record if seq <= stored_upto]
        self._acks_to_record = [seq for seq in self._acks_to_record if seq > stored_upto]
        return ready

    def put_back_acks(self, seqs: Iterable[int]) -> None:
        """Acks that could not be marked in the file (it refused): try them again later."""
        self._acks_to_record.extend(seqs)

    # --- reading --------------------------------------------------------------------------

    @property
    def oldest_unacked(self) -> int | None:
        """The lowest unacknowledged ``seq`` known, or None when everything known is acked."""
        for row in self._rows:
            if row.seq not in self._acked:
                return row.seq
        if self._newest > self._complete_upto:
            return self._complete_upto + 1
        return None

    @property
    def depth(self) -> int:
        """Messages waiting for the broker: in memory, plus those only the file holds."""
        in_memory = len(self._rows) - len(self._acked)
        return in_memory + max(self._newest - self._complete_upto, 0)

    @property
    def newest(self) -> int:
        return self._newest
