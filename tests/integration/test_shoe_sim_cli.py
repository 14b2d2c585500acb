# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""``table-controller shoe-sim`` and ``python -m simulators``: flags, and real processes."""

import asyncio
import os
import signal
import sys
import types
from pathlib import Path

import pytest

from drivers.backoff import Backoff
from drivers.events import CardMisread, CardSeen, ReaderEvent, ReaderStatus, ShoeState
from drivers.shoe_reader import ShoeReader
from drivers.srp.constants import Lamp
from simulators.virtual_shoe.shuffle import seeded_order
from tests.support.cli import run_cli

pytestmark = pytest.mark.usefixtures("no_leaks")
READY = "virtual shoe ready on "


def run_shoe_sim(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    status, _out, err = run_cli(capsys, "shoe-sim", *args)
    return status, err


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--speed", "2"], "--speed goes with --auto"),
        (["--stack", "cards.txt", "--decks", "2"], "cannot be combined with --decks"),
        (["--decks", "1", "--cut-depth", "53"], "--cut-depth 53: the shoe holds 52 cards"),
        (["--faults", "explode:card=1"], "unknown fault kind 'explode'"),
        (["--faults", "missing.toml"], "--faults: cannot read 'missing.toml'"),
        (["--stack", "missing.txt"], "--stack: cannot read stack file"),
    ],
)
def test_a_value_the_shoe_cannot_use_exits_2_with_one_line(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, args: list[str], message: str
) -> None:
    os.chdir(tmp_path)
    (tmp_path / "cards.txt").write_text("AS KD\n", encoding="utf-8")
    status, err = run_shoe_sim(capsys, *args)
    assert status == 2
    assert err.count("\n") == 1
    assert err.startswith("table-controller shoe-sim: error: ")
    assert message in err


@pytest.mark.parametrize(
    "args",
    [
        ["--pty", "--listen", "127.0.0.1:1"],
        ["--seed", "1", "--stack", "x"],
        ["--listen", "nowhere"],
        ["--protocol", "x25"],
        ["--speed", "0", "--auto"],
        ["--decks", "0"],
    ],
)
def test_a_wrong_flag_exits_2(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    status, err = run_shoe_sim(capsys, *args)
    assert status == 2
    assert "error:" in err


async def start(*args: str, stdin: int | None = None) -> tuple[asyncio.subprocess.Process, str]:
    """Start a shoe process; returns it and the address it announced."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, *args, stdin=stdin, stdout=asyncio.subprocess.PIPE
    )
    assert process.stdout is not None
    async with asyncio.timeout(10):
        line = (await process.stdout.readline()).decode()
    assert line.startswith(READY), line
    return process, line.removeprefix(READY).strip()


async def stop(process: asyncio.subprocess.Process) -> int:
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
    async with asyncio.timeout(10):
        await process.communicate()
    assert process.returncode is not None
    return process.returncode


async def read_until(
    reader: ShoeReader, done: type | types.UnionType, count: int = 1
) -> list[ReaderEvent]:
    events: list[ReaderEvent] = []
    async with asyncio.timeout(20):
        async for event in reader:
            events.append(event)
            await reader.confirm(getattr(event, "delivery", None))
            if isinstance(event, CardSeen | CardMisread):
                await reader.set_lamp(Lamp.PLAYER)
            if sum(isinstance(e, done) for e in events) >= count:
                return events
    raise AssertionError(events)


async def test_python_m_simulators_plays_a_seeded_shoe_over_tcp_unattended() -> None:
    process, address = await start(
        "-m",
        "simulators",
        "--listen",
        "127.0.0.1:0",
        "--seed",
        "3",
        "--decks",
        "1",
        "--cut-depth",
        "40",
        "--auto",
        "--speed",
        "200",
        stdin=asyncio.subprocess.DEVNULL,
    )
    try:
        async with ShoeReader(f"socket://{address}", backoff=Backoff(cap_s=0.5)) as reader:
            await reader.set_lamp(Lamp.PLAYER)
            events = await read_until(reader, ReaderStatus)
    finally:
        status = await stop(process)
    assert status == 0
    assert [e.card for e in events if isinstance(e, CardSeen)] == list(seeded_order(1, 3))
    assert events[-1] == ReaderStatus(state=ShoeState.EMPTY)


async def test_the_sub_command_deals_from_a_script_on_stdin_over_a_pty(tmp_path: Path) -> None:
    link = tmp_path / "shoe"
    stack = tmp_path / "stack.txt"
    stack.write_text("# a stacked shoe\nAS 2H 3D\n4C, 5S\n", encoding="utf-8")
    scenario = tmp_path / "scenario.toml"
    scenario.write_text('[[fault]]\nkind = "misread"\ncard = 2\n', encoding="utf-8")
    process, address = await start(
        "-m",
        "table_controller",
        "shoe-sim",
        "--pty",
        str(link),
        "--stack",
        str(stack),
        "--cut-depth",
        "5",
        "--faults",
        str(scenario),
        stdin=asyncio.subprocess.PIPE,
    )
    assert address.startswith(f"{link} -> /dev/pts/")
    assert process.stdin is not None
    try:
        async with ShoeReader(str(link), backoff=Backoff(cap_s=0.5)) as reader:
            process.stdin.write(b"deal 3\n")
            await process.stdin.drain()
            events = await read_until(reader, CardSeen | CardMisread, count=3)
        process.stdin.write(b"quit\n")
        await process.stdin.drain()
        async with asyncio.timeout(20):  # it ends by itself (a loaded machine takes a while)
            await process.wait()
    finally:
        status = await stop(process)
    assert status == 0
    dealt = [
        e.card if isinstance(e, CardSeen) else "misread"
        for e in events
        if isinstance(e, CardSeen | CardMisread)
    ]
    assert dealt == ["AS", "misread", "3D"]
