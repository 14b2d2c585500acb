# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""sd_notify: the environment parsed as data, datagrams sent to a real unix socket.

The adapter tests play systemd's part with a real ``AF_UNIX`` datagram socket (a path, and
an abstract name) and read what arrives.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from table_controller.runtime.systemd import (
    NotifyTarget,
    SystemdNotifier,
    feed_watchdog,
    notify_message,
    notify_systemd,
    notify_target,
)
from tests.support.table_process import table_run

PID = 4242


# --- the environment, as data -------------------------------------------------------------


def test_a_path_socket_and_a_watchdog_for_this_process() -> None:
    target = notify_target(
        {
            "NOTIFY_SOCKET": "/run/systemd/notify",
            "WATCHDOG_USEC": "30000000",
            "WATCHDOG_PID": "4242",
        },
        pid=PID,
    )
    assert target == NotifyTarget(address="/run/systemd/notify", watchdog_interval_s=15.0)
    assert target.enabled


def test_an_abstract_socket_name_starts_with_a_nul() -> None:
    target = notify_target({"NOTIFY_SOCKET": "@/org/freedesktop/systemd1/notify"}, pid=PID)
    assert target.address == "\0/org/freedesktop/systemd1/notify"
    assert target.watchdog_interval_s is None


def test_outside_systemd_nothing_is_enabled() -> None:
    assert notify_target({}, pid=PID) == NotifyTarget(address=None, watchdog_interval_s=None)


@pytest.mark.parametrize("raw", ["", "@", "relative/notify", "notify"])
def test_an_unusable_socket_name_means_no_notifications(raw: str) -> None:
    assert not notify_target({"NOTIFY_SOCKET": raw}, pid=PID).enabled


@pytest.mark.parametrize(
    ("usec", "pid", "expected"),
    [
        ("2000000", None, 1.0),  # no WATCHDOG_PID: meant for us
        ("2000000", "4242", 1.0),
        ("2000000", "4243", None),  # meant for another process (a parent shell, say)
        ("2000000", "x", None),
        ("0", None, None),
        ("-5", None, None),
        ("30s", None, None),
        ("", None, None),
    ],
)
def test_the_watchdog_interval_is_half_of_watchdog_usec(
    usec: str, pid: str | None, expected: float | None
) -> None:
    environ = {"NOTIFY_SOCKET": "/run/notify", "WATCHDOG_USEC": usec}
    if pid is not None:
        environ["WATCHDOG_PID"] = pid
    assert notify_target(environ, pid=PID).watchdog_interval_s == expected


def test_a_message_is_name_value_lines_in_order() -> None:
    assert notify_message({"READY": "1", "STATUS": "table T07 dealing"}) == (
        b"READY=1\nSTATUS=table T07 dealing"
    )


@pytest.mark.parametrize(
    "fields", [{"STATUS": "two\nlines"}, {"ready": "1"}, {"": "1"}, {"READY=1\nX": "1"}]
)
def test_a_field_that_would_smuggle_another_is_refused(fields: dict[str, str]) -> None:
    with pytest.raises(ValueError, match="notification field"):
        notify_message(fields)


# --- the adapter, against a real socket ---------------------------------------------------


@pytest.fixture
def manager(tmp_path: Path) -> Iterator[tuple[socket.socket, str]]:
    """Systemd's end: a bound datagram socket and the NOTIFY_SOCKET value naming it."""
    path = tmp_path / "notify"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind(str(path))
        server.settimeout(5)
        yield server, str(path)


def received(server: socket.socket) -> list[bytes]:
    """Every datagram waiting on the socket."""
    got = []
    timeout = server.gettimeout()
    server.settimeout(0.0)  # non-blocking: what is there, then BlockingIOError
    try:
        while True:
            got.append(server.recv(4096))
    except BlockingIOError:
        pass
    finally:
        server.settimeout(timeout)
    return got


def test_ready_status_watchdog_and_stopping_arrive(manager: tuple[socket.socket, str]) -> None:
    server, address = manager
    with SystemdNotifier.from_environment({"NOTIFY_SOCKET": address}) as notifier:
        assert notifier.ready("table T07 dealing")
        assert notifier.status("reader offline")
        assert notifier.watchdog()
        assert notifier.extend_start_timeout(90)
        assert notifier.stopping()
    assert received(server) == [
        b"READY=1\nSTATUS=table T07 dealing",
        b"STATUS=reader offline",
        b"WATCHDOG=1",
        b"EXTEND_TIMEOUT_USEC=90000000",
        b"STOPPING=1",
    ]


