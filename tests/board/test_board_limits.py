# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A limit changed mid-shoe shows on the players' board at once.

``table-controller run`` as a process (a virtual commission table with limits from its settings
and variant files, a real mosquitto); the board in Traditional Chinese follows it; a supervisor
changes the Banker's limits over MQTT between two rounds, and the board shows the new amounts,
in the table's currency as the page's language writes them, without a reload.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from playwright.async_api import Browser, expect

from table_controller.screens.languages import Catalogues
from tests.board.board_pages import FULL_HD, board_page
from tests.mosquitto import Mosquitto
from tests.support.backend import listening
from tests.support.limits import write_configuration
from tests.support.ports import free_port
from tests.support.table_process import table_run

pytestmark = [pytest.mark.browser, pytest.mark.broker]

TABLE = "T8"
ROOT = f"baccarat/tables/{TABLE}"


async def test_a_limit_changed_between_rounds_shows_on_the_board_at_once(
    tmp_path: Path, broker: Mosquitto, browser: Browser
) -> None:
    display = free_port()
    env = {**os.environ, "TABLE_CONTROLLER_SUPERVISORS": json.dumps({"pit-1": ["backend"]})}
    texts = Catalogues.packaged().messages("zh-Hant", "board")
    banker = '#limits li[data-bet="banker"]'
    async with (
        listening(broker, ROOT, "backend-board-limits") as backend,
        table_run(
            tmp_path / "run.log",
            "--table-id", TABLE, "--variant", "commission", "--card-source", "rng",
            "--broker", broker.url("backend"), "--journal", str(tmp_path / "T8.journal"),
            "--display", f"127.0.0.1:{display}", *write_configuration(tmp_path),
            env=env,
        ),
    ):  # fmt: skip
        await backend.wait_online()
        async with board_page(
            browser, f"http://127.0.0.1:{display}/board?lang=zh-Hant", FULL_HD
        ) as (
            page,
            errors,
        ):
            await expect(page.locator("body")).to_have_class("live")
            await expect(page.locator("#currency")).to_have_text("MOP")
            await expect(page.locator(f"{banker} .bet-name")).to_have_text(texts["game.bet.banker"])
            await expect(page.locator(f"{banker} .range")).to_contain_text("10,000")

            assert (await backend.command("new_shoe", shoe_id="S-B"))["ok"]
            await backend.until_event("burn", done=True)
            assert (await backend.command("open_betting"))["ok"]
            assert (await backend.command("close_betting"))["ok"]
            await backend.until_result("S-B-1")
            await expect(page.locator("#round-no")).to_have_text("1")

            changed = await backend.command(
                "set_limits", operator="pit-1", limits={"banker": {"min": 500, "max": "25000.50"}}
            )
            assert changed["ok"], changed
            await expect(page.locator(f"{banker} .range")).to_contain_text(
                "25,000.5", timeout=5_000
            )
            await expect(page.locator(f"{banker} .range")).to_contain_text("500")
            tie = page.locator('#limits li[data-bet="tie"] .range')
            await expect(tie).to_contain_text("10.5")  # the bets not named keep theirs

            assert (await backend.command("open_betting"))["ok"]
            await expect(page.locator("body")).to_have_attribute("data-status", "betting")
            await expect(page.locator(f"{banker} .range")).to_contain_text("25,000.5")
    assert not errors, errors


async def test_a_three_decimal_currency_s_limits_show_to_the_fils(
    tmp_path: Path, broker: Mosquitto, browser: Browser
) -> None:
    display = free_port()
    settings = 'currency = "KWD"\n\n[limits]\ntie = { min = "0.125", max = "250.750" }\n'
    async with (
        listening(broker, ROOT, "backend-board-kwd") as backend,
        table_run(
            tmp_path / "run.log",
            "--table-id", TABLE, "--variant", "commission", "--card-source", "rng",
            "--broker", broker.url("backend"), "--journal", str(tmp_path / "T8.journal"),
            "--display", f"127.0.0.1:{display}", *write_configuration(tmp_path, settings),
        ),
    ):  # fmt: skip
        await backend.wait_online()
        async with board_page(browser, f"http://127.0.0.1:{display}/board", FULL_HD) as (
            page,
            errors,
        ):
            await expect(page.locator("#currency")).to_have_text("KWD")
            tie = page.locator('#limits li[data-bet="tie"] .range')
            await expect(tie).to_contain_text("0.125")  # as published: not rounded to 0.13
            await expect(tie).to_contain_text("250.75")
    assert not errors, errors
