# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Helpers of the broker tests: a table's link on an outbox file, collectors, a link process."""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from table_controller.contract.envelope import envelope
from table_controller.mqtt.client.link import MqttLink
from table_controller.mqtt.client.subscriber import Received
from table_controller.mqtt.outbox import Outbox, OutboxMessage
from table_controller.mqtt.settings import BrokerEndpoint, MqttSettings
from table_controller.runtime.clock import utc_now

LINK_PROCESS = Path(__file__).with_name("link_process.py")


def fast(settings: MqttSettings) -> MqttSettings:
    """Test timing: quick reconnects, short publish timeouts."""
    return replace(
        settings,
        backoff_initial_s=0.05,
        backoff_max_s=0.5,
        publish_timeout_s=2.0,
        poll_interval_s=0.2,
        shutdown_grace_s=1.0,
    )


def card_message(table_id: str, n: int, *, key_prefix: str = "in") -> OutboxMessage:
    body = envelope(
        "card",
        {"card": "KH", "n": n, "shoe_id": "S-1", "round_no": 1, "round_id": "S-1-1"},
        table_id=table_id,
        seq=0,
        ts="2026-11-29T12:00:00.000Z",
    )
    return OutboxMessage(
        key=f"{key_prefix}:{n}", topic=f"baccarat/tables/{table_id}/events/card", message=body
    )


@dataclass
class RunningLink:
    link: MqttLink
    task: asyncio.Task[None]
    writer: Outbox
    commands: list[bytes] = field(default_factory=list)

    def add(self, *messages: OutboxMessage) -> list[int]:
        seqs = self.writer.add(list(messages))
        self.link.notify()
        return seqs


@contextlib.asynccontextmanager
async def running_link(
    settings: MqttSettings,
    db: Path,
    *,
    on_command: Callable[[bytes], None] | None = None,
    wait: bool = True,
) -> AsyncIterator[RunningLink]:
    """A link on ``db`` with its own writer connection; stopped cleanly at the end."""
    commands: list[bytes] = []
    callback = on_command or commands.append
    with Outbox.open(db, clock=utc_now) as writer, Outbox.open(db, clock=utc_now) as drainer:
        link = MqttLink(fast(settings), drainer)
        task = asyncio.create_task(link.run(on_command=callback), name="link-under-test")
        running = RunningLink(link=link, task=task, writer=writer, commands=commands)
        try:
            if wait:
                async with asyncio.timeout(10):
                    await link.wait_connected()
            yield running
        finally:
            link.request_stop()
            try:
                async with asyncio.timeout(10):
                    await task
            finally:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task


async def drained(db: Path, within_s: float = 5.0) -> None:
    """Wait until every row of the outbox in ``db`` is acknowledged."""
    with Outbox.open(db, clock=utc_now) as outbox:
        async with asyncio.timeout(within_s):
            while outbox.depth():  # noqa: ASYNC110 - polling another connection's work
                await asyncio.sleep(0.02)


def decoded(messages: list[Received], *, suffix: str = "") -> list[dict[str, Any]]:
    return [json.loads(m.payload) for m in messages if m.topic.endswith(suffix)]


def event_seqs(messages: list[Received]) -> list[int]:
    return [json.loads(m.payload)["seq"] for m in messages if "/events/" in m.topic]


def every_seq(
    wanted: Iterable[int], *, already: list[Received] | None = None
) -> Callable[[list[Received]], bool]:
    """An ``until`` for :func:`collect`: true once every wanted event ``seq`` has arrived.

    It reads each message once. Rescanning everything received after each message made the
    outage tests' backend quadratic: after a long outage it kept the event loop it shares
    with the link busy for seconds, and the dealing thread's outbox writes queued behind
    the interpreter lock (an add took up to 3.5 s; the link itself never did that).
    """
    missing = set(wanted).difference(event_seqs(already or []))
    read = 0

    def arrived(got: list[Received]) -> bool:
        nonlocal read
        missing.difference_update(event_seqs(got[read:]))
        read = len(got)
        return not missing

    return arrived


def backend(url: str) -> BrokerEndpoint:
    return BrokerEndpoint.from_url(url)


def start_link_process(url: str, db: Path, table_id: str, *, add: int = 0) -> subprocess.Popen[str]:
    """A separate process running a table's link (killed with -9 by the tests)."""
    root = Path(__file__).resolve().parents[2]
    return subprocess.Popen(
        [
            sys.executable,
            str(LINK_PROCESS),
            "--url",
            url,
            "--db",
            str(db),
            "--table",
            table_id,
            "--add",
            str(add),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(root)},
    )


def wait_for_line(process: subprocess.Popen[str], expected: str) -> None:
    assert process.stdout is not None
    for line in process.stdout:
        if line.strip() == expected:
            return
    raise AssertionError(f"the link process ended before {expected!r}: {process.stderr}")
