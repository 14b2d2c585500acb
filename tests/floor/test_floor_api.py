# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor over HTTP against real tables, a real broker, the real ingest and its database."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.floor.harness import (
    SUPERVISOR,
    SUPERVISOR_PIN,
    FloorClient,
    floor_stack,
    new_shoe,
    raise_alarm,
)
from tests.mosquitto import Mosquitto

pytestmark = pytest.mark.broker


async def signed_in(http: aiohttp.ClientSession, url: str, staff_id: str, pin: str) -> str:
    async with http.get(f"{url}/api/session") as response:
        csrf = (await response.json())["csrf"]
    async with http.post(
        f"{url}/api/sign-in",
        json={"staff_id": staff_id, "pin": pin},
        headers={"X-CSRF-Token": csrf},
    ) as response:
        body = await response.json()
        assert response.status == 200, body
        return str(body["csrf"])


async def until_floor(http: aiohttp.ClientSession, url: str, test: Any) -> dict[str, Any]:
    async with asyncio.timeout(20):
        while True:
            async with http.get(f"{url}/api/floor") as response:
                view: dict[str, Any] = await response.json()
            if test(view):
                return view
            await asyncio.sleep(0.1)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_smoke(tmp_path: Path, broker: Mosquitto, database_url: str) -> None:
    async with floor_stack(tmp_path, broker, database_url) as stack:
        async with aiohttp.ClientSession() as http:
            client = FloorClient(http, stack.url)
            await client.sign_in(SUPERVISOR, SUPERVISOR_PIN)
            backend = stack.backends["F1"]
            await new_shoe(backend, "S-1")
            alarm = await raise_alarm(backend, 1)
            view = await client.until_floor(lambda v: v["alarms"])
            assert view["alarms"][0]["alarm_id"] == alarm["alarm_id"]
            status, body = await client.post(
                f"/api/tables/F1/alarms/{alarm['alarm_id']}/acknowledge", {"comment": "seen"}
            )
            assert status == 200, body
            await client.until_floor(lambda v: not v["alarms"])
            status, page = await client.get("/api/tables/F1")
            print(page)
