# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A real floor for the tests: virtual tables, the ingest and ``table-controller floor``.

Test support. On a real mosquitto (the suite's ``broker`` fixture): :func:`floor_tables` runs
``table-controller run --card-source rng`` tables in signed mode with the staff register,
their supervisor ``S-9`` allowed to publish as the broker login ``backend``, and results
confirmed by a camera (``camera-1``), so that a test can raise a ``result_not_confirmed``
alarm at will; :func:`floor_stack` adds an ingest worker into the test's database and the floor
itself, and gives the floor's address.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

import aiohttp

from table_controller.mqtt.client.subscriber import Subscription
from table_controller.mqtt.settings import BrokerEndpoint
from tests.mosquitto import Mosquitto
from tests.support.backend import Backend
from tests.support.ingest_workers import ingest_process
from tests.support.ports import free_port
from tests.support.staff import STAFF, write_register
from tests.support.table_process import stop, table_run

PREFIX: Final = "baccarat/tables"
#: Each table's command secret, as the tables' settings and the floor's secrets file hold it.
SECRETS: Final = {
    table_id: f"floor-test-secret-{table_id}-0123456789" for table_id in ("F1", "F2", "F3", "F4")
}
SUPERVISOR: Final = "S-9"
SUPERVISOR_PIN: Final = STAFF[SUPERVISOR][2]
VIEWER: Final = "D-104"
VIEWER_PIN: Final = STAFF[VIEWER][2]
SETTINGS: Final = """\
title = "Test floor"

[[areas]]
name = "Pit A"
tables = ["F1", "F2", "F3"]

[[areas]]
name = "Pit B"
tables = ["F4", "F9"]
"""


@dataclass
class FloorStack:
    """What a test drives: the floor's address, a backend per table, the files."""

    url: str
    directory: Path
    register: Path
    backends: dict[str, Backend] = field(default_factory=dict)
    tables: dict[str, asyncio.subprocess.Process] = field(default_factory=dict)
    #: Each table's broker session when it came online.
    sessions: dict[str, int] = field(default_factory=dict)
    floor: asyncio.subprocess.Process | None = None


def table_env(table_id: str, register: Path, *, display: str = "off") -> dict[str, str]:
    return {
        **os.environ,
        "TABLE_CONTROLLER_SUPERVISORS": json.dumps({SUPERVISOR: ["backend"]}),
        "TABLE_CONTROLLER_COMMAND_SECRET": SECRETS[table_id],
        "TABLE_CONTROLLER_CONFIRM_RESULTS": "true",
        "TABLE_CONTROLLER_RESULT_CONFIRMERS": json.dumps({"camera-1": ["backend"]}),
        "TABLE_CONTROLLER_RESENDERS": json.dumps({"ingest": ["backend"]}),
        "TABLE_CONTROLLER_STAFF_REGISTER": str(register),
        "TABLE_CONTROLLER_DISPLAY": display,
        "TABLE_CONTROLLER_CURRENCY": "MOP",
        "TABLE_CONTROLLER_LIMITS": json.dumps(
            {
                "player": {"min": 300, "max": 30000},
                "banker": {"min": 300, "max": 30000},
                "tie": {"min": 100, "max": 3000},
            }
        ),
    }


@contextlib.asynccontextmanager
async def one_table(
    stack: FloorStack, broker: Mosquitto, table_id: str, *, display: str = "off"
) -> AsyncIterator[Backend]:
    """Table ``table_id`` (``commission``, RNG cards) and a signed backend that commands it."""
    root = f"{PREFIX}/{table_id}"
    endpoint = BrokerEndpoint.from_url(broker.url("backend"))
    async with Subscription(endpoint, [f"{root}/#"], client_id=f"test-{table_id}") as feed:
        await feed.wait_subscribed()
        backend = Backend(broker, feed, root, secret=SECRETS[table_id].encode())
        async with table_run(
            stack.directory / f"{table_id}.log",
            "--table-id", table_id, "--variant", "commission", "--card-source", "rng",
            "--broker", broker.url("backend"),
            "--journal", str(stack.directory / f"{table_id}.journal"),
            env=table_env(table_id, stack.register, display=display),
        ) as process:  # fmt: skip
            stack.tables[table_id] = process
            stack.backends[table_id] = backend
            stack.sessions[table_id] = await backend.wait_online()
            yield backend


async def wait_for_floor(url: str) -> None:
    async with aiohttp.ClientSession() as http, asyncio.timeout(30):
        while True:
            with contextlib.suppress(aiohttp.ClientError):
                async with http.get(f"{url}/api/session") as response:
                    if response.status == 200:
                        return
            await asyncio.sleep(0.05)


@contextlib.asynccontextmanager
async def floor_process(
    stack: FloorStack, broker: Mosquitto, database: str, *args: str, port: int | None = None
) -> AsyncIterator[asyncio.subprocess.Process]:
    """``table-controller floor`` on ``broker`` and ``database``; its log in the directory."""
    settings = stack.directory / "floor.toml"
    settings.write_text(SETTINGS, encoding="utf-8")
    secrets = stack.directory / "secrets.toml"
    secrets.write_text("".join(f'{t} = "{s}"\n' for t, s in SECRETS.items()), encoding="utf-8")
    port = port or int(stack.url.rsplit(":", 1)[1])
    with (stack.directory / "floor.log").open("ab") as log:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "table_controller", "floor",
            "--database", database, "--broker", broker.url("backend"),
            "--listen", f"127.0.0.1:{port}", "--staff-register", str(stack.register),
            "--settings", str(settings), "--command-secrets", str(secrets), *args,
            stdout=asyncio.subprocess.DEVNULL, stderr=log,
        )  # fmt: skip
    stack.floor = process
    try:
        await wait_for_floor(stack.url)
        yield process
    finally:
        await stop(process)


