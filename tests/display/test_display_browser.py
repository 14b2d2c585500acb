# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The dealer display end to end: a real table service, its display, headless Debian Chromium.

Each test keeps screenshots of the phases it reaches in ``artifacts/display/``. With
``UPDATE_DOCS_SCREENSHOT=1`` the late-shoe screenshot also replaces the README's image.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Page, expect

from table_controller.contract.envelope import fields_of
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.rules.cards import Card
from table_controller.rules.roads import layout_grid
from tests.display.display_harness import (
    PIN,
    ROOT,
    Table,
    assert_fits,
    running_table,
    seed_for_the_scoreboards,
)
from tests.display.texts import in_words
from tests.support.observers import Heard
from tests.support.waiting import until

pytestmark = pytest.mark.browser

#: Records, in the page, when the "cards seen" figure first shows each value (epoch ms).
PROBE = """() => {
  window.shownAt = {};
  const node = document.getElementById("cards-seen");
  const note = () => {
    const value = node.textContent;
    if (value in window.shownAt) return;
    window.shownAt[value] = performance.timeOrigin + performance.now();
  };
  new MutationObserver(note).observe(node, {childList: true, characterData: true, subtree: true});
}"""
DOCS_IMAGE = ROOT / "docs" / "images" / "dealer-display.png"


def result_words(payload: dict[str, Any]) -> str:
    """What the display must say for a published ``round_result`` (its totals go below)."""
    winner = {"banker": "game.winner.banker", "player": "game.winner.player"}
    return in_words({"key": winner.get(payload["winner"], "game.winner.tie")})


def result_totals(payload: dict[str, Any]) -> str:
    """The line below a result: each total beside its side's name, the winner's first."""
    sides = ["banker", "player"] if payload["winner"] == "banker" else ["player", "banker"]
    return " · ".join(f"{side.title()} {payload[side]['total']}" for side in sides)


def action_words(table: Table) -> str:
    """The big text the display must show for the prompt on the table now."""
    match table.prompt:
        case "result":
            return result_words(table.last("round_result"))
        case "burn":
            count = table.state["prompt"].get("count")
            return "BURN" if count is None else f"BURN {count}"
        case "open_betting":
            return "BETTING OPEN" if table.state["phase"] == "betting" else "OPEN BETTING"
        case None:
            return "NEW SHOE"
        case action:
            return str(action).replace("_", " ").upper()


async def shot(page: Page, folder: Path, name: str) -> None:
    await page.screenshot(path=folder / f"{name}.png", full_page=True)


async def deal_one(table: Table, page: Page) -> str:
    """One card out of the shoe; the page must show it, the new count and the new prompt."""
    code = await table.next_card()
    await expect(page.locator("#cards-seen")).to_have_text(str(table.state["cards_seen"]))
    await expect(page.locator("#prompt")).to_have_text(action_words(table))
    cards = table.payloads("card")
    if cards and cards[-1]["card"] == code and table.state["round_no"] is not None:
        hand = cards[-1]["hand"]
        await expect(page.locator(f"#{hand}-cards [data-code='{code}']").first).to_be_visible()
    return code


async def play_a_round_from_the_page(table: Table, page: Page, shots: Path | None) -> None:
    """Open and close the betting with the page's buttons, deal, check the result and roads."""
    await page.get_by_role("button", name="Open betting").click()
    await expect(page.locator("#phase")).to_have_text("betting")
    await expect(page.locator("#prompt")).to_have_text("BETTING OPEN")
    assert table.state["phase"] == "betting"
    if shots is not None:
        await shot(page, shots, "02-betting")
    await page.get_by_role("button", name="Close betting").click()
    await expect(page.locator("#phase")).to_have_text("dealing")
    await expect(page.locator("#prompt")).to_have_text("DEAL")
    assert table.state["phase"] == "dealing"
    dealt = 0
    while table.prompt in {"deal", "player_draws", "banker_draws"}:
        await deal_one(table, page)
        dealt += 1
        if shots is not None and dealt == 3:
            await shot(page, shots, "03-dealing")
    rounds = len(table.messages("round_result"))
    result = table.last("round_result")
    await expect(page.locator("#prompt")).to_have_text(result_words(result))
    await expect(page.locator("#prompt-detail")).to_contain_text(result_totals(result))
    await expect(page.locator("#round-no")).to_have_text(str(rounds))
    await expect(page.locator("#bead-plate .bead")).to_have_count(rounds)
    big_road = table.last("roads")["big_road"]
    cells = sum(len(column) for column in big_road)
    await expect(page.locator("#big-road .ring")).to_have_count(cells)
    if shots is not None:
        await shot(page, shots, "04-result")


