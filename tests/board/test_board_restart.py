# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The board on its own address recovers by itself when the real service is killed and restarts.

``table-controller run`` as a process (a virtual table, a real mosquitto), the board served
alone at ``board_address``; the page stays open while the service is killed (SIGKILL) and
started again on the same journal, and shows the restarted service's view without a reload.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

import aiohttp
import pytest
from playwright.async_api import Browser, expect

from table_controller.screens.languages import Catalogues
from tests.board.board_pages import board_page, read_board
from tests.mosquitto import Mosquitto
from tests.support.ports import free_port
from tests.support.table_process import table_run, wait_for_board

pytestmark = [pytest.mark.browser, pytest.mark.broker]


async def nothing_for_the_staff(http: aiohttp.ClientSession, url: str) -> None:
    """The board's own address serves the board and its files: no dealer page, no command."""
    for path in ("/api/state", "/api/events", "/static/display.js", "/static/index.html"):
        async with http.get(url + path, allow_redirects=False) as response:
            assert response.status == 404, path
    async with http.post(f"{url}/api/commands", json={"command": "void_shoe"}) as response:
        assert response.status in {404, 405}
    async with http.get(f"{url}/", allow_redirects=False) as response:
        assert response.status == 302
        assert response.headers["Location"] == "/board"
    async with http.get(f"{url}/board") as response:
        assert response.status == 200
        assert "script-src 'self'" in response.headers["Content-Security-Policy"]


async def test_the_board_follows_the_service_across_a_kill_and_a_restart(
    tmp_path: Path, broker: Mosquitto, browser: Browser
) -> None:
    display, board = free_port(), free_port()
    args = (
        "--table-id", "V1", "--variant", "mini", "--card-source", "rng",
        "--broker", broker.url("backend"),
        "--journal", str(tmp_path / "V1.journal"),
        "--display", f"127.0.0.1:{display}",
    )  # fmt: skip
    env = {**os.environ, "TABLE_CONTROLLER_BOARD_ADDRESS": f"127.0.0.1:{board}"}
    own = f"http://127.0.0.1:{board}"
    dealer = f"http://127.0.0.1:{display}"
    texts = Catalogues.packaged().messages("ko", "board")

    async def phase(http: aiohttp.ClientSession) -> str:
        async with http.get(f"{dealer}/api/state") as response:
            return str((await response.json())["table"]["state"]["phase"])

    async def command(http: aiohttp.ClientSession, name: str) -> None:
        async with http.post(f"{dealer}/api/commands", json={"command": name}) as reply:
            body = await reply.json()
            assert body["ok"], body

    async def play_round(http: aiohttp.ClientSession) -> None:
        """A new shoe if none is in play, then one round, to its result."""
        if await phase(http) in {"no_shoe", "shoe_over"}:
            await command(http, "new_shoe")
        async with asyncio.timeout(15):
            while await phase(http) != "between_rounds":  # noqa: ASYNC110 - another process
                await asyncio.sleep(0.02)
        await command(http, "open_betting")
        await command(http, "close_betting")
        async with asyncio.timeout(15):
            while await phase(http) not in {"between_rounds", "shoe_over"}:  # noqa: ASYNC110
                await asyncio.sleep(0.02)

    async with (
        aiohttp.ClientSession() as http,
        table_run(tmp_path / "run.log", *args, env=env) as first,
    ):
        await wait_for_board(http, own)
        await nothing_for_the_staff(http, own)
        async with board_page(
            browser, f"{own}/board?lang=ko", {"width": 1280, "height": 800}, errors_allowed=True
        ) as (page, errors):
            await expect(page.locator("body")).to_have_class("live")
            await expect(page.locator("#table-id")).to_have_text("V1")
            await play_round(http)
            await expect(page.locator("#count-banker")).not_to_have_text("")
            await expect(page.locator("#round-no")).to_have_text("1")
            first.send_signal(signal.SIGKILL)
            await first.wait()
            await expect(page.locator("#offline")).to_be_visible()
            await expect(page.locator("#offline")).to_have_text(texts["board.status.please_wait"])
            async with table_run(tmp_path / "run.log", *args, env=env):
                await wait_for_board(http, own)
                await expect(page.locator("#offline")).to_be_hidden(timeout=15_000)
                await play_round(http)
                await expect(page.locator("#round-no")).to_have_text("2")
                shown = await read_board(page)
                assert shown["lang"] == "ko"
                assert len(shown["beads"]) == 2  # the first round replayed, then the second
                assert shown["buttons"] == 0
            # Errors logged while the service was away are the browser's own network
            # errors (the stream refused); nothing else.
            assert all("net::ERR" in error or "Failed to load" in error for error in errors), errors
