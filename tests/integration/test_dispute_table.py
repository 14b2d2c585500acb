# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Disputes and the second source at a real table: ``table-controller run`` over a real mosquitto.

A supervisor disputes a round, the table is killed with SIGKILL and started again on its
journal: the dispute still holds it until it is resolved. With ``confirm_results`` a camera
system's operator confirms each result over MQTT before it is published.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

from tests.mosquitto import Mosquitto
from tests.support.backend import Backend, listening
from tests.support.table_process import table_run

pytestmark = pytest.mark.broker

TABLE = "T5"
ROOT = f"baccarat/tables/{TABLE}"
SHOE = "S-D"


@asynccontextmanager
async def virtual_table(
    tmp_path: Path, broker: Mosquitto, *, confirm_results: bool = False
) -> AsyncIterator[Any]:
    """A virtual commission table whose supervisor is ``pit-1``, its journal in tmp."""
    env = {
        **os.environ,
        "TABLE_CONTROLLER_SUPERVISORS": json.dumps({"pit-1": ["backend"]}),
        "TABLE_CONTROLLER_CONFIRM_RESULTS": json.dumps(confirm_results),
        "TABLE_CONTROLLER_RESULT_CONFIRMERS": json.dumps({"camera-1": ["backend"]}),
    }
    async with table_run(
        tmp_path / "run.log",
        "--table-id", TABLE, "--variant", "commission", "--card-source", "rng",
        "--broker", broker.url("backend"), "--journal", str(tmp_path / "T5.journal"),
        "--display", "off",
        env=env,
    ) as process:  # fmt: skip
        yield process


async def deal_round(backend: Backend) -> None:
    """Open and close the betting: the virtual shoe deals the round."""
    assert (await backend.command("open_betting"))["ok"]
    assert (await backend.command("close_betting"))["ok"]


def latest_state(backend: Backend) -> dict[str, Any]:
    states = [m for m in backend.received if m.topic == f"{ROOT}/state"]
    assert states, "no state heard"
    state: dict[str, Any] = json.loads(states[-1].payload)
    return state


async def test_an_open_dispute_holds_the_table_across_a_kill_and_a_restart(
    tmp_path: Path, broker: Mosquitto
) -> None:
    async with listening(broker, ROOT, "backend-dispute") as backend:
        async with virtual_table(tmp_path, broker) as process:
            session = await backend.wait_online()
            assert (await backend.command("new_shoe", shoe_id=SHOE))["ok"]
            await backend.until_event("burn", done=True)
            for round_no in (1, 2):
                await deal_round(backend)
                await backend.until_result(f"{SHOE}-{round_no}")
            refused = await backend.command("dispute", reason="patron: banker had 7",
                                            rounds=[f"{SHOE}-1"])
            assert (refused["ok"], refused["error"]) == (False, "not_authorised")
            opened = await backend.command("dispute", operator="pit-1",
                                           reason="patron: banker had 7", rounds=[f"{SHOE}-1"])
            assert opened["ok"], opened
            assert opened["supervisor"] == "pit-1"
            event = await backend.until_event("dispute_opened")
            assert (event["dispute_id"], event["round_ids"], event["supervisor"]) == (
                f"{TABLE}-D0001", [f"{SHOE}-1"], "pit-1")
            held = await backend.command("open_betting")
            assert (held["ok"], held["error"]) == (False, "table_held")
            process.kill()  # no goodbye: the journal is all there is
            await process.wait()
        async with virtual_table(tmp_path, broker):
            await backend.wait_online(session)
            held = await backend.command("open_betting")
            assert (held["ok"], held["error"]) == (False, "table_held")
            state = latest_state(backend)
            assert state["phase"] == "held"
            assert state["holds"] == ["dispute"]
            assert state["dispute"]["dispute_id"] == f"{TABLE}-D0001"
            resolved = await backend.command("resolve_dispute", operator="pit-1",
                                             dispute_id=f"{TABLE}-D0001",
                                             outcome="video reviewed: the result stands")
            assert resolved["ok"], resolved
            ended = await backend.until_event("dispute_resolved")
            assert ended["outcome"] == "video reviewed: the result stands"
            await deal_round(backend)
            await backend.until_result(f"{SHOE}-3")
    opened_events = backend.messages("dispute_opened")
    assert len(opened_events) == 1  # the restart's replay did not publish it a second time


async def test_a_camera_system_confirms_each_result_before_it_is_published(
    tmp_path: Path, broker: Mosquitto
) -> None:
    async with (
        listening(broker, ROOT, "backend-camera") as backend,
        virtual_table(tmp_path, broker, confirm_results=True),
    ):
        await backend.wait_online()
        assert (await backend.command("new_shoe", shoe_id=SHOE))["ok"]
        await backend.until_event("burn", done=True)
        await deal_round(backend)
        await backend.until_event("prompt", action="confirm_result")
        assert backend.messages("round_result") == []
        refused = await backend.command("open_betting")
        assert (refused["ok"], refused["error"]) == (False, "result_unconfirmed")
        stranger = await backend.command("confirm_result", operator="backend",
                                         round_id=f"{SHOE}-1", agrees=True)
        assert (stranger["ok"], stranger["error"]) == (False, "not_authorised")
        confirmed = await backend.command("confirm_result", operator="camera-1",
                                          round_id=f"{SHOE}-1", agrees=True)
        assert confirmed["ok"], confirmed
        await backend.until_result(f"{SHOE}-1")
        await deal_round(backend)
        await backend.until_event("prompt", action="confirm_result", round_no=2)
        differs = await backend.command("confirm_result", operator="camera-1",
                                        round_id=f"{SHOE}-2", agrees=False)
        assert differs["ok"], differs
        alarm = await backend.until_event("alarm", code="result_not_confirmed")
        assert alarm["round_id"] == f"{SHOE}-2"
        assert f"{SHOE}-2" not in {e["round_id"] for e in backend.messages("round_result")}
        voided = await backend.command("void_round", operator="pit-1", round_id=f"{SHOE}-2")
        assert voided["ok"], voided
        await backend.until_event("round_voided", round_id=f"{SHOE}-2")
        types = [e["type"] for e in backend.events()]
        result_at = max(i for i, e in enumerate(backend.events())
                        if e["type"] == "round_result" and e["round_id"] == f"{SHOE}-2")
        assert types.index("round_voided") > result_at  # the result as read, then the void