async def test_the_page_follows_a_shoe_card_by_card(
    tmp_path: Path, display_page: Page, artifacts: Path
) -> None:
    page = display_page
    published: dict[str, float] = {}

    def note(message: OutgoingMessage) -> None:
        if message.topic == "state":
            state = fields_of(message.payload)
            published.setdefault(str(state["cards_seen"]), time.time() * 1000)

    async with running_table(tmp_path, observers=[Heard(note)]) as table:
        await page.goto(table.display.url)
        await expect(page.locator("#prompt")).to_have_text("NEW SHOE")
        await expect(page.locator("#unreachable")).to_be_hidden()
        await page.evaluate(PROBE)

        # The dealer's button starts the shoe; the first card orders the burn.
        await page.get_by_role("button", name="New shoe").click()
        await expect(page.locator("#prompt")).to_have_text("BURN")
        assert table.state["phase"] == "burn_card"
        first = await deal_one(table, page)
        await expect(page.locator("#prompt")).to_have_text(f"BURN {Card.parse(first).burn_count}")
        await shot(page, artifacts, "01-burn")
        while table.prompt == "burn":
            await deal_one(table, page)
        await expect(page.locator("#prompt")).to_have_text("OPEN BETTING")

        for round_index in range(5):
            await play_a_round_from_the_page(table, page, artifacts if round_index == 0 else None)

        shown = await page.evaluate("() => window.shownAt")
    latencies = [shown[key] - at for key, at in published.items() if key in shown and key != "0"]
    assert len(latencies) >= 25, (len(published), len(shown))
    median = statistics.median(latencies)
    figures = {
        "updates": len(latencies),
        "median_ms": round(median, 2),
        "p90_ms": round(statistics.quantiles(latencies, n=10)[-1], 2),
        "max_ms": round(max(latencies), 2),
    }
    (artifacts / "latency.json").write_text(json.dumps(figures, indent=2) + "\n")
    print(f"\nstate published -> DOM updated: {figures}")
    assert median < 100, figures


async def test_a_hold_and_the_supervisor_pin(
    tmp_path: Path, display_page: Page, artifacts: Path
) -> None:
    page = display_page
    async with running_table(tmp_path, seed=11) as table:
        await table.command("new_shoe")
        while table.prompt != "deal":
            await table.step()
        await table.next_card()
        await table.next_card()
        await page.goto(table.display.url)
        await expect(page.locator("#prompt")).to_have_text("DEAL")
        await expect(page.locator("#player-cards .card")).to_have_count(1)

        await table.misread()  # the third card came out unread
        await expect(page.locator("#prompt")).to_have_text("HOLD")
        await expect(page.locator("#prompt-detail")).to_contain_text("MISREAD")
        await expect(page.locator("#alarms li").first).to_contain_text("misread")
        await shot(page, artifacts, "05-hold")

        unread = next(table.shoe)  # the card the shoe could not read, as the supervisor sees it
        head = table.journal.head[0]
        await page.locator("#supervisor summary").click()
        await page.locator("#manual-card").fill(unread)
        enter = page.get_by_role("button", name="Enter card")
        await enter.click()  # no PIN
        await expect(page.locator("#command-status")).to_contain_text("PIN")
        await until(lambda: table.display.pin_refusals == 1)
        await page.locator("#pin").fill("1111")
        await enter.click()  # a wrong PIN
        # The status already says so since the first refusal: wait for the second one.
        await until(lambda: table.display.pin_refusals == 2)
        await expect(page.locator("#command-status")).to_contain_text("PIN is missing or wrong")
        assert table.journal.head[0] == head
        await expect(page.locator("#prompt")).to_have_text("HOLD")

        await page.locator("#pin").fill(PIN)
        await enter.click()
        await expect(page.locator("#command-status")).to_contain_text("done")
        await expect(page.locator("#pin")).to_have_value("")  # the PIN serves one command
        await expect(page.locator("#prompt")).not_to_have_text("HOLD")
        await expect(page.locator(f".cards [data-code='{unread}']").first).to_be_visible()
        assert table.display.pin_refusals == 2
        last = [row.payload for row in table.journal.rows()][-1]
        assert last["command"] == "manual_card"
        assert last["operator"] == "display-supervisor"

        # Void the round in play from the supervisor panel: the round id is filled in.
        round_id = table.state["round_id"]
        await page.locator("#pin").fill(PIN)
        await page.get_by_role("button", name="Void round").click()
        await expect(page.locator("#prompt")).to_have_text("OPEN BETTING")
        await expect(page.locator("#alarms li").first).to_contain_text("voided (supervisor)")
        voided = table.last("round_voided")
        assert voided["round_id"] == round_id
        assert voided["operator"] == "display-supervisor"


