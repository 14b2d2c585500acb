# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The screens answer only to their own names: real requests carrying another ``Host``.

A page of another site whose name was made to point at the table (DNS rebinding) is the
browser's own origin, so its ``Origin`` matches its ``Host``: only the name itself gives it
away. The dealer display and the board's own address on 127.0.0.1, with real HTTP clients.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from pathlib import Path

import aiohttp
import pytest
from structlog.testing import capture_logs

from table_controller.screens.board.app import BoardFeed, BoardServer
from table_controller.screens.web.policy import HostCheck
from tests.display.display_harness import PIN, Table, running_table

FOREIGN = "rebound.example"
CONFIGURED = "table07.floor.example"


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with running_table(tmp_path, allowed_hosts=[CONFIGURED]) as running:
        yield running


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
        yield session


def as_named(table: Table, name: str) -> dict[str, str]:
    """The headers of a page at ``http://name:port`` asking the display."""
    host = f"{name}:{table.display.port}"
    return {"Host": host, "Origin": f"http://{host}"}


def commands(table: Table) -> list[object]:
    return [row.payload["command"] for row in table.journal.rows() if "command" in row.payload]


async def test_a_foreign_host_gets_421_for_page_state_stream_command_and_board(
    table: Table, http: aiohttp.ClientSession
) -> None:
    url = table.display.url
    headers = as_named(table, FOREIGN)
    with capture_logs() as logs:
        for path in ("", "api/state", "api/events", "static/display.js", "board", "nowhere"):
            async with http.get(url + path, headers=headers) as response:
                assert response.status == 421, path
                assert response.content_type == "text/plain", path
                assert "Content-Security-Policy" in response.headers
        body = {"command": "new_shoe", "pin": PIN}
        async with http.post(url + "api/commands", json=body, headers=headers) as response:
            assert response.status == 421
    assert commands(table) == []
    assert table.state["phase"] == "no_shoe"
    assert table.display.misdirected == 7
    # Seven refusals, one line: the first, naming the host.
    (line,) = [each for each in logs if each["event"] == "request for another host refused"]
    assert line["host"] == f"{FOREIGN}:{table.display.port}"
    assert line["refused"] == 1


@pytest.mark.parametrize("name", ["127.0.0.1", "localhost", "LOCALHOST", CONFIGURED])
async def test_the_displays_own_names_are_served(
    table: Table, http: aiohttp.ClientSession, name: str
) -> None:
    headers = as_named(table, name)
    async with http.get(table.display.url + "api/state", headers=headers) as response:
        assert response.status == 200
    body = {"command": "new_shoe", "pin": PIN}
    async with http.post(table.display.url + "api/commands", json=body, headers=headers) as reply:
        assert reply.status == 200, await reply.text()
    assert commands(table) == ["new_shoe"]
    assert table.display.misdirected == 0


async def test_the_boards_own_address_refuses_a_foreign_host(
    table: Table, http: aiohttp.ClientSession
) -> None:
    procedure = table.service.procedure  # its board not among the service's observers: no need
    feed = BoardFeed(procedure, variant=procedure.variant)
    board = BoardServer(feed, host="127.0.0.1", port=0, allowed_hosts=[CONFIGURED])
    await board.start()
    try:
        url = f"http://127.0.0.1:{board.port}"
        for name, status in ((FOREIGN, 421), (CONFIGURED, 200), ("localhost", 200)):
            headers = {"Host": f"{name}:{board.port}"}
            for path in ("/board", "/board/api/state"):
                async with http.get(url + path, headers=headers) as response:
                    assert response.status == status, (name, path)
        async with (
            contextlib.AsyncExitStack() as streams,
            http.get(f"{url}/board/api/events", headers={"Host": FOREIGN}) as response,
        ):
            del streams
            assert response.status == 421
        assert board.misdirected == 3
    finally:
        await board.stop()


@pytest.mark.parametrize(
    ("bound", "host", "arrived_at", "allowed"),
    [
        ("127.0.0.1", "127.0.0.1:8080", "127.0.0.1", True),
        ("127.0.0.1", "localhost:8080", "127.0.0.1", True),
        ("127.0.0.1", "localhost.:8080", "127.0.0.1", True),
        ("127.0.0.1", "evil.example:8080", "127.0.0.1", False),
        ("127.0.0.1", "127.0.0.1.evil.example", "127.0.0.1", False),
        # Bound to every address: each is the server's own; localhost only over loopback.
        ("0.0.0.0", "10.1.2.3:8081", "10.1.2.3", True),
        ("0.0.0.0", "10.1.2.4:8081", "10.1.2.3", False),
        ("0.0.0.0", "localhost:8081", "10.1.2.3", False),
        ("0.0.0.0", "localhost:8081", "127.0.0.1", True),
        ("::", "[::1]:8081", "::1", True),
        ("::", "127.0.0.1:8081", "::ffff:127.0.0.1", True),
        ("::", "[fe80::1]:8081", "::1", False),
        ("0.0.0.0", "table07:8081", "10.1.2.3", False),
        ("0.0.0.0", "Table07.Floor.Example:8081", "10.1.2.3", True),
        # No Host, or none that parses.
        ("127.0.0.1", None, "127.0.0.1", False),
        ("127.0.0.1", "", "127.0.0.1", False),
        ("127.0.0.1", "[::1", "127.0.0.1", False),
    ],
)
def test_which_names_a_screen_answers_to(
    bound: str, host: str | None, arrived_at: str, *, allowed: bool
) -> None:
    check = HostCheck(bound, ["table07.floor.example"])
    assert check.allows(host, arrived_at) is allowed
