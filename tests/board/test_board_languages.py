# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A whole shoe followed on the board in each language, against the table's own scoreboards.

One table, one browser, six pages (one per language) following the same shoe: each page shows
the results and counts of the table's own ``roads`` message, in the catalogue's words.
"""

from __future__ import annotations

from contextlib import AsyncExitStack
from pathlib import Path

import pytest
from playwright.async_api import Browser, ViewportSize, expect

from table_controller.screens.languages import LANGUAGES, Catalogues
from tests.board.board_pages import board_page, read_board
from tests.display.display_harness import running_table

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VIEWPORT: ViewportSize = {"width": 1920, "height": 1080}


async def test_a_whole_shoe_on_the_board_in_every_language(
    tmp_path: Path, browser: Browser
) -> None:
    catalogues = Catalogues.packaged()
    async with running_table(tmp_path, seed=7) as table, AsyncExitStack() as stack:
        pages = [
            await stack.enter_async_context(
                board_page(browser, f"{table.display.url}board?lang={language.tag}", VIEWPORT)
            )
            for language in LANGUAGES
        ]
        for page, _ in pages:
            await expect(page.locator("body")).to_have_class("live")
        await table.command("new_shoe")
        await table.play_rounds(200)  # to the end of the shoe
        roads = table.last("roads")
        stats = roads["stats"]
        beads = [bead["winner"] for bead in roads["bead_plate"]]
        for language, (page, errors) in zip(LANGUAGES, pages, strict=True):
            texts = catalogues.messages(language.tag, "board")
            count = page.locator("#count-banker")
            await expect(count).to_have_text(
                await page.evaluate("(n) => I18n.number(n)", stats["banker"])
            )
            shown = await read_board(page)
            assert shown["lang"] == language.tag
            numbers = {
                name.replace("_", "-"): await page.evaluate("(n) => I18n.number(n)", stats[name])
                for name in ("banker", "player", "tie", "banker_pair", "player_pair", "natural")
            }
            assert shown["counts"] == numbers, language.tag
            first = shown["beadFirstColumn"] * 6
            assert shown["beads"] == beads[first:], language.tag
            newest_first = beads[::-1]
            assert shown["last"] == newest_first[: len(shown["last"])], language.tag
            assert len(shown["last"]) >= 8, language.tag
            assert texts["game.road.big_road"] in shown["headings"], language.tag
            assert texts["game.road.cockroach_pig"] in shown["headings"], language.tag
            assert shown["status"] == texts["board.status.between_shoes"], language.tag
            assert shown["buttons"] == 0
            assert not errors, (language.tag, errors)
