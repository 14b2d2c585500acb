# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The broker restarted with its persistence wiped while the table plays.

A virtual table (``table-controller run --card-source rng``) plays rounds driven by a backend
over a real mosquitto. Every few rounds, right after ``close_betting`` (while the table is
publishing the round), mosquitto is stopped, its persistence file deleted and started again
on the same ports: every session, every subscription and every queued message is gone. The
table's outbox keeps what the broker did not acknowledge and sends it again after it
reconnects; the backend reconnects by itself and subscribes again.

Stated outcome: no result lost at the backend, every ``seq`` from 1 to the last seen, no
duplicate its ``seq`` does not mark, and ``replay`` of the journal equal to what the backend
received. The retained rows (``state``, ``roads``) are not checked after the restart: the MQTT
link republishing them on every connect had not landed when this test was written.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import time
from pathlib import Path
from typing import Any, Final

import pytest

from table_controller.mqtt.client.subscriber import Subscription, publish_once
from table_controller.mqtt.settings import BrokerEndpoint
from tests.mosquitto import Mosquitto
from tests.reliability import harness

pytestmark = pytest.mark.broker

ROOT: Final = "baccarat/tables/T07"
SHOE_ID: Final = "B-1"


class Commands:
    """Commands over a fresh connection each (the broker may be gone), resent until answered."""

    def __init__(self, broker: Mosquitto, feed: harness.Feed) -> None:
        self.endpoint = BrokerEndpoint.from_url(broker.url("backend"))
        self.feed = feed
        self.ids = itertools.count(1)
        self.bodies: dict[str, str] = {}

    async def send(self, name: str, *, wait: bool = True, **args: object) -> str:
        command_id = f"w-{next(self.ids)}"
        body = json.dumps({"id": command_id, "command": name, "operator": "backend", "args": args})
        self.bodies[command_id] = body
        await self._publish(body)
        if wait:
            await self.answered(command_id, body)
        return command_id

    async def confirm(self, command_id: str) -> dict[str, Any]:
        """A command sent without waiting: answered by now, or sent again (same id) until it is.

        A command published just before a wipe may be lost with the broker's sessions.
        """
        return await self.answered(command_id, self.bodies[command_id])

    async def _publish(self, body: str) -> None:
        async with asyncio.timeout(30):
            while True:
                try:
                    await publish_once(self.endpoint, f"{ROOT}/commands", body)
                except ConnectionError:
                    await asyncio.sleep(0.1)
                else:
                    return

    async def answered(self, command_id: str, body: str) -> dict[str, Any]:
        """The reply; the same command is sent again (same id) while none comes."""
        # A table reconnects after a backoff of up to 30 s (MqttSettings.backoff_max_s).
        for _ in range(30):
            with contextlib.suppress(AssertionError):
                await self.feed.until(
                    lambda: self.feed.reply(command_id) is not None, command_id, timeout=3.0
                )
                reply = self.feed.reply(command_id)
                assert reply is not None
                return reply
            await self._publish(body)  # lost with the broker's sessions: the table answers again
        raise AssertionError(f"no reply to {command_id}")


