# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Table T07 run by ``table-controller run`` on a virtual shoe, seen through its display API."""

from __future__ import annotations

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from simulators.virtual_shoe.server import VirtualShoe
from tests.support.table_process import table_run

PIN = "2468"


#: How long :meth:`Table.until` waits on the event stream before it reads the state anyway.
RECHECK_S = 0.25


@dataclass
class Table:
    """The running service seen through its display API, and the shoe in the test's hand.

    A wait for the state reads ``api/state`` again each time the display's event stream
    (``api/events``) says something, as the dealer's page follows the table, rather than
    asking every few milliseconds.
    """

    url: str
    http: aiohttp.ClientSession
    shoe: VirtualShoe
    commands: int = 0
    replies: list[dict[str, Any]] = field(default_factory=list)
    _events: aiohttp.ClientResponse | None = field(default=None, init=False, repr=False)

    async def snapshot(self) -> dict[str, Any]:
        async with self.http.get(f"{self.url}/api/state") as response:
            body = await response.json()
        state: dict[str, Any] = body["table"]["state"]
        return state

    async def command(
        self, name: str, *, supervisor: bool = False, **args: object
    ) -> dict[str, Any]:
        body: dict[str, object] = {"command": name, "args": args}
        if supervisor:
            body["pin"] = PIN
        async with self.http.post(f"{self.url}/api/commands", json=body) as response:
            reply: dict[str, Any] = await response.json()
        self.replies.append(reply)
        return reply

    async def until(self, test: Callable[[dict[str, Any]], bool], what: str) -> dict[str, Any]:
        """The state once ``test`` holds for it (15 s at most, then fails naming ``what``)."""
        try:
            async with asyncio.timeout(15):
                if self._events is None:
                    self._events = await self.http.get(f"{self.url}/api/events")
                stream = self._events.content
                while True:
                    stream.read_nowait()  # what was said before this read of the state
                    state = await self.snapshot()
                    if test(state):
                        return state
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(RECHECK_S):
                            if not await stream.readany():  # the stream ended: ask as before
                                await asyncio.sleep(0.02)
        except TimeoutError:
            raise AssertionError(what) from None

    async def deal(self) -> dict[str, Any]:
        """Draw one thing from the shoe and wait until the table has taken it."""
        before = await self.snapshot()
        self.shoe.deal()
        return await self.until(lambda state: state != before, "the table takes the card")

    async def action(self) -> str:
        prompt = (await self.snapshot())["prompt"]
        return "" if prompt is None else str(prompt["action"])

    async def deal_round(self) -> dict[str, Any]:
        """Deal cards while the table asks for them; returns the state once it stops asking."""
        while (action := await self.action()) in {"deal", "player_draws", "banker_draws"}:
            await self.deal()
        del action
        return await self.snapshot()

    async def open_and_close(self) -> None:
        assert (await self.command("open_betting"))["ok"]
        assert (await self.command("close_betting"))["ok"]


@contextlib.asynccontextmanager
async def running_table(
    tmp_path: Path, port: int, *extra: str, env: dict[str, str] | None = None
) -> AsyncIterator[asyncio.subprocess.Process]:
    """Table T07 (``commission``) on the shoe at ``tmp_path/shoe``, its display on ``port``."""
    async with table_run(
        tmp_path / "run.log",
        "--table-id", "T07", "--variant", "commission",
        "--port", str(tmp_path / "shoe"),
        "--journal", str(tmp_path / "T07.journal"),
        "--events-log", str(tmp_path / "T07.events.jsonl"),
        "--display", f"127.0.0.1:{port}",
        "--log-format", "json",
        *extra,
        env={**os.environ, "TABLE_CONTROLLER_DISPLAY_PIN": PIN, **(env or {})},
    ) as process:  # fmt: skip
        yield process
