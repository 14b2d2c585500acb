# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A table playing a variant composed in the operator's variant file, on the players' board.

The board of a table playing "House Game" (``tests/support/composed.py``: its own name and
title; the Standard game's main bets and Player pair, and Lucky 6) shows its title as it is,
in any language, and exactly its bets in its order, each with its own limits.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from table_controller.screens.languages import Catalogues
from tests.board.board_pages import FULL_HD, board_page
from tests.display.display_harness import running_table
from tests.support.composed import HOUSE_GAME, HOUSE_LIMITS

pytestmark = pytest.mark.browser


async def test_the_board_shows_a_composed_variants_title_and_exactly_its_bets(
    tmp_path: Path, browser: Browser
) -> None:
    texts = Catalogues.packaged().messages("zh-Hant", "board")
    async with running_table(tmp_path, variant=HOUSE_GAME, limits=HOUSE_LIMITS) as table:
        url = f"{table.display.url}board?lang=zh-Hant"
        async with board_page(browser, url, FULL_HD) as (page, errors):
            await expect(page.locator("body")).to_have_class("live")
            await expect(page.locator("#variant")).to_have_text(HOUSE_GAME.title)
            await expect(page.locator("#currency")).to_have_text(HOUSE_LIMITS.currency)
            rows = page.locator("#limits li[data-bet]")
            await expect(rows).to_have_count(len(HOUSE_GAME.bet_ids))
            shown = await rows.evaluate_all("(rows) => rows.map((row) => row.dataset.bet)")
            assert shown == list(HOUSE_GAME.bet_ids)
            for bet in HOUSE_GAME.bet_ids:
                row = page.locator(f'#limits li[data-bet="{bet}"]')
                await expect(row.locator(".bet-name")).to_contain_text(texts[f"game.bet.{bet}"])
                stake = HOUSE_LIMITS.limits[bet]
                await expect(row.locator(".range")).to_contain_text(f"{int(stake.min):,}")
                await expect(row.locator(".range")).to_contain_text(f"{int(stake.max):,}")
    assert not errors, errors
