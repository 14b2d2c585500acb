# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller watch`` on a real broker: results printed, gaps and duplicates flagged."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys

import pytest

from table_controller.cli.watch import BROKER_FAILED
from table_controller.contract.envelope import dumps, envelope
from table_controller.mqtt.client.subscriber import publish_once
from tests.mosquitto import Mosquitto
from tests.mqtt.mqtt_test_support import backend

pytestmark = pytest.mark.broker

ROOT = "baccarat/tables/T07"


def result(seq: int, round_no: int) -> bytes:
    payload = {
        "shoe_id": "S-1",
        "round_no": round_no,
        "round_id": f"S-1-{round_no}",
        "player": {"cards": ["QH", "4S", "9D"], "total": 3},
        "banker": {"cards": ["6C", "KD"], "total": 6},
        "winner": "banker",
    }
    message = envelope(
        "round_result", payload, table_id="T07", seq=seq, ts="2026-11-29T12:00:00.000Z"
    )
    return dumps(message).encode()


def status(*, online: bool, session: int, last_seq: int) -> bytes:
    message = envelope(
        "status",
        {"online": online, "session": session, "last_seq": last_seq, "version": "0.1.0"},
        table_id="T07",
        seq=None,
        ts="2026-11-29T12:00:00.000Z",
    )
    return dumps(message).encode()


