# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Ctrl-C and SIGTERM stop every long-running sub-command, however it was started.

A shell script's background job (``cmd &``) starts with SIGINT ignored. Each case starts the
real console script that way (``SIG_IGN`` inherited, as from such a script), waits until it
is up, and sends SIGINT (or SIGTERM): it must stop by itself, cleanly, with the exit status
docs/operations.md gives.
"""

from __future__ import annotations

import asyncio
import os
import re
import signal
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import aiohttp
import pytest

from tests.mosquitto import Mosquitto
from tests.support.ports import free_port
from tests.support.table_process import wait_for_health

#: How long a signalled sub-command may take to stop.
STOP_S = 30.0
#: How long one may take to be up.
START_S = 60.0


def _as_a_background_job() -> None:
    """In the child, before it runs: SIGINT ignored, as ``cmd &`` in a shell script leaves it."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _environment() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if not k.startswith("TABLE_CONTROLLER_")}


@asynccontextmanager
async def background_job(cwd: Path, *args: str) -> AsyncIterator[asyncio.subprocess.Process]:
    """``table-controller ARGS`` with SIGINT ignored; killed if a test leaves it running."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "table_controller", *args,
        cwd=cwd,
        env=_environment(),
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=_as_a_background_job,
    )  # fmt: skip
    try:
        yield process
    finally:
        if process.returncode is None:
            process.kill()
            await process.communicate()


async def line_matching(stream: asyncio.StreamReader | None, pattern: str) -> str:
    """The first line of ``stream`` that matches ``pattern`` (the sub-command is up)."""
    assert stream is not None
    async with asyncio.timeout(START_S):
        while line := (await stream.readline()).decode():
            if re.search(pattern, line):
                return line
    raise AssertionError(f"the sub-command ended before printing {pattern!r}")


async def stopped_by(
    process: asyncio.subprocess.Process, signum: signal.Signals
) -> tuple[int, str]:
    """Send ``signum``; the exit status and the rest of stderr once it stopped by itself."""
    process.send_signal(signum)
    async with asyncio.timeout(STOP_S):
        _, err = await process.communicate()
    assert process.returncode is not None
    return process.returncode, err.decode()


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
async def test_reader_stops_on_ctrl_c_and_sigterm_though_started_ignoring_sigint(
    tmp_path: Path, signum: signal.Signals, status: int
) -> None:
    async with background_job(tmp_path, "reader", "--port", str(tmp_path / "ttyGONE")) as job:
        await line_matching(job.stderr, r"^table-controller reader: .*; retrying in")
        code, err = await stopped_by(job, signum)
    assert code == status, err
    assert "Traceback" not in err, err


async def test_shoe_sim_stops_on_ctrl_c_though_started_ignoring_sigint(tmp_path: Path) -> None:
    link = tmp_path / "shoe"
    async with background_job(tmp_path, "shoe-sim", "--pty", str(link)) as job:
        await line_matching(job.stdout, r"^virtual shoe ready on ")
        code, err = await stopped_by(job, signal.SIGINT)
    assert code == 0, err
    assert "Traceback" not in err, err
    assert not link.exists()  # its pseudo-terminal's link is removed on the way out


async def test_watch_stops_on_ctrl_c_though_started_ignoring_sigint(tmp_path: Path) -> None:
    nobody = f"mqtt://127.0.0.1:{free_port()}"
    async with background_job(tmp_path, "watch", "--broker", nobody) as job:
        await line_matching(job.stderr, r"^table-controller watch: .*; retrying")
        code, err = await stopped_by(job, signal.SIGINT)
    assert code == 130, err
    assert "Traceback" not in err, err


async def test_run_stops_cleanly_on_ctrl_c_though_started_ignoring_sigint(tmp_path: Path) -> None:
    metrics = free_port()
    async with background_job(
        tmp_path, "run", "--table-id", "T1", "--card-source", "rng", "--display", "off",
        "--journal", str(tmp_path / "T1.journal"), "--metrics", f"127.0.0.1:{metrics}",
    ) as job:  # fmt: skip
        async with aiohttp.ClientSession() as http:
            await wait_for_health(http, f"http://127.0.0.1:{metrics}")
        code, err = await stopped_by(job, signal.SIGINT)
    assert code == 0, err
    assert "table service stopping" in err
    assert "Traceback" not in err, err


async def test_demo_stops_cleanly_on_ctrl_c_though_started_ignoring_sigint(
    tmp_path: Path,
) -> None:
    async with background_job(tmp_path, "demo", "--display", "off", "--speed", "50") as job:
        await line_matching(job.stdout, r"^  backend ")
        code, err = await stopped_by(job, signal.SIGINT)
    assert code == 0, err
    assert "table-controller demo: stopping" in err
    assert "Traceback" not in err, err


@pytest.mark.broker
async def test_ingest_stops_cleanly_on_ctrl_c_though_started_ignoring_sigint(
    tmp_path: Path, broker: Mosquitto
) -> None:
    database = f"sqlite+aiosqlite:///{tmp_path / 'ingest.db'}"
    async with background_job(
        tmp_path, "ingest", "--broker", broker.url("backend"), "--database", database,
        "--log-format", "json",
    ) as job:  # fmt: skip
        # Once connected: a stop while aiomqtt connects leaves its client to the garbage
        # collector, which logs a traceback (the worker's, whatever stops it).
        await line_matching(job.stderr, r"ingest_connected")
        code, err = await stopped_by(job, signal.SIGINT)
    assert code == 0, err
    assert "ingest_stopped" in err  # its counts, said on the way out
    assert "Traceback" not in err, err
