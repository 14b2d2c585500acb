# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The display fits the dealer's screen: nothing scrolls and nothing is cut off.

For each language a real table is driven with real inputs through four states (betting
open, dealing, a result with three cards on each side, a hold with the supervisor's panel
open), and in each state the page is measured in headless Chromium at every screen size. A
screenshot of each case is kept in ``artifacts/display/fit/`` (git-ignored), named after the
language, the size and the state.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from table_controller.contract.payloads.round import RoundSettled
from table_controller.procedure.decisions import Publish
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.variants import VARIANTS
from table_controller.screens.languages import LANGUAGES
from tests.display.display_harness import Table, assert_fits, running_table
from tests.display.test_display_limits import LIMITS
from tests.display.texts import in_words
from tests.support.dealing import dealer_inputs, seeded_shoe
from tests.support.glyphs import on_one_screen

pytestmark = pytest.mark.browser

#: The screens tables use: the three the display must fit, and a common desktop size.
SIZES = [(1280, 800), (1366, 768), (1920, 1080), (1600, 900)]
#: The sizes measured per language (the smallest first): every one in English, the three the
#: display must fit in the others.
SIZES_OF = {language.tag: SIZES if language.tag == "en" else SIZES[:3] for language in LANGUAGES}
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


def words(key: str, tag: str) -> str:
    """A display text in the language ``tag``, as the page writes it."""
    return in_words({"key": key}, tag)


async def fits_every_size(page: Page, folder: Path, tag: str, state: str) -> None:
    """The page fits at every size of :data:`SIZES` (for this language), as it shows now."""
    for width, height in SIZES_OF[tag]:
        await page.set_viewport_size({"width": width, "height": height})
        await assert_fits(page, folder, f"{tag}-{width}x{height}-{state}")


@pytest.mark.parametrize("tag", [on_one_screen(language.tag, "display") for language in LANGUAGES])
async def test_the_display_fits_the_screen_in_every_state_and_language(
    tmp_path: Path, display_page: Page, artifacts: Path, tag: str
) -> None:
    """One table per language; in each state the page is measured at each size."""
    page = display_page
    folder = artifacts / "fit"
    seed, three_card_round = three_cards_each()
    width, height = SIZES_OF[tag][0]
    await page.set_viewport_size({"width": width, "height": height})
    async with running_table(tmp_path, seed=seed, limits=LIMITS) as table:
        await page.goto(f"{table.display.url}?lang={tag}")
        await expect(page.locator("html")).to_have_attribute("lang", tag)
        await table.command("new_shoe")
        while table.prompt == "burn":
            await table.next_card()
        for _ in range(three_card_round - 1):
            await table.command("open_betting")
            await table.command("close_betting")
            await deal_while_asked(table)

        open_betting = words("display.command.open_betting", tag)
        await page.get_by_role("button", name=open_betting, exact=True).click()
        await expect(page.locator("#prompt")).to_have_text(
            words("display.prompt.betting_open", tag)
        )
        await fits_every_size(page, folder, tag, "1-betting")

        close_betting = words("display.command.close_betting", tag)
        await page.get_by_role("button", name=close_betting, exact=True).click()
        await expect(page.locator("#phase")).to_have_text(words("display.phase.dealing", tag))
        for _ in range(3):
            await table.next_card()
        await expect(page.locator("#player-cards .card")).to_have_count(2)
        await fits_every_size(page, folder, tag, "2-dealing")

        await deal_while_asked(table)
        between = words("display.phase.between_rounds", tag)
        await expect(page.locator("#phase")).to_have_text(between)
        await expect(page.locator("#player-cards .card")).to_have_count(3)
        await expect(page.locator("#banker-cards .card")).to_have_count(3)
        await expect(page.locator("#prompt-detail")).to_contain_text(words("game.banker", tag))
        await fits_every_size(page, folder, tag, "3-result-three-cards-each")

        await table.command("open_betting")
        await table.command("close_betting")
        await table.next_card()
        await table.misread()
        await expect(page.locator("#prompt")).to_have_text(words("display.prompt.hold", tag))
        await expect(page.locator("#alarms li")).not_to_have_count(0)
        await page.locator("#supervisor summary").click()
        enter_card = words("display.command.manual_card", tag)
        await expect(page.get_by_role("button", name=enter_card, exact=True)).to_be_visible()
        await fits_every_size(page, folder, tag, "4-hold-supervisor-open")
