# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table's stake limits on the dealer display: shown at once, changed by a supervisor."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from table_controller.contract.payloads.state import BetLimits, TableLimits
from tests.display.display_harness import PIN, assert_fits, running_table

pytestmark = pytest.mark.browser
#: Between a bet's minimum and maximum (an en dash).
DASH = "\u2013"

LIMITS = TableLimits(
    currency="MOP",
    limits={
        "player": BetLimits(min=Fraction(100), max=Fraction(10000)),
        "banker": BetLimits(min=Fraction(100), max=Fraction(10000)),
        "tie": BetLimits(min=Fraction(25), max=Fraction(1000)),
        "player_pair": BetLimits(min=Fraction(10), max=Fraction(500)),
    },
)


async def test_a_supervisor_changes_a_limit_between_rounds_and_the_display_shows_it_at_once(
    tmp_path: Path, page_1280x800: Page, artifacts: Path
) -> None:
    page = page_1280x800
    async with running_table(tmp_path, seed=3, limits=LIMITS) as table:
        await table.command("new_shoe")
        await table.play_rounds(1)
        await page.goto(table.display.url)
        # The header: the main bets' range, in the table's currency.
        header = page.locator("#limits")
        await expect(header).to_have_text(f"MOP 25{DASH}10,000")

        # A supervisor raises the Banker's maximum from the display, between rounds.
        await page.locator("#supervisor summary").click()
        await page.locator("#limits-bet").select_option("banker")
        await expect(page.locator("#limits-min")).to_have_attribute("placeholder", "100")
        await expect(page.locator("#limits-max")).to_have_attribute("placeholder", "10000")
        await page.locator("#limits-max").fill("20000")
        await page.locator("#pin").fill(PIN)
        await page.get_by_role("button", name="Set limits", exact=True).click()
        await expect(page.locator("#command-status")).to_have_text("Set limits: done")
        await expect(header).to_have_text(f"MOP 25{DASH}20,000")
        published = table.last("limits")
        assert published["limits"]["banker"] == {"min": 100, "max": 20000}
        assert published["limits"]["player"] == {"min": 100, "max": 10000}  # kept
        assert published["supervisor"] == "display-supervisor"
        await expect(page.locator("#limits-bet option[value=banker]")).to_contain_text(
            f"MOP 100{DASH}20,000"
        )
        await expect(page.locator("#limits-max")).to_have_value("")
        await assert_fits(page, artifacts / "fit", "1280x800-13-limits")

        # A minimum above the maximum is refused by its code, and nothing changes.
        await page.locator("#limits-bet").select_option("tie")
        await page.locator("#limits-min").fill("2000")
        await page.locator("#pin").fill(PIN)
        await page.get_by_role("button", name="Set limits", exact=True).click()
        await expect(page.locator("#command-status")).to_contain_text(
            "Set limits: refused: a bet the table does not offer, or a minimum not above zero"
        )
        assert table.last("limits")["limits"]["tie"] == {"min": 25, "max": 1000}

        # A change from elsewhere (the backend, over MQTT) shows at once too, to the dealer.
        await page.locator("#supervisor summary").click()
        reply = await table.command("set_limits", limits={"tie": {"min": "5", "max": "500"}})
        assert reply["ok"], reply
        await expect(header).to_have_text(f"MOP 5{DASH}20,000")

        # Not during a round: the form's button goes while the cards are dealt.
        await table.command("open_betting")
        await table.command("close_betting")
        await table.next_card()
        await page.locator("#supervisor summary").click()
        await expect(page.get_by_role("button", name="Set limits", exact=True)).to_be_hidden()
        await expect(header).to_have_text(f"MOP 5{DASH}20,000")


async def test_a_table_without_limits_shows_none_until_a_supervisor_sets_some(
    tmp_path: Path, display_page: Page
) -> None:
    page = display_page
    async with running_table(tmp_path, seed=3) as table:
        await page.goto(f"{table.display.url}?lang=zh-Hans")
        await expect(page.locator("#limits-figure")).to_be_hidden()
        await page.locator("#supervisor summary").click()
        await page.locator("#limits-bet").select_option("banker")
        await page.locator("#limits-min").fill("50")
        await page.locator("#limits-max").fill("5000.5")
        await page.locator("#pin").fill(PIN)
        await page.get_by_role("button", name="设定限红", exact=True).click()
        await expect(page.locator("#limits-figure")).to_be_visible()
        await expect(page.locator("#limits")).to_have_text(f"USD 50{DASH}5,000.5")
        await expect(page.locator("#limits-figure")).to_contain_text("限红")
        assert table.last("limits")["limits"] == {"banker": {"min": 50, "max": Fraction("5000.5")}}
