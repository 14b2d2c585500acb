# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The integrity screens of the dealer display, in a real Chromium against a real table.

The second source (the dealer confirms each result before it is published, or says the
cards differ and a supervisor settles the round), a dispute opened and resolved from the
supervisor's panel while the dealer's screen shows it, open alarms acknowledged there, and
the dealer's call for a supervisor.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import pytest
from playwright.async_api import Page, expect

from tests.display.display_harness import PIN, Table, assert_fits, running_table
from tests.display.test_display_browser import CALL, expect_buttons, nth_result, result_words
from tests.display.texts import in_words

pytestmark = pytest.mark.browser

#: A card's step as the recall shows it: the card, then the hand it went to.
DEALT = re.compile(r"[A2-9TJQK][SHDC] (Player|Banker)")
#: The supervisor's commands offered between rounds of a shoe with a settled round.
BETWEEN_ROUNDS_SUPERVISOR = [
    "Void round",
    "Void shoe",
    "Correct result",
    "Set limits",
    "Open dispute",
]


async def deal_a_round_waiting_for_its_confirmation(table: Table, page: Page) -> str:
    """Open and close the betting from the page; the virtual shoe deals; the result waits."""
    await page.get_by_role("button", name="Open betting").click()
    await expect(page.locator("#phase")).to_have_text("betting")
    await page.get_by_role("button", name="Close betting").click()
    await expect(page.locator("#prompt")).to_have_text("CONFIRM RESULT")
    waiting = table.state["unconfirmed_round_id"]
    assert waiting is not None
    await expect(page.locator("#prompt-detail")).to_contain_text(
        "Do the cards on the layout match?"
    )
    return str(waiting)


async def published_ids(table: Table, event_type: str) -> list[str]:
    return [payload["round_id"] for payload in table.payloads(event_type)]


async def test_the_dealer_confirms_each_result_and_a_supervisor_settles_one_that_differs(  # noqa: PLR0915
    tmp_path: Path, page_1280x800: Page, artifacts: Path
) -> None:
    page = page_1280x800
    async with running_table(tmp_path, seed=5, virtual=True, confirm_results=True) as table:
        await page.goto(table.display.url)
        await page.get_by_role("button", name="New shoe").click()
        await expect(page.locator("#prompt")).to_have_text("OPEN BETTING")

        # Round 1: the result waits for the dealer; "Cards match" publishes it.
        first = await deal_a_round_waiting_for_its_confirmation(table, page)
        await expect_buttons(
            page, ["Cards match", "Cards differ", CALL, *BETWEEN_ROUNDS_SUPERVISOR]
        )
        await asyncio.sleep(0.2)  # nothing goes out meanwhile
        assert table.messages("round_result") == []
        await assert_fits(page, artifacts / "fit", "1280x800-7-confirm-result")
        await page.get_by_role("button", name="Cards match").click()
        result = await nth_result(table, 1)
        assert result["round_id"] == first
        await expect(page.locator("#prompt")).to_have_text(result_words(result))
        await expect(page.locator("#command-status")).to_contain_text("Cards match: done")
        await expect_buttons(page, ["Open betting", CALL, *BETWEEN_ROUNDS_SUPERVISOR])
        record = [row.payload for row in table.journal.rows()][-1]
        assert (record["command"], record["operator"]) == ("confirm_result", "display")
        assert record["args"] == {"round_id": first, "agrees": True}

        # Round 2: the cards differ; the table holds and nothing of the round goes out.
        second = await deal_a_round_waiting_for_its_confirmation(table, page)
        await page.get_by_role("button", name="Cards differ").click()
        await expect(page.locator("#prompt")).to_have_text("HOLD")
        await expect(page.locator("#prompt-detail")).to_contain_text("RESULT NOT CONFIRMED")
        await expect(page.locator("#alarms li").first).to_contain_text("result not confirmed")
        await expect(page.get_by_role("button", name="Cards match")).to_be_hidden()
        assert await published_ids(table, "round_result") == [first]
        assert table.state["holds"] == ["result_not_confirmed"]

        # The supervisor voids it from the panel: the round in question is filled in.
        await page.locator("#supervisor summary").click()
        await expect(page.locator("#void-round-id")).to_have_attribute("placeholder", second)
        await expect(page.get_by_role("button", name="Acknowledge: result as read")).to_be_visible()
        await expect(
            page.get_by_role("button", name="Acknowledge: software modified")
        ).to_be_hidden()
        await assert_fits(page, artifacts / "fit", "1280x800-8-result-not-confirmed")
        await page.locator("#pin").fill(PIN)
        await page.get_by_role("button", name="Void round").click()
        await expect(page.locator("#command-status")).to_contain_text("Void round: done")
        await expect(page.locator("#prompt")).not_to_have_text("HOLD")
        assert await published_ids(table, "round_result") == [first, second]
        assert await published_ids(table, "round_voided") == [second]
        # The result as read went out first, then its void.
        told = [kind for kind in table.event_types() if kind in {"round_result", "round_voided"}]
        assert told[-2:] == ["round_result", "round_voided"]
        assert table.state["holds"] == []
        assert table.last("round_voided")["operator"] == "display-supervisor"

        # Round 3: differ again; the supervisor lets the result as read stand.
        third = await deal_a_round_waiting_for_its_confirmation(table, page)
        await page.get_by_role("button", name="Cards differ").click()
        await expect(page.locator("#prompt")).to_have_text("HOLD")
        acknowledge = page.get_by_role("button", name="Acknowledge: result as read")
        await expect(acknowledge).to_be_visible()
        await acknowledge.click()  # no PIN: refused
        await expect(page.locator("#command-status")).to_contain_text("PIN")
        assert await published_ids(table, "round_result") == [first, second]
        await page.locator("#pin").fill(PIN)
        await acknowledge.click()
        await expect(page.locator("#command-status")).to_contain_text("done")
        await expect(acknowledge).to_be_hidden()
        assert await published_ids(table, "round_result") == [first, second, third]
        await expect(page.locator("#prompt")).to_have_text(result_words(table.last("round_result")))
        record = [row.payload for row in table.journal.rows()][-1]
        assert (record["command"], record["args"]) == (
            "acknowledge", {"alarm": "result_not_confirmed"}
        )  # fmt: skip


