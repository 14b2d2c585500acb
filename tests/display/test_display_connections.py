# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The screens' web addresses under slow and greedy clients: real servers, real sockets.

The dealer display and the board's own address on 127.0.0.1 with small caps and timeouts
(``ListenerLimits``); clients are raw TCP connections that send half a request and wait
(``tests/support/held_connections.py``), some from other loopback addresses (127.0.0.2 ...),
which the server counts as other clients. The whole process under a low open-file limit is
``tests/board/test_board_flood.py``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, MutableMapping
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from structlog.testing import capture_logs

from table_controller.screens.board.app import BoardFeed, BoardServer
from table_controller.screens.http_limits import ListenerLimits, LogThrottle
from table_controller.screens.web.listener import AcceptFailures, Refusal
from tests.display.display_harness import Table, running_table
from tests.support.held_connections import HALF_SENT, connect, held_connections, turned_away

#: A request timeout short enough for a quick test; the idle timeout far longer, so a close
#: within it is the request timeout's doing (and the other way round).
QUICK = 0.3
SLOW = 30.0


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
        yield session


@contextlib.asynccontextmanager
async def board_server(table: Table, limits: ListenerLimits) -> AsyncIterator[BoardServer]:
    """A board on an address of its own (its view not among the service's observers)."""
    procedure = table.service.procedure
    feed = BoardFeed(procedure, variant=procedure.variant)
    board = BoardServer(feed, host="127.0.0.1", port=0, limits=limits)
    await board.start()
    try:
        yield board
    finally:
        await board.stop()


def refused_lines(logs: list[MutableMapping[str, Any]]) -> list[MutableMapping[str, Any]]:
    return [line for line in logs if line["event"] == "web connections refused"]


# --- the request timeout -----------------------------------------------------------------


async def test_a_half_sent_request_is_answered_408_and_closed_after_the_request_timeout(
    tmp_path: Path,
) -> None:
    limits = ListenerLimits(request_timeout_s=QUICK, idle_timeout_s=SLOW)
    async with running_table(tmp_path, web_limits=limits) as table:
        loop = asyncio.get_running_loop()
        started = loop.time()
        async with held_connections("127.0.0.1", table.display.port, 3) as held:
            answers = await asyncio.gather(*(connection.answer() for connection in held))
        elapsed = loop.time() - started
        assert all(answer.startswith(b"HTTP/1.1 408 Request Timeout\r\n") for answer in answers)
        assert QUICK <= elapsed < SLOW
        listener = table.display.listener
        assert listener.refusals[Refusal.REQUEST_TIMEOUT] == 3
        assert listener.open_connections == 0


async def test_a_connection_that_sends_nothing_is_closed_after_the_request_timeout(
    tmp_path: Path,
) -> None:
    limits = ListenerLimits(request_timeout_s=QUICK, idle_timeout_s=SLOW)
    async with running_table(tmp_path, web_limits=limits) as table:
        silent = await connect("127.0.0.1", table.display.port, b"")
        try:
            assert (await silent.answer()).startswith(b"HTTP/1.1 408 ")
        finally:
            silent.writer.close()
            await silent.writer.wait_closed()


