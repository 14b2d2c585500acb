# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The service's one writer thread: each input's journal row, then its messages, then a checkpoint.

Every write to disk happens here, in the order queued, so the event loop never waits for the
disk and an input's messages are stored after its own journal row and before the next one's.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from functools import partial

import structlog

from table_controller.runtime.deferred_log import log_checkpoint_failure, log_sink_failure
from table_controller.runtime.journal import Journal
from table_controller.runtime.journal_format import DuplicateEventError, JournalError

_LOG = structlog.get_logger("table_controller.service")
#: Seconds between attempts to record an input while the journal refuses writes.
JOURNAL_RETRY_S = 1.0
#: Inputs at most between two checkpoints of the journal, however busy the table is.
CHECKPOINT_EVERY = 64


class WriterThread:
    """The journal's appends, the sink's writes and the checkpoints, on one thread.

    Args:
        journal: where every input is recorded before anything acts on it.
        clock: monotonic seconds, stamped on each journal row.
        show_held: shows the table held when the journal starts refusing writes.
        show_resumed: shows it no longer held once the journal records again.
    """

    def __init__(
        self,
        journal: Journal,
        *,
        clock: Callable[[], float],
        show_held: Callable[[], Awaitable[None]],
        show_resumed: Callable[[], Awaitable[None]],
    ) -> None:
        self._journal = journal
        self._clock = clock
        self._show_held = show_held
        self._show_resumed = show_resumed
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal-writer")
        self._failing = False
        #: The sink's writes of messages handed out, for the writer thread (in this order).
        self._writes: list[Callable[[], None]] = []
        self._since_checkpoint = 0

    @property
    def failing(self) -> bool:
        """Whether the journal is refusing writes right now (the table is held)."""
        return self._failing

    async def record(
        self, row_type: str, record: dict[str, object], *, ts: str, command_id: str | None
    ) -> int | None:
        """Append a row to the journal, retrying while it fails; None for a repeated command."""
        append = partial(
            self._journal.append,
            row_type,
            record,
            ts_utc=ts,
            monotonic_ns=int(self._clock() * 1e9),
            event_id=None if command_id is None else f"command:{command_id}",
        )
        loop = asyncio.get_running_loop()
        while True:
            try:
                seq = await loop.run_in_executor(self._executor, append)
            except DuplicateEventError:
                return None
            except JournalError as error:
                await self._refused(error)
                continue
            await self._recording_again()
            return seq

    async def record_all(
        self, row_type: str, records: list[dict[str, object]], *, ts: str
    ) -> list[int]:
        """Append rows in one transaction, retrying while the journal fails; their ``seq``."""
        append = partial(
            self._journal.append_all,
            row_type,
            records,
            ts_utc=ts,
            monotonic_ns=int(self._clock() * 1e9),
        )
        loop = asyncio.get_running_loop()
        while True:
            try:
                seqs = await loop.run_in_executor(self._executor, append)
            except JournalError as error:
                await self._refused(error)
                continue
            await self._recording_again()
            return seqs

    async def _recording_again(self) -> None:
        """After a row was recorded: if the journal refused writes until now, resume."""
        if self._failing:
            self._failing = False
            _LOG.warning("journal records again: resuming")
            await self._show_resumed()

    async def _refused(self, error: JournalError) -> None:
        if not self._failing:
            self._failing = True
            _LOG.error("journal refuses writes: table held, nothing acknowledged", error=str(error))
            await self._show_held()
        await asyncio.sleep(JOURNAL_RETRY_S)

    def stage(self, write: Callable[[], None]) -> None:
        """Keep a sink's write of staged messages until :meth:`write_out`."""
        self._writes.append(write)

    def write_out(self) -> None:
        """Queue the sink's writes on the writer thread, in the order staged.

        They run after the input's own journal row and before the next input's, and only once
        every message of the input is staged, so the outbox sink can store an input's messages
        in one transaction (``runtime/outbox_sink.py``).
        """
        writes, self._writes = self._writes, []
        for write in writes:
            self._executor.submit(write).add_done_callback(log_sink_failure)

    def checkpoint_when_quiet(self, *, busy: bool) -> None:
        """Queue a checkpoint of the journal on the writer thread, after the input's writes.

        The journal never checkpoints inside an append (``Journal.open``). Here one runs after
        each input while no other input waits (``busy`` false), or every ``CHECKPOINT_EVERY``
        inputs however busy the table: small, and never inside a card's commit.
        """
        self._since_checkpoint += 1
        if busy and self._since_checkpoint < CHECKPOINT_EVERY:
            return
        self._since_checkpoint = 0
        self._executor.submit(self._journal.checkpoint).add_done_callback(log_checkpoint_failure)

    def shutdown(self) -> None:
        """Wait for the writes queued, then stop the thread."""
        self._executor.shutdown(wait=True)
