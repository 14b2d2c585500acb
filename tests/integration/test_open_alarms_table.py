# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Open alarms at a real table: ``table-controller run`` in signed mode over a real mosquitto.

A camera system says the cards of two rounds differ from the shoe's reading: two alarms, open
until a supervisor acknowledges them. Only a signed ``acknowledge_alarm`` from an authorised
supervisor is carried out; it is published, journaled, and after a SIGKILL the journal's
replay gives the same open and acknowledged alarms. The dealer's ``call_supervisor`` is such
an alarm, taken unsigned from any operator, one open call at a time, across a kill too.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, Final

import pytest

from table_controller.runtime.journal.journal import Journal
from tests.mosquitto import Mosquitto
from tests.support.backend import Backend, listening
from tests.support.table_process import table_run

pytestmark = pytest.mark.broker

TABLE: Final = "T6"
ROOT: Final = f"baccarat/tables/{TABLE}"
SHOE: Final = "S-A"
SECRET: Final = "table-T6-command-secret-0123456789"


@asynccontextmanager
async def signed_table(tmp_path: Path, broker: Mosquitto) -> AsyncIterator[Any]:
    """A virtual table in signed mode whose results a camera confirms; its supervisor ``pit-1``."""
    env = {
        **os.environ,
        "TABLE_CONTROLLER_SUPERVISORS": json.dumps({"pit-1": ["backend"]}),
        "TABLE_CONTROLLER_COMMAND_SECRET": SECRET,
        "TABLE_CONTROLLER_CONFIRM_RESULTS": "true",
        "TABLE_CONTROLLER_RESULT_CONFIRMERS": json.dumps({"camera-1": ["backend"]}),
    }
    async with table_run(
        tmp_path / "run.log",
        "--table-id", TABLE, "--variant", "commission", "--card-source", "rng",
        "--broker", broker.url("backend"), "--journal", str(tmp_path / f"{TABLE}.journal"),
        "--display", "off",
        env=env,
    ) as process:  # fmt: skip
        yield process


async def a_round_the_camera_disputes(backend: Backend, round_no: int) -> dict[str, Any]:
    """Deal a round; the camera says its cards differ: the alarm raised."""
    assert (await backend.command("open_betting"))["ok"]
    assert (await backend.command("close_betting"))["ok"]
    await backend.until_event("prompt", action="confirm_result", round_no=round_no)
    differs = await backend.command(
        "confirm_result", operator="camera-1", round_id=f"{SHOE}-{round_no}", agrees=False
    )
    assert differs["ok"], differs
    return await backend.until_event("alarm", round_id=f"{SHOE}-{round_no}")


async def until_state(
    backend: Backend, after: dict[str, Any], wanted: Callable[[dict[str, Any]], bool]
) -> None:
    """Wait until the table publishes, after the message ``after``, a ``state`` ``wanted``."""
    scanned = 0
    while True:
        for message in backend.received[scanned:]:
            if message.topic == f"{ROOT}/state":
                state = json.loads(message.payload)
                if state["seq"] > after["seq"] and wanted(state):
                    return
        scanned = len(backend.received)
        backend.received.append(await backend.feed.get())


def open_ids(state: dict[str, Any]) -> list[str]:
    return [alarm["alarm_id"] for alarm in state["open_alarms"]]


