# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A table playing a variant composed in the operator's variant file, on the dealer's display.

The display of a table playing "House Game" or "House EZ" (EZ Baccarat with the Dragon Bonus,
``tests/support/composed.py``) names it by its title, and its limits are those of exactly its
bets, in its order, each bet by its name.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from table_controller.rules.variants import Variant
from table_controller.screens.languages import Catalogues
from tests.display.display_harness import running_table
from tests.support.composed import HOUSE_EZ, HOUSE_GAME, limits_for

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("variant", [HOUSE_GAME, HOUSE_EZ], ids=lambda variant: variant.name)
async def test_the_dealers_display_shows_a_composed_variants_title_and_its_bets_limits(
    tmp_path: Path, display_page: Page, variant: Variant
) -> None:
    page = display_page
    stakes = limits_for(variant)
    texts = Catalogues.packaged().messages("en", "display")
    between = texts["display.limits.range"]
    currency = stakes.currency
    async with running_table(tmp_path, variant=variant, limits=stakes) as table:
        await page.goto(table.display.url)
        await expect(page.locator("#variant")).to_have_text(variant.title)
        main = [stakes.limits[bet] for bet in ("player", "banker", "tie")]
        await expect(page.locator("#limits")).to_have_text(
            between.format(
                currency=currency,
                min=f"{int(min(stake.min for stake in main)):,}",
                max=f"{int(max(stake.max for stake in main)):,}",
            )
        )
        options = page.locator("#limits-bet option")
        await expect(options).to_have_count(len(variant.bet_ids))
        shown = await options.evaluate_all("(options) => options.map((option) => option.value)")
        assert shown == list(variant.bet_ids)
        for bet in variant.bet_ids:
            stake = stakes.limits[bet]
            limits = between.format(
                currency=currency, min=f"{int(stake.min):,}", max=f"{int(stake.max):,}"
            )
            await expect(page.locator(f'#limits-bet option[value="{bet}"]')).to_have_text(
                f"{texts[f'game.bet.{bet}']} {limits}"
            )
