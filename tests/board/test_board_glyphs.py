# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The players' board in each of its languages draws every character: no missing-glyph box.

A real table (``display_harness.running_table``) and its board (``/board?lang=<tag>``) in
headless Chromium, in two states: a round's result (the banner, the hands, the roads) and
betting open. Each is checked with ``tests/support/glyphs.py``: the page is in that language, no
character falls back to a box, and each script comes from its language's face. Screenshots
are kept in ``artifacts/board/glyphs/``.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser

from table_controller.screens.languages import LANGUAGES
from tests.board.board_pages import FULL_HD, board_page, shown, to_a_result
from tests.display.display_harness import ROOT, running_table
from tests.support.glyphs import assert_drawn_in, on_one_screen

pytestmark = pytest.mark.browser

SCREENSHOTS = ROOT / "artifacts" / "board" / "glyphs"


@pytest.mark.parametrize("lang", [on_one_screen(language.tag, "board") for language in LANGUAGES])
async def test_the_board_draws_every_character_in_every_language(
    tmp_path: Path, browser: Browser, lang: str
) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    async with (
        running_table(tmp_path, seed=7) as table,
        board_page(browser, f"{table.display.url}board?lang={lang}", FULL_HD) as (page, errors),
    ):
        await to_a_result(table, rounds=4)
        await shown(page, "result")
        await page.screenshot(path=SCREENSHOTS / f"{lang}-result.png")
        await assert_drawn_in(page, lang, f"the board in {lang}, a result")

        await table.command("open_betting")
        await shown(page, "betting")
        await page.screenshot(path=SCREENSHOTS / f"{lang}-betting.png")
        await assert_drawn_in(page, lang, f"the board in {lang}, betting open")
    assert not errors, errors
