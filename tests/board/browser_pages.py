# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A real table and its players' board in headless Chromium, for the glyph and README tests.

The board is at ``/board`` of the display's server (``display_harness.running_table``). The
page is followed by its ``body[data-status]`` (``betting``, ``result``...), which does not
depend on the language it is shown in.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from playwright.async_api import Browser, Page, ViewportSize, async_playwright, expect

from tests.display.conftest import CHROMIUM, CHROMIUM_ARGS
from tests.display.display_harness import SETTLED, Table, chromium_or_skip


@asynccontextmanager
async def chromium() -> AsyncIterator[Browser]:
    """Debian's headless Chromium, as the display tests launch it."""
    executable = chromium_or_skip(CHROMIUM)
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=str(executable), headless=True, args=CHROMIUM_ARGS
        )
        try:
            yield browser
        finally:
            await browser.close()


@asynccontextmanager
async def board_page(
    browser: Browser, table: Table, lang: str, viewport: ViewportSize
) -> AsyncIterator[Page]:
    """The table's board in ``lang``; fails on any script error the page met."""
    context = await browser.new_context(viewport=viewport)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(f"script error: {error}"))
    try:
        await page.goto(f"{table.display.url}board?lang={lang}")
        yield page
    finally:
        await context.close()
    assert not errors, errors


async def shown(page: Page, status: str) -> None:
    """Wait until the board shows ``status`` and has drawn it."""
    await expect(page.locator("body")).to_have_attribute("data-status", status)
    await page.evaluate(SETTLED)


async def to_a_result(table: Table, rounds: int) -> None:
    """A new shoe, its burn, then ``rounds`` rounds dealt: the last one's result is up."""
    await table.command("new_shoe")
    while table.prompt == "burn":
        await table.next_card()
    await table.play_rounds(rounds)