async def test_the_page_says_when_the_controller_is_unreachable_and_recovers(
    tmp_path: Path, display_page: Page, artifacts: Path
) -> None:
    page = display_page
    async with running_table(tmp_path, seed=3, heartbeat_s=0.5) as table:
        await page.goto(table.display.url)
        await expect(page.locator("#prompt")).to_have_text("NEW SHOE")
        await expect(page.locator("#unreachable")).to_be_hidden()

        await table.display.stop()
        await expect(page.locator("#unreachable")).to_be_visible(timeout=3000)
        await expect(page.locator("#unreachable")).to_contain_text("CONTROLLER UNREACHABLE")
        await shot(page, artifacts, "07-unreachable")

        # The table goes on while the display is down.
        await table.command("new_shoe")
        await table.play_rounds(2)
        await table.display.start()  # the same port: the page reconnects by itself

        await expect(page.locator("#unreachable")).to_be_hidden(timeout=5000)
        await expect(page.locator("#prompt")).to_have_text(action_words(table))
        await expect(page.locator("#round-no")).to_have_text(str(table.state["round_no"]))
        await expect(page.locator("#bead-plate .bead")).to_have_count(2)
        await expect(page.locator("#cards-seen")).to_have_text(str(table.state["cards_seen"]))

        # And a page loaded now shows the same.
        await page.reload()
        await expect(page.locator("#prompt")).to_have_text(action_words(table))
        await expect(page.locator("#bead-plate .bead")).to_have_count(2)


async def drawn_from(page: Page, grid: str) -> tuple[int, int]:
    """The road's first column drawn on the board, and how many columns the board shows."""
    first, columns = await page.eval_on_selector(
        grid,
        "grid => [Number(grid.dataset.firstColumn),"
        " getComputedStyle(grid).gridTemplateColumns.split(' ').length]",
    )
    return int(first), int(columns)