async def test_a_dispute_is_opened_and_resolved_from_the_panel_and_shown_meanwhile(
    tmp_path: Path, page_1280x800: Page, artifacts: Path
) -> None:
    page = page_1280x800
    async with running_table(tmp_path, seed=11) as table:
        await table.command("new_shoe")
        await table.play_rounds(2)
        rounds = await published_ids(table, "round_result")
        await page.goto(table.display.url)
        await expect(page.locator("#dispute-banner")).to_be_hidden()
        await expect(page.get_by_role("button", name="Resolve dispute")).to_be_hidden()

        await page.locator("#supervisor summary").click()
        await page.locator("#dispute-reason").fill("patron at seat 3: the banker drew wrongly")
        await page.locator("#dispute-rounds").fill(", ".join(rounds))
        await page.locator("#pin").fill(PIN)
        await page.get_by_role("button", name="Open dispute").click()
        await expect(page.locator("#command-status")).to_contain_text("Open dispute: done")

        opened = table.last("dispute_opened")
        assert opened["round_ids"] == rounds
        assert opened["supervisor"] == "display-supervisor"
        banner = page.locator("#dispute-banner")
        await expect(banner).to_be_visible()
        await expect(banner).to_contain_text(f"DISPUTE {opened['dispute_id']}")
        await expect(banner).to_contain_text("patron at seat 3: the banker drew wrongly")
        await expect(banner).to_contain_text("rounds " + ", ".join(rounds))
        await expect(banner).to_contain_text("opened by display-supervisor")
        await expect(page.locator("#dispute-open")).to_contain_text(opened["dispute_id"])
        await expect(page.locator("#prompt")).to_have_text("HOLD")
        await expect(page.locator("#prompt-detail")).to_contain_text("DISPUTE OPEN")
        await expect(page.get_by_role("button", name="Open dispute")).to_be_hidden()
        await expect(page.get_by_role("button", name="Open betting")).to_be_hidden()
        await assert_fits(page, artifacts / "fit", "1280x800-9-dispute-open")

        # A page loaded now shows it too, to the dealer with the panel folded.
        await page.reload()
        await expect(banner).to_contain_text(opened["dispute_id"])
        await assert_fits(page, artifacts / "fit", "1280x800-10-dispute-dealer")

        await page.locator("#supervisor summary").click()
        await page.locator("#dispute-outcome").fill("camera checked: the result stands")
        await page.locator("#pin").fill(PIN)
        await page.get_by_role("button", name="Resolve dispute").click()
        await expect(page.locator("#command-status")).to_contain_text("Resolve dispute: done")
        await expect(banner).to_be_hidden()
        await expect(page.locator("#prompt")).not_to_have_text("HOLD")
        resolved = table.last("dispute_resolved")
        assert (resolved["dispute_id"], resolved["outcome"]) == (
            opened["dispute_id"], "camera checked: the result stands"
        )  # fmt: skip
        assert table.state["dispute"] is None
        await expect(page.locator("#dispute-outcome")).to_have_value("")


