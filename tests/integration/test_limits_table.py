# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Stake limits at a real table: ``table-controller run`` over a real mosquitto.

The limits come from a settings file and a variant file; ``<root>/limits`` is retained from the
start; a supervisor changes them between rounds of a shoe and is refused during a round; the
table is killed with SIGKILL and started again on its journal, and the changed limits are
still in force and published again. A broken limits setting stops the start with a message.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import aiohttp
import pytest

from table_controller.mqtt.client.subscriber import Subscription
from table_controller.mqtt.settings import BrokerEndpoint
from tests.mosquitto import Mosquitto
from tests.support.backend import Backend, listening
from tests.support.limits import CONFIGURED, SETTINGS, write_configuration
from tests.support.ports import free_port
from tests.support.table_process import table_controller, table_run

TABLE = "T6"
ROOT = f"baccarat/tables/{TABLE}"
SHOE = "S-L"
PIN = "2468"
@asynccontextmanager
async def limited_table(
    tmp_path: Path, broker: Mosquitto, settings: str = SETTINGS, display: str = "off"
) -> AsyncIterator[Any]:
    """A virtual commission table with limits configured, whose supervisor is ``pit-1``.

    On its display (``display``: an address, or off) the supervisor's PIN is :data:`PIN`.
    """
    env = {
        **os.environ,
        "TABLE_CONTROLLER_SUPERVISORS": json.dumps({"pit-1": ["backend"]}),
        "TABLE_CONTROLLER_DISPLAY_PIN": PIN,
    }
    async with table_run(
        tmp_path / "run.log",
        "--table-id", TABLE, "--variant", "commission", "--card-source", "rng",
        "--broker", broker.url("backend"), "--journal", str(tmp_path / "T6.journal"),
        "--display", display, *write_configuration(tmp_path, settings),
        env=env,
    ) as process:  # fmt: skip
        yield process


def limits_heard(backend: Backend) -> list[dict[str, Any]]:
    """Every ``<root>/limits`` message heard, in order."""
    return [json.loads(m.payload) for m in backend.received if m.topic == f"{ROOT}/limits"]


async def until_limits(backend: Backend, count: int) -> dict[str, Any]:
    """Wait until ``count`` limits messages were heard; the last."""
    async with asyncio.timeout(15):
        while len(limits_heard(backend)) < count:
            backend.received.append(await backend.feed.get())
    return limits_heard(backend)[-1]


async def retained_limits(broker: Mosquitto) -> dict[str, Any]:
    """What a subscriber arriving now gets on ``<root>/limits``: the retained message."""
    endpoint = BrokerEndpoint.from_url(broker.url("backend"))
    async with Subscription(endpoint, [f"{ROOT}/limits"], client_id="late-board") as feed:
        await feed.wait_subscribed()
        async with asyncio.timeout(10):
            message = await feed.get()
    assert message.retain
    retained: dict[str, Any] = json.loads(message.payload)
    return retained


@pytest.mark.broker
async def test_limits_are_retained_changed_between_rounds_and_survive_a_kill(
    tmp_path: Path, broker: Mosquitto
) -> None:
    async with listening(broker, ROOT, "backend-limits") as backend:
        async with limited_table(tmp_path, broker) as process:
            session = await backend.wait_online()
            first = await until_limits(backend, 1)
            assert (first["currency"], first["limits"]) == ("MOP", CONFIGURED)
            assert (first["operator"], first["supervisor"]) == (None, None)
            assert (first["schema"], first["table_id"]) == ("baccarat-table/1", TABLE)
            assert (await retained_limits(broker))["limits"] == CONFIGURED

            assert (await backend.command("new_shoe", shoe_id=SHOE))["ok"]
            await backend.until_event("burn", done=True)
            assert (await backend.command("open_betting"))["ok"]
            during = await backend.command("set_limits", operator="pit-1",
                                           limits={"banker": {"min": 1, "max": 2}})
            assert (during["ok"], during["error"]) == (False, "wrong_phase")
            assert (await backend.command("close_betting"))["ok"]
            await backend.until_result(f"{SHOE}-1")

            stranger = await backend.command("set_limits",
                                             limits={"banker": {"min": 1, "max": 2}})
            assert (stranger["ok"], stranger["error"]) == (False, "not_authorised")
            backwards = await backend.command("set_limits", operator="pit-1",
                                              limits={"tie": {"min": 500, "max": 100}})
            assert (backwards["ok"], backwards["error"]) == (False, "invalid_limits")
            # Amounts are patacas in avos (two decimals): a third, or a thousandth, is refused.
            for given, says in (("1/3", "'1/3' is a fraction"),
                                ("0.001", "0.001 is finer than its minor unit: MOP"),
                                (0.3333333333333333, "0.3333333333333333 is finer")):
                finer = await backend.command("set_limits", operator="pit-1",
                                              limits={"tie": {"min": given, "max": 100}})
                assert (finer["ok"], finer["error"]) == (False, "invalid_args"), finer
                assert says in finer["message"]
            changed = await backend.command(
                "set_limits", operator="pit-1",
                limits={"banker": {"min": 200, "max": "20000.50"}, "big": {"min": 5, "max": 50}})
            assert changed["ok"], changed
            assert changed["supervisor"] == "pit-1"
            new = await until_limits(backend, 2)
            expected = CONFIGURED | {"banker": {"min": 200, "max": 20000.5},
                                     "big": {"min": 5, "max": 50}}
            assert new["limits"] == expected
            assert (new["operator"], new["supervisor"]) == ("pit-1", "pit-1")
            assert list(new["limits"]) == ["player", "banker", "tie", "big"]  # the variant's order
            assert (await retained_limits(broker))["limits"] == expected
            process.kill()  # no goodbye: the journal is all there is
            await process.wait()
        async with limited_table(tmp_path, broker):
            await backend.wait_online(session)
            again = await retained_limits(broker)
            assert again["limits"] == expected
            assert again["seq"] == new["seq"]  # published again as it was, not changed
            assert (await backend.command("open_betting"))["ok"]
            refused = await backend.command("set_limits", operator="pit-1",
                                            limits={"tie": {"min": 1, "max": 2}})
            assert (refused["ok"], refused["error"]) == (False, "wrong_phase")
    code, out, err = await table_controller("journal", "export", str(tmp_path / "T6.journal"))
    assert code == 0, err
    rows = [json.loads(line) for line in out.splitlines()]
    # The configuration was journaled once: the restart's was the same. Every set_limits the
    # table took is an input, refused or not (the one not authorised never reached it).
    assert sum("limits_configured" in row for row in rows) == 1
    assert sum(row.get("command") == "set_limits" for row in rows) == 4


