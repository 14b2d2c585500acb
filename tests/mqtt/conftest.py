"""Fixtures for the MQTT tests: a real mosquitto per test, a test CA, hygiene checks."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import AsyncIterator
from pathlib import Path

import pytest


def _open_fds() -> set[str]:
    return {path.name for path in Path("/proc/self/fd").iterdir()}


@pytest.fixture(autouse=True)
async def no_leaks() -> AsyncIterator[None]:
    """Fail a test that leaves tasks running or file descriptors open (sockets, SQLite)."""
    gc.collect()
    before = _open_fds()
    yield
    current = asyncio.current_task()
    leftover: list[asyncio.Task[object]] = []
    leaked: set[str] = set()
    for _ in range(100):
        leftover = [t for t in asyncio.all_tasks() if t is not current and not t.done()]
        gc.collect()
        leaked = _open_fds() - before
        if not leftover and not leaked:
            return
        await asyncio.sleep(0.02)
    assert not leftover, f"tasks left running: {leftover}"
    described = {fd: _target(fd) for fd in sorted(leaked)}
    assert not leaked, f"leaked file descriptors: {described}"


def _target(fd: str) -> str:
    try:
        return str(Path(f"/proc/self/fd/{fd}").readlink())
    except OSError:
        return "?"
