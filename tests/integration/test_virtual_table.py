# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A virtual ``mini`` table over MQTT: ``table-controller run --card-source rng``.

The backend drives it with commands over a real mosquitto and reads every result; the results
must pass a chi-square test against the exact analyser, and ``replay`` of the journal must
print exactly the events the backend received. A SIGKILL in the middle leaves a journal from
which the table resumes, dealing no recorded card again.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from table_controller.mqtt.client.subscriber import publish_once
from table_controller.rules.composition import Composition
from table_controller.rules.exact import analyse
from table_controller.rules.variants import VARIANTS
from tests.mosquitto import Mosquitto
from tests.support.backend import Backend, listening
from tests.support.table_process import table_run

pytestmark = pytest.mark.broker

ROOT = "baccarat/tables/V1"
#: The significance of the check: a fair RNG fails it once in a thousand runs.
SIGNIFICANCE = 0.001


@contextlib.asynccontextmanager
async def virtual_table(
    tmp_path: Path, broker: Mosquitto
) -> AsyncIterator[asyncio.subprocess.Process]:
    """Table V1 (``mini``, RNG cards) on the broker, its journal in ``tmp_path``."""
    async with table_run(
        tmp_path / "run.log",
        "--table-id", "V1", "--variant", "mini", "--card-source", "rng",
        "--broker", broker.url("backend"),
        "--journal", str(tmp_path / "V1.journal"),
        "--display", "off",
    ) as process:  # fmt: skip
        yield process


async def play(backend: Backend, rounds: int, *, first: int = 1) -> None:
    for round_no in range(first, first + rounds):
        assert (await backend.command("open_betting"))["ok"]
        assert (await backend.command("close_betting"))["ok"]
        await backend.until_result(f"M-1-{round_no}")


def rounds_from_env(default: int) -> int:
    return int(os.environ.get("VIRTUAL_TABLE_ROUNDS", default))


async def run_virtual_table(tmp_path: Path, broker: Mosquitto, rounds: int) -> None:
    async with listening(broker, ROOT, "backend-v") as backend:
        async with virtual_table(tmp_path, broker):
            session = await backend.wait_online()
            assert (await backend.command("new_shoe", shoe_id="M-1"))["ok"]
            half = rounds // 2
            await play(backend, half)
        # SIGTERM'd; now a SIGKILL right after a close_betting, then a restart.
        async with virtual_table(tmp_path, broker) as process:
            session = await backend.wait_online(session)
            assert (await backend.command("open_betting"))["ok"]
            await publish_once(
                backend.endpoint,
                f"{ROOT}/commands",
                json.dumps({"id": "kill", "command": "close_betting", "operator": "backend"}),
            )
            await asyncio.sleep(0.05)
            process.kill()
            await process.wait()
        async with virtual_table(tmp_path, broker):
            await backend.wait_online(session)
            # The killed round is finished from the journal (and the RNG for what it lacked).
            await backend.until_result(f"M-1-{half + 1}")
            await play(backend, rounds - half - 1, first=half + 2)
            # The table is stopped once all it journaled is out: else the replay holds a message
            # that waits in the outbox for the next start.
            await backend.until_odds(rounds + 1)
        await asyncio.sleep(0.3)
        with contextlib.suppress(TimeoutError):
            async with asyncio.timeout(1):
                while True:
                    backend.received.append(await backend.feed.get())

    results = backend.messages("round_result")
    ids = [r["round_id"] for r in results]
    assert ids == [f"M-1-{n}" for n in range(1, rounds + 1)]  # each result once, by its seq
    counts = {
        side: sum(r["winner"] == side for r in results) for side in ("banker", "player", "tie")
    }
    exact = analyse(VARIANTS["mini"], Composition.full(6)).events
    names = {"banker": "banker_wins", "player": "player_wins", "tie": "tie"}
    chi2 = sum(
        (counts[side] - float(exact[name]) * rounds) ** 2 / (float(exact[name]) * rounds)
        for side, name in names.items()
    )
    assert math.exp(-chi2 / 2) > SIGNIFICANCE, counts  # chi-square, 2 degrees of freedom

    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "table_controller", "replay", "--variant", "mini",
        "--inputs", str(tmp_path / "V1.journal"), "--json",
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await process.communicate()
    assert process.returncode == 0, err
    assert [json.loads(line) for line in out.decode().splitlines()] == backend.events()


@pytest.mark.timeout(300)
@pytest.mark.slow  # the virtual shoe through run over MQTT: test_table_run covers run by default
async def test_a_virtual_mini_table_over_mqtt(tmp_path: Path, broker: Mosquitto) -> None:
    await run_virtual_table(tmp_path, broker, rounds_from_env(120))


@pytest.mark.slow
@pytest.mark.timeout(1800)
async def test_a_virtual_mini_table_plays_1000_rounds_over_mqtt(
    tmp_path: Path, broker: Mosquitto
) -> None:
    await run_virtual_table(tmp_path, broker, 1000)
