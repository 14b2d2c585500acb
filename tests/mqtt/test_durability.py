# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""kill -9 of the drainer mid-stream: reopen the outbox, nothing lost, every seq kept."""

from __future__ import annotations

import asyncio
import json
import signal
from pathlib import Path

import pytest

from table_controller.mqtt.client.subscriber import Subscription
from table_controller.mqtt.outbox import Outbox
from table_controller.mqtt.settings import MqttSettings
from table_controller.runtime.clock import utc_now
from tests.mosquitto import Mosquitto
from tests.mqtt.mqtt_test_support import (
    backend,
    card_message,
    drained,
    every_seq,
    running_link,
    start_link_process,
    wait_for_line,
)
from tests.support.subscriptions import collect

pytestmark = pytest.mark.broker

COUNT = 300


async def test_killing_the_drainer_mid_flight_loses_nothing(
    broker: Mosquitto, tmp_path: Path
) -> None:
    db = tmp_path / "t.db"
    async with Subscription(
        backend(broker.url()),
        ["baccarat/tables/T07/events/#"],
        client_id="backend-1",
        persistent=True,
    ) as sub:
        await sub.wait_subscribed()
        process = start_link_process(broker.url("T07"), db, "T07", add=COUNT)
        try:
            await asyncio.to_thread(wait_for_line, process, "connected")
            got = await collect(sub, until=lambda got: len(got) >= COUNT // 3)
            process.send_signal(signal.SIGKILL)
            await asyncio.to_thread(process.wait)
        finally:
            process.kill()
            process.communicate()
        with Outbox.open(db, clock=utc_now) as outbox:
            before_restart = {row.seq: row.payload for row in outbox.rows()}
            acked_at_kill = {row.seq for row in outbox.rows() if row.acked_at is not None}
            left = outbox.depth()
        assert 0 < left < COUNT, "the kill did not land mid-stream"
        # a restart replays the same inputs: nothing is added twice, nothing renumbered
        with Outbox.open(db, clock=utc_now) as outbox:
            assert outbox.add([card_message("T07", n) for n in range(COUNT)]) == list(
                range(1, COUNT + 1)
            )
        settings = MqttSettings.from_url(broker.url("T07"), table_id="T07")
        async with running_link(settings, db):
            got += await collect(sub, until=every_seq(range(1, COUNT + 1), already=got))
            await drained(db)
    with Outbox.open(db, clock=utc_now) as outbox:
        after = {row.seq: row.payload for row in outbox.rows()}
    assert after == before_restart, "a stored message changed"
    payloads: dict[int, bytes] = {}
    for message in got:
        seq = json.loads(message.payload)["seq"]
        assert payloads.setdefault(seq, message.payload) == message.payload
        assert message.payload.decode() == before_restart[seq]
    assert sorted(payloads) == list(range(1, COUNT + 1))
    seen: set[int] = set()
    resent: set[int] = set()
    for message in got:
        seq = json.loads(message.payload)["seq"]
        if seq in seen:
            resent.add(seq)
        seen.add(seq)
    # Only what the outbox had not recorded as acknowledged is sent again after the kill:
    # the messages in flight and those whose PUBACK came but was not yet written down.
    assert not resent & acked_at_kill, "a message recorded as acknowledged was resent"
    assert len(resent) <= left
