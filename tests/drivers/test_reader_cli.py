# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller reader``: event lines, acknowledgements, and flag errors."""

from __future__ import annotations

import asyncio
import json
import re
import signal
import subprocess
import sys

import pytest

from drivers import events
from drivers.shoe_reader import ShoeProtocol
from drivers.srp.frames import FrameType
from table_controller.cli.reader import PORT_FAILED, describe, watch
from tests.drivers.driver_test_support import PtyShoe, TcpShoe, shoe


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (
            events.CardSeen(card="QH", delivery=events.Delivery(epoch=1, seq=4)),
            {"event": "card", "card": "QH", "burn_mode": False, "epoch": 1, "seq": 4},
        ),
        (
            events.CardSeen(card="4S", burn_mode=True),
            {"event": "card", "card": "4S", "burn_mode": True},
        ),
        (
            events.CutCardSeen(delivery=events.Delivery(epoch=0, seq=9)),
            {"event": "cut_card", "epoch": 0, "seq": 9},
        ),
        (events.CardMisread(), {"event": "misread"}),
        (
            events.ReaderHello(model="M", firmware="1", serial="S"),
            {"event": "hello", "model": "M", "firmware": "1", "serial": "S"},
        ),
        (
            events.ReaderStatus(state=events.ShoeState.FAULT, code="E7"),
            {"event": "status", "state": "FAULT", "code": "E7"},
        ),
        (events.ReaderStatus(state=events.ShoeState.READY), {"event": "status", "state": "READY"}),
        (
            events.ReaderAlarm(code="E3", text="Card Not Read"),
            {"event": "alarm", "code": "E3", "text": "Card Not Read"},
        ),
        (events.ReaderWarning(code="W0x01"), {"event": "warning", "code": "W0x01"}),
        (
            events.FramesLost(expected_seq=5, received_seq=8, count=3),
            {"event": "frames_lost", "expected_seq": 5, "received_seq": 8, "count": 3},
        ),
        (
            events.LineRejected(reason="bad_checksum", raw=b"$SH\xff"),
            {"event": "rejected", "reason": "bad_checksum", "raw": "$SH\\xff"},
        ),
        (events.ReaderOffline(reason="unplugged"), {"event": "offline", "reason": "unplugged"}),
        (events.ReaderOnline(), {"event": "online"}),
    ],
)
def test_every_event_has_a_json_line(
    event: events.ReaderEvent, expected: dict[str, object]
) -> None:
    assert describe(event) == expected
    assert json.loads(json.dumps(describe(event))) == expected


async def test_watch_prints_every_event_and_acknowledges_after_printing(pty_shoe: PtyShoe) -> None:
    printed: list[events.ReaderEvent] = []
    stop = asyncio.Event()

    def emit(event: events.ReaderEvent) -> None:
        printed.append(event)
        if isinstance(event, events.CardSeen):
            stop.set()

    watching = asyncio.create_task(
        watch(str(pty_shoe.path), 9600, ShoeProtocol.SRP, emit, stop=stop), name="watch"
    )
    await asyncio.sleep(0.2)
    pty_shoe.send(
        shoe(0, FrameType.HELLO, "BT", "1.0", "SN9") + b"junk\r\n" + shoe(1, FrameType.CARD, "JD")
    )
    await pty_shoe.wait_received(b",ACK,1*", limit_s=3.0)
    async with asyncio.timeout(3.0):
        await watching
    kinds = [describe(event)["event"] for event in printed]
    assert kinds == ["online", "hello", "rejected", "card"]
    assert b",ACK,0*" in pty_shoe.received


