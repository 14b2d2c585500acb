# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The display's language: the setting, else the address's ``?lang=``; kept across a reconnect."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.display.display_harness import running_table
from tests.display.texts import in_words

pytestmark = pytest.mark.browser


async def test_the_display_speaks_its_setting_or_the_language_its_address_asks_for(
    tmp_path: Path, display_page: Page, artifacts: Path
) -> None:
    page = display_page
    async with running_table(tmp_path, seed=3, heartbeat_s=0.5, language="vi") as table:
        await page.goto(table.display.url)
        await expect(page.locator("html")).to_have_attribute("lang", "vi")
        await expect(page).to_have_title(in_words({"key": "display.title"}, "vi"))
        await expect(page.locator("#prompt")).to_have_text("HỘP BÀI MỚI")
        new_shoe = in_words({"key": "display.command.new_shoe"}, "vi")
        await expect(page.get_by_role("button", name=new_shoe, exact=True)).to_be_visible()

        # A Taiwanese browser's tag asks for Traditional Chinese, whatever the setting.
        await page.goto(f"{table.display.url}?lang=zh-TW")
        await expect(page.locator("html")).to_have_attribute("lang", "zh-Hant")
        await expect(page.locator("#prompt")).to_have_text("換新牌靴")
        await page.get_by_role("button", name="開新靴", exact=True).click()
        done = in_words({"key": "display.status.done", "args": {"command": "開新靴"}}, "zh-Hant")
        await expect(page.locator("#command-status")).to_have_text(done)
        await expect(page.locator("#prompt")).to_have_text("燒牌")
        await expect(page.locator(".hand.banker h2")).to_contain_text("莊")

        # The display restarts; the page reconnects by itself and keeps its language.
        await table.display.stop()
        await expect(page.locator("#unreachable")).to_be_visible(timeout=3000)
        await expect(page.locator("#unreachable strong")).to_have_text("控制器無法連線")
        await table.next_card()
        await table.display.start()
        await expect(page.locator("#unreachable")).to_be_hidden(timeout=5000)
        count = table.state["prompt"]["count"]
        await expect(page.locator("#prompt")).to_have_text(f"燒 {count} 張")
        await expect(page.locator("#link")).to_have_text("已連線")
        await expect(page.locator("html")).to_have_attribute("lang", "zh-Hant")
        await page.screenshot(path=artifacts / "language-zh-Hant-reconnected.png")


async def test_a_refusal_is_shown_in_the_page_language_by_its_code(
    tmp_path: Path, display_page: Page
) -> None:
    page = display_page
    async with running_table(tmp_path, seed=3) as table:
        await table.command("new_shoe")
        await page.goto(f"{table.display.url}?lang=ko")
        await expect(page.locator("html")).to_have_attribute("lang", "ko")
        await page.locator("#supervisor summary").click()
        await page.locator("#pin").fill("000000")  # not the supervisor PIN
        await page.get_by_role("button", name="슈 무효", exact=True).click()
        status = page.locator("#command-status")
        await expect(status).to_have_text("슈 무효: 거부됨: ID 또는 PIN이 없거나 틀림")
        # The controller's own sentence stays for a technician, on hover.
        await expect(status).to_have_attribute(
            "title", "void_shoe: the supervisor PIN is missing or wrong"
        )
        assert table.display.pin_refusals == 1
