# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Staff at the dealer display, in a real Chromium.

Sign-in by badge and keypad, a wrong PIN locked out, who is signed in and the pace on screen,
a supervisor's void attributed to them.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

from playwright.async_api import Page, expect

from table_controller.staff.desk import StaffDesk
from tests.display.display_harness import running_table
from tests.support.staff import STAFF, cheap_hasher, write_register


class Clock:
    """The staff desk's monotonic clock, moved on by the test (the lockout's minute)."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def sign_in_at_the_screen(page: Page, staff_id: str, pin: str) -> None:
    """A badge reader types the id and Enter; the PIN goes in on the on-screen keypad."""
    await page.locator("#staff-id").click()
    await page.keyboard.type(staff_id)
    await page.keyboard.press("Enter")
    await expect(page.locator("#staff-pin")).to_be_focused()
    for digit in pin:
        await page.locator(f"#keypad button[data-key='{digit}']").click()
    await page.locator("#staff-pin").press("Enter")


async def test_a_dealer_signs_in_at_the_screen_and_a_supervisor_voids_a_round(  # noqa: PLR0915
    tmp_path: Path, display_page: Page, artifacts: Path
) -> None:
    page = display_page
    clock = Clock()
    desk = StaffDesk(
        write_register(tmp_path / "staff.json"),
        max_failures=2,
        lockout_s=60,
        clock=clock,
        hasher=cheap_hasher(),
    )
    async with running_table(tmp_path, seed=11, staff=desk, require_dealer=True) as table:
        await page.goto(table.display.url)
        await expect(page.locator("#prompt")).to_have_text("DEALER SIGN IN")
        await expect(page.locator("#dealer")).to_have_text("none")
        await page.locator("#staff summary").click()
        await expect(page.locator("#staff-id")).to_be_focused()

        for _ in range(2):  # two wrong PINs lock sign-in
            await sign_in_at_the_screen(page, "D-104", "1040")
            await expect(page.locator("#command-status")).to_contain_text(
                "Sign in: refused: the staff id or the PIN is missing or wrong"
            )
        await sign_in_at_the_screen(page, "D-104", STAFF["D-104"][2])
        await expect(page.locator("#command-status")).to_contain_text("too many wrong PINs")
        assert table.display.pin_refusals == 3
        assert table.state["dealer"] is None
        await page.screenshot(path=artifacts / "staff-01-locked.png")

        clock.now += 61
        await sign_in_at_the_screen(page, "D-104", STAFF["D-104"][2])
        await expect(page.locator("#command-status")).to_contain_text("Sign in: done")
        await expect(page.locator("#dealer")).to_have_text("Mai Tran")
        await expect(page.locator("#staff-summary")).to_contain_text("dealer Mai Tran")
        await expect(page.locator("#staff-pin")).to_have_value("")
        assert table.state["dealer"] == "D-104"
        assert table.last("staff_changed")["dealer"] == "D-104"
        signed = [row.payload for row in table.journal.rows()][-1]
        assert signed["args"] == {"staff_id": "D-104", "name": "Mai Tran", "role": "dealer"}
        assert all(STAFF["D-104"][2] not in str(row.payload) for row in table.journal.rows())

        await table.command("new_shoe")
        await asyncio.sleep(1.1)  # a stint long enough for a rate of rounds
        await table.play_rounds(1)
        stint = table.last("stats")["stint"]
        assert stint["rounds"] == 1
        # The rate as English writes a number (grouped), from the stats the page was sent last.
        await expect(page.locator("#pace")).to_have_text(re.compile(r"^\d{1,3}(,\d{3})*/h$"))
        shown = int((await page.locator("#pace").text_content() or "").replace(",", "")[:-2])
        assert abs(shown - round(table.last("stats")["stint"]["rounds_per_hour"])) <= 1
        assert table.last("round_result")["dealer"] == "D-104"
        await page.screenshot(path=artifacts / "staff-02-signed-in.png")

        # A supervisor voids the round with their own id and PIN; a dealer's PIN will not do.
        round_id = table.last("round_result")["round_id"]
        await page.locator("#supervisor summary").click()
        await page.locator("#supervisor-id").fill("D-104")
        await page.locator("#pin").fill(STAFF["D-104"][2])
        await page.locator("#void-round-id").fill(round_id)
        await page.get_by_role("button", name="Void round").click()
        # The refusal in the page's words by its code; the controller's sentence on hover.
        status = page.locator("#command-status")
        await expect(status).to_have_text("Void round: refused: not a supervisor")
        await expect(status).to_have_attribute("title", re.compile("D-104 is not a supervisor"))
        await page.locator("#supervisor-id").fill("S-9")
        await page.locator("#pin").fill(STAFF["S-9"][2])
        await page.locator("#void-round-id").fill(round_id)
        await page.get_by_role("button", name="Void round").click()
        await expect(page.locator("#command-status")).to_contain_text("Void round: done")
        voided = table.last("round_voided")
        assert (voided["round_id"], voided["supervisor"], voided["operator"]) == (
            round_id,
            "S-9",
            "display",
        )
        assert voided["dealer"] == "D-104"
        reply = table.last("command_reply")
        assert reply["supervisor"] == "S-9"
        record = [row.payload for row in table.journal.rows()][-1]
        assert (record["command"], record["supervisor"]) == ("void_round", "S-9")

        # The dealer signs out from the screen: the table asks for a dealer again.
        await page.get_by_role("button", name="Sign out").click()
        await expect(page.locator("#dealer")).to_have_text("none")
        await expect(page.locator("#prompt")).to_have_text("DEALER SIGN IN")
        assert table.last("staff_changed")["previous_dealer"] == "D-104"


async def test_without_a_register_the_staff_panel_is_not_shown(
    tmp_path: Path, display_page: Page
) -> None:
    async with running_table(tmp_path, seed=11) as table:
        await page_goto_and_settle(display_page, table.display.url)
        await expect(display_page.locator("#staff")).to_be_hidden()
        await expect(display_page.locator("#dealer")).to_be_hidden()
        await expect(display_page.locator("#supervisor-id")).to_be_hidden()


async def page_goto_and_settle(page: Page, url: str) -> None:
    await page.goto(url)
    await expect(page.locator("#link")).to_have_text("live")
