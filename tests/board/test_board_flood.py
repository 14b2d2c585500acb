# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A flood of half-sent requests on the board's own address, against the real ``run``.

``table-controller run`` as a process (a virtual table, no broker) with a low open-file limit,
as the unit's ``LimitNOFILE`` sets one, the board alone at ``board_address`` and the metrics
on their own address. Clients hold connections with half a request sent
(``tests/support/held_connections.py``), from several loopback addresses. The caps and
timeouts come from the settings, as in a deployment.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Mapping
from pathlib import Path

import aiohttp

from tests.support.held_connections import HeldConnection, held_connections, turned_away
from tests.support.ports import free_port
from tests.support.table_process import table_run, wait_for_display

#: The process's open-file limit: well below what the clients below would take uncapped.
OPEN_FILES = 256
#: Client addresses the flood comes from (each within the per-client cap).
SOURCES = [f"127.0.0.{n}" for n in range(2, 12)]


def settings(tmp_path: Path, board: int, **more: str) -> tuple[tuple[str, ...], dict[str, str]]:
    """``run``'s flags and environment: a virtual table, its display, board and metrics."""
    display, metrics = free_port(), free_port()
    args = (
        "--table-id", "V1", "--card-source", "rng",
        "--journal", str(tmp_path / "V1.journal"),
        "--events-log", str(tmp_path / "V1.events.jsonl"),
        "--display", f"127.0.0.1:{display}",
        "--metrics", f"127.0.0.1:{metrics}",
    )  # fmt: skip
    env = {**os.environ, "TABLE_CONTROLLER_BOARD_ADDRESS": f"127.0.0.1:{board}"}
    env |= {f"TABLE_CONTROLLER_{name.upper()}": value for name, value in more.items()}
    return args, env


def urls(args: tuple[str, ...]) -> tuple[str, str]:
    """The dealer display's and the metrics' base URLs of ``run``'s flags."""
    flags: Mapping[str, str] = dict(zip(args[::2], args[1::2], strict=True))
    return f"http://{flags['--display']}", f"http://{flags['--metrics']}"


async def status(http: aiohttp.ClientSession, url: str) -> int:
    async with http.get(url) as response:
        await response.read()
        return response.status


async def answers(held: list[HeldConnection], seconds: float) -> list[bytes | None]:
    """What each connection was answered within ``seconds``; None: still held open."""

    async def answer(connection: HeldConnection) -> bytes | None:
        try:
            return await connection.answer(seconds)
        except TimeoutError:
            return None

    return await asyncio.gather(*(answer(connection) for connection in held))


def log_lines(log: Path) -> list[str]:
    return log.read_text(encoding="utf-8", errors="replace").splitlines()


async def test_half_sent_requests_on_the_board_leave_the_display_and_health_answering(
    tmp_path: Path,
) -> None:
    board = free_port()
    args, env = settings(
        tmp_path, board, http_max_connections="40", http_request_timeout_seconds="120"
    )
    dealer, metrics = urls(args)
    log = tmp_path / "run.log"
    timeout = aiohttp.ClientTimeout(total=5)
    async with (
        aiohttp.ClientSession(timeout=timeout) as http,
        table_run(log, *args, env=env, open_files=OPEN_FILES),
    ):
        await wait_for_display(http, dealer)
        async with held_connections("127.0.0.1", board, 300, sources=SOURCES) as held:
            # The board's address holds its cap, half-sent requests and all, and turns the
            # others away at once; the dealer's display and the health endpoint answer.
            assert await status(http, f"{dealer}/api/state") == 200
            assert await status(http, f"{dealer}/") == 200
            assert await status(http, f"{metrics}/health") == 200
            answered = await answers(held, 1.0)
            assert answered.count(None) == 40
            refused = [each for each in answered if each is not None]
            assert len(refused) == 260
            assert all(turned_away(each) for each in refused)
    lines = log_lines(log)
    assert not [line for line in lines if "Too many open files" in line]
    assert len([line for line in lines if "web connections refused" in line]) <= 2


async def test_a_failing_accept_is_logged_at_a_bounded_rate_and_the_table_recovers(
    tmp_path: Path,
) -> None:
    """Caps set above what the limit allows: the board's accepts fail, for seconds on end."""
    board = free_port()
    args, env = settings(
        tmp_path,
        board,
        http_max_connections="1000",
        http_max_connections_per_client="1000",
        http_request_timeout_seconds="5",
    )
    dealer, _ = urls(args)
    log = tmp_path / "run.log"
    async with (
        aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=5)) as http,
        table_run(log, *args, env=env, open_files=OPEN_FILES),
    ):
        await wait_for_display(http, dealer)
        # Past the open-file limit (the rest wait in the kernel's queue), held for 3 s.
        async with held_connections("127.0.0.1", board, 300, sources=SOURCES):
            await asyncio.sleep(3.0)
        # Each half-sent request ends at the request timeout: the descriptors come back.
        async with asyncio.timeout(30):
            while True:
                try:
                    if await status(http, f"{dealer}/api/state") == 200:
                        break
                except (aiohttp.ClientError, TimeoutError):
                    await asyncio.sleep(0.1)
    lines = log_lines(log)
    # One line per ten seconds at most (and one at the stop), each with its count, where
    # asyncio alone writes one per waiting connection per second.
    assert len([line for line in lines if "Too many open files" in line]) <= 3
    assert len(lines) < 60
    failures = [json.loads(line) for line in lines if "cannot accept web connections" in line]
    assert failures, "the accept never failed: the test did not reach the limit"
    assert sum(line["failures"] for line in failures) == failures[-1]["total"] > 1
