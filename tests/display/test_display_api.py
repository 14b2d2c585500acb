# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The display's HTTP side against a real server on 127.0.0.1: page, state, events, commands."""

from __future__ import annotations

import asyncio
import json
import logging
import re
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from structlog.testing import capture_logs

from table_controller.contract.errors import CommandErrorCode
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.contract.payloads.board import AskMarks, Roads
from table_controller.ingress.parsing import CommandRejection, parse_command
from table_controller.rules.roads import Scoreboard
from table_controller.screens.dealer.app import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    MAX_BODY_BYTES,
    STATIC_DIRS,
    DisplayFeeds,
    DisplayServer,
)
from table_controller.screens.pin_lockout import (
    CLIENT_FAILURES_FACTOR,
    MAX_PIN_FAILURES,
    PIN_LOCKOUT_S,
)
from table_controller.screens.web.event_streams import STREAM_BACKLOG
from table_controller.screens.web.event_streams import EventStream as QueuedStream
from table_controller.staff.desk import StaffDesk
from table_controller.staff.register import default_hasher
from tests.display.display_harness import PIN, Table, running_table
from tests.display.texts import in_words
from tests.support.chromium import chromium_or_skip
from tests.support.event_stream import EventStream
from tests.support.staff import STAFF, cheap_hasher, write_register


@pytest.fixture
async def table(tmp_path: Path) -> AsyncIterator[Table]:
    async with running_table(tmp_path, heartbeat_s=0.2) as running:
        yield running


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=10)) as session:
        yield session


async def post(
    http: aiohttp.ClientSession, table: Table, body: object, **headers: str
) -> tuple[int, dict[str, object]]:
    async with http.post(
        table.display.url + "api/commands", json=body, headers=headers
    ) as response:
        return response.status, await response.json()


def operators(table: Table) -> list[object]:
    return [row.payload.get("operator") for row in table.journal.rows() if "command" in row.payload]


# --- the page ----------------------------------------------------------------------------


async def test_the_page_and_its_assets_are_served_from_the_package_only(
    table: Table, http: aiohttp.ClientSession
) -> None:
    async with http.get(table.display.url) as response:
        assert response.status == 200
        assert response.content_type == "text/html"
        page = await response.text()
        policy = response.headers["Content-Security-Policy"]
    assert "default-src 'none'" in policy
    assert "connect-src 'self'" in policy
    for asset, kind in (("display.css", "text/css"), ("display.js", "text/javascript")):
        assert f"/static/{asset}" in page
        async with http.get(table.display.url + f"static/{asset}") as response:
            assert response.status == 200
            assert response.content_type in {kind, "application/javascript"}
    # Nothing from the internet: no absolute URL, no protocol-relative one, no @import.
    for path in (path for directory in STATIC_DIRS for path in directory.iterdir()):
        text = path.read_text(encoding="utf-8")
        assert not re.search(r"(https?:)?//[a-z0-9.-]+\.[a-z]{2,}", text, re.IGNORECASE), path
        assert "@import" not in text
    async with http.get(table.display.url + "static/../web.py") as response:
        assert response.status in {403, 404}
    async with http.get(table.display.url + "static/%2e%2e/web.py") as response:
        assert response.status in {403, 404}


async def test_the_display_binds_to_localhost_by_default(table: Table) -> None:
    procedure = table.service.procedure
    display = DisplayServer(table.service, DisplayFeeds(procedure, variant=procedure.variant))
    assert (display.host, display.port) == (DEFAULT_HOST, DEFAULT_PORT) == ("127.0.0.1", 8080)
    assert display.url == "http://127.0.0.1:8080/"
    assert table.display.host == "127.0.0.1"
    assert table.display.port != 0  # the bound port replaces 0


# --- state and events --------------------------------------------------------------------


