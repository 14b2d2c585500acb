# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The board fits its sign and reads across the table, with nothing for the staff on it.

One real table and one page, driven through betting, dealing, a result and a hold; in each
state the page is measured at each size (``assert_fits``: nothing scrolls, nothing is cut off)
and kept as a screenshot in ``artifacts/board/fit/`` (git-ignored).

Legibility. A board is read from the players' seats and from the floor, three to five metres
away. A sign's lettering reads comfortably at a height of about 1/200 of the distance (25 mm at
5 m). On a 55-inch 1920x1080 panel (a usual table sign) a CSS pixel is 0.63 mm, so 25 mm is
about 40 px of capital height, a font size of about 56 px: the result banner's text must be
at least :data:`BANNER_MIN_PX` at 1920x1080 and on the portrait sign. A 1280x800 screen is a
smaller panel seen from closer (the dealer's side of the table, 2 to 3 m; 0.27 mm pixels on a
15-inch screen): there the banner keeps at least :data:`SMALL_BANNER_MIN_PX`. A Big Road
cell is one mark read at a glance: at least :data:`CELL_MIN_PX` (15 mm on the 55-inch panel,
about 10 arc minutes at 5 m, twice the acuity limit for a coloured ring).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, Page, ViewportSize, expect

from table_controller.screens.languages import Catalogues
from tests.board.board_pages import board_page, read_board
from tests.display.display_harness import assert_fits, running_table

pytestmark = pytest.mark.browser

SIZES: list[ViewportSize] = [
    {"width": 1920, "height": 1080},
    {"width": 1080, "height": 1920},
    {"width": 1280, "height": 800},
]
BANNER_MIN_PX = 56
SMALL_BANNER_MIN_PX = 48
CELL_MIN_PX = 24
DEALING = frozenset({"deal", "player_draws", "banker_draws"})
#: The banner's font size and a Big Road cell's size, as drawn.
MEASURE_LEGIBILITY = """() => {
  const banner = document.getElementById("banner-text");
  const cell = document.querySelector("#big-road .ring");
  return {
    banner: parseFloat(getComputedStyle(banner).fontSize),
    bannerHeight: banner.getBoundingClientRect().height,
    cell: cell ? cell.parentElement.style.getPropertyValue("--size") : null,
  };
}"""


async def measure(page: Page, errors: list[str], folder: Path, state: str) -> None:
    """The page fits at every size (a screenshot of each), and has logged no error."""
    for size in SIZES:
        await page.set_viewport_size(size)
        await assert_fits(page, folder, f"{size['width']}x{size['height']}-{state}")
    assert not errors, errors


async def test_the_board_fits_every_sign_in_every_state_and_reads_across_the_table(
    tmp_path: Path, browser: Browser, fit_folder: Path
) -> None:
    texts = Catalogues.packaged().messages("en", "board")
    async with running_table(tmp_path, seed=7) as table:
        url = table.display.url + "board?lang=en"
        async with board_page(browser, url, SIZES[0]) as shown:
            page, errors = shown
            await table.command("new_shoe")
            await table.play_rounds(30)
            await table.command("open_betting")
            await expect(page.locator("#status")).to_have_text(texts["game.betting_open"])
            await measure(page, errors, fit_folder, "1-betting")

            await table.command("close_betting")
            await table.next_card()
            await table.next_card()
            await table.next_card()
            await expect(page.locator("#status")).to_have_text(texts["game.betting_closed"])
            await expect(page.locator("#player-cards .card")).to_have_count(2)
            await measure(page, errors, fit_folder, "2-dealing")

            while table.prompt in DEALING:
                await table.next_card()
            await expect(page.locator("#banner")).to_be_visible()
            await measure(page, errors, fit_folder, "3-result")
            for size in SIZES:
                await page.set_viewport_size(size)
                await page.evaluate("() => new Promise((r) => requestAnimationFrame(r))")
                drawn = await page.evaluate(MEASURE_LEGIBILITY)
                least = SMALL_BANNER_MIN_PX if size["width"] == 1280 else BANNER_MIN_PX
                assert drawn["banner"] >= least, (size, drawn)
                assert float(drawn["cell"].removesuffix("px")) >= CELL_MIN_PX, (size, drawn)

            await table.command("open_betting")
            await table.command("close_betting")
            await table.next_card()
            await table.misread()
            assert table.state["phase"] == "held"
            await expect(page.locator("#status")).to_have_text(texts["board.status.please_wait"])
            await measure(page, errors, fit_folder, "4-hold")
            board = await read_board(page)
            assert board["buttons"] == 0
            for staff_word in ("MISREAD", "HOLD", "supervisor", "dealer", "ALARM", "PIN"):
                assert staff_word not in board["body"], staff_word
            assert not errors, errors