def test_an_abstract_socket_works_too() -> None:
    name = f"table-controller-test-{uuid.uuid4().hex}"
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM) as server:
        server.bind("\0" + name)
        with SystemdNotifier.from_environment({"NOTIFY_SOCKET": "@" + name}) as notifier:
            assert notifier.ready()
        assert server.recv(4096) == b"READY=1"


def test_outside_systemd_every_call_is_a_no_op() -> None:
    with SystemdNotifier.from_environment({}) as notifier:
        assert not notifier.ready("x")
        assert not notifier.watchdog()
        assert notifier.last_error is None


def test_a_vanished_socket_is_an_error_value_not_an_exception(tmp_path: Path) -> None:
    with SystemdNotifier(
        NotifyTarget(address=str(tmp_path / "gone"), watchdog_interval_s=None)
    ) as n:
        assert not n.ready()
        assert n.last_error is not None
        assert "FileNotFoundError" in n.last_error


def test_from_environment_reads_this_process(
    manager: tuple[socket.socket, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    _, address = manager
    monkeypatch.setenv("NOTIFY_SOCKET", address)
    monkeypatch.setenv("WATCHDOG_USEC", "4000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    with SystemdNotifier.from_environment() as notifier:
        assert notifier.watchdog_interval_s == 2.0


async def test_the_watchdog_is_fed_at_its_interval(manager: tuple[socket.socket, str]) -> None:
    server, address = manager
    environ = {"NOTIFY_SOCKET": address, "WATCHDOG_USEC": "100000"}  # a ping every 50 ms
    with SystemdNotifier.from_environment(environ) as notifier:
        feeder = asyncio.create_task(feed_watchdog(notifier))
        await asyncio.sleep(0.28)
        feeder.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await feeder
    pings = received(server)
    assert set(pings) == {b"WATCHDOG=1"}
    assert 4 <= len(pings) <= 7


async def test_without_a_watchdog_the_feeder_returns_at_once(
    manager: tuple[socket.socket, str],
) -> None:
    server, address = manager
    with SystemdNotifier.from_environment({"NOTIFY_SOCKET": address}) as notifier:
        async with asyncio.timeout(1):
            await feed_watchdog(notifier)
    assert received(server) == []


async def test_notify_systemd_brackets_the_service(manager: tuple[socket.socket, str]) -> None:
    server, address = manager
    environ = {"NOTIFY_SOCKET": address, "WATCHDOG_USEC": "100000"}
    async with notify_systemd(status="table T07 dealing", environ=environ):
        await asyncio.sleep(0.12)
    got = received(server)
    assert got[0] == b"READY=1\nSTATUS=table T07 dealing"
    assert got[-1] == b"STOPPING=1"
    assert set(got[1:-1]) == {b"WATCHDOG=1"}
    assert len(got[1:-1]) >= 2


async def test_notify_systemd_sends_stopping_when_the_service_fails(
    manager: tuple[socket.socket, str],
) -> None:
    server, address = manager
    with pytest.raises(RuntimeError, match="reader thread died"):
        async with notify_systemd(environ={"NOTIFY_SOCKET": address}):
            raise RuntimeError("reader thread died")
    assert received(server) == [b"READY=1", b"STOPPING=1"]


async def test_notify_systemd_outside_systemd_changes_nothing() -> None:
    async with notify_systemd(status="x", environ={}) as notifier:
        assert not notifier.target.enabled


# --- the service under a notify socket, as systemd runs it ---------------------------------


async def test_run_notifies_ready_pings_the_watchdog_and_says_stopping(
    manager: tuple[socket.socket, str], tmp_path: Path
) -> None:
    server, address = manager
    controller, shoe = os.openpty()
    env = {name: value for name, value in os.environ.items() if not name.startswith("TABLE_")}
    env |= {"NOTIFY_SOCKET": address, "WATCHDOG_USEC": "400000"}  # a ping every 0.2 s
    run_args = (
        "--table-id", "T07", "--port", os.ttyname(shoe), "--journal", str(tmp_path / "T07.journal"),
        "--events-log", str(tmp_path / "T07.events.jsonl"), "--display", "off",
    )  # fmt: skip
    loop = asyncio.get_running_loop()
    server.settimeout(0.0)  # the loop's sock_recv needs a non-blocking socket
    got: list[bytes] = []
    try:
        async with table_run(tmp_path / "run.log", *run_args, env=env) as process:
            async with asyncio.timeout(6):
                while got.count(b"WATCHDOG=1") < 2:
                    got.append(await loop.sock_recv(server, 4096))
    finally:
        os.close(controller)
        os.close(shoe)
        server.settimeout(5)
    got += received(server)
    assert process.returncode == 0
    assert got[0].startswith(b"READY=1")
    assert got[-1] == b"STOPPING=1"
