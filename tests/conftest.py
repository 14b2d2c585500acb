# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Shared fixtures: a real mosquitto per test (with a test CA) for every suite that needs one."""

from __future__ import annotations

import asyncio
import gc
import inspect
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from pathlib import Path

import pytest
import pytest_asyncio
import structlog
import trustme

from tests.mosquitto import (
    BrokerUnavailableError,
    Mosquitto,
    mosquitto_missing,
    start_broker,
)
from tests.support.installed import require, unavailable

#: The PostgreSQL fixtures (``postgres_url``, ``pg_database_url``) and the test process's shared
#: Chromium (``browser``) for every suite.
pytest_plugins = ["tests.support.postgres", "tests.support.chromium"]

#: Where the quick tier (marker ``quick``, ``scripts/test.sh --quick``) finds its tests: the
#: pure cores, the contract and schemas, command parsing, pace and recall, the PIN lockout, the
#: floor's tiles and sessions, the MQTT backlog, the layering and the docs. A new folder of pure
#: tests is added here; a new test in one of these joins on its own.
QUICK_PATHS = (
    "rules",
    "procedure",
    "protection",
    "drivers",
    "simulators",
    "contract",
    "ingress",
    "history",
    "screens",
    "floor",
    "mqtt/test_backlog.py",
    "docs",
    "test_architecture.py",
    "test_vectors.py",
)
#: Markers of tests that need more than the interpreter, kept out of the quick tier.
NOT_QUICK_MARKERS = ("slow", "broker", "browser", "socat")


def is_quick(item: pytest.Item) -> bool:
    """Under :data:`QUICK_PATHS`, no event loop (async tests do I/O) and no service marker."""
    tests = Path(__file__).parent
    if not any(item.path.is_relative_to(tests / path) for path in QUICK_PATHS):
        return False
    if inspect.iscoroutinefunction(getattr(item, "function", None)):
        return False
    return not any(item.get_closest_marker(name) for name in ("asyncio", *NOT_QUICK_MARKERS))


@pytest.hookimpl(tryfirst=True)  # before ``-m`` deselects by marker
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if is_quick(item):
            item.add_marker(pytest.mark.quick)


@pytest.fixture(autouse=True, scope="session")
def _logs_through_logging() -> None:
    """Structlog lines go to the standard library's logging, which pytest captures per test.

    Without this, structlog's default prints to stdout and mixes with what a CLI test reads.
    """
    structlog.configure(
        processors=[
            structlog.stdlib.add_log_level,
            structlog.processors.KeyValueRenderer(key_order=["event"]),
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=False,
    )


@pytest.fixture(scope="session")
def test_ca() -> trustme.CA:
    return trustme.CA()


@pytest.fixture
def broker(test_ca: trustme.CA) -> Iterator[Mosquitto]:
    """A fresh mosquitto (plain and TLS listeners, users, ACL) for one test.

    Skipped when mosquitto is not installed, except in CI (``CI`` set), where it fails.
    """
    require(mosquitto_missing(), in_ci="the broker tests must run in CI")
    try:
        server = start_broker(test_ca)
    except BrokerUnavailableError as error:
        unavailable(error)
    try:
        yield server
    finally:
        server.close()


def open_fds() -> dict[str, str]:
    """This process's open file descriptors and what each one is."""
    fds = {}
    for entry in Path("/proc/self/fd").iterdir():
        try:
            fds[entry.name] = str(entry.readlink())
        except OSError:
            continue  # the descriptor that listed the directory, already closed
    return fds


def loop_scope(item: pytest.Item) -> str:
    """The scope of the event loop the test runs in: its ``asyncio`` mark's, else its own."""
    marker = item.get_closest_marker("asyncio")
    scope = None if marker is None else marker.kwargs.get("loop_scope")
    return "function" if scope is None else str(scope)


@pytest.fixture
def no_leaks(request: pytest.FixtureRequest) -> None:
    """Fail a test that leaves tasks running or file descriptors open (sockets, ptys, SQLite).

    A folder opts in with an autouse fixture that requests this one. The check runs in the
    event loop the test runs in: its own, or the session's, which the browser tests share
    (tests/support/chromium.py).
    """
    checks = {"function": "_no_leaks_in_own_loop", "session": "_no_leaks_in_session_loop"}
    scope = loop_scope(request.node)
    if scope not in checks:
        pytest.fail(f"no leak check runs in a {scope!r} event loop, only in {sorted(checks)}")
    request.getfixturevalue(checks[scope])


@pytest.fixture
async def _no_leaks_in_own_loop() -> AsyncIterator[None]:
    async with leak_check():
        yield


@pytest_asyncio.fixture(loop_scope="session")
async def _no_leaks_in_session_loop() -> AsyncIterator[None]:
    async with leak_check():
        yield


@asynccontextmanager
async def leak_check() -> AsyncIterator[None]:
    """The check of :func:`no_leaks`, around the test.

    What was open and running before the test is no leak of it: in the session's loop, the
    browser's driver (its pipes and the task that reads them) outlives every test. Closing is
    often a few loop turns behind the test's last line, so the check waits up to two seconds.
    Garbage that still holds a descriptor is collected before it counts as a leak, and only
    then: a full collection late in the suite costs a tenth of a second, too much to pay on
    every test.
    """
    before = open_fds()
    running = asyncio.all_tasks()
    yield
    current = asyncio.current_task()
    left: list[asyncio.Task[object]] = []
    leaked: dict[str, str] = {}
    for _ in range(100):
        left = [
            task
            for task in asyncio.all_tasks()
            if task is not current and task not in running and not task.done()
        ]
        leaked = {fd: path for fd, path in open_fds().items() if before.get(fd) != path}
        if not left and not leaked:
            return
        gc.collect()
        await asyncio.sleep(0.02)
    assert not left, f"tasks left running: {left}"
    assert not leaked, f"file descriptors left open: {leaked}"
