# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The embedded broker, as a real process on a real port: MQTT 3.1.1, retained messages, stops."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from table_controller.demo.processes import start_broker
from table_controller.mqtt.client.subscriber import Subscription, publish_once
from table_controller.mqtt.settings import BrokerEndpoint

pytestmark = pytest.mark.usefixtures("no_leaks")


async def test_the_broker_serves_mqtt_and_stops_cleanly_on_sigterm(tmp_path: Path) -> None:
    child, port = await start_broker(tmp_path / "broker.log")
    try:
        endpoint = BrokerEndpoint.from_url(f"mqtt://127.0.0.1:{port}")
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


async def test_the_broker_stops_when_its_parent_goes(tmp_path: Path) -> None:
    child, _port = await start_broker(tmp_path / "broker.log")
    try:
        assert child.process.stdin is not None
        child.process.stdin.close()  # what the kernel does when the parent dies
        status = await asyncio.wait_for(child.wait(), 10)
    finally:
        await child.stop()
    assert status == 0


def test_a_port_in_use_is_refused_with_a_message() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [sys.executable, "-m", "table_controller.demo.broker", "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    assert result.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in result.stderr
    assert result.stdout == ""
