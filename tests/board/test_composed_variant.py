# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A table playing a variant composed in the operator's variant file, on the players' board.

The board of a table playing "House Game" (``tests/support/composed.py``: its own name and
title; the Standard game's main bets and Player pair, and Lucky 6) shows its title as it is,
in any language, and exactly its bets in its order, each with its own limits. The same game
composed in a variant file and played by ``table-controller run`` reaches both screens, the
board on an address of its own too.
"""

from __future__ import annotations

import asyncio
import os
import sys
import tomllib
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

import aiohttp
import pytest
from playwright.async_api import Browser, expect

from table_controller.contract.envelope import to_wire
from table_controller.screens.languages import Catalogues
from tests.board.board_pages import FULL_HD, board_page
from tests.display.display_harness import running_table
from tests.support.composed import HOUSE_GAME, HOUSE_LIMITS
from tests.support.ports import free_port
from tests.support.table_process import table_run, wait_for_board, wait_for_display

#: House Game as an operator composes it: the Standard game's main bets, two side bets.
VARIANT_FILE = """\
[house_game]
title = "House Game"
main_bets = "commission"

[house_game.bets.player_pair]
limits = { min = 10, max = 500 }

[house_game.bets.lucky_6]
limits = { min = "2.50", max = 250 }
"""


@pytest.mark.browser
async def test_the_board_shows_a_composed_variants_title_and_exactly_its_bets(
    tmp_path: Path, browser: Browser
) -> None:
    texts = Catalogues.packaged().messages("zh-Hant", "board")
    async with running_table(tmp_path, variant=HOUSE_GAME, limits=HOUSE_LIMITS) as table:
        url = f"{table.display.url}board?lang=zh-Hant"
        async with board_page(browser, url, FULL_HD) as (page, errors):
            await expect(page.locator("body")).to_have_class("live")
            await expect(page.locator("#variant")).to_have_text(HOUSE_GAME.title)
            await expect(page.locator("#currency")).to_have_text(HOUSE_LIMITS.currency)
            rows = page.locator("#limits li[data-bet]")
            await expect(rows).to_have_count(len(HOUSE_GAME.bet_ids))
            shown = await rows.evaluate_all("(rows) => rows.map((row) => row.dataset.bet)")
            assert shown == list(HOUSE_GAME.bet_ids)
            for bet in HOUSE_GAME.bet_ids:
                row = page.locator(f'#limits li[data-bet="{bet}"]')
                await expect(row.locator(".bet-name")).to_contain_text(texts[f"game.bet.{bet}"])
                stake = HOUSE_LIMITS.limits[bet]
                await expect(row.locator(".range")).to_contain_text(f"{int(stake.min):,}")
                await expect(row.locator(".range")).to_contain_text(f"{int(stake.max):,}")
    assert not errors, errors


async def test_a_variant_composed_in_the_variant_file_reaches_both_screens(tmp_path: Path) -> None:
    (tmp_path / "variants.toml").write_text(VARIANT_FILE, encoding="utf-8")
    display, board = free_port(), free_port()
    env = {**os.environ, "TABLE_CONTROLLER_BOARD_ADDRESS": f"127.0.0.1:{board}"}
    async with (
        aiohttp.ClientSession() as http,
        table_run(
            tmp_path / "run.log",
            "--table-id", "H1", "--variant", "house_game", "--card-source", "rng",
            "--journal", str(tmp_path / "H1.journal"), "--display", f"127.0.0.1:{display}",
            "--paytable", str(tmp_path / "variants.toml"),
            env=env,
        ),
    ):  # fmt: skip
        table = (await wait_for_display(http, f"http://127.0.0.1:{display}"))["table"]
        boards = [
            (await wait_for_board(http, f"http://127.0.0.1:{port}"))["board"]
            for port in (display, board)
        ]
    side = tomllib.loads(VARIANT_FILE)["house_game"]["bets"]
    expected = [(bet, None, None) for bet in ("player", "banker", "tie")] + [
        (bet, _amount(bet_file["limits"]["min"]), _amount(bet_file["limits"]["max"]))
        for bet, bet_file in side.items()
    ]
    assert [bet for bet, _, _ in expected] == list(HOUSE_GAME.bet_ids)
    assert table["variant"] == HOUSE_GAME.title
    limits = [[bet["bet"], bet["min"], bet["max"]] for bet in table["limits"]["bets"]]
    assert limits == to_wire(expected)
    for shown in boards:
        assert shown["variant"] == HOUSE_GAME.title
        assert [[bet["bet"], bet["min"], bet["max"]] for bet in shown["bets"]] == to_wire(expected)

    # Its journal replays with the variant it ran; another name, or other rules, are refused.
    journal, paytable = tmp_path / "H1.journal", tmp_path / "variants.toml"
    assert (await _replay(journal, "--variant", "house_game", "--paytable", paytable))[0] == 0
    status, err = await _replay(journal)
    assert status == 2
    assert "started as variant 'house_game', not 'commission'" in err
    changed = tmp_path / "changed.toml"
    changed.write_text(VARIANT_FILE + "payouts = { win = 7 }\n", encoding="utf-8")
    status, err = await _replay(journal, "--variant", "house_game", "--paytable", changed)
    assert status == 2
    assert "had other rules" in err


async def _replay(journal: Path, *flags: str | Path) -> tuple[int, str]:
    """``table-controller replay`` of ``journal``: its exit status and standard error."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "table_controller", "replay", "--inputs", str(journal),
        *map(str, flags),
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    _, err = await asyncio.wait_for(process.communicate(), 60)
    assert process.returncode is not None
    return process.returncode, err.decode()


def _amount(written: object) -> Fraction:
    """An amount as the variant file writes it (a number, or decimal text), exact."""
    return Fraction(Decimal(str(written)))
