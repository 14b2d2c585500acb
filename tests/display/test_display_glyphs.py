# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The dealer display in each of its languages draws every character: no missing-glyph box.

A real table and its display (``display_harness.running_table``) in headless Chromium, the page
asked for each language with ``?lang=``, in two states: a round's result (hands, banner,
scoreboards) and betting open. Each state is checked with ``tests/support/glyphs.py``: the
page is in that language, no character falls back to a box, and each script comes from its
language's face. Screenshots are kept in ``artifacts/display/glyphs/``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from table_controller.screens.languages import LANGUAGES
from tests.display.display_harness import SETTLED, running_table
from tests.support.glyphs import assert_drawn_in, on_one_screen

pytestmark = pytest.mark.browser

#: The prompt's tone for a result: the winner's side.
RESULT_TONE = re.compile("^(banker|player|tie)$")


@pytest.mark.parametrize("lang", [on_one_screen(language.tag, "display") for language in LANGUAGES])
async def test_the_display_draws_every_character_in_every_language(
    tmp_path: Path, display_page: Page, artifacts: Path, lang: str
) -> None:
    page = display_page
    folder = artifacts / "glyphs"
    folder.mkdir(exist_ok=True)
    async with running_table(tmp_path, seed=7) as table:
        await page.goto(f"{table.display.url}?lang={lang}")
        await table.command("new_shoe")
        while table.prompt == "burn":
            await table.next_card()
        await table.play_rounds(3)
        prompt = page.locator("#prompt-box")
        await expect(prompt).to_have_attribute("data-tone", RESULT_TONE)
        await expect(page.locator("#banker-cards .card")).not_to_have_count(0)
        await page.evaluate(SETTLED)
        await page.screenshot(path=folder / f"{lang}-result.png")
        await assert_drawn_in(page, lang, f"the display in {lang}, a result")

        await table.command("open_betting")
        await expect(prompt).to_have_attribute("data-tone", "bet")
        await expect(page.locator("#banker-cards .card")).to_have_count(0)
        await page.evaluate(SETTLED)
        await page.screenshot(path=folder / f"{lang}-betting.png")
        await assert_drawn_in(page, lang, f"the display in {lang}, betting open")