async def test_a_body_that_never_ends_is_cut_at_the_request_timeout_and_nothing_is_done(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    limits = ListenerLimits(request_timeout_s=QUICK, idle_timeout_s=SLOW)
    head = (
        b"POST /api/commands HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        b"Content-Length: 200\r\n\r\n"
    )
    async with running_table(tmp_path, web_limits=limits) as table:
        journaled = len(list(table.journal.rows()))
        slow = await connect("127.0.0.1", table.display.port, head + b'{"command": "new_shoe"')
        try:
            # The handler had the headers: the connection is closed with nothing added to it.
            assert await slow.answer() == b""
        finally:
            slow.writer.close()
            await slow.writer.wait_closed()
        assert table.display.listener.refusals[Refusal.REQUEST_TIMEOUT] == 1
        assert len(list(table.journal.rows())) == journaled
        assert table.state["phase"] == "no_shoe"
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


async def test_an_event_stream_outlives_the_request_and_idle_timeouts(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    limits = ListenerLimits(request_timeout_s=0.2, idle_timeout_s=0.2)
    async with (
        running_table(tmp_path, heartbeat_s=0.05, web_limits=limits) as table,
        http.get(table.display.url + "api/events") as response,
    ):
        loop = asyncio.get_running_loop()
        opened = loop.time()
        while loop.time() - opened < 1.0:  # five times either timeout
            line = await response.content.readline()
            assert line, "the stream ended"
        # Any line of the stream: a field, a ping comment, or the blank line (aiohttp-sse ends
        # lines with CRLF) that closes an event.
        line = await response.content.readline()
        assert line.startswith((b"event:", b"data:", b"id:", b"retry:", b":", b"\r\n", b"\n"))
        assert table.display.listener.refusals[Refusal.REQUEST_TIMEOUT] == 0


async def test_an_idle_kept_alive_connection_is_closed_after_the_idle_timeout(
    tmp_path: Path,
) -> None:
    limits = ListenerLimits(request_timeout_s=SLOW, idle_timeout_s=QUICK)
    request = b"GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    async with running_table(tmp_path, web_limits=limits) as table:
        loop = asyncio.get_running_loop()
        started = loop.time()
        async with held_connections("127.0.0.1", table.display.port, 1, request) as (client,):
            answer = await client.answer()
        assert answer.startswith(b"HTTP/1.1 204 No Content\r\n")
        assert answer.count(b"HTTP/1.1") == 1
        assert QUICK <= loop.time() - started < SLOW
        assert table.display.listener.refusals[Refusal.REQUEST_TIMEOUT] == 0


async def test_a_kept_alive_connection_times_its_next_request_anew(tmp_path: Path) -> None:
    limits = ListenerLimits(request_timeout_s=QUICK, idle_timeout_s=SLOW)
    whole = b"GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
    async with running_table(tmp_path, web_limits=limits) as table:
        async with held_connections("127.0.0.1", table.display.port, 1, whole) as (client,):
            first = await client.reader.readuntil(b"\r\n\r\n")
            assert first.startswith(b"HTTP/1.1 204 No Content\r\n")
            assert await client.open_after(2 * QUICK)  # idle past the request timeout: kept
            client.writer.write(HALF_SENT)
            assert (await client.answer()).startswith(b"HTTP/1.1 408 ")
        assert table.display.listener.refusals[Refusal.REQUEST_TIMEOUT] == 1


# --- the caps ------------------------------------------------------------------------------


async def test_one_client_holds_at_most_its_cap_and_another_is_still_served(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    limits = ListenerLimits(request_timeout_s=SLOW, max_connections=20, max_per_client=4)
    async with running_table(tmp_path, web_limits=limits) as table:
        port = table.display.port
        with capture_logs() as logs:
            async with held_connections("127.0.0.1", port, 4) as held:
                assert await held[-1].open_after(0.2)
                async with held_connections("127.0.0.1", port, 10) as over:
                    answers = await asyncio.gather(*(each.answer() for each in over))
                assert all(turned_away(answer) for answer in answers)
                other = "127.0.0.2"
                whole = b"GET /favicon.ico HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"
                async with held_connections("127.0.0.1", port, 1, whole, sources=[other]) as (one,):
                    assert (await one.answer()).startswith(b"HTTP/1.1 204 ")
                assert all([await each.open_after(0) for each in held])
            listener = table.display.listener
            assert listener.refusals[Refusal.CLIENT_FULL] == 10
            assert listener.refusals[Refusal.LISTENER_FULL] == 0
        # Ten refusals, one line: the first, with its count.
        (line,) = refused_lines(logs)
        assert line["reason"] == "client_full"
        assert line["refused"] == 1
        # The client's connections are closed: it is served again.
        async with http.get(table.display.url + "api/state") as response:
            assert response.status == 200


async def test_a_full_board_address_leaves_the_dealer_display_answering(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    board_limits = ListenerLimits(request_timeout_s=SLOW, max_connections=12)
    sources = [f"127.0.0.{n}" for n in range(2, 8)]
    async with (
        running_table(tmp_path) as table,
        board_server(table, board_limits) as board,
        held_connections("127.0.0.1", board.port, 12, sources=sources) as held,
    ):
        async with held_connections("127.0.0.1", board.port, 6, sources=sources) as over:
            answers = await asyncio.gather(*(each.answer() for each in over))
        assert all(turned_away(answer) for answer in answers)
        assert board.listener.refusals[Refusal.LISTENER_FULL] == 6
        assert board.listener.open_connections == 12
        async with http.get(table.display.url + "api/state") as response:
            assert response.status == 200
        async with http.get(table.display.url + "board/api/state") as response:
            assert response.status == 200
        assert table.display.listener.refusals == dict.fromkeys(Refusal, 0)
        assert all([await each.open_after(0) for each in held])


# --- bounded logs --------------------------------------------------------------------------


def test_a_repeated_event_is_logged_once_per_interval_with_its_count() -> None:
    now = [0.0]
    throttle = LogThrottle(10.0, clock=lambda: now[0])
    assert throttle.due() == 1
    seen = [throttle.due() for _ in range(999)]
    assert seen == [None] * 999
    now[0] = 10.0
    assert throttle.due() == 1000
    now[0] = 19.9
    assert throttle.due() is None
    now[0] = 20.0
    assert throttle.due() == 2


async def test_accept_failures_are_counted_and_other_reports_passed_on() -> None:
    loop = asyncio.get_running_loop()
    passed_on: list[dict[str, object]] = []
    loop.set_exception_handler(lambda _loop, context: passed_on.append(context))
    try:
        with capture_logs() as logs, AcceptFailures().watching(loop) as failures:
            for _ in range(500):
                loop.call_exception_handler(
                    {
                        "message": "socket.accept() out of system resource",
                        "exception": OSError(24, "Too many open files"),
                        "socket": object(),
                    }
                )
            loop.call_exception_handler({"message": "something else", "exception": ValueError()})
        assert failures.failures == 500
        # The first at once, the rest counted in one line when the watch ends.
        assert [line["event"] for line in logs] == ["cannot accept web connections"] * 2
        assert [line["failures"] for line in logs] == [1, 499]
        assert logs[-1]["total"] == 500
        assert [context["message"] for context in passed_on] == ["something else"]
        assert loop.get_exception_handler() is not None  # the one before, put back
    finally:
        loop.set_exception_handler(None)
