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
from typing import Any

import pytest

from table_controller.publishing.mqtt_settings import BrokerEndpoint
from table_controller.publishing.mqtt_subscriber import Received, Subscription, publish_once
from table_controller.rules.composition import Composition
from table_controller.rules.exact import analyse
from table_controller.rules.variants import VARIANTS
from tests.mosquitto import Mosquitto
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


class Backend:
    """Sends commands and waits for their replies; keeps every message it received."""

    def __init__(self, broker: Mosquitto, feed: Subscription) -> None:
        self.endpoint = BrokerEndpoint.from_url(broker.url("backend"))
        self.feed = feed
        self.received: list[Received] = []
        self.sent = 0
        self._scanned = 0
        self._results: set[str] = set()

    async def command(self, name: str, **args: object) -> dict[str, Any]:
        self.sent += 1
        command_id = f"b-{self.sent}"
        body = {"id": command_id, "command": name, "operator": "backend", "args": args}
        await publish_once(self.endpoint, f"{ROOT}/commands", json.dumps(body))
        async with asyncio.timeout(15):
            while True:
                message = await self.feed.get()
                self.received.append(message)
                if message.topic == f"{ROOT}/commands/replies":
                    reply: dict[str, Any] = json.loads(message.payload)
                    if reply["id"] == command_id:
                        return reply

    async def wait_online(self, session_after: int = 0) -> int:
        """Wait for the table's birth (a status online with a newer session); its session."""
        async with asyncio.timeout(20):
            while True:
                message = await self.feed.get()
                self.received.append(message)
                if message.topic == f"{ROOT}/status":
                    status = json.loads(message.payload)
                    if status["online"] and status["session"] > session_after:
                        return int(status["session"])

    async def until_result(self, round_id: str) -> None:
        async with asyncio.timeout(15):
            while round_id not in self._result_ids():
                self.received.append(await self.feed.get())

    async def until_odds(self, round_no: int) -> None:
        """Wait for the odds of ``round_no``: the last message the round before it leads to."""

        def heard() -> bool:
            return any(
                message.topic == f"{ROOT}/odds"
                and json.loads(message.payload)["round_no"] == round_no
                for message in self.received
            )

        async with asyncio.timeout(15):
            while not heard():
                self.received.append(await self.feed.get())

    def _result_ids(self) -> set[str]:
        """Round ids of the results received so far (parsing only what is new)."""
        for message in self.received[self._scanned :]:
            if message.topic == f"{ROOT}/events/round_result":
                self._results.add(json.loads(message.payload)["round_id"])
        self._scanned = len(self.received)
        return self._results

    def messages(self, kind: str) -> list[dict[str, Any]]:
        """The events of one type, each once: a backend drops a resent ``seq`` (at-least-once)."""
        return [event for event in self.events() if event["type"] == kind]

    def events(self) -> list[dict[str, Any]]:
        by_seq: dict[int, dict[str, Any]] = {}
        for message in self.received:
            if "/events/" in message.topic or message.topic.endswith(("/roads", "/odds")):
                body = json.loads(message.payload)
                by_seq.setdefault(body["seq"], body)
        return [by_seq[seq] for seq in sorted(by_seq)]


async def play(backend: Backend, rounds: int, *, first: int = 1) -> None:
    for round_no in range(first, first + rounds):
        assert (await backend.command("open_betting"))["ok"]
        assert (await backend.command("close_betting"))["ok"]
        await backend.until_result(f"M-1-{round_no}")


def rounds_from_env(default: int) -> int:
    return int(os.environ.get("VIRTUAL_TABLE_ROUNDS", default))


async def run_virtual_table(tmp_path: Path, broker: Mosquitto, rounds: int) -> None:
    async with Subscription(
        BrokerEndpoint.from_url(broker.url("backend")), [f"{ROOT}/#"], client_id="backend-v"
    ) as feed:
        await feed.wait_subscribed()
        backend = Backend(broker, feed)
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
                    backend.received.append(await feed.get())

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
async def test_a_virtual_mini_table_over_mqtt(tmp_path: Path, broker: Mosquitto) -> None:
    await run_virtual_table(tmp_path, broker, rounds_from_env(120))


@pytest.mark.slow
@pytest.mark.timeout(1800)
async def test_a_virtual_mini_table_plays_1000_rounds_over_mqtt(
    tmp_path: Path, broker: Mosquitto
) -> None:
    await run_virtual_table(tmp_path, broker, 1000)