async def test_api_state_is_the_current_snapshot_with_roads_and_prompt(
    table: Table, http: aiohttp.ClientSession
) -> None:
    assert (await table.command("new_shoe", shoe_id="S-9"))["ok"]
    first = await table.next_card()
    async with http.get(table.display.url + "api/state") as response:
        view = await response.json()
    assert view["table"]["state"] == table.state
    assert view["table"]["state"]["shoe_id"] == "S-9"
    from table_controller.rules.cards import Card  # noqa: PLC0415

    assert in_words(view["table"]["prompt"]["text"]) == f"BURN {Card.parse(first).burn_count}"
    assert view["roads"]["shoe_id"] == "S-9"
    assert view["roads"]["bead_plate"] == []
    assert view["seq"] > 0


async def test_events_start_with_the_whole_view_then_follow_the_table(
    table: Table, http: aiohttp.ClientSession
) -> None:
    async with http.get(table.display.url + "api/events") as response:
        assert response.headers["Content-Type"].startswith("text/event-stream")
        stream = EventStream(response)
        view = await stream.until("view")
        assert view["data"]["table"]["state"]["phase"] == "no_shoe"
        assert view["data"]["heartbeat_ms"] == 200
        assert (await table.command("new_shoe"))["ok"]
        roads = await stream.until("roads")
        table_event = await stream.until("table")
        assert table_event["data"]["state"]["phase"] == "burn_card"
        assert table_event["data"]["prompt"]["text"] == {"key": "display.prompt.burn"}
        assert int(str(table_event["id"])) > int(str(roads["id"])) > int(str(view["id"]))
        await stream.until("heartbeat")  # an idle stream still says it is alive


async def test_a_reconnecting_page_gets_the_fresh_state_first(
    table: Table, http: aiohttp.ClientSession
) -> None:
    async with http.get(table.display.url + "api/events") as response:
        last_id = (await EventStream(response).until("view"))["id"]
    assert (await table.command("new_shoe"))["ok"]
    await table.next_card()
    headers = {"Last-Event-ID": str(last_id)}
    async with http.get(table.display.url + "api/events", headers=headers) as response:
        view = await EventStream(response).until("view")
    assert view["data"]["table"]["state"] == table.state
    assert int(str(view["id"])) > int(str(last_id))


async def test_stopping_with_open_streams_is_prompt(
    table: Table, http: aiohttp.ClientSession
) -> None:
    responses = [await http.get(table.display.url + "api/events") for _ in range(3)]
    try:
        for response in responses:
            await EventStream(response).until("view")
        assert table.display.open_streams == 3
        started = time.perf_counter()
        await table.display.stop()
        assert time.perf_counter() - started < 1.5  # not aiohttp's 60 s wait for open streams
        assert table.display.open_streams == 0
        for response in responses:  # each stream was ended, not left hanging
            async with asyncio.timeout(2):
                while await response.content.readany():
                    pass
    finally:
        for response in responses:
            response.release()


async def test_a_page_that_goes_away_is_forgotten(
    table: Table, http: aiohttp.ClientSession, caplog: pytest.LogCaptureFixture
) -> None:
    response = await http.get(table.display.url + "api/events")
    await EventStream(response).until("view")
    assert table.display.open_streams == 1
    response.close()  # the browser tab is closed
    async with asyncio.timeout(5):
        while table.display.open_streams:  # noqa: ASYNC110 - found at the next write
            await asyncio.sleep(0.05)
    assert (await table.command("new_shoe"))["ok"]
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


def test_a_stream_too_far_behind_is_cut_off() -> None:
    stream = QueuedStream()
    for seq in range(STREAM_BACKLOG):
        assert stream.push(seq, "table", "{}")
    assert not stream.closing
    assert not stream.push(STREAM_BACKLOG, "table", "{}")
    assert stream.closing
    assert stream.wake.is_set()
    assert stream.push(STREAM_BACKLOG + 1, "table", "{}")  # ending: takes nothing more
    assert len(stream.pending) == STREAM_BACKLOG