async def test_an_open_alarm_stands_out_until_a_supervisor_acknowledges_it_from_the_panel(  # noqa: PLR0915
    tmp_path: Path, page_1280x800: Page, artifacts: Path
) -> None:
    page = page_1280x800
    async with running_table(tmp_path, seed=11) as table:
        await table.command("new_shoe")
        await table.play_rounds(1)
        await table.next_card()  # between rounds: an unnecessary card, an alarm with no hold
        assert table.last("alarm")["code"] == "unnecessary_card"
        await table.command("open_betting")
        await table.command("close_betting")
        await table.next_card()
        await table.misread()  # an alarm that holds the table
        misread = table.last("alarm")
        assert misread["code"] == "misread"
        await page.goto(table.display.url)

        # The dealer's screen: both stand out in the alarm list, and the heading counts them.
        open_lines = page.locator("#alarms li.open")
        await expect(page.locator("#alarms-open")).to_have_text("2 open")
        await expect(open_lines).to_have_count(2)
        await expect(open_lines.first).to_contain_text("misread")
        await expect(open_lines.nth(1)).to_contain_text("unnecessary card")
        await assert_fits(page, artifacts / "fit", "1280x800-14-open-alarms")

        # The supervisor's panel: each open alarm, the newest first, with its acknowledgement.
        await page.locator("#supervisor summary").click()
        items = page.locator("#open-alarms .open-alarm")
        await expect(items).to_have_count(2)
        await expect(items.first.locator("b")).to_have_text("misread")
        await expect(items.first).to_contain_text(misread["round_id"])
        await assert_fits(page, artifacts / "fit", "1280x800-15-open-alarms-supervisor")
        acknowledge = items.first.get_by_role("button", name="Acknowledge alarm")
        await page.locator("#alarm-comment").fill("card entered next; dealer told")
        await acknowledge.click()  # no PIN: refused, nothing changes
        await expect(page.locator("#command-status")).to_contain_text("PIN")
        assert table.messages("alarm_acknowledged") == []
        await page.locator("#pin").fill(PIN)
        await acknowledge.click()
        await expect(page.locator("#command-status")).to_contain_text("Acknowledge alarm: done")
        await expect(items).to_have_count(1)
        await expect(items.first).to_contain_text("unnecessary card")
        await expect(open_lines).to_have_count(1)
        await expect(open_lines.first).to_contain_text("unnecessary card")
        await expect(page.locator("#alarms-open")).to_have_text("1 open")
        await expect(page.locator("#alarm-comment")).to_have_value("")
        assert table.last("alarm_acknowledged") == {
            "alarm_id": misread["alarm_id"], "code": "misread",
            "comment": "card entered next; dealer told", "dealer": None,
            "supervisor": "display-supervisor",
        }
        record = [row.payload for row in table.journal.rows()][-1]
        assert (record["command"], record["args"], record["supervisor"]) == (
            "acknowledge_alarm",
            {"alarm_id": misread["alarm_id"], "comment": "card entered next; dealer told"},
            "display-supervisor",
        )
        await expect(page.locator("#prompt")).to_have_text("HOLD")  # the misread's hold stays

        # A page loaded now shows the alarm still open; acknowledged, none stands out.
        await page.reload()
        await expect(page.locator("#alarms-open")).to_have_text("1 open")
        await expect(open_lines).to_have_count(1)
        await page.locator("#supervisor summary").click()
        await page.locator("#pin").fill(PIN)
        await page.get_by_role("button", name="Acknowledge alarm").click()
        await expect(page.locator("#command-status")).to_contain_text("Acknowledge alarm: done")
        await expect(page.locator("#alarms-open")).to_be_hidden()
        await expect(open_lines).to_have_count(0)
        await expect(page.locator("#alarms li")).to_have_count(2)  # the lines stay, not marked
        await expect(page.get_by_role("button", name="Acknowledge alarm")).to_have_count(0)
        assert table.last("alarm_acknowledged")["comment"] is None
        assert (table.state["open_alarms"], table.state["open_alarm_count"]) == ([], 0)


