# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A Chromium page that keeps the errors it logs, for the screens' and the floor's browser tests."""

from __future__ import annotations

from collections.abc import AsyncIterator, Collection
from contextlib import asynccontextmanager

from playwright.async_api import Browser, ConsoleMessage, Page, ViewportSize

#: The console errors a page of ours must never log: a script or style its Content Security
#: Policy refused, a text its catalogue has no entry for (tests/display/conftest.py). A page
#: that loses its server logs network errors besides, which a test may expect.
POLICY_OR_MISSING_TEXT = ("Content Security Policy", "no text for")


@asynccontextmanager
async def watched_page(
    browser: Browser,
    url: str | None = None,
    *,
    viewport: ViewportSize,
    console: Collection[str] | None = POLICY_OR_MISSING_TEXT,
    errors_allowed: bool = False,
) -> AsyncIterator[tuple[Page, list[str]]]:
    """A page in a context of its own, and the errors it logs while open.

    Args:
        browser: The browser to open the page in.
        url: Where the page goes first, if anywhere.
        viewport: The page's screen.
        console: The console errors that count, by a part of their text; ``None``: all.
        errors_allowed: The test reads the errors itself. Otherwise the page must have logged
            none, no script error and no console error that counts, by the time it closes.
    """
    context = await browser.new_context(viewport=viewport)
    page = await context.new_page()
    errors: list[str] = []

    def on_console(message: ConsoleMessage) -> None:
        if message.type == "error" and (
            console is None or any(part in message.text for part in console)
        ):
            errors.append(f"console: {message.text}")

    page.on("pageerror", lambda error: errors.append(f"script error: {error}"))
    page.on("console", on_console)
    try:
        if url is not None:
            await page.goto(url)
        yield page, errors
    finally:
        await context.close()
    if not errors_allowed:
        assert not errors, errors
