# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The demo's broker: the real mosquitto as the demo starts it, on a real port; and when not."""

from __future__ import annotations

import asyncio
import os
import socket
import stat
from pathlib import Path

import pytest

from table_controller.demo.broker import MOSQUITTO_MISSING, find_mosquitto
from table_controller.demo.processes import ChildError, free_port, start_broker
from table_controller.mqtt.client.subscriber import Subscription, publish_once
from table_controller.mqtt.settings import BrokerEndpoint, ProtocolName

pytestmark = pytest.mark.usefixtures("no_leaks")


@pytest.mark.parametrize("protocol", ["3.1.1", "5"])
async def test_the_broker_serves_mqtt_and_stops_cleanly_on_sigterm(
    tmp_path: Path, protocol: ProtocolName
) -> None:
    child, port = await start_broker(tmp_path / "broker.log")
    try:
        endpoint = BrokerEndpoint.from_url(f"mqtt://127.0.0.1:{port}", protocol=protocol)
        async with Subscription(endpoint, ["demo/#"]) as live:
            await asyncio.wait_for(live.wait_subscribed(), 10)
            await publish_once(endpoint, "demo/T01/state", b'{"seq": 1}', retain=True)
            received = await asyncio.wait_for(live.get(), 10)
        assert (received.topic, received.payload, received.retain) == (
            "demo/T01/state",
            b'{"seq": 1}',
            False,  # a live delivery of a retained message (MQTT 3.1.1 section 3.3.1.3)
        )
        async with Subscription(endpoint, ["demo/#"]) as late:
            snapshot = await asyncio.wait_for(late.get(), 10)
        assert (snapshot.payload, snapshot.retain) == (b'{"seq": 1}', True)
    finally:
        status = await child.stop()
    assert status == 0
    assert not child.running


async def test_a_port_in_use_is_refused_with_mosquittos_words(tmp_path: Path) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ChildError, match=f"port {port} is taken") as refused:
            await start_broker(tmp_path / "broker.log", port=port)
    assert "Address already in use" in str(refused.value)


async def test_a_second_broker_gets_a_port_of_its_own(tmp_path: Path) -> None:
    first, port = await start_broker(tmp_path / "broker.log")
    try:
        # Asked for the first one's port it fails; asked for any, it starts.
        with pytest.raises(ChildError, match="taken"):
            await start_broker(tmp_path / "second.log", port=port)
        second, other = await start_broker(tmp_path / "second.log")
        await second.stop()
    finally:
        await first.stop()
    assert other != port


def test_mosquitto_is_found_on_the_path_or_where_debian_puts_it(tmp_path: Path) -> None:
    program = tmp_path / "mosquitto"
    program.write_text("#!/bin/sh\n", encoding="utf-8")
    program.chmod(program.stat().st_mode | stat.S_IXUSR)
    assert find_mosquitto(str(tmp_path)) == str(program)
    installed = find_mosquitto(os.defpath)  # /usr/sbin is never on the default PATH
    assert installed is not None
    assert Path(installed).name == "mosquitto"


def test_no_mosquitto_is_none_and_the_demo_says_what_to_do(tmp_path: Path) -> None:
    assert find_mosquitto(str(tmp_path), system_dirs=()) is None
    assert "apt-get install mosquitto" in MOSQUITTO_MISSING
    assert "--broker" in MOSQUITTO_MISSING


def test_a_free_port_is_free() -> None:
    port = free_port()
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", port))