async def test_the_dealer_calls_a_supervisor_and_the_call_stays_open_until_acknowledged(
    tmp_path: Path, page_1280x800: Page, artifacts: Path
) -> None:
    page = page_1280x800
    async with running_table(tmp_path, seed=11) as table:
        await table.command("new_shoe")
        while table.prompt != "deal":
            await table.step()
        await table.next_card()  # a round is being dealt
        round_id = table.state["round_id"]
        await page.goto(table.display.url)
        await expect(page.locator("#phase")).to_have_text("dealing")

        # The dealer's button, no PIN: the alarm is raised, open, and the dealing goes on.
        call = page.get_by_role("button", name=CALL)
        await call.click()
        await expect(page.locator("#command-status")).to_contain_text(f"{CALL}: done")
        called = table.last("alarm")
        assert (called["code"], called["round_id"], called["alarm_id"]) == (
            "supervisor_called", round_id, "T07-A000001")
        open_lines = page.locator("#alarms li.open")
        await expect(open_lines).to_have_count(1)
        await expect(open_lines.first).to_contain_text("supervisor called")
        await expect(page.locator("#alarms-open")).to_have_text("1 open")
        await expect(call).to_be_hidden()  # one call at a time: open until acknowledged
        await expect(page.locator("#phase")).to_have_text("dealing")
        assert table.state["holds"] == []
        record = [row.payload for row in table.journal.rows()][-1]
        assert (record["command"], record["operator"], record["args"]) == (
            "call_supervisor", "display", {})
        await assert_fits(page, artifacts / "fit", "1280x800-16-supervisor-called")
        await table.next_card()
        await expect(page.locator("#cards-seen")).to_have_text(str(table.state["cards_seen"]))

        # The supervisor's panel lists the call; acknowledged, the dealer may call again.
        await page.locator("#supervisor summary").click()
        item = page.locator("#open-alarms .open-alarm")
        await expect(item.locator("b")).to_have_text("supervisor called")
        await expect(item).to_contain_text(round_id)
        await page.locator("#pin").fill(PIN)
        await item.get_by_role("button", name="Acknowledge alarm").click()
        await expect(page.locator("#command-status")).to_contain_text("Acknowledge alarm: done")
        assert table.last("alarm_acknowledged")["code"] == "supervisor_called"
        await expect(open_lines).to_have_count(0)
        await expect(call).to_be_visible()


async def test_the_supervisor_recalls_the_last_rounds_with_every_step(
    tmp_path: Path, page_1280x800: Page, artifacts: Path
) -> None:
    page = page_1280x800
    async with running_table(tmp_path, seed=11) as table:
        await table.command("new_shoe")
        await table.play_rounds(3)
        results = table.payloads("round_result")
        voided = results[1]["round_id"]
        assert (await table.command("void_round", round_id=voided))["ok"]
        await page.goto(table.display.url)
        await page.locator("#supervisor summary").click()
        await page.get_by_role("button", name="Recall").click()
        await expect(page.locator("#command-status")).to_contain_text("Recall: done")

        rounds = page.locator("#recall-rounds > li")
        newest = rounds.first
        last = results[-1]
        await expect(newest).to_have_attribute("data-round-id", last["round_id"])
        # Its steps in order: the betting, each card with where it went, the result.
        steps = await newest.locator(".steps li").all_inner_texts()
        cards = [step for step in steps if DEALT.fullmatch(step)]
        assert len(cards) == len(last["player"]["cards"]) + len(last["banker"]["cards"])
        words = " | ".join(steps)
        assert words.index("Open betting by test") < words.index("betting closed")
        winner = {"banker": "game.winner.banker", "player": "game.winner.player"}
        result = "result · " + in_words({"key": winner.get(last["winner"], "game.winner.tie")})
        assert words.index("betting closed") < words.index(cards[0]) < words.index(result)
        for card in last["player"]["cards"]:
            assert any(f"{card} Player" in step for step in steps), (card, steps)
        await assert_fits(page, artifacts / "fit", "1280x800-11-recall")

        # Older rounds page in; the voided one says so; a round is picked into a dispute.
        assert await rounds.count() >= 1
        await page.get_by_role("button", name="Older").click()
        await expect(newest).to_have_attribute("data-round-id", voided)
        await expect(page.get_by_role("button", name="Newer")).to_be_visible()
        await expect(newest.locator(".recall-round-head")).to_contain_text("voided")
        await expect(newest.locator(".steps")).to_contain_text("voided (supervisor) by test")
        await newest.get_by_role("button", name="Dispute it").click()
        await expect(page.locator("#dispute-rounds")).to_have_value(voided)
        await assert_fits(page, artifacts / "fit", "1280x800-12-recall-older")
        await page.get_by_role("button", name="Newer").click()
        await expect(newest).to_have_attribute("data-round-id", last["round_id"])