async def expect_beads(page: Page, results: int) -> None:
    """The bead plate shows the newest of ``results`` beads, as many columns as it has room for."""
    shown, expected = -1, -2
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        first, columns = await drawn_from(page, "#bead-plate")
        assert first == max(0, (results + 5) // 6 - columns)  # the newest column is drawn
        expected = results - 6 * first
        shown = await page.locator("#bead-plate .bead").count()
        if shown == expected:
            return
        await page.wait_for_timeout(50)
    assert shown == expected


async def test_the_scoreboards_late_in_a_shoe_are_drawn_as_laid_out(
    tmp_path: Path, display_page: Page, artifacts: Path
) -> None:
    page = display_page
    rounds = 55
    seed = seed_for_the_scoreboards(rounds)
    async with running_table(tmp_path, seed=seed) as table:
        await page.goto(table.display.url)
        await table.command("new_shoe")
        await table.play_rounds(rounds)
        await expect(page.locator("#prompt")).to_have_text(action_words(table))
        await expect_beads(page, rounds)
        roads = table.last("roads")

        placed = await page.eval_on_selector_all(
            "#big-road .ring",
            "nodes => nodes.map(n => [Number(n.style.gridColumnStart) - 1,"
            " Number(n.style.gridRowStart) - 1, n.dataset.winner])",
        )
        columns = roads["big_road"]
        laid_out = [[x, y, cell["winner"]] for x, y, cell in layout_grid(columns)]
        longest = max(len(column) for column in columns)
        assert longest > 6
        assert sum(1 for _, y, _ in laid_out if y == 5) >= 2  # a dragon tail along the bottom
        # The board shows the road's newest columns, each cell where the layout puts it.
        first, drawn = await drawn_from(page, "#big-road")
        width = 1 + max(x for x, _, _ in laid_out)
        assert first == max(0, width - drawn)
        assert placed == [[x - first, y, winner] for x, y, winner in laid_out if x >= first]

        for road, selector in (
            ("big_eye_boy", "#big-eye-boy"),
            ("small_road", "#small-road"),
            ("cockroach_pig", "#cockroach-pig"),
        ):
            marks = await page.eval_on_selector_all(
                f"{selector} .mark",
                "nodes => nodes.map(n => [Number(n.style.gridColumnStart) - 1,"
                " Number(n.style.gridRowStart) - 1, n.classList.contains('red') ? 'red' : 'blue'])",
            )
            first, drawn = await drawn_from(page, selector)
            laid = [[x, y, colour] for x, y, colour in layout_grid(roads[road])]
            assert first == max(0, 1 + max(x for x, _, _ in laid) - drawn), road
            assert marks == [[x - first, y, colour] for x, y, colour in laid if x >= first], road
        for side in ("banker", "player"):
            ask = roads[f"ask_{side}"]
            wanted = sum(1 for mark in ask.values() if mark is not None)
            await expect(page.locator(f"#ask-{side} .mark")).to_have_count(wanted)
        stats = roads["stats"]
        await expect(page.locator("#stats")).to_contain_text(f"Rounds {stats['rounds']}")

        await shot(page, artifacts, "06-roads-late")
        await assert_fits(page, artifacts / "fit", "1600x900-5-late-in-the-shoe")
        if os.environ.get("UPDATE_DOCS_SCREENSHOT"):
            DOCS_IMAGE.parent.mkdir(parents=True, exist_ok=True)
            await page.screenshot(path=DOCS_IMAGE)

        # On to the cut card: the last-round banner, then the shoe's end.
        await expect(page.locator("#last-round")).to_be_hidden()
        while not table.state["last_round"]:
            await table.step()
        await expect(page.locator("#last-round")).to_be_visible()
        await shot(page, artifacts, "08-last-round")
        await assert_fits(page, artifacts / "fit", "1600x900-6-last-round")
        while table.prompt != "shoe_over":
            assert await table.step() is not None
        await expect(page.locator("#prompt")).to_have_text("SHOE OVER")
        await expect(page.locator("#last-round")).to_be_hidden()
        await expect_beads(page, len(table.messages("round_result")))
        await expect(page.locator("#cards-left")).to_have_text(str(table.state["cards_left"]))


#: The buttons of the commands the table takes or not (``recall`` is answered in every state).
OFFERED = "button[data-command]:not([data-always])"
#: The labels of the command buttons the page shows (the supervisor's too, folded or not).
SHOWN_BUTTONS = (
    "buttons => buttons.filter(b => !b.closest('[hidden]')).map(b => b.textContent.trim())"
)
DROPPED = ["Dropped card: read", "Dropped card: not read"]
#: The dealer's last button, offered in every phase while no call of the dealer's is open.
CALL = "Call supervisor"
#: The command buttons a table shows: its shoe burnt and betting still to open, betting open,
#: a round being dealt, a round's result shown and betting to open next.
BURNT = ["Open betting", CALL, "Void shoe", "Set limits", "Open dispute"]
BETTING = ["Close betting", CALL, "Void round", "Void shoe", "Correct result", "Open dispute"]
DEALING = ["Misdeal", *DROPPED, CALL, "Void round", "Void shoe", "Correct result", "Open dispute"]
#: After a result, the round's own buttons beside what starts the next one.
AFTER_RESULT = [CALL, "Void round", "Void shoe", "Correct result", "Set limits", "Open dispute"]
RESULT = ["Open betting", *AFTER_RESULT]
#: The supervisor's button of each open alarm.
ACKNOWLEDGE_ALARM = "Acknowledge alarm"


def with_open_alarm(labels: list[str]) -> list[str]:
    """The buttons, and an open alarm's acknowledgement (beside the supervisor's form)."""
    return [*labels, ACKNOWLEDGE_ALARM]


async def expect_buttons(page: Page, labels: list[str]) -> None:
    """Wait until the page shows exactly these command buttons (5 s at most)."""
    shown: list[str] = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        shown = await page.eval_on_selector_all(OFFERED, SHOWN_BUTTONS)
        if shown == labels:
            return
        await page.wait_for_timeout(50)
    assert shown == labels


async def nth_result(table: Table, n: int) -> dict[str, Any]:
    """The ``n``-th ``round_result`` the table published, once it has (5 s at most)."""
    async with asyncio.timeout(5):
        while len(table.messages("round_result")) < n:  # noqa: ASYNC110 - the sink is a list
            await asyncio.sleep(0.01)
    return table.payloads("round_result")[n - 1]


async def test_a_reader_table_shows_only_the_commands_it_takes(
    tmp_path: Path, display_page: Page
) -> None:
    page = display_page
    async with running_table(tmp_path, seed=5) as table:
        await page.goto(table.display.url)
        await expect_buttons(page, ["New shoe", CALL, "Set limits"])
        await page.get_by_role("button", name="New shoe").click()
        await expect(page.locator("#prompt")).to_have_text("BURN")
        await expect_buttons(page, [CALL, "Void shoe", "Open dispute"])
        while table.prompt == "burn":
            await table.next_card()
        await expect_buttons(page, BURNT)
        await page.get_by_role("button", name="Open betting").click()
        await expect_buttons(page, BETTING)
        await page.get_by_role("button", name="Close betting").click()
        await expect_buttons(page, DEALING)
        await table.next_card()
        await table.misread()  # the second card came out unread: held until it is entered
        await expect(page.locator("#prompt")).to_have_text("HOLD")
        await expect_buttons(
            page,
            [
                "Misdeal",
                *DROPPED,
                CALL,
                "Void round",
                "Void shoe",
                "Enter card",
                "Correct result",
                "Open dispute",
                ACKNOWLEDGE_ALARM,
            ],
        )
        assert (await table.command("manual_card", card=next(table.shoe)))["ok"]
        await expect_buttons(page, with_open_alarm(DEALING))  # the misread's alarm is open
        while table.prompt in {"deal", "player_draws", "banker_draws"}:
            await table.next_card()
        await expect(page.locator("#phase")).to_have_text("between rounds")
        await expect(page.locator("#prompt")).to_have_text(result_words(table.last("round_result")))
        await expect_buttons(page, with_open_alarm(RESULT))
        misread = table.last("alarm")["alarm_id"]
        assert (await table.command("acknowledge_alarm", alarm_id=misread))["ok"]
        await expect_buttons(page, RESULT)


async def test_a_reader_table_without_a_betting_phase_is_dealt_without_a_deal_button(
    tmp_path: Path, display_page: Page
) -> None:
    page = display_page
    async with running_table(tmp_path, seed=5, betting_phase=False) as table:
        await page.goto(table.display.url)
        await table.command("new_shoe")
        while table.prompt == "burn":
            await table.next_card()
        await expect_buttons(
            page, [CALL, "Void shoe", "Set limits", "Open dispute"]
        )  # the dealer's first card starts the round
        await table.next_card()
        await expect(page.locator("#phase")).to_have_text("dealing")
        await expect_buttons(page, DEALING)
        while table.prompt in {"deal", "player_draws", "banker_draws"}:
            await table.next_card()
        await expect(page.locator("#phase")).to_have_text("between rounds")
        await expect_buttons(page, AFTER_RESULT)


async def test_a_virtual_table_without_a_betting_phase_is_dealt_by_its_deal_button(
    tmp_path: Path, display_page: Page
) -> None:
    page = display_page
    async with running_table(tmp_path, seed=5, betting_phase=False, virtual=True) as table:
        await page.goto(table.display.url)
        await expect_buttons(page, ["New shoe", CALL, "Set limits"])
        await page.get_by_role("button", name="New shoe").click()
        deal = page.get_by_role("button", name="Deal", exact=True)
        await expect(deal).to_be_visible()
        for _ in range(2):
            results = len(table.messages("round_result"))
            await deal.click()
            result = await nth_result(table, results + 1)
            await expect(page.locator("#prompt")).to_have_text(result_words(result))
            await expect(page.locator("#round-no")).to_have_text(str(result["round_no"]))
            await expect_buttons(page, ["Deal", *AFTER_RESULT])
            assert len(table.messages("round_result")) == results + 1  # one round per deal


async def test_a_virtual_table_with_a_betting_phase_has_no_deal_button(
    tmp_path: Path, display_page: Page
) -> None:
    page = display_page
    async with running_table(tmp_path, seed=5, virtual=True) as table:
        await page.goto(table.display.url)
        await page.get_by_role("button", name="New shoe").click()
        await expect_buttons(page, BURNT)
        await page.get_by_role("button", name="Open betting").click()
        await expect_buttons(page, BETTING)
        await page.get_by_role("button", name="Close betting").click()  # the table deals itself
        await expect(page.locator("#prompt")).to_have_text(result_words(await nth_result(table, 1)))
        await expect_buttons(page, RESULT)
