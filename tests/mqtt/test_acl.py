# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The broker's ACL, checked end to end with a subscriber: a denied publish is acknowledged."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from table_controller.mqtt.client.subscriber import Subscription, publish_once
from table_controller.mqtt.settings import MqttSettings
from tests.mosquitto import Mosquitto
from tests.mqtt.mqtt_test_support import backend, running_link
from tests.support.subscriptions import collect, quiet

pytestmark = pytest.mark.broker

COMMANDS = "baccarat/tables/T07/commands"


def command(command_id: str) -> bytes:
    return json.dumps({"id": command_id, "command": "close_betting", "operator": "pit-1"}).encode()


async def test_only_authorised_logins_reach_a_tables_command_topic(
    broker: Mosquitto, tmp_path: Path
) -> None:
    settings = MqttSettings.from_url(broker.url("T07"), table_id="T07")
    async with Subscription(backend(broker.url()), [COMMANDS]) as sub:
        await sub.wait_subscribed()
        async with running_link(settings, tmp_path / "t.db") as table:
            # publishes the ACL denies are acknowledged all the same: no error here
            await publish_once(backend(broker.url("intruder")), COMMANDS, command("by-intruder"))
            await publish_once(backend(broker.url("T08")), COMMANDS, command("by-other-table"))
            denied = await quiet(sub, 0.5)
            # the positive control: the supervisors' login gets through
            await publish_once(backend(broker.url("pit")), COMMANDS, command("by-pit"))
            await publish_once(backend(broker.url()), COMMANDS, command("by-backend"))
            allowed = await collect(sub, until=lambda got: len(got) >= 2)
            await collect_commands(table.commands, 2)
        received = [json.loads(raw)["id"] for raw in table.commands]
    assert denied == []
    assert [json.loads(m.payload)["id"] for m in allowed] == ["by-pit", "by-backend"]
    assert received == ["by-pit", "by-backend"]
    log = broker.log()
    assert "Denied PUBLISH from" in log


async def collect_commands(commands: list[bytes], count: int) -> None:
    async with asyncio.timeout(5):
        while len(commands) < count:  # noqa: ASYNC110 - filled by the link's callback
            await asyncio.sleep(0.02)


async def test_a_table_cannot_read_another_tables_events(broker: Mosquitto) -> None:
    async with Subscription(backend(broker.url("T08")), ["baccarat/tables/T07/#"]) as spy:
        await spy.wait_subscribed()
        await publish_once(backend(broker.url("T07")), "baccarat/tables/T07/events/card", b"{}")
        assert await quiet(spy, 0.5) == []


async def test_login_with_a_wrong_password_is_refused(broker: Mosquitto) -> None:
    with pytest.raises(ConnectionError, match=r"(?i)not authori"):
        await publish_once(backend(broker.url("backend", password="guess")), COMMANDS, b"{}")
