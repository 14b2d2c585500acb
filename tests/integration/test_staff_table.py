# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Staff at a real table: ``table-controller run`` with a staff register, over a real mosquitto.

The backend signs dealers in over MQTT (a wrong PIN refused, then locked out), changes dealer in
mid-shoe, voids a round as an authorised supervisor, restarts the table in the middle of a
stint, and checks every figure of the retained ``stats`` and of ``journal stats`` against
figures it works out itself from the events it received.
"""

from __future__ import annotations

import asyncio
import json
import statistics
from collections.abc import AsyncIterator, Mapping
from contextlib import asynccontextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from prometheus_client.metrics_core import Metric

from table_controller.screens.pin_lockout import CLIENT_FAILURES_FACTOR
from tests.mosquitto import Mosquitto
from tests.support.backend import Backend, listening
from tests.support.ports import free_port
from tests.support.staff import STAFF, write_register
from tests.support.table_process import scrape, table_controller, table_run

pytestmark = pytest.mark.broker

TABLE = "T9"
ROOT = f"baccarat/tables/{TABLE}"
SHOE = "S-A"


def pin(staff_id: str) -> str:
    return STAFF[staff_id][2]


@asynccontextmanager
async def staffed_table(
    tmp_path: Path, broker: Mosquitto, metrics_port: int, *, lockout_s: float = 2
) -> AsyncIterator[None]:
    """A virtual commission table that requires a dealer, its register and journal in tmp.

    Three wrong PINs in a row lock a staff id (twelve an operator) for ``lockout_s``.
    """
    env = {
        "TABLE_CONTROLLER_STAFF_REGISTER": str(tmp_path / "staff.json"),
        "TABLE_CONTROLLER_REQUIRE_DEALER": "true",
        "TABLE_CONTROLLER_SUPERVISORS": json.dumps({"pit-1": ["backend"]}),
        "TABLE_CONTROLLER_SIGN_IN_MAX_FAILURES": "3",
        "TABLE_CONTROLLER_SIGN_IN_LOCKOUT_SECONDS": str(lockout_s),
    }
    import os  # noqa: PLC0415 - the test's own environment, extended

    async with table_run(
        tmp_path / "run.log",
        "--table-id", TABLE, "--variant", "commission", "--card-source", "rng",
        "--broker", broker.url("backend"), "--journal", str(tmp_path / "T9.journal"),
        "--display", "off", "--metrics", f"127.0.0.1:{metrics_port}",
        env={**os.environ, **env},
    ):  # fmt: skip
        yield


async def play(backend: Backend, round_no: int) -> None:
    assert (await backend.command("open_betting"))["ok"]
    assert (await backend.command("close_betting"))["ok"]
    await backend.until_result(f"{SHOE}-{round_no}")


def seconds(ts: str) -> float:
    return datetime.fromisoformat(ts).timestamp()


def expected_figures(events: list[dict[str, Any]], start: float, end: float) -> dict[str, Any]:
    """Pace over [start, end] worked out from the events, as docs/mqtt-api.md defines it."""
    closed = {e["round_id"]: seconds(e["ts"]) for e in events if e["type"] == "betting_closed"}
    within = [e for e in events if start <= seconds(e["ts"]) <= end]
    results = [e for e in within if e["type"] == "round_result"]
    times = [seconds(e["ts"]) - closed[e["round_id"]] for e in results]
    gaps = []
    last_end = None
    for event in events:
        if event["type"] == "round_result" or (
            event["type"] == "round_voided" and not event["was_settled"]
        ):
            last_end = seconds(event["ts"])
        elif event["type"] == "betting_opened" and last_end is not None:
            if start <= seconds(event["ts"]) <= end:
                gaps.append(seconds(event["ts"]) - last_end)
            last_end = None
        elif event["type"] == "shoe_started":
            last_end = None
    voids = [e for e in within if e["type"] == "round_voided"]
    # Under a second, a rate means nothing: the table says none.
    rate = round(len(results) * 3600 / (end - start), 1) if end - start >= 1 else None
    return {
        "rounds": len(results),
        "rounds_per_hour": rate,
        "median_round_seconds": round(statistics.median(times), 3),
        "median_between_rounds_seconds": round(statistics.median(gaps), 3) if gaps else None,
        "voids": len(voids),
    }


def assert_figures(figures: dict[str, Any], expected: dict[str, Any]) -> None:
    for name, value in expected.items():
        if isinstance(value, float):
            assert figures[name] == pytest.approx(value, abs=0.051), name
        else:
            assert figures[name] == value, name


async def shift(tmp_path: Path, broker: Mosquitto) -> tuple[Backend, Mapping[str, Metric]]:
    """Sign-in refused, then locked, then right; two dealers, a void, a restart mid-stint.

    Returns what the backend heard and the table's metrics at the end.
    """
    metrics_port = free_port()
    async with listening(broker, ROOT, "backend-staff") as backend:
        async with staffed_table(tmp_path, broker, metrics_port):
            session = await backend.wait_online()
            refused = await backend.command("new_shoe", shoe_id=SHOE)
            assert (refused["ok"], refused["error"]) == (False, "no_dealer")
            for _ in range(3):
                wrong = await backend.command("sign_in", staff_id="D-104", pin="0000")
                assert (wrong["ok"], wrong["error"]) == (False, "wrong_pin")
            locked = await backend.command("sign_in", staff_id="D-104", pin=pin("D-104"))
            assert (locked["ok"], locked["error"]) == (False, "pin_locked")
            async with aiohttp.ClientSession() as http:
                counted = await scrape(http, f"http://127.0.0.1:{metrics_port}")
            refusals = counted["table_staff_wrong_pins"].samples
            assert [s.value for s in refusals if s.name.endswith("_total")] == [3.0]
            await asyncio.sleep(2.1)
            assert (await backend.command("sign_in", staff_id="D-104", pin=pin("D-104")))["ok"]
            assert (await backend.command("new_shoe", shoe_id=SHOE))["ok"]
            await backend.until_event("burn", done=True)  # the virtual table burns by itself
            for round_no in (1, 2, 3):
                await play(backend, round_no)
            await asyncio.sleep(1.2)  # a stint long enough for a rate: dealers take minutes
            assert (await backend.command("sign_in", staff_id="D-207", pin=pin("D-207")))["ok"]
            await asyncio.sleep(1.2)  # the second stint too lasts long enough for a rate
            for round_no in (4, 5):
                await play(backend, round_no)
            void = await backend.command("void_round", operator="pit-1", round_id=f"{SHOE}-4")
            assert (void["ok"], void["supervisor"]) == (True, "pit-1")
            await backend.until_odds(6)
        async with staffed_table(tmp_path, broker, metrics_port):  # a restart mid-stint
            await backend.wait_online(session)
            await play(backend, 6)
            await backend.until_odds(7)  # after the round's own messages, its stats included
            async with aiohttp.ClientSession() as http:
                families = await scrape(http, f"http://127.0.0.1:{metrics_port}")
    return backend, families


async def test_dealers_sign_in_change_and_survive_a_restart_with_their_figures(
    tmp_path: Path, broker: Mosquitto
) -> None:
    write_register(tmp_path / "staff.json")
    backend, metrics = await shift(tmp_path, broker)
    events = backend.events()
    logged = [e for e in events if e["type"] in ("staff_changed", "shoe_started", "round_result")]
    assert all("dealer" in event for event in events if event["type"] not in ("roads", "odds"))
    changes = [e for e in logged if e["type"] == "staff_changed"]
    assert [(c["dealer"], c["previous_dealer"]) for c in changes] == [
        ("D-104", None), ("D-207", "D-104")
    ]
    dealers = {e["round_id"]: e["dealer"] for e in logged if e["type"] == "round_result"}
    assert dealers == {f"{SHOE}-{n}": "D-104" if n <= 3 else "D-207" for n in range(1, 7)}
    voided = next(e for e in events if e["type"] == "round_voided")
    assert (voided["round_id"], voided["supervisor"], voided["dealer"]) == (
        f"{SHOE}-4", "pit-1", "D-207"
    )

    # The retained stats after the restart: D-207's stint began before it and goes on.
    stats_messages = [json.loads(m.payload) for m in backend.received if m.topic == f"{ROOT}/stats"]
    last = max(stats_messages, key=lambda message: message["seq"])
    assert last["dealer"] == "D-207"
    since = changes[1]["ts"]
    assert last["stint"]["since"] == since
    end = seconds(next(e for e in events if e.get("round_id") == f"{SHOE}-6"
                       and e["type"] == "round_result")["ts"])  # fmt: skip
    assert_figures(last["stint"], expected_figures(events, seconds(since), end))
    shoe_start = seconds(next(e for e in events if e["type"] == "shoe_started")["ts"])
    assert_figures(last["shoe"], expected_figures(events, shoe_start, end))
    # The same figures on /metrics, per span.
    for span in ("shoe", "stint", "last_hour"):
        for family, field in (("table_pace_rounds", "rounds"),
                              ("table_pace_rounds_per_hour", "rounds_per_hour"),
                              ("table_pace_median_round_seconds", "median_round_seconds")):
            samples = [s.value for s in metrics[family].samples if s.labels == {"span": span}]
            published = last[span][field]  # a figure the table does not know has no sample
            assert samples == ([] if published is None else [published]), (family, span)
        voids = [s.value for s in metrics["table_pace_events"].samples
                 if s.labels == {"span": span, "kind": "voids"}]  # fmt: skip
        assert voids == [last[span]["voids"]]

    # journal stats, from the journal alone, gives the same per dealer; a stint there lasts to
    # the journal's last input (the odds after round 6, the last message published).
    status, out, err = await table_controller(
        "journal", "stats", str(tmp_path / "T9.journal"), "--by", "dealer", "--json"
    )
    assert status == 0, err
    groups = {group["key"]: group for group in json.loads(out)["groups"]}
    journal_end = seconds(events[-1]["ts"])
    assert_figures(groups["D-207"], expected_figures(events, seconds(since), journal_end))
    first_stint = expected_figures(events, seconds(changes[0]["ts"]), seconds(since))
    assert_figures(groups["D-104"], first_stint)
    assert groups["-"]["rounds"] == 0  # before the first sign-in nothing was dealt


async def test_over_mqtt_an_unknown_id_locks_only_itself_and_an_operator_is_limited(
    tmp_path: Path, broker: Mosquitto
) -> None:
    write_register(tmp_path / "staff.json")
    async with (
        listening(broker, ROOT, "backend-staff") as backend,
        staffed_table(tmp_path, broker, free_port(), lockout_s=600),
    ):
        await backend.wait_online()
        for guess in ("0000", "0001", "0002"):
            wrong = await backend.command("sign_in", staff_id="X-404", pin=guess)
            assert (wrong["ok"], wrong["error"]) == (False, "wrong_pin")
        locked = await backend.command("sign_in", staff_id="X-404", pin="0003")
        assert (locked["ok"], locked["error"]) == (False, "pin_locked")  # as a known id
        assert (await backend.command("sign_in", staff_id="D-104", pin=pin("D-104")))["ok"]

        # An operator trying two PINs on each of many ids is locked; the others are not.
        for n in range(3 * CLIENT_FAILURES_FACTOR):
            wrong = await backend.command(
                "sign_in", operator="kiosk-9", staff_id=f"X-{n // 2}", pin="0000"
            )
            assert (wrong["ok"], wrong["error"]) == (False, "wrong_pin")
        right = {"staff_id": "D-207", "pin": pin("D-207")}
        locked = await backend.command("sign_in", operator="kiosk-9", **right)
        assert (locked["ok"], locked["error"]) == (False, "pin_locked")
        assert (await backend.command("sign_in", operator="kiosk-1", **right))["ok"]