@pytest.mark.broker
async def test_a_three_decimal_currency_takes_its_fils_and_publishes_them_exactly(
    tmp_path: Path, broker: Mosquitto
) -> None:
    settings = 'currency = "KWD"\n\n[limits]\ntie = { min = "0.125", max = "250.750" }\n'
    display = f"127.0.0.1:{free_port()}"
    async with (
        listening(broker, ROOT, "backend-kwd") as backend,
        limited_table(tmp_path, broker, settings, display),
        aiohttp.ClientSession() as http,
    ):
        await backend.wait_online()
        # The dealer's display refuses a tenth of a fils as MQTT does, before the table.
        body = {"command": "set_limits", "pin": PIN,
                "args": {"limits": {"tie": {"min": "0.0001", "max": 10}}}}
        async with http.post(f"http://{display}/api/commands", json=body) as response:
            refused = await response.json()
            assert response.status == 400, refused
        assert (refused["ok"], refused["error"]) == (False, "invalid_args")
        assert "0.0001 is finer than its minor unit: KWD amounts have at most 3" in (
            refused["message"]
        )
        first = await until_limits(backend, 1)
        assert first["currency"] == "KWD"
        assert first["limits"]["tie"] == {"min": 0.125, "max": 250.75}
        finer = await backend.command("set_limits", operator="pit-1",
                                      limits={"banker": {"min": "0.0005", "max": 10}})
        assert (finer["ok"], finer["error"]) == (False, "invalid_args"), finer
        assert "KWD amounts have at most 3 decimals" in finer["message"]
        taken = await backend.command("set_limits", operator="pit-1",
                                      limits={"banker": {"min": "1.005", "max": 999.999}})
        assert taken["ok"], taken
        await until_limits(backend, 2)
        (raw,) = [m.payload for m in backend.received if m.topic == f"{ROOT}/limits"][1:]
    # Published as the decimals given, to the fils: the JSON text is the amount exactly.
    assert b'"banker":{"min":1.005,"max":999.999}' in raw
    assert b'"tie":{"min":0.125,"max":250.75}' in raw


@pytest.mark.parametrize(("settings", "says"), [
    ('currency = "mop"\n', "currency = 'mop': must be an ISO 4217 code"),
    ("[limits]\nbanker = { min = 500, max = 100 }\n", "banker: min 500 is above max 100"),
    ("[limits]\ndragon = { min = 1, max = 2 }\n",
     "limits.dragon: the 'commission' variant does not offer 'dragon'"),
    ('[limits]\ntie = { min = "ten", max = 2 }\n', "'ten' is not an amount"),
    ("[limits]\ntie = { min = 1 }\n", "limits.tie: must be {min, max}"),
    ('[limits]\ntie = { min = "1/2", max = 2 }\n', "limits.tie: '1/2' is a fraction"),
    ('[limits]\ntie = { min = "0.001", max = 2 }\n',
     "limits.tie: 0.001 is finer than its minor unit: USD amounts have at most 2 decimals"),
    # The variant file's tie limits (10.50) are checked in the currency too: yen have no sen.
    ('currency = "JPY"\n',
     "commission.bets.tie.limits.min: 10.5 is finer than its minor unit: JPY amounts have no"),
])
async def test_a_broken_limits_setting_stops_the_start_with_a_message(
    tmp_path: Path, settings: str, says: str
) -> None:
    code, _, err = await table_controller(
        "run", "--table-id", TABLE, "--card-source", "rng", "--display", "off",
        "--journal", str(tmp_path / "T6.journal"), *write_configuration(tmp_path, settings),
        timeout=60,
    )  # fmt: skip
    assert code == 2, err
    assert says in err
    assert "Traceback" not in err
    assert not (tmp_path / "T6.journal").exists()


async def test_a_broken_limit_in_the_variant_file_stops_the_start(tmp_path: Path) -> None:
    flags = write_configuration(tmp_path, "")
    (tmp_path / "variants.toml").write_text(
        "[commission.bets.tie]\nlimits = { min = 0, max = 10 }\n", encoding="utf-8")
    code, _, err = await table_controller(
        "run", "--table-id", TABLE, "--card-source", "rng", "--display", "off",
        "--journal", str(tmp_path / "T6.journal"), *flags, timeout=60,
    )  # fmt: skip
    assert code == 2, err
    assert "commission.bets.tie.limits: min 0 must be above 0" in err