async def start_watch(broker: Mosquitto, *flags: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "table_controller",
        "watch",
        "--broker",
        broker.url(),
        *flags,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


async def read_line(stream: asyncio.StreamReader | None) -> str:
    """The next line ``watch`` writes on ``stream`` (its stdout or stderr)."""
    assert stream is not None
    async with asyncio.timeout(10):
        line = await stream.readline()
    assert line, "watch ended early"
    return line.decode().rstrip("\n")


async def test_watch_flags_an_injected_gap_a_duplicate_and_a_stale_will(broker: Mosquitto) -> None:
    table = backend(broker.url("T07"))
    # retained snapshots from before the watch started are not part of the stream
    await publish_once(
        table, f"{ROOT}/status", status(online=True, session=2, last_seq=40), retain=True
    )
    await publish_once(
        table,
        f"{ROOT}/state",
        dumps(envelope("state", {}, table_id="T07", seq=40, ts="2026-11-29T12:00:00.000Z")),
        retain=True,
    )
    watch = await start_watch(broker, "--json", "--table", "T07", "--count", "5")
    try:
        first = json.loads(await read_line(watch.stdout))  # the retained status: it is subscribed
        assert (first["kind"], first["message"]["session"]) == ("status", 2)
        for payload in (result(41, 1), result(42, 2), result(45, 5), result(45, 5)):
            await publish_once(table, f"{ROOT}/events/round_result", payload)
        old_will = status(online=False, session=1, last_seq=90)
        await publish_once(table, f"{ROOT}/status", old_will, retain=True)
        # a status names the last message before it: 46 is on its way, and 45 stays unique
        refreshed = status(online=True, session=3, last_seq=46)
        await publish_once(table, f"{ROOT}/status", refreshed, retain=True)
        for payload in (result(43, 3), result(46, 6)):
            await publish_once(table, f"{ROOT}/events/round_result", payload)
        async with asyncio.timeout(15):
            out, err = await watch.communicate()
    finally:
        if watch.returncode is None:
            watch.kill()
            await watch.wait()
    records = [json.loads(line) for line in out.decode().splitlines()]
    summary = [(r["kind"], r.get("seq"), r.get("missing")) for r in records]
    assert summary == [
        ("round_result", 41, None),
        ("round_result", 42, None),
        ("gap", 45, [43, 44]),
        ("round_result", 45, None),
        ("duplicate", 45, None),
        ("stale_status", None, None),
        ("status", None, None),
        ("outstanding", None, [46, 46]),
        ("late", 43, None),
        ("round_result", 43, None),
        ("round_result", 46, None),
    ]
    assert watch.returncode == 0
    assert "5 results, 1 duplicates, 1 gaps" in err.decode()


async def test_watch_prints_readable_lines(broker: Mosquitto) -> None:
    table = backend(broker.url("T07"))
    await publish_once(
        table, f"{ROOT}/status", status(online=True, session=3, last_seq=6), retain=True
    )
    watch = await start_watch(broker, "--count", "1")
    try:
        assert await read_line(watch.stdout) == "T07 status ONLINE (session 3, last seq 6)"
        refused = {
            "id": "c-9",
            "ok": False,
            "error": "journal_unavailable",
            "message": "the table's journal cannot record (database or disk is full)",
        }
        unrecorded = envelope(
            "command_reply", refused, table_id="T07", seq=None, ts="2026-11-29T12:00:00.000Z"
        )
        await publish_once(table, f"{ROOT}/commands/replies", dumps(unrecorded))
        assert await read_line(watch.stdout) == (
            "T07 UNRECORDED reply to c-9: refused journal_unavailable: the table's journal cannot"
            " record (database or disk is full)"
        )
        await publish_once(table, f"{ROOT}/events/round_result", result(7, 4))
        assert await read_line(watch.stdout) == (
            "T07 seq 7 S-1-4 BANKER  player QH 4S 9D (3)  banker 6C KD (6)"
        )
        async with asyncio.timeout(10):
            await watch.wait()
    finally:
        if watch.returncode is None:
            watch.kill()
            await watch.wait()
    assert watch.returncode == 0


def test_watch_refuses_bad_flags() -> None:
    for flags in (
        ["--broker", "http://x"],
        ["--broker", "mqtt://h", "--table", "a/b"],
        ["--broker", "mqtt://h", "--count", "0"],
    ):
        done = subprocess.run(
            [sys.executable, "-m", "table_controller", "watch", *flags],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
        )
        assert done.returncode == 2, flags
        assert "watch" in done.stderr


def _closed_port() -> int:
    with socket.socket() as probe:  # bound, never listening: a connection is refused
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_watch_on_an_unreachable_broker_says_it_is_retrying_and_why() -> None:
    port = _closed_port()
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "table_controller", "watch", "--broker", f"mqtt://127.0.0.1:{port}",
        stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    try:
        line = await read_line(process.stderr)
        assert line.startswith(f"table-controller watch: 127.0.0.1:{port}: ")
        assert "Connection refused" in line
        assert line.endswith("; retrying")
        assert process.returncode is None  # still trying
    finally:
        process.terminate()
        await process.communicate()


def test_watch_once_on_an_unreachable_broker_fails_fast() -> None:
    port = _closed_port()
    done = subprocess.run(
        [sys.executable, "-m", "table_controller", "watch", "--once",
         "--broker", f"mqtt://127.0.0.1:{port}"],
        capture_output=True, text=True, timeout=30, check=False,
    )  # fmt: skip
    assert done.returncode == BROKER_FAILED
    assert "Traceback" not in done.stderr
    assert done.stderr.count("\n") == 1
    assert done.stderr.startswith(f"table-controller watch: 127.0.0.1:{port}: ")
    assert "Connection refused" in done.stderr
    assert done.stderr.endswith("; not retried (--once)\n")


async def test_watch_says_when_its_broker_goes_and_comes_back(broker: Mosquitto) -> None:
    table = backend(broker.url("T07"))
    await publish_once(
        table, f"{ROOT}/status", status(online=True, session=1, last_seq=0), retain=True
    )
    process = await start_watch(broker)
    where = f"table-controller watch: {broker.host}:{broker.port}: "
    try:
        assert "ONLINE" in await read_line(process.stdout)  # the retained status: it is subscribed
        broker.stop()
        lost = await read_line(process.stderr)
        assert lost.startswith(where)
        assert lost.endswith("; retrying")
        broker.start()
        while not (line := await read_line(process.stderr)).endswith("connected again"):
            assert line.endswith("; retrying")  # another cause while the broker restarts
        assert line == where + "connected again"
    finally:
        process.terminate()
        await process.communicate()