async def test_a_signed_acknowledgement_closes_an_alarm_and_outlives_a_kill(
    tmp_path: Path, broker: Mosquitto
) -> None:
    async with listening(broker, ROOT, "backend-alarms") as backend:
        backend.secret = SECRET.encode()  # every command signed, as the pit's system signs
        async with signed_table(tmp_path, broker) as process:
            session = await backend.wait_online()
            assert (await backend.command("new_shoe", shoe_id=SHOE))["ok"]
            await backend.until_event("burn", done=True)
            first = await a_round_the_camera_disputes(backend, 1)
            assert (first["alarm_id"], first["code"]) == (
                f"{TABLE}-A000001", "result_not_confirmed")
            lifted = await backend.command("acknowledge", operator="pit-1",
                                           alarm="result_not_confirmed")
            assert lifted["ok"], lifted  # the hold is lifted; the alarm stays open
            second = await a_round_the_camera_disputes(backend, 2)
            assert second["alarm_id"] == f"{TABLE}-A000002"
            await until_state(backend, second, lambda state: open_ids(state) == [
                second["alarm_id"], first["alarm_id"]])

            # Refused: a backend that is no supervisor, and a supervisor's unsigned command.
            stranger = await backend.command("acknowledge_alarm", alarm_id=first["alarm_id"])
            assert (stranger["ok"], stranger["error"]) == (False, "not_authorised")
            unsigned = await backend.send({
                "id": "unsigned-1", "command": "acknowledge_alarm", "operator": "pit-1",
                "args": {"alarm_id": first["alarm_id"]},
            })
            assert (unsigned["ok"], unsigned["error"]) == (False, "bad_signature")
            assert backend.messages("alarm_acknowledged") == []

            done = await backend.command("acknowledge_alarm", operator="pit-1",
                                         alarm_id=first["alarm_id"], comment="video checked")
            assert (done["ok"], done["supervisor"]) == (True, "pit-1"), done
            event = await backend.until_event("alarm_acknowledged")
            assert {key: event[key] for key in ("alarm_id", "code", "comment", "supervisor")} == {
                "alarm_id": first["alarm_id"], "code": "result_not_confirmed",
                "comment": "video checked", "supervisor": "pit-1",
            }
            await until_state(backend, done, lambda state: (
                open_ids(state), state["open_alarm_count"]) == ([second["alarm_id"]], 1))
            process.kill()  # no goodbye: the journal is all there is
            await process.wait()

        async with signed_table(tmp_path, broker):  # the replay rebuilds what is open
            await backend.wait_online(session)
            again = await backend.command("acknowledge_alarm", operator="pit-1",
                                          alarm_id=first["alarm_id"])
            assert (again["ok"], again["error"]) == (False, "already_acknowledged")
            unknown = await backend.command("acknowledge_alarm", operator="pit-1",
                                            alarm_id=f"{TABLE}-A000003")
            assert (unknown["ok"], unknown["error"]) == (False, "unknown_alarm")
            last = await backend.command("acknowledge_alarm", operator="pit-1",
                                         alarm_id=second["alarm_id"])
            assert last["ok"], last
            await until_state(backend, last, lambda state: state["open_alarm_count"] == 0)
            await backend.until_event("alarm_acknowledged", alarm_id=second["alarm_id"])

    acknowledged = backend.messages("alarm_acknowledged")
    assert [event["alarm_id"] for event in acknowledged] == [
        first["alarm_id"], second["alarm_id"]]  # the replay published none again
    with Journal.open_read_only(tmp_path / f"{TABLE}.journal") as journal:
        rows = [row.payload for row in journal.rows()]
    taken = [row for row in rows if row.get("command") == "acknowledge_alarm"]
    assert [(row["args"], row["supervisor"]) for row in taken] == [
        ({"alarm_id": first["alarm_id"], "comment": "video checked"}, "pit-1"),
        ({"alarm_id": first["alarm_id"]}, "pit-1"),  # refused by the procedure: still an input
        ({"alarm_id": f"{TABLE}-A000003"}, "pit-1"),
        ({"alarm_id": second["alarm_id"]}, "pit-1"),
    ]


async def test_a_call_for_a_supervisor_stays_open_until_acknowledged_and_outlives_a_kill(
    tmp_path: Path, broker: Mosquitto
) -> None:
    async with listening(broker, ROOT, "backend-calls") as backend:
        backend.secret = SECRET.encode()  # the supervisor's acknowledgements are signed
        async with signed_table(tmp_path, broker) as process:
            session = await backend.wait_online()
            assert (await backend.command("new_shoe", shoe_id=SHOE))["ok"]
            await backend.until_event("burn", done=True)
            call = {"command": "call_supervisor", "operator": "dealer-7", "args": {}}
            taken = await backend.send({"id": "call-1", **call})  # no supervisor's, no signature
            assert taken["ok"], taken
            called = await backend.until_event("alarm", alarm_id=f"{TABLE}-A000001")
            assert (called["code"], called["shoe_id"]) == ("supervisor_called", SHOE)
            assert "dealer-7" in called["message"]
            await until_state(backend, called, lambda state: (
                open_ids(state), state["holds"]) == ([called["alarm_id"]], []))
            again = await backend.send({"id": "call-2", **call})
            assert (again["ok"], again["error"]) == (False, "already_called")
            assert called["alarm_id"] in again["message"]
            assert (await backend.command("open_betting"))["ok"]  # the call holds nothing
            process.kill()
            await process.wait()

        async with signed_table(tmp_path, broker):  # the replay keeps the call open
            await backend.wait_online(session)
            still = await backend.send({"id": "call-3", **call})
            assert (still["ok"], still["error"]) == (False, "already_called")
            done = await backend.command("acknowledge_alarm", operator="pit-1",
                                         alarm_id=called["alarm_id"], comment="at the table")
            assert done["ok"], done
            event = await backend.until_event("alarm_acknowledged", alarm_id=called["alarm_id"])
            assert (event["code"], event["supervisor"]) == ("supervisor_called", "pit-1")
            next_call = await backend.send({"id": "call-4", **call})
            assert next_call["ok"], next_call
            second = await backend.until_event("alarm", alarm_id=f"{TABLE}-A000002")
            assert second["code"] == "supervisor_called"

    with Journal.open_read_only(tmp_path / f"{TABLE}.journal") as journal:
        rows = [row.payload for row in journal.rows()]
    calls = [row["id"] for row in rows if row.get("command") == "call_supervisor"]
    assert calls == ["call-1", "call-2", "call-3", "call-4"]  # refused ones are inputs too