async def run_cli(*args: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "table_controller",
        "reader",
        *args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


@pytest.mark.timeout(30)
async def test_cli_json_lines_over_tcp(tcp_shoe: TcpShoe) -> None:
    process = await run_cli("--port", tcp_shoe.url, "--json")
    try:
        await tcp_shoe.wait_connections(1, limit_s=10.0)
        tcp_shoe.send(
            shoe(0, FrameType.CARD, "AS")
            + shoe(3, FrameType.CUT)
            + shoe(4, FrameType.STATUS, "FAULT", "E9")
            + b"$SH,5,CARD,QH*00\r\n"
        )
        await tcp_shoe.wait_received(b",ACK,3*", limit_s=5.0)
        assert process.stdout is not None
        lines = [json.loads(await process.stdout.readline()) for _ in range(6)]
    finally:
        process.send_signal(signal.SIGINT)
        _, stderr = await process.communicate()
    for line in lines:
        assert line.pop("time").endswith("+00:00")
    assert lines == [
        {"event": "online"},
        {"event": "card", "card": "AS", "burn_mode": False, "epoch": 0, "seq": 0},
        {"event": "frames_lost", "expected_seq": 1, "received_seq": 3, "count": 2},
        {"event": "cut_card", "epoch": 0, "seq": 3},
        {"event": "status", "state": "FAULT", "code": "E9"},
        {"event": "rejected", "reason": "bad_checksum", "raw": "$SH,5,CARD,QH*00\r\n"},
    ]
    assert process.returncode == 130
    assert b"online" in stderr  # logs go to stderr


@pytest.mark.parametrize(
    ("args", "names"),
    [
        (["--port", "loop://"], "--port"),
        (["--port", "socket://nohost"], "--port"),
        (["--port", "/dev/null", "--baud", "fast"], "--baud"),
        (["--port", "/dev/null", "--protocol", "nmea"], "--protocol"),
        (["--baud", "9600"], "--port"),
        (["--port", "/dev/null", "--colour"], "--colour"),
    ],
)
async def test_a_wrong_flag_exits_2_with_a_one_line_message(args: list[str], names: str) -> None:
    process = await run_cli(*args)
    stdout, stderr = await process.communicate()
    assert process.returncode == 2
    assert stdout == b""
    message = stderr.decode().strip().splitlines()[-1]
    assert message.startswith("table-controller")
    assert "error:" in message
    assert names in message


async def _stderr_lines(process: asyncio.subprocess.Process, wanted: int) -> list[str]:
    """The first ``wanted`` lines of stderr this tool writes itself (logging's are skipped)."""
    assert process.stderr is not None
    lines: list[str] = []
    async with asyncio.timeout(20):
        while len(lines) < wanted:
            line = (await process.stderr.readline()).decode()
            assert line, "the reader ended early"
            if line.startswith("table-controller reader: "):
                lines.append(line.rstrip("\n"))
    return lines


async def test_a_missing_device_is_retried_and_every_attempt_says_why() -> None:
    process = await run_cli("--port", "/dev/ttyMISSING9")
    try:
        lines = await _stderr_lines(process, 3)
        assert process.returncode is None  # still trying
    finally:
        process.send_signal(signal.SIGINT)
        await process.communicate()
    cause = "table-controller reader: /dev/ttyMISSING9: cannot open: No such file or directory"
    pattern = re.compile(re.escape(cause) + r"; retrying in \d+\.\d s")
    assert all(pattern.fullmatch(line) for line in lines), lines


async def test_once_on_a_missing_device_fails_fast_with_status_1() -> None:
    process = await run_cli("--port", "/dev/ttyMISSING9", "--once")
    async with asyncio.timeout(20):
        _, stderr = await process.communicate()
    assert process.returncode == PORT_FAILED
    text = stderr.decode()
    assert "Traceback" not in text
    assert text.splitlines()[-1] == (
        "table-controller reader: /dev/ttyMISSING9: cannot open: No such file or directory;"
        " not retried (--once)"
    )


@pytest.mark.timeout(30)
async def test_once_stops_when_the_port_is_lost(tcp_shoe: TcpShoe) -> None:
    process = await run_cli("--port", tcp_shoe.url, "--once", "--json")
    await tcp_shoe.wait_connections(1, limit_s=10.0)
    tcp_shoe.send(shoe(0, FrameType.CARD, "AS"))
    await tcp_shoe.wait_received(b",ACK,0*", limit_s=5.0)  # the card was printed
    await tcp_shoe.stop()
    async with asyncio.timeout(20):
        _, stderr = await process.communicate()
    assert process.returncode == PORT_FAILED
    assert stderr.decode().splitlines()[-1] == (
        f"table-controller reader: {tcp_shoe.url}: closed by the peer; not retried (--once)"
    )
