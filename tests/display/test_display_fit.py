# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The display fits the dealer's screen: nothing scrolls and nothing is cut off.

For each screen size a real table is driven with real inputs through four states (betting
open, dealing, a result with three cards on each side, a hold with the supervisor's panel
open) and the page is measured in headless Chromium. A screenshot of each case is kept in
``artifacts/display/fit/`` (git-ignored), named after the size and the state.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from table_controller.procedure.decisions import Publish
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.payloads import RoundSettled
from table_controller.rules.variants import VARIANTS
from tests.display.display_harness import Table, assert_fits, running_table
from tests.support.dealing import dealer_inputs, seeded_shoe

pytestmark = pytest.mark.browser

#: The screens tables use: the three the display must fit, and a common desktop size.
SIZES = [(1280, 800), (1366, 768), (1920, 1080), (1600, 900)]
DEALING = frozenset({"deal", "player_draws", "banker_draws"})


def three_cards_each(rounds: int = 8, seeds: range = range(1, 200)) -> tuple[int, int]:
    """A seed whose shoe has a round with three cards on each side early, and that round."""
    for seed in seeds:
        procedure = TableProcedure(VARIANTS["commission"], table_id="T07")
        results: Iterator[RoundSettled] = (
            decision.payload
            for event in dealer_inputs(procedure, iter(seeded_shoe(seed)))
            for decision in procedure.handle(event)
            if isinstance(decision, Publish) and isinstance(decision.payload, RoundSettled)
        )
        for settled in results:
            if settled.round_no > rounds:
                break
            if len(settled.result.player.cards) == len(settled.result.banker.cards) == 3:
                return seed, settled.round_no
    raise AssertionError(f"no seed in {seeds} deals three cards to each side in {rounds} rounds")


async def deal_while_asked(table: Table, cards: int = 6) -> None:
    """Deal up to ``cards`` cards while the table asks for them."""
    for _ in range(cards):
        if table.prompt not in DEALING:
            return
        await table.next_card()


@pytest.mark.parametrize(("width", "height"), SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_the_display_fits_the_screen_in_every_state(
    tmp_path: Path, display_page: Page, artifacts: Path, width: int, height: int
) -> None:
    page = display_page
    folder = artifacts / "fit"
    size = f"{width}x{height}"
    seed, three_card_round = three_cards_each()
    await page.set_viewport_size({"width": width, "height": height})
    async with running_table(tmp_path, seed=seed) as table:
        await page.goto(table.display.url)
        await table.command("new_shoe")
        while table.prompt == "burn":
            await table.next_card()
        for _ in range(three_card_round - 1):
            await table.command("open_betting")
            await table.command("close_betting")
            await deal_while_asked(table)

        await page.get_by_role("button", name="Open betting").click()
        await expect(page.locator("#prompt")).to_have_text("BETTING OPEN")
        await assert_fits(page, folder, f"{size}-1-betting")

        await page.get_by_role("button", name="Close betting").click()
        await expect(page.locator("#phase")).to_have_text("dealing")
        for _ in range(3):
            await table.next_card()
        await expect(page.locator("#player-cards .card")).to_have_count(2)
        await assert_fits(page, folder, f"{size}-2-dealing")

        await deal_while_asked(table)
        await expect(page.locator("#phase")).to_have_text("between rounds")
        await expect(page.locator("#player-cards .card")).to_have_count(3)
        await expect(page.locator("#banker-cards .card")).to_have_count(3)
        await expect(page.locator("#prompt-detail")).to_contain_text("Banker")
        await assert_fits(page, folder, f"{size}-3-result-three-cards-each")

        await table.command("open_betting")
        await table.command("close_betting")
        await table.next_card()
        await table.misread()
        await expect(page.locator("#prompt")).to_have_text("HOLD")
        await expect(page.locator("#alarms li")).not_to_have_count(0)
        await page.locator("#supervisor summary").click()
        await expect(page.get_by_role("button", name="Enter card")).to_be_visible()
        await assert_fits(page, folder, f"{size}-4-hold-supervisor-open")