async def test_a_message_the_display_cannot_show_never_reaches_the_table(table: Table) -> None:
    unpublishable: Any = [object()]  # not JSON: to_wire raises
    no_marks = AskMarks(big_eye_boy=None, small_road=None, cockroach_pig=None)
    roads = Roads(
        shoe_id="S-1",
        bead_plate=unpublishable,
        big_road=[],
        big_eye_boy=[],
        small_road=[],
        cockroach_pig=[],
        ask_banker=no_marks,
        ask_player=no_marks,
        stats=Scoreboard().payload("S-1", None)["stats"],
    )
    broken = OutgoingMessage(key="x", payload=roads, ts="t")
    with capture_logs() as logs:
        table.display.feed.on_message(broken, live=True)  # must not raise into the service
    assert any(entry["event"] == "display could not show a message" for entry in logs)
    assert (await table.command("new_shoe"))["ok"]  # and the table goes on


# --- commands ---------------------------------------------------------------------------------


async def test_dealer_commands_are_carried_out_as_the_display(
    table: Table, http: aiohttp.ClientSession
) -> None:
    status, reply = await post(http, table, {"command": "new_shoe"})
    assert (status, reply["ok"]) == (200, True)
    assert str(reply["id"]).startswith("display-")
    while table.state["phase"] != "between_rounds":
        await table.next_card()
    status, reply = await post(http, table, {"command": "open_betting"})
    assert (status, reply["ok"], table.state["phase"]) == (200, True, "betting")
    status, reply = await post(http, table, {"command": "close_betting", "args": {}})
    assert (status, reply["ok"], table.state["phase"]) == (200, True, "dealing")
    assert operators(table) == ["display", "display", "display"]


async def test_a_command_the_table_refuses_comes_back_with_its_reason(
    table: Table, http: aiohttp.ClientSession
) -> None:
    status, reply = await post(http, table, {"command": "open_betting"})
    assert status == 409
    assert reply["ok"] is False
    assert reply["error"] == "wrong_phase"
    assert "open_betting" in str(reply["message"])


async def test_supervisor_commands_need_the_configured_pin(
    table: Table, http: aiohttp.ClientSession
) -> None:
    await table.command("new_shoe", shoe_id="S-1")
    head = table.journal.head[0]
    for body in (
        {"command": "void_shoe"},
        {"command": "void_shoe", "pin": "000000"},
        {"command": "void_shoe", "pin": 246810},
        {"command": "void_shoe", "pin": ""},
    ):
        with capture_logs() as logs:
            status, reply = await post(http, table, body)
        assert status == 403
        assert reply["error"] == "wrong_pin"
        assert "PIN" in str(reply["message"])
        assert any("wrong PIN" in entry["event"] for entry in logs)
        assert all(PIN not in json.dumps(entry, default=str) for entry in logs)
    assert table.display.pin_refusals == 4
    assert table.journal.head[0] == head  # a refused PIN never reaches the core
    assert table.state["phase"] == "burn_card"
    status, reply = await post(http, table, {"command": "void_shoe", "pin": PIN})
    assert (status, reply["ok"]) == (200, True)
    assert table.state["phase"] == "shoe_over"
    assert operators(table)[-1] == "display-supervisor"


