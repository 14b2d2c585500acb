# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Port names, opening errors, and the reopening backoff."""

from __future__ import annotations

import random
import socket
from pathlib import Path

import pytest

from drivers.backoff import Backoff
from drivers.port import PortAddress, open_port, parse_port_url
from tests.drivers.driver_test_support import PtyShoe


@pytest.mark.parametrize(
    ("url", "address"),
    [
        ("/dev/ttyUSB0", PortAddress(device="/dev/ttyUSB0")),
        ("/dev/serial/by-id/usb-shoe-if00", PortAddress(device="/dev/serial/by-id/usb-shoe-if00")),
        ("socket://10.0.0.7:4001", PortAddress(host="10.0.0.7", port=4001)),
        ("socket://moxa.local:950/", PortAddress(host="moxa.local", port=950)),
    ],
)
def test_port_names_are_parsed(url: str, address: PortAddress) -> None:
    assert parse_port_url(url) == address
    assert str(address).rstrip("/") == url.rstrip("/")


@pytest.mark.parametrize(
    "url",
    [
        "",
        "loop://",
        "rfc2217://host:7000",
        "socket://host",
        "socket://:4001",
        "socket://h:99999",
        "socket://h:1?logging=debug",
    ],
)
def test_unsupported_port_names_are_refused(url: str) -> None:
    with pytest.raises(ValueError, match=r"."):
        parse_port_url(url)


async def test_a_missing_device_node_is_an_os_error(tmp_path: Path) -> None:
    with pytest.raises(OSError, match="No such file"):
        await open_port(str(tmp_path / "unplugged"))


async def test_a_port_already_open_is_refused(pty_shoe: PtyShoe) -> None:
    _, writer = await open_port(str(pty_shoe.path))
    try:
        with pytest.raises(OSError, match="lock"):
            await open_port(str(pty_shoe.path))
    finally:
        writer.close()
        await writer.wait_closed()


async def test_a_refused_tcp_connection_is_an_os_error() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with pytest.raises(ConnectionRefusedError):
        await open_port(f"socket://127.0.0.1:{port}")


def test_backoff_grows_then_stays_capped_and_jittered() -> None:
    backoff = Backoff(initial_s=0.25, factor=2.0, cap_s=5.0)
    rng = random.Random(1)
    delays = [backoff.delay(attempt, rng) for attempt in range(200)]
    assert all(delay <= 5.0 for delay in delays)
    assert all(delay >= 2.5 for delay in delays[5:])  # capped: between half and all of 5 s
    assert 0.125 <= delays[0] <= 0.25
    assert len(set(delays[10:])) > 100  # jittered: tables restarting together spread out


def test_backoff_is_repeatable_with_a_seeded_rng() -> None:
    backoff = Backoff()
    assert [backoff.delay(n, random.Random(3)) for n in range(10)] == [
        backoff.delay(n, random.Random(3)) for n in range(10)
    ]