@contextlib.asynccontextmanager
async def floor_stack(
    directory: Path,
    broker: Mosquitto,
    database: str,
    tables: Sequence[str] = ("F1",),
    displays: Mapping[str, str] | None = None,
) -> AsyncIterator[FloorStack]:
    """Tables, an ingest worker into ``database`` and the floor, for the block.

    ``displays``: the dealer's display of a table, by table id (``HOST:PORT``); none otherwise.
    """
    register = write_register(directory / "staff.json")
    stack = FloorStack(
        url=f"http://localhost:{free_port()}", directory=directory, register=register
    )
    async with contextlib.AsyncExitStack() as started:
        await started.enter_async_context(
            ingest_process(directory / "ingest.log", broker, database, "--gap-wait", "2")
        )
        for table_id in tables:
            display = (displays or {}).get(table_id, "off")
            await started.enter_async_context(one_table(stack, broker, table_id, display=display))
        await started.enter_async_context(floor_process(stack, broker, database))
        yield stack


async def deal_rounds(backend: Backend, rounds: int, *, first: int = 1) -> None:
    """Deal ``rounds`` rounds, the camera agreeing with each result."""
    for number in range(first, first + rounds):
        await deal_round(backend, number, agrees=True)


async def deal_round(backend: Backend, round_no: int, *, agrees: bool) -> str:
    """Deal round ``round_no``, the camera agreeing with its result or not; the round's id."""
    assert (await backend.command("open_betting"))["ok"]
    assert (await backend.command("close_betting"))["ok"]
    prompt = await backend.until_event("prompt", action="confirm_result", round_no=round_no)
    round_id = str(prompt["round_id"])
    confirmed = await backend.command(
        "confirm_result", operator="camera-1", round_id=round_id, agrees=agrees
    )
    assert confirmed["ok"], confirmed
    return round_id


async def raise_alarm(backend: Backend, round_no: int) -> dict[str, Any]:
    """Deal a round whose cards the camera disputes: its ``result_not_confirmed`` alarm.

    The hold that comes with it is lifted (``acknowledge``); the alarm stays open.
    """
    round_id = await deal_round(backend, round_no, agrees=False)
    alarm = await backend.until_event("alarm", round_id=round_id)
    lifted = await backend.command("acknowledge", operator=SUPERVISOR, alarm="result_not_confirmed")
    assert lifted["ok"], lifted
    return alarm


async def new_shoe(backend: Backend, shoe_id: str) -> None:
    assert (await backend.command("new_shoe", shoe_id=shoe_id))["ok"]
    await backend.until_event("burn", done=True)


async def sign_in_dealer(backend: Backend, staff_id: str = "D-207") -> None:
    reply = await backend.command("sign_in", staff_id=staff_id, pin=STAFF[staff_id][2])
    assert reply["ok"], reply


def messages_of(received: Sequence[Any], kind: str) -> list[Mapping[str, Any]]:
    return [json.loads(m.payload) for m in received if m.topic.endswith(f"/events/{kind}")]


class FloorClient:
    """A browser's side of the floor's API, over HTTP: its session cookie and CSRF token.

    aiohttp's cookie jar sends no ``Secure`` cookie over plain HTTP (nor does a browser,
    but for ``localhost``): the cookie is carried here by hand, as a browser carries it.
    """

    def __init__(self, http: aiohttp.ClientSession, url: str) -> None:
        self.http = http
        self.url = url
        self.cookie: str | None = None
        self.csrf: str | None = None
        self.set_cookie: str | None = None

    def _headers(self, extra: Mapping[str, str] | None = None) -> dict[str, str]:
        headers = dict(extra or {})
        if self.cookie is not None:
            headers["Cookie"] = f"floor_session={self.cookie}"
        return headers

    def _take(self, response: aiohttp.ClientResponse) -> None:
        morsel = response.cookies.get("floor_session")
        if morsel is not None:
            self.cookie = morsel.value
            self.set_cookie = response.headers.get("Set-Cookie")

    async def get(self, path: str) -> tuple[int, dict[str, Any]]:
        async with self.http.get(f"{self.url}{path}", headers=self._headers()) as response:
            self._take(response)
            body: dict[str, Any] = await response.json()
            if path == "/api/session":
                self.csrf = body["csrf"]
            return response.status, body

    async def post(
        self, path: str, body: Mapping[str, Any], *, headers: Mapping[str, str] | None = None
    ) -> tuple[int, dict[str, Any]]:
        sent = {"X-CSRF-Token": self.csrf or ""} | dict(headers or {})
        async with self.http.post(
            f"{self.url}{path}", json=dict(body), headers=self._headers(sent)
        ) as response:
            self._take(response)
            answer: dict[str, Any] = await response.json()
            if response.status == 200 and "csrf" in answer:
                self.csrf = answer["csrf"]
            return response.status, answer

    async def sign_in(self, staff_id: str, pin: str) -> dict[str, Any]:
        await self.get("/api/session")
        status, body = await self.post("/api/sign-in", {"staff_id": staff_id, "pin": pin})
        assert status == 200, body
        return body

    async def until_floor(self, test: Any, timeout_s: float = 20) -> dict[str, Any]:
        async with asyncio.timeout(timeout_s):
            while True:
                status, view = await self.get("/api/floor")
                assert status == 200, view
                if test(view):
                    return view
                await asyncio.sleep(0.1)
