"""Fixtures for the integration tests: hygiene checks a test opts into with ``usefixtures``."""

import asyncio
import gc
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest


def _open_fds() -> dict[str, str]:
    fds = {}
    for entry in Path("/proc/self/fd").iterdir():
        try:
            fds[entry.name] = str(entry.readlink())
        except OSError:
            continue  # the descriptor that listed the directory, already closed
    return fds


@pytest.fixture
def no_leaked_fds() -> Iterator[None]:
    """Fail a test that leaves file descriptors (pseudo-terminals, sockets) open."""
    before = _open_fds()
    yield
    gc.collect()
    leaked = {fd: target for fd, target in _open_fds().items() if before.get(fd) != target}
    assert not leaked, f"file descriptors left open: {leaked}"


@pytest.fixture
async def no_leaked_tasks() -> AsyncIterator[None]:
    """Fail a test that leaves asyncio tasks running."""
    yield
    await asyncio.sleep(0)
    current = asyncio.current_task()
    left = [task for task in asyncio.all_tasks() if task is not current and not task.done()]
    assert not left, f"tasks left running: {left}"


@pytest.fixture
def pty_link(tmp_path: Path) -> Path:
    """Where the virtual shoe keeps a link to its current pseudo-terminal."""
    return tmp_path / "shoe"
