"""Fixtures of the demo's tests: hygiene checks (descriptors, tasks) and free ports."""

from __future__ import annotations

import asyncio
import gc
import os
import socket
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


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
    """Fail a test that leaves file descriptors (pseudo-terminals, sockets, pipes) open."""
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
def no_settings_in_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Settings from ``TABLE_CONTROLLER_*`` variables would change what the flags give."""
    for name in list(os.environ):
        if name.startswith("TABLE_CONTROLLER_"):
            monkeypatch.delenv(name)
