# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The real ``table-controller`` as a subprocess: ``run`` for the length of a test, one-shots."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import resource
import shutil
import signal
import sys
from collections.abc import AsyncIterator, Mapping
from pathlib import Path
from typing import Any

import aiohttp
from prometheus_client.metrics_core import Metric
from prometheus_client.parser import text_string_to_metric_families

#: How long a stopped ``run`` may take to exit before it is killed.
STOP_TIMEOUT_S = 15.0


@contextlib.asynccontextmanager
async def table_run(
    log: Path, *args: str, env: Mapping[str, str] | None = None, open_files: int | None = None
) -> AsyncIterator[asyncio.subprocess.Process]:
    """``table-controller run ARGS``, its log appended to ``log``, stopped by SIGTERM at the end.

    It runs in the log's directory, so that what a table writes where it runs (its events log,
    when it has no broker) stays with the test, never in the checkout. ``open_files``: the
    process's limit of open files (soft and hard), as a unit's ``LimitNOFILE`` sets it. A
    process that does not exit within ``STOP_TIMEOUT_S`` is killed (:func:`stop`).
    """

    def limit_open_files() -> None:
        if open_files is not None:
            resource.setrlimit(resource.RLIMIT_NOFILE, (open_files, open_files))

    with log.open("ab") as written:
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "table_controller", "run", *args,
            env=dict(os.environ if env is None else env),
            cwd=log.parent,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=written,
            preexec_fn=None if open_files is None else limit_open_files,
        )  # fmt: skip
    try:
        yield process
    finally:
        await stop(process)


async def stop(process: asyncio.subprocess.Process) -> None:
    """SIGTERM to a process still running, SIGKILL if it has not exited ``STOP_TIMEOUT_S`` later.

    A hang then shows as a failed exit status rather than a stuck test.
    """
    if process.returncode is None:
        process.send_signal(signal.SIGTERM)
        try:
            await asyncio.wait_for(process.wait(), STOP_TIMEOUT_S)
        except TimeoutError:  # pragma: no cover - a hang fails the test's exit check
            process.kill()
            await process.wait()


async def table_controller(
    *args: str,
    env: Mapping[str, str] | None = None,
    timeout: float = 300,  # noqa: ASYNC109 - a test's deadline for one command
) -> tuple[int, str, str]:
    """Run a ``table-controller`` command to its end; its exit status, stdout and stderr."""
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "table_controller", *args,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env={**os.environ, **(env or {})},
    )  # fmt: skip
    out, err = await asyncio.wait_for(process.communicate(), timeout)
    assert process.returncode is not None
    return process.returncode, out.decode(), err.decode()


#: The device key ``keys init`` made for this test process, and what ``keys show`` said of it.
_device_key: tuple[Path, dict[str, Any]] | None = None


async def device_key_file(directory: Path) -> tuple[Path, dict[str, Any]]:
    """``directory/device.key``, a device key, and what ``keys show --json`` says of it.

    Made by the product's own ``keys init`` and read back by ``keys show``, as an operator
    would, once per test process, in the first test's directory (kept for the session):
    every later test gets a copy (mode 0600 kept), not two more command-line starts. Every
    test has a broker and a database of its own, so a key shared between them signs nothing
    another test reads.
    """
    global _device_key  # noqa: PLW0603 - made once per process
    key = directory / "device.key"
    if _device_key is None:
        code, _, err = await table_controller("keys", "init", "--key", str(key))
        assert code == 0, err
        code, out, err = await table_controller("keys", "show", "--key", str(key), "--json")
        assert code == 0, err
        _device_key = key, json.loads(out)
    else:
        shutil.copy2(_device_key[0], key)
    return key, dict(_device_key[1])


async def _first_state(http: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    """The first ``200`` answer to ``GET url``, asked again until a server serves it (30 s)."""
    async with asyncio.timeout(30):
        while True:
            with contextlib.suppress(aiohttp.ClientError):
                async with http.get(url) as response:
                    if response.status == 200:
                        body: dict[str, Any] = await response.json()
                        return body
            await asyncio.sleep(0.05)


async def wait_for_display(http: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    """The display API's first answer to ``GET /api/state``, once the table serves it."""
    return await _first_state(http, f"{url}/api/state")


async def wait_for_board(http: aiohttp.ClientSession, url: str) -> dict[str, Any]:
    """The board's first answer to ``GET /board/api/state`` at ``url``, once it serves it."""
    return await _first_state(http, f"{url}/board/api/state")


async def wait_for_health(http: aiohttp.ClientSession, url: str) -> None:
    """Once ``GET /health`` of a table's health server answers (whatever its status).

    It is served once the journal was replayed and the service's stop signals are taken.
    """
    async with asyncio.timeout(60):
        while True:
            with contextlib.suppress(aiohttp.ClientError):
                async with http.get(f"{url}/health") as response:
                    await response.read()
                    return
            await asyncio.sleep(0.05)


async def scrape(http: aiohttp.ClientSession, url: str) -> Mapping[str, Metric]:
    """``/metrics`` of a table's health server, families by name as Prometheus reads them."""
    async with http.get(f"{url}/metrics") as response:
        assert response.status == 200
        text = await response.text()
    return {family.name: family for family in text_string_to_metric_families(text)}


def events_log(path: Path) -> list[dict[str, Any]]:
    """The event messages in an events log: what a backend receives on events/, roads, odds."""
    messages = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        topic = entry["topic"]
        if "/events/" in topic or topic.endswith(("/roads", "/odds")):
            messages.append(entry["message"])
    return messages
