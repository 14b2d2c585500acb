# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The service's one writer thread: each input's journal row, then its messages, then a checkpoint.

Every write to disk happens here, in the order queued, so the event loop never waits for the
disk and an input's messages are stored after its own journal row and before the next one's.

When the journal refuses a write (a full disk, say), the table is held until it records again:

* the refusal is logged once with its cause (SQLite's words and code, the journal's path, the
  room left) and shown (the shoe's lamp, the screens: ``show_held``);
* an input that must not be lost (a card, an input the runtime made) waits, unrecorded and
  unacknowledged, and is recorded once the journal records again; a command is refused at once
  instead (:meth:`WriterThread.record` with ``held`` false), since nothing of it was recorded;
* every :data:`JOURNAL_RETRY_S` the writer tries to record what happened, an audit row
  (:data:`OUTAGE_KEY`: since when, why, how many commands were refused). The first that is
  recorded ends the hold: it is the journal's own record of the outage, before the input
  that waited.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from functools import partial
from typing import Final

import structlog

from table_controller.contract import JournalRefusal
from table_controller.runtime.deferred_log import (
    describe_failure,
    log_checkpoint_failure,
    log_sink_failure,
)
from table_controller.runtime.journal.format import (
    AUDIT_ROW,
    DuplicateEventError,
    JournalError,
)
from table_controller.runtime.journal.journal import Journal, JournalWriteError

_LOG = structlog.get_logger("table_controller.service")
#: Seconds between attempts to record while the journal refuses writes.
JOURNAL_RETRY_S = 1.0
#: Inputs at most between two checkpoints of the journal, however busy the table is.
CHECKPOINT_EVERY = 64
#: The audit row that records a time the journal refused writes, once it records again.
OUTAGE_KEY: Final = "journal_refused"


@dataclass(slots=True, kw_only=True)
class _Outage:
    """The journal refuses writes: since when, why, and the commands refused meanwhile."""

    since: str
    error: JournalError
    refusal: JournalRefusal
    commands_refused: int = 0

    def record(self) -> dict[str, object]:
        """The audit row written once the journal records again."""
        error = self.error
        return {
            OUTAGE_KEY: {
                "since": self.since,
                "cause": error.reason if isinstance(error, JournalWriteError) else str(error),
                "code": error.code if isinstance(error, JournalWriteError) else None,
                "disk_full": self.refusal.disk_full,
                "commands_refused": self.commands_refused,
            }
        }


def refusal_of(error: JournalError) -> JournalRefusal:
    """What the screens and the refused commands say of a write the journal refused."""
    if isinstance(error, JournalWriteError):
        return JournalRefusal(cause=error.cause, disk_full=error.disk_full)
    return JournalRefusal(cause=str(error), disk_full=False)


class WriterThread:
    """The journal's appends, the sink's writes and the checkpoints, on one thread.

    Args:
        journal: where every input is recorded before anything acts on it.
        clock: monotonic seconds, stamped on each journal row.
        wall_clock: the UTC time stamped on the outage's audit row.
        show_held: shows the table held when the journal starts refusing writes.
        show_resumed: shows it no longer held once the journal records again.
    """

    def __init__(
        self,
        journal: Journal,
        *,
        clock: Callable[[], float],
        wall_clock: Callable[[], str],
        show_held: Callable[[JournalRefusal], Awaitable[None]],
        show_resumed: Callable[[], Awaitable[None]],
    ) -> None:
        self._journal = journal
        self._clock = clock
        self._wall_clock = wall_clock
        self._show_held = show_held
        self._show_resumed = show_resumed
        self._executor = ThreadPoolExecutor(max_workers=1, thread_name_prefix="journal-writer")
        #: While the journal refuses writes: since when and why (the table is held).
        self._outage: _Outage | None = None
        #: Set while the journal records; the inputs that wait for it wait on this.
        self._recording = asyncio.Event()
        self._recording.set()
        #: Tries to record the outage's audit row until the journal takes it.
        self._probe: asyncio.Task[None] | None = None
        #: The sink's writes of messages handed out, for the writer thread (in this order).
        self._writes: list[Callable[[], None]] = []
        self._since_checkpoint = 0

    @property
    def failing(self) -> bool:
        """Whether the journal is refusing writes right now (the table is held)."""
        return self._outage is not None

    @property
    def refusal(self) -> JournalRefusal | None:
        """Why the journal refuses writes right now; None while it records."""
        return None if self._outage is None else self._outage.refusal

    def refuse_command(self) -> JournalRefusal | None:
        """The refusal to answer a command with now (counted for the audit row); None: take it."""
        outage = self._outage
        if outage is None:
            return None
        outage.commands_refused += 1
        return outage.refusal

    async def record(
        self,
        row_type: str,
        record: dict[str, object],
        *,
        ts: str,
        command_id: str | None,
        held: bool = True,
    ) -> int | JournalRefusal | None:
        """Append a row to the journal; its ``seq``, or None for a repeated command.

        While the journal refuses writes, a ``held`` row waits until it records again and is
        recorded then; any other (a command's, an answer's) is not recorded: the refusal
        comes back at once.
        """
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
            if self._outage is not None:
                refused = None if held else self.refuse_command()
                if refused is not None:
                    return refused
                await self._recording.wait()
                continue
            try:
                return await loop.run_in_executor(self._executor, append)
            except DuplicateEventError:
                return None
            except JournalError as error:
                await self._refused(error)

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
            if self._outage is not None:  # answers wait while the journal refuses writes
                await self._recording.wait()
                continue
            try:
                return await loop.run_in_executor(self._executor, append)
            except JournalError as error:
                await self._refused(error)

    async def _refused(self, error: JournalError) -> None:
        """The journal refused a write: log why, hold the table, try again until it records."""
        if self._outage is not None:  # only the queue's one task writes: cannot happen
            return
        refusal = refusal_of(error)
        self._outage = _Outage(since=self._wall_clock(), error=error, refusal=refusal)
        self._recording.clear()
        fields: dict[str, object] = {"error": str(error), "cause": refusal.cause}
        if isinstance(error, JournalWriteError):
            fields |= {
                "journal": str(error.path),
                "code": error.code,
                "disk_full": error.disk_full,
                "free_bytes": error.free_bytes,
            }
        _LOG.error("journal refuses writes: table held, nothing acknowledged", **fields)
        self._probe = asyncio.create_task(self._until_recording(), name="journal retry")
        await self._shown(self._show_held(refusal))

    async def _until_recording(self) -> None:
        """Try to record the outage's audit row every :data:`JOURNAL_RETRY_S`; then resume."""
        loop = asyncio.get_running_loop()
        outage = self._outage
        assert outage is not None
        while True:
            await asyncio.sleep(JOURNAL_RETRY_S)
            append = partial(
                self._journal.append,
                AUDIT_ROW,
                outage.record(),
                ts_utc=self._wall_clock(),
                monotonic_ns=int(self._clock() * 1e9),
            )
            with contextlib.suppress(JournalError):  # still refused: logged once, at the start
                await loop.run_in_executor(self._executor, append)
                break
        _LOG.warning(
            "journal records again: resuming",
            since=outage.since,
            commands_refused=outage.commands_refused,
        )
        await self._shown(self._show_resumed())
        self._outage = None
        self._probe = None
        self._recording.set()

    async def _shown(self, showing: Awaitable[None]) -> None:
        """Show the hold or its end; a screen or a lamp that fails is logged, never fatal."""
        try:
            await showing
        except Exception as error:  # noqa: BLE001 - the journal's state matters more
            _LOG.error("the journal's hold could not be shown", error=describe_failure(error))

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
        """Stop trying to record the outage, wait for the writes queued, stop the thread."""
        if self._probe is not None:
            self._probe.cancel()
        self._executor.shutdown(wait=True)
