# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The one writer's lock on a journal: a ``flock`` on a file beside it, holding the writer's PID."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from typing import Self

from table_controller.runtime.journal.format import JournalError, JournalInUseError


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
