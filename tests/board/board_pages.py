# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Boards in Chromium: a page per language on one browser, and what a page shows, read back.

A page is followed by its ``body[data-status]`` (``betting``, ``result``...), which does not
depend on the language it is shown in.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from playwright.async_api import Browser, Page, ViewportSize, expect

from tests.display.display_harness import SETTLED, Table
from tests.support.browser_pages import watched_page

#: What a board page shows of the shoe, read from its DOM (numbers as the page wrote them).
READ_BOARD = """() => {
  const text = (id) => document.getElementById(id).textContent;
  const grid = (id) => document.getElementById(id);
  return {
    lang: document.documentElement.lang,
    status: text("status"),
    counts: Object.fromEntries(["banker", "player", "tie", "banker-pair", "player-pair",
      "natural"].map((name) => [name, text("count-" + name)])),
    beads: [...grid("bead-plate").children].map((node) => node.dataset.winner),
    beadFirstColumn: Number(grid("bead-plate").dataset.firstColumn),
    bigRoad: [...grid("big-road").children].map((node) => node.dataset.winner
      + node.dataset.ties),
    bigRoadFirstColumn: Number(grid("big-road").dataset.firstColumn),
    last: [...document.querySelectorAll("#last-results li")].map((node) => node.dataset.winner),
    headings: [...document.querySelectorAll("h3")].map((node) => node.textContent),
    buttons: document.querySelectorAll("button, input, form, a").length,
    body: document.body.innerText,
  };
}"""


#: The board's usual screen.
FULL_HD: ViewportSize = {"width": 1920, "height": 1080}


@asynccontextmanager
async def board_page(
    browser: Browser, url: str, viewport: ViewportSize, *, errors_allowed: bool = False
) -> AsyncIterator[tuple[Page, list[str]]]:
    """A page showing the board at ``url``; the errors it logs (script, policy, unknown keys).

    Every console error counts, a network error too; the page must have logged none by the
    time it closes unless ``errors_allowed`` (tests/support/browser_pages.py).
    """
    async with watched_page(
        browser, url, viewport=viewport, console=None, errors_allowed=errors_allowed
    ) as shown:
        yield shown


async def read_board(page: Page) -> dict[str, Any]:
    shown: dict[str, Any] = await page.evaluate(READ_BOARD)
    return shown


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
