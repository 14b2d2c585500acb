# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor over HTTP against real tables, a real broker, the real ingest and its database.

Each test runs ``table-controller run`` tables (signed mode, a staff register), an ingest
worker and ``table-controller floor`` as processes (``tests/floor/harness.py``), and speaks to
the floor as a browser's script does: its session cookie, its CSRF token, JSON bodies.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from tests.floor.harness import (
    SUPERVISOR,
    SUPERVISOR_PIN,
    VIEWER,
    VIEWER_PIN,
    FloorClient,
    floor_process,
    floor_stack,
    new_shoe,
    raise_alarm,
    sign_in_dealer,
)
from tests.mosquitto import Mosquitto
from tests.support.postgres import Postgres, psql

pytestmark = pytest.mark.broker


def acknowledge_path(table_id: str, alarm_id: str) -> str:
    return f"/api/tables/{table_id}/alarms/{alarm_id}/acknowledge"


async def until_page(
    client: FloorClient, table_id: str, test: Any, timeout_s: float = 20
) -> dict[str, Any]:
    async with asyncio.timeout(timeout_s):
        while True:
            status, page = await client.get(f"/api/tables/{table_id}")
            if status == 200 and test(page):
                return page
            await asyncio.sleep(0.2)


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_sign_in_roles_csrf_and_an_acknowledgement_that_reaches_the_table(
    tmp_path: Path, broker: Mosquitto, database_url: str
) -> None:
    async with (
        floor_stack(tmp_path, broker, database_url) as stack,
        aiohttp.ClientSession() as http,
    ):
        backend = stack.backends["F1"]
        await sign_in_dealer(backend)
        await new_shoe(backend, "S-1")
        alarm = await raise_alarm(backend, 1)

        anonymous = FloorClient(http, stack.url)
        assert (await anonymous.get("/api/floor"))[0] == 401
        await anonymous.get("/api/session")
        cookie = str(anonymous.set_cookie)
        assert "Secure" in cookie
        assert "HttpOnly" in cookie
        assert "SameSite=Strict" in cookie
        # No token, a wrong one, a wrong PIN: refused, nobody signed in.
        status, body = await anonymous.post(
            "/api/sign-in", {"staff_id": VIEWER, "pin": VIEWER_PIN}, headers={"X-CSRF-Token": ""}
        )
        assert (status, body["error"]) == (403, "csrf")
        status, body = await anonymous.post("/api/sign-in", {"staff_id": VIEWER, "pin": "0000"})
        assert (status, body["error"]) == (403, "wrong_pin")

        viewer = FloorClient(http, stack.url)
        assert (await viewer.sign_in(VIEWER, VIEWER_PIN))["role"] == "viewer"
        view = await viewer.until_floor(lambda v: v["alarms"])
        assert [a["alarm_id"] for a in view["alarms"]] == [alarm["alarm_id"]]
        tile = view["tiles"]["F1"]
        assert (tile["online"], tile["dealer"], tile["shoe_id"], tile["area"]) == (
            True,
            "D-207",
            "S-1",
            "Pit A",
        )
        status, body = await viewer.post(acknowledge_path("F1", alarm["alarm_id"]), {})
        assert (status, body["error"]) == (403, "not_authorised")

        supervisor = FloorClient(http, stack.url)
        await supervisor.sign_in(SUPERVISOR, SUPERVISOR_PIN)
        path = acknowledge_path("F1", alarm["alarm_id"])
        status, body = await supervisor.post(path, {}, headers={"X-CSRF-Token": "forged"})
        assert (status, body["error"]) == (403, "csrf")
        status, body = await supervisor.post(path, {}, headers={"Origin": "http://evil.example"})
        assert (status, body["error"]) == (403, "foreign_origin")
        assert backend.messages("alarm_acknowledged") == []

        status, body = await supervisor.post(path, {"comment": "camera checked"})
        assert (status, body["ok"], body["supervisor"]) == (200, True, SUPERVISOR), body
        event = await backend.until_event("alarm_acknowledged", alarm_id=alarm["alarm_id"])
        assert (event["supervisor"], event["comment"]) == (SUPERVISOR, "camera checked")
        await viewer.until_floor(lambda v: not v["alarms"] and not v["tiles"]["F1"]["alarms"])
        status, body = await supervisor.post(path, {})
        assert (status, body["error"]) == (409, "already_acknowledged")

        page = await until_page(
            viewer, "F1", lambda p: p["history"]["alarms"][0]["acknowledged"] is not None
        )
        acknowledged = page["history"]["alarms"][0]
        assert acknowledged["alarm_id"] == alarm["alarm_id"]
        assert acknowledged["acknowledged"]["supervisor"] == SUPERVISOR
        assert acknowledged["acknowledged"]["comment"] == "camera checked"
        assert page["history"]["stints"][0]["dealer"] == "D-207"
        assert page["history"]["rounds"][0]["round_id"] == "S-1-1"

        status, body = await viewer.get("/api/tables/NOPE")
        assert (status, body["error"]) == (404, "unknown_table")
        assert (await viewer.post("/api/sign-out", {}))[0] == 200
        assert (await viewer.get("/api/floor"))[1]["error"] == "signed_out"


