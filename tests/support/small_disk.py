# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A directory on a disk that really fills, and frees again: for a journal's full disk.

* ``tmpfs``: a 16 MB tmpfs mounted on a temp directory, filled to the last byte by a filler
  file (needs root and a mount that is permitted: so in CI, which runs as root on Debian).
  SQLite then gets ``ENOSPC`` from the kernel and reports ``SQLITE_FULL``, as on a real disk.
* ``rlimit`` (the fallback for a service in a child process): the child runs with ``SIGXFSZ``
  ignored (:func:`ignore_sigxfsz`), and its ``RLIMIT_FSIZE`` is lowered with ``prlimit`` to
  the size of the journal's write-ahead log at that moment, so no file of the service can
  grow; a file that must grow fails with ``EFBIG``. Raising the limit again is "space
  returns". Nothing the child writes to a file can grow then, its log included.

A full disk may still take an input or two in the room the journal's write-ahead log already
has (SQLite reuses it after each checkpoint): :func:`pin_the_log` keeps it from restarting, and
once the log has grown past the room it had (:func:`write_to_the_end_of_the_log`), the very
next write must extend the file.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import sqlite3
import subprocess
import tempfile
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import pytest

DISK_MB: Final = 16


@dataclass
class SmallDisk:
    """A directory whose disk the test can fill and free again."""

    path: Path
    mechanism: str
    #: ``rlimit``: the process whose files may not grow.
    pid: int | None = None
    #: ``rlimit``: the file whose size is the limit (the journal's write-ahead log).
    limited_by: Path | None = None
    _filler: Path | None = None

    def fill(self) -> None:
        if self.mechanism == "tmpfs":
            self._filler = self.path / "filler"
            descriptor = os.open(self._filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
            try:
                for size in (1 << 20, 1 << 12, 1):
                    with contextlib.suppress(OSError):
                        while os.write(descriptor, b"\0" * size):
                            pass
            finally:
                os.close(descriptor)
            with contextlib.suppress(OSError):
                (self.path / "probe").write_bytes(b"x" * 4096)
                pytest.fail("the disk is not full")
        else:
            assert self.pid is not None
            assert self.limited_by is not None
            size = self.limited_by.stat().st_size
            resource.prlimit(self.pid, resource.RLIMIT_FSIZE, (size, -1))

    def free(self) -> None:
        if self.mechanism == "tmpfs":
            assert self._filler is not None
            self._filler.unlink()
        else:
            assert self.pid is not None
            resource.prlimit(self.pid, resource.RLIMIT_FSIZE, (-1, -1))


def _mount_tmpfs(target: Path) -> bool:
    if os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={DISK_MB}m,mode=0755", "tmpfs", str(target)],
        capture_output=True,
        check=False,
    )
    return result.returncode == 0


@contextlib.contextmanager
def small_disk(mechanism: str) -> Iterator[SmallDisk]:
    """``tmpfs``, ``rlimit``, or ``auto``: ``tmpfs`` where it can be mounted, else ``rlimit``.

    ``tmpfs`` skips the test where none can be mounted (not root, or mount not permitted).
    """
    directory = Path(tempfile.mkdtemp(prefix="tc-small-disk-"))
    mounted = False
    try:
        if mechanism in {"tmpfs", "auto"}:
            mounted = _mount_tmpfs(directory)
            if not mounted and mechanism == "tmpfs":
                pytest.skip("tmpfs cannot be mounted here (not root, or mount not permitted)")
        chosen = "tmpfs" if mounted else "rlimit"
        yield SmallDisk(path=directory, mechanism=chosen)
    finally:
        if mounted:
            subprocess.run(["umount", "-l", str(directory)], check=False, capture_output=True)
        shutil.rmtree(directory, ignore_errors=True)


def ignore_sigxfsz() -> None:
    """In the service's child process: a file that may not grow fails, it does not kill."""
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)


@contextlib.contextmanager
def pin_the_log(journal: Path) -> Iterator[None]:
    """Hold a reader's snapshot of ``journal``, so its write-ahead log cannot restart.

    Every write then extends the log, and a full disk refuses the very next one. It also shows
    that a reader (a ``journal verify`` while the table plays, say) never holds the table up.
    """
    pin = sqlite3.connect(journal, isolation_level=None)
    try:
        pin.execute("BEGIN")
        pin.execute("SELECT count(*) FROM events").fetchone()
        yield
    finally:
        pin.close()


async def write_to_the_end_of_the_log(
    journal: Path, write: Callable[[int], Awaitable[object]], *, most: int = 200
) -> None:
    """Call ``write(n)`` (n = 0, 1, ...) until the journal's write-ahead log grows.

    With the log pinned (:func:`pin_the_log`), every write from then on extends the file.
    """
    log = journal.with_name(journal.name + "-wal")
    size = log.stat().st_size
    for n in range(most):
        await write(n)
        if log.stat().st_size > size:
            return
    pytest.fail(f"{most} writes did not grow {log}")