async def test_wrong_pins_in_a_row_lock_supervisor_commands_for_a_while(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    now = [1000.0]
    async with running_table(tmp_path, clock=lambda: now[0]) as table:
        await table.command("new_shoe")
        for attempt in range(MAX_PIN_FAILURES):
            status, reply = await post(http, table, {"command": "void_shoe", "pin": f"{attempt}"})
            assert (status, reply["error"]) == (403, "wrong_pin")
        status, reply = await post(http, table, {"command": "void_shoe", "pin": PIN})
        assert (status, reply["error"]) == (429, "pin_locked")  # even the right PIN, for now
        assert "try again" in str(reply["message"])
        now[0] += PIN_LOCKOUT_S
        status, reply = await post(http, table, {"command": "void_shoe", "pin": PIN})
        assert (status, reply["ok"]) == (200, True)
        assert table.display.pin_refusals == MAX_PIN_FAILURES + 1


async def void_shoe_as(
    http: aiohttp.ClientSession, table: Table, staff_id: str, pin: str
) -> tuple[int, dict[str, object]]:
    return await post(http, table, {"command": "void_shoe", "staff_id": staff_id, "pin": pin})


async def sign_in_as(
    http: aiohttp.ClientSession, table: Table, staff_id: str, pin: str
) -> tuple[int, dict[str, object]]:
    body = {"command": "sign_in", "args": {"staff_id": staff_id, "pin": pin}}
    return await post(http, table, body)


async def test_parallel_wrong_pins_cannot_outrun_a_supervisors_lockout(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    """Thirty-nine wrong PINs at once, then the right one: the shoe is not voided.

    S-9's PIN is hashed at the production cost, so each check takes a while as on the table;
    only ``MAX_PIN_FAILURES`` checks may be under way for one id, the rest are refused at once.
    """
    register = write_register(
        tmp_path / "staff.json", {"S-9": STAFF["S-9"]}, hasher=default_hasher()
    )
    async with running_table(tmp_path, staff=StaffDesk(register)) as table:
        await table.command("new_shoe")
        head = table.journal.head[0]
        guesses = [f"{n:04d}" for n in range(39)]
        assert STAFF["S-9"][2] not in guesses
        wrong = [asyncio.create_task(void_shoe_as(http, table, "S-9", pin)) for pin in guesses]
        for answered in asyncio.as_completed(wrong):  # until one is refused without a check
            if (await answered)[0] == 429:
                break
        right = await void_shoe_as(http, table, "S-9", STAFF["S-9"][2])
        answers = await asyncio.gather(*wrong)
        assert (right[0], right[1].get("error")) == (429, "pin_locked")
        codes = [(status, reply["error"]) for status, reply in answers]
        assert codes.count((403, "wrong_pin")) == MAX_PIN_FAILURES
        assert codes.count((429, "pin_locked")) == len(guesses) - MAX_PIN_FAILURES
        assert table.state["phase"] == "burn_card"
        assert table.journal.head[0] == head


async def test_a_dealers_right_pin_does_not_clear_a_supervisors_wrong_ones(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    desk = StaffDesk(write_register(tmp_path / "staff.json"), hasher=cheap_hasher())
    async with running_table(tmp_path, staff=desk) as table:
        await table.command("new_shoe")
        for guess in range(MAX_PIN_FAILURES - 1):
            status, reply = await void_shoe_as(http, table, "S-9", f"{guess:04d}")
            assert (status, reply["error"]) == (403, "wrong_pin")
        status, reply = await void_shoe_as(http, table, "D-104", STAFF["D-104"][2])
        assert (status, reply["error"]) == (403, "not_authorised")  # right PIN, not a supervisor
        status, reply = await void_shoe_as(http, table, "S-9", "0042")
        assert (status, reply["error"]) == (403, "wrong_pin")  # the last of a run: S-9 locked
        status, reply = await void_shoe_as(http, table, "S-9", STAFF["S-9"][2])
        assert (status, reply.get("error")) == (429, "pin_locked")
        assert table.state["phase"] == "burn_card"
        status, reply = await sign_in_as(http, table, "D-104", STAFF["D-104"][2])
        assert (status, reply["ok"]) == (200, True)  # the dealer is not locked


async def test_an_unknown_staff_id_locks_itself_and_nobody_else(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    desk = StaffDesk(write_register(tmp_path / "staff.json"), hasher=cheap_hasher())
    async with running_table(tmp_path, staff=desk) as table:
        for guess in range(MAX_PIN_FAILURES):
            status, reply = await sign_in_as(http, table, "X-404", f"{guess:04d}")
            assert (status, reply["error"]) == (403, "wrong_pin")
        # Locked as a known id would be, so a lockout tells nobody which ids exist.
        status, reply = await sign_in_as(http, table, "X-404", "1041")
        assert (status, reply["error"]) == (429, "pin_locked")
        status, reply = await sign_in_as(http, table, "D-104", STAFF["D-104"][2])
        assert (status, reply["ok"]) == (200, True)
        assert table.state["dealer"] == "D-104"
        await table.command("new_shoe")
        status, reply = await void_shoe_as(http, table, "S-9", STAFF["S-9"][2])
        assert (status, reply["ok"]) == (200, True)


async def test_a_client_trying_many_ids_is_locked_and_the_dealers_screen_is_not(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    """Another address misses a few times on each of many ids: that address is locked."""
    limit = MAX_PIN_FAILURES * CLIENT_FAILURES_FACTOR
    ids = [*STAFF, *(f"X-{n}" for n in range(limit))]
    spray = [
        (staff_id, f"{guess:04d}") for staff_id in ids for guess in range(MAX_PIN_FAILURES - 1)
    ]
    desk = StaffDesk(write_register(tmp_path / "staff.json"), hasher=cheap_hasher())
    elsewhere = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
    async with (
        running_table(tmp_path, staff=desk) as table,
        aiohttp.ClientSession(connector=elsewhere) as guesser,
    ):
        for staff_id, pin in spray[:limit]:
            status, reply = await sign_in_as(guesser, table, staff_id, pin)
            assert (status, reply["error"]) == (403, "wrong_pin")
        for staff_id, pin in (spray[limit], ("D-207", STAFF["D-207"][2])):
            status, reply = await sign_in_as(guesser, table, staff_id, pin)
            assert (status, reply["error"]) == (429, "pin_locked")
        assert table.state["dealer"] is None
        status, reply = await sign_in_as(http, table, "D-104", STAFF["D-104"][2])
        assert (status, reply["ok"]) == (200, True)  # from the dealer's own screen


async def test_without_a_configured_pin_supervisor_commands_are_disabled(
    tmp_path: Path, http: aiohttp.ClientSession
) -> None:
    async with running_table(tmp_path, pin=None) as table:
        await table.command("new_shoe")
        head = table.journal.head[0]
        status, reply = await post(http, table, {"command": "void_shoe", "pin": PIN})
        assert status == 403
        assert reply["error"] == "supervisor_disabled"
        assert table.journal.head[0] == head
        assert table.display.pin_refusals == 1
        status, _ = await post(http, table, {"command": "misdeal"})
        assert status == 409  # dealer commands still go through to the table (wrong phase)


@pytest.mark.parametrize(
    "case",
    [
        (b"{not json", {"Content-Type": "application/json"}, 400, "malformed_json"),
        (b"[1, 2]", {"Content-Type": "application/json"}, 400, "malformed_json"),
        (b'{"command": "launch"}', {"Content-Type": "application/json"}, 400, "unknown_command"),
        (b'{"command": 7}', {"Content-Type": "application/json"}, 400, "unknown_command"),
        (
            b'{"command": "new_shoe", "args": [1]}',
            {"Content-Type": "application/json"},
            400,
            "invalid_args",
        ),
        (
            b'{"command": "new_shoe", "args": {"colour": "red"}}',
            {"Content-Type": "application/json"},
            400,
            "invalid_args",
        ),
        (b'{"command": "new_shoe"}', {"Content-Type": "text/plain"}, 415, "not_json"),
        (
            b'{"command": "new_shoe"}',
            {"Content-Type": "application/json", "Origin": "http://evil.example"},
            403,
            "foreign_origin",
        ),
        (
            b'{"command": "new_shoe", "pad": "' + b"x" * MAX_BODY_BYTES + b'"}',
            {"Content-Type": "application/json"},
            413,
            "oversized",
        ),
        (b"\xff\xfe\x00", {"Content-Type": "application/json"}, 400, "malformed_json"),
        # Nested past the JSON decoder's recursion limit, inside the size limit.
        (b"[" * 2000 + b"]" * 2000, {"Content-Type": "application/json"}, 400, "malformed_json"),
        (
            b'{"command": "new_shoe", "args": ' + b"[" * 1500 + b"]" * 1500 + b"}",
            {"Content-Type": "application/json"},
            400,
            "malformed_json",
        ),
    ],
)
async def test_bad_requests_get_a_4xx_with_a_message_and_change_nothing(
    table: Table, http: aiohttp.ClientSession, case: tuple[bytes, dict[str, str], int, str]
) -> None:
    body, headers, status, error = case
    head = table.journal.head[0]
    async with http.post(
        table.display.url + "api/commands", data=body, headers=headers
    ) as response:
        assert response.status == status
        reply = await response.json()
    assert reply["ok"] is False
    assert reply["error"] == CommandErrorCode(error)
    assert reply["message"]
    assert table.journal.head[0] == head
    assert table.state["phase"] == "no_shoe"
    # The server is still there for the next request.
    async with http.get(table.display.url + "api/state") as response:
        assert response.status == 200


async def test_the_service_refuses_a_record_it_cannot_read_with_the_arguments_code(
    table: Table,
) -> None:
    head = table.journal.head[0]
    reply = await table.command("manual_card", card="ZZ")
    assert (reply["ok"], reply["error"]) == (False, CommandErrorCode.INVALID_ARGS)
    assert "card" in str(reply["message"])
    assert table.journal.head[0] == head


#: Arguments the contract refuses, per command (the same list goes over MQTT in tests/mqtt).
BAD_ARGS: list[tuple[str, object]] = [
    ("new_shoe", {"shoe_id": ""}),
    ("new_shoe", {"shoe_id": 42}),
    ("deal", {"now": True}),
    ("dropped_card", {"read": "true"}),
    ("dropped_card", {}),
    ("void_round", {}),
    ("void_round", {"round_id": 45}),
    ("manual_card", {"card": "ZZ"}),
    ("manual_card", {"card": "10H"}),
    ("correct_result", {"round_id": "S-1-1", "player": ["QH", "4S"]}),
    ("correct_result", {"round_id": "S-1-1", "player": "QH 4S", "banker": ["6C", "KD"]}),
    ("void_shoe", {"round_id": "S-1-2"}),
    ("new_shoe", ["S-1"]),
]


@pytest.mark.parametrize(("command", "args"), BAD_ARGS, ids=repr)
async def test_bad_arguments_get_the_code_and_message_they_get_over_mqtt(
    table: Table, http: aiohttp.ClientSession, command: str, args: object
) -> None:
    head = table.journal.head[0]
    status, reply = await post(http, table, {"command": command, "args": args, "pin": PIN})
    over_mqtt = parse_command(
        json.dumps({"id": "c-1", "command": command, "operator": "pit-1", "args": args}).encode()
    )
    assert isinstance(over_mqtt, CommandRejection)
    assert over_mqtt.code is CommandErrorCode.INVALID_ARGS
    assert status == 400
    assert (reply["ok"], reply["error"], reply["message"]) == (
        False,
        over_mqtt.code,
        over_mqtt.message,
    )
    assert table.journal.head[0] == head
    assert table.display.bad_requests == 1


def test_a_missing_chromium_is_skipped_locally_but_fails_in_ci(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    missing = tmp_path / "chromium"
    monkeypatch.delenv("CI", raising=False)
    with pytest.raises(pytest.skip.Exception):
        chromium_or_skip(missing)
    monkeypatch.setenv("CI", "true")
    with pytest.raises(pytest.fail.Exception, match="CI installs"):
        chromium_or_skip(missing)


async def test_texts_come_in_the_language_asked_else_the_screens_own(
    table: Table, http: aiohttp.ClientSession
) -> None:
    base = table.display.url
    async with http.get(f"{base}i18n/display.json?lang=zh-TW") as response:
        assert response.status == 200
        body = await response.json()
    assert body["lang"] == "zh-Hant"
    assert body["messages"]["game.banker"] == "莊"
    for asked in ("", "?lang=xx", "?lang=%00"):
        async with http.get(f"{base}i18n/display.json{asked}") as response:
            assert (await response.json())["lang"] == "en"
    async with http.get(f"{base}i18n/staff.json") as response:
        assert response.status == 404