@pytest.mark.parametrize("database_url", ["sqlite"], indirect=True)
async def test_wrong_pins_lock_and_a_restart_ends_the_sessions(
    tmp_path: Path, broker: Mosquitto, database_url: str
) -> None:
    async with (
        floor_stack(tmp_path, broker, database_url, tables=()) as stack,
        aiohttp.ClientSession() as http,
    ):
        guesser = FloorClient(http, stack.url)
        await guesser.get("/api/session")
        for _ in range(5):
            status, body = await guesser.post("/api/sign-in", {"staff_id": SUPERVISOR, "pin": "1"})
            assert body["error"] == "wrong_pin"
        status, body = await guesser.post(
            "/api/sign-in", {"staff_id": SUPERVISOR, "pin": SUPERVISOR_PIN}
        )
        assert (status, body["error"]) == (429, "pin_locked")
        assert 0 < body["retry_s"] <= 60

        signed = FloorClient(http, stack.url)
        await signed.sign_in(VIEWER, VIEWER_PIN)
        assert stack.floor is not None
        stack.floor.terminate()
        await stack.floor.wait()
        async with floor_process(stack, broker, database_url):
            status, body = await signed.get("/api/floor")
            assert (status, body["error"]) == (401, "session_ended")
            status, body = await signed.get("/api/session")
            assert body["ended"] is True
            await signed.sign_in(VIEWER, VIEWER_PIN)
            assert (await signed.get("/api/floor"))[0] == 200


@pytest.mark.parametrize("database_url", ["postgresql"], indirect=True)
async def test_a_database_and_a_broker_that_go_away_are_said_and_recovered_from(
    tmp_path: Path, broker: Mosquitto, database_url: str, postgres_server: Postgres
) -> None:
    name = database_url.rsplit("/", 1)[1]
    async with (
        floor_stack(tmp_path, broker, database_url) as stack,
        aiohttp.ClientSession() as http,
    ):
        client = FloorClient(http, stack.url)
        await client.sign_in(VIEWER, VIEWER_PIN)
        await until_page(client, "F1", lambda p: p["history"] is not None)

        psql(postgres_server, f"ALTER DATABASE {name} ALLOW_CONNECTIONS false")
        psql(
            postgres_server,
            f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{name}'",
        )
        page = await until_page(client, "F1", lambda p: p["problem"] is not None)
        assert page["problem"].startswith("database unavailable: ")
        assert page["tile"]["online"] is True  # the live part goes on
        view = await client.until_floor(lambda v: v["problems"]["database"] is not None)
        assert "\n" not in view["problems"]["database"]
        psql(postgres_server, f"ALTER DATABASE {name} ALLOW_CONNECTIONS true")
        await client.until_floor(lambda v: v["problems"]["database"] is None, timeout_s=30)
        await until_page(client, "F1", lambda p: p["history"] is not None)

        broker.stop()
        view = await client.until_floor(lambda v: v["problems"]["broker"] is not None)
        assert view["problems"]["broker"].startswith("broker unreachable: ")
        broker.start()
        await client.until_floor(lambda v: v["problems"]["broker"] is None, timeout_s=30)
        backend = stack.backends["F1"]
        await backend.wait_online(stack.sessions["F1"])
        await new_shoe(backend, "S-after")
        await client.until_floor(lambda v: v["tiles"]["F1"]["shoe_id"] == "S-after")
    log = (tmp_path / "floor.log").read_text(encoding="utf-8")
    assert "floor database unavailable" in log
    assert "floor database back" in log
    assert "floor broker unavailable" in log
    assert "floor broker back" in log