async def play(broker: Mosquitto, tmp_path: Path, rounds: int, wipe_every: int) -> dict[str, Any]:
    journal = tmp_path / "T07.journal"
    args = harness.run_args(
        journal=journal, variant="mini", broker_url=broker.url("T07"), card_source="rng"
    )
    wipes = 0
    started = time.monotonic()
    async with (
        harness.backend(broker, client_id="backend-wipe") as feed,
        harness.service(args, tmp_path / "run.log") as table,
    ):
        commands = Commands(broker, feed)
        await feed.until(
            lambda: any(body["online"] for _, body in feed.statuses), "the table online"
        )
        await commands.send("new_shoe", shoe_id=SHOE_ID)
        for round_no in range(1, rounds + 1):
            await commands.send("open_betting")
            if round_no % wipe_every == 0:
                # The round is dealt and published while the broker goes down and forgets.
                closing = await commands.send("close_betting", wait=False)
                await asyncio.sleep(0.005 * (round_no % 7))
                await asyncio.to_thread(broker.restart, wipe=True)
                wipes += 1
                await commands.confirm(closing)
            else:
                await commands.send("close_betting")
            await feed.until(
                lambda: (
                    (state := feed.latest("state")) is not None
                    and state["round_no"] == round_no  # noqa: B023 - read at once
                    # a state still "betting" is older than the close_betting's reply
                    and state["phase"] not in {"betting", "dealing"}
                ),
                f"the end of round {round_no}",
            )
        final = await commands.send("barrier")
        reply = feed.reply(final)
        assert reply is not None
        await feed.until(lambda: feed.contiguous_to(int(reply["seq"])), "every seq", timeout=10)
        # The broker lost its retained messages with each wipe; the table published its
        # latest retained rows again when it came back, so a newcomer sees the table at once.
        late = await retained_state(commands.endpoint)
        assert late["type"] == "state"
        assert late["round_no"] == rounds
        assert await table.stop() == 0, table.log_tail()
        await harness.everything_received(feed, journal)
    return {
        "feed": feed,
        "journal": journal,
        "wipes": wipes,
        "seconds": time.monotonic() - started,
    }


async def retained_state(endpoint: BrokerEndpoint) -> dict[str, Any]:
    """What a backend subscribing now gets on ``<root>/state`` at once: the retained copy."""
    async with Subscription(endpoint, [f"{ROOT}/state"]) as late, asyncio.timeout(10):
        while True:
            message = await late.get()
            if message.retain:
                body: dict[str, Any] = json.loads(message.payload)
                return body


async def check(broker: Mosquitto, tmp_path: Path, rounds: int, wipe_every: int) -> None:
    outcome = await play(broker, tmp_path, rounds, wipe_every)
    feed: harness.Feed = outcome["feed"]
    assert outcome["wipes"] == rounds // wipe_every
    results = [body["round_id"] for body in feed.events() if body["type"] == "round_result"]
    assert results == [f"{SHOE_ID}-{n}" for n in range(1, rounds + 1)]
    assert feed.missing() == []
    assert feed.unmarked_duplicates == []
    assert await harness.replayed(outcome["journal"], "mini") == feed.events()


@pytest.mark.timeout(120)
async def test_broker_wiped_during_five_rounds(tmp_path: Path, broker: Mosquitto) -> None:
    """CI subset: 5 rounds, the broker wiped in rounds 2 and 4."""
    await check(broker, tmp_path, rounds=5, wipe_every=2)


@pytest.mark.slow
@pytest.mark.timeout(1800)
async def test_broker_wiped_during_fifty_rounds(tmp_path: Path, broker: Mosquitto) -> None:
    """50 rounds, the broker wiped every fifth round (10 restarts)."""
    await check(broker, tmp_path, rounds=50, wipe_every=5)


@pytest.mark.slow
@pytest.mark.timeout(300)
async def test_the_table_is_back_quickly_after_every_broker_restart(
    tmp_path: Path, broker: Mosquitto
) -> None:
    """Ten broker restarts, each after the table was connected again: back within 6 s each."""
    args = harness.run_args(
        journal=tmp_path / "T07.journal",
        variant="mini",
        broker_url=broker.url("T07"),
        card_source="rng",
    )
    async with (
        harness.backend(broker, client_id="backend-backoff") as feed,
        harness.service(args, tmp_path / "run.log"),
    ):

        def session() -> int:
            return max((b["session"] for _, b in feed.statuses if b["online"]), default=0)

        await feed.until(lambda: session() > 0, "the table online")
        for restart in range(1, 11):
            before = session()
            await asyncio.to_thread(broker.restart, wipe=True)
            await feed.until(lambda: session() > before, f"back after restart {restart}", 6.0)  # noqa: B023
