# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""EZ Baccarat's bets, and the Dragon Bonus, on the players' board in every language it speaks.

A table playing EZ Baccarat shows its name and each of its bets (Dragon 7 and Panda 8 among
them) in the board's language; one playing "House EZ" (``tests/support/composed.py``: EZ with
both Dragon Bonus bets) shows its title as it is and the Dragon Bonus in that language too.
Every character is drawn in the language's own face (``tests/support/glyphs.py``).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from table_controller.rules.variants import VARIANTS, Variant
from table_controller.screens.languages import Catalogues
from tests.board.board_pages import FULL_HD, board_page, shown
from tests.display.display_harness import running_table
from tests.support.composed import HOUSE_EZ
from tests.support.glyphs import assert_drawn_in

pytestmark = pytest.mark.browser


@pytest.mark.parametrize(
    ("variant", "lang"),
    [
        (VARIANTS["ez"], "ko"),
        (VARIANTS["ez"], "zh-Hant"),
        *((HOUSE_EZ, lang) for lang in ("en", "ko", "th", "vi", "zh-Hans", "zh-Hant")),
    ],
    ids=lambda value: value.name if isinstance(value, Variant) else value,
)
async def test_the_board_names_ez_and_its_bets_in_the_players_language(
    tmp_path: Path, browser: Browser, lang: str, variant: Variant
) -> None:
    texts = Catalogues.packaged().messages(lang, "board")
    title = texts.get(f"game.variant.{variant.name}", variant.title)
    async with (
        running_table(tmp_path, variant=variant) as table,
        board_page(browser, f"{table.display.url}board?lang={lang}", FULL_HD) as (page, errors),
    ):
        await table.command("new_shoe")
        while table.prompt == "burn":
            await table.next_card()
        await table.command("open_betting")
        await shown(page, "betting")
        await expect(page.locator("#variant")).to_have_text(title)
        rows = page.locator("#limits li[data-bet]")
        await expect(rows).to_have_count(len(variant.bet_ids))
        names = await rows.evaluate_all(
            "(rows) => rows.map((row) => [row.dataset.bet,"
            " row.querySelector('.bet-name').textContent])"
        )
        assert names == [[bet, texts[f"game.bet.{bet}"]] for bet in variant.bet_ids]
        await assert_drawn_in(page, lang, f"{variant.name} on the board in {lang}")
    assert not errors, errors
