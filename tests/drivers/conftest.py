"""Fixtures for the driver tests: hygiene checks, a pty shoe, a TCP shoe."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from tests.drivers.driver_test_support import PtyShoe, TcpShoe


def _open_fds() -> set[str]:
    return {path.name for path in Path("/proc/self/fd").iterdir()}


@pytest.fixture(autouse=True)
async def no_leaks() -> AsyncIterator[None]:
    """Fail a test that leaves tasks running or file descriptors open (ports, sockets, ptys).

    Async so that it runs inside the test's event loop: the loop's own descriptors exist
    both before and after, and closing transports get a few loop turns to finish.
    """
    gc.collect()
    before = _open_fds()
    yield
    current = asyncio.current_task()
    for _ in range(50):
        leftover = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
        gc.collect()
        leaked = _open_fds() - before
        if not leftover and not leaked:
            return
        await asyncio.sleep(0.01)
    assert not leftover, f"tasks left running: {leftover}"
    assert not leaked, f"leaked file descriptors: {[_describe(fd) for fd in sorted(leaked)]}"


def _describe(fd: str) -> str:
    try:
        return f"{fd} -> {Path('/proc/self/fd', fd).readlink()}"
    except OSError:
        return fd


@pytest.fixture
async def pty_shoe(tmp_path: Path) -> AsyncIterator[PtyShoe]:
    shoe = PtyShoe(tmp_path)
    shoe.plug()
    yield shoe
    shoe.unplug()


@pytest.fixture
async def tcp_shoe() -> AsyncIterator[TcpShoe]:
    shoe = TcpShoe()
    await shoe.start()
    yield shoe
    await shoe.stop()
