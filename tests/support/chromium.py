# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""One headless Debian Chromium per test process, shared by every test that takes ``browser``.

Test support, a pytest plugin (tests/conftest.py). Starting Playwright's driver and launching
Chromium takes a second or more; each test process does it once, on the first test that needs a
browser, and each test opens a browser context of its own in it (its own cookies, storage and
screen: tests/support/browser_pages.py). A context a test leaves open is closed after it, and a
browser a test closed, or that crashed, is launched again for the next one.

Playwright's driver belongs to the event loop it was started in, so every test that takes
``browser`` runs in the process's one loop (pytest-asyncio's session loop), and so does every
async fixture it uses (``@pytest_asyncio.fixture(loop_scope=SHARED_LOOP)``); other tests keep a
loop of their own. The leak check (``no_leaks``, tests/conftest.py) runs in the test's loop and
takes its baseline once the browser is up, so the driver's pipe and task are not a test's leak.
"""

from __future__ import annotations

import os
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Final

import pytest
import pytest_asyncio
from playwright.async_api import Browser, Playwright, async_playwright

CHROMIUM: Final = Path("/usr/bin/chromium")
#: We run as root in CI (no sandbox), with nothing that phones home.
CHROMIUM_ARGS: Final = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
#: pytest-asyncio's loop scope of the browser tests and their async fixtures.
SHARED_LOOP: Final = "session"


def chromium_or_skip(executable: Path) -> Path:
    """Debian's chromium; skipped where it is missing, but a failure in CI."""
    if not executable.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{executable} is missing; CI installs Debian's chromium")
        pytest.skip(f"{executable} is missing (apt-get install chromium)")
    return executable


def uses_the_browser(item: pytest.Item) -> bool:
    """Whether the test takes the shared browser, itself or through a fixture."""
    return "browser" in getattr(item, "fixturenames", ())


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Every test that takes the shared browser runs in the loop its driver was started in."""
    for item in items:
        if uses_the_browser(item):
            # Before the plain ``asyncio`` mark of asyncio_mode "auto": the closest mark counts.
            item.add_marker(pytest.mark.asyncio(loop_scope=SHARED_LOOP), append=False)


class SharedChromium:
    """The test process's Chromium, launched again when a test closed it or it went away."""

    def __init__(self, playwright: Playwright, executable: Path) -> None:
        self._playwright = playwright
        self._executable = executable
        self._browser: Browser | None = None

    async def browser(self) -> Browser:
        """The browser, connected: launched on first use, and again after a close or a crash.

        A launch goes through the driver already running: it opens no file descriptor and
        starts no task in this process, so it is no leak of the test it happens in.
        """
        if self._browser is None or not self._browser.is_connected():
            self._browser = await self._playwright.chromium.launch(
                executable_path=str(self._executable), headless=True, args=CHROMIUM_ARGS
            )
        return self._browser

    async def close(self) -> None:
        if self._browser is not None:
            await self._browser.close()


@pytest_asyncio.fixture(scope="session", loop_scope=SHARED_LOOP)
async def shared_chromium() -> AsyncIterator[SharedChromium]:
    """Playwright's driver and Chromium for this test process, up before any test's leak check."""
    executable = chromium_or_skip(CHROMIUM)
    async with async_playwright() as playwright:
        chromium = SharedChromium(playwright, executable)
        try:
            await chromium.browser()
            yield chromium
        finally:
            await chromium.close()


@pytest_asyncio.fixture(loop_scope=SHARED_LOOP)
async def browser(shared_chromium: SharedChromium) -> AsyncIterator[Browser]:
    """The shared Chromium, with no context open: a test opens its own and closes it."""
    launched = await shared_chromium.browser()
    try:
        yield launched
    finally:
        if launched.is_connected():
            for context in launched.contexts:
                await context.close()
