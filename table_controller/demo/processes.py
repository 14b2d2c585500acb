# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The demo's child processes: the broker (mosquitto) and the table service.

Adapter: starts processes, reads in the broker's log that it listens, watches them end, stops
them. Each child runs in a session of its own, so a Ctrl-C at the terminal reaches only the
demo, which then stops its children in order (the table first, so that it can still tell the
broker it goes offline; the broker last). Stopping is SIGTERM, a bounded wait, then SIGKILL,
and always a wait: no child is left behind, not even a zombie. Each child's standard error goes
to a log file, whose tail is shown when a child stops by itself.

If the demo itself is killed (SIGKILL: no chance to stop anything), Linux sends each child
SIGTERM (``PR_SET_PDEATHSIG``, set in the child before it runs), so the table and the broker
stop by themselves as after a Ctrl-C.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import pwd
import signal
import socket
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from table_controller.demo.broker import (
    MOSQUITTO_MISSING,
    PORT_TAKEN,
    RUNNING,
    broker_config,
    find_mosquitto,
)

#: The address the demo's broker listens on.
BROKER_HOST: Final = "127.0.0.1"
#: How long the broker may take to say it listens.
BROKER_START_S: Final = 10.0
#: Ports tried when another process takes the free one before mosquitto binds it.
PORT_ATTEMPTS: Final = 5
#: How long a child may take to stop after SIGTERM before it is killed. The table service
#: drains its MQTT link and publishes its offline status first (SHUTDOWN_GRACE_S in ``cli/run.py``).
STOP_S: Final = 15.0
#: Lines of a child's log shown when it stops by itself.
LOG_TAIL_LINES: Final = 20


class ChildError(RuntimeError):
    """A child process did not start; the message says why, with the end of its log."""


@dataclass(slots=True)
class Child:
    """A running child process, its name for messages and its log file."""

    name: str
    process: asyncio.subprocess.Process
    log_path: Path

    @property
    def pid(self) -> int:
        return self.process.pid

    @property
    def running(self) -> bool:
        return self.process.returncode is None

    async def wait(self) -> int:
        """Wait until the child ends by itself; its exit status."""
        return await self.process.wait()

    async def stop(self, timeout_s: float = STOP_S) -> int:
        """SIGTERM, wait up to ``timeout_s``, then SIGKILL; always reaped. Its exit status."""
        if self.process.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.process.send_signal(signal.SIGTERM)
            try:
                async with asyncio.timeout(timeout_s):
                    await self.process.wait()
            except TimeoutError:
                with contextlib.suppress(ProcessLookupError):
                    self.process.kill()
        return await self.process.wait()

    def log_tail(self, lines: int = LOG_TAIL_LINES, *, since: int = 0) -> str:
        """The last lines of the child's log after its first ``since`` bytes ('' if none)."""
        try:
            with self.log_path.open("rb") as log:
                log.seek(since)
                text = log.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        return "\n".join(text.splitlines()[-lines:])


#: ``prctl`` option: the signal a process gets when its parent dies (linux/prctl.h).
PR_SET_PDEATHSIG: Final = 1


def _stop_with(parent: int) -> Callable[[], None] | None:
    """What a child runs before ``exec``: SIGTERM to itself once ``parent`` is gone (Linux)."""
    if not sys.platform.startswith("linux"):
        return None

    def arm() -> None:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
        if os.getppid() != parent:  # the demo died before the signal was armed
            os.kill(os.getpid(), signal.SIGTERM)

    return arm


async def _spawn(
    name: str,
    command: Sequence[str],
    log_path: Path,
    *,
    env: Mapping[str, str] | None = None,
) -> Child:
    with log_path.open("ab") as log:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.DEVNULL,
            stderr=log,
            env=None if env is None else dict(env),
            start_new_session=True,
            preexec_fn=_stop_with(os.getpid()),
        )
    return Child(name=name, process=process, log_path=log_path)


def free_port(host: str = BROKER_HOST) -> int:
    """A port nobody listens on now (another process may still take it before it is bound)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


async def start_broker(log_path: Path, *, port: int = 0) -> tuple[Child, int]:
    """The broker on ``port`` of 127.0.0.1 (0: a free one), once it listens.

    Its configuration is written beside ``log_path``. A free port that another process takes
    first is given up for another one, up to :data:`PORT_ATTEMPTS` times.

    Raises:
        ChildError: mosquitto is not installed, or it exited or did not start listening
            within :data:`BROKER_START_S` (the message ends with its log).
    """
    program = find_mosquitto()
    if program is None:
        raise ChildError(MOSQUITTO_MISSING)
    attempts = PORT_ATTEMPTS if port == 0 else 1
    for attempt in range(attempts):
        chosen = port or free_port()
        config, log_start = _configure(log_path, chosen)
        child = await _spawn("broker", (program, "-c", str(config)), log_path)
        try:
            if await _listening(child, since=log_start):
                return child, chosen
        except BaseException:  # cancelled (the demo was stopped meanwhile): leave nothing behind
            await child.stop()
            raise
        await child.stop()
        taken = PORT_TAKEN in child.log_tail(since=log_start)
        if not taken or attempt + 1 == attempts:
            why = f"port {chosen} is taken" if taken else "it did not start listening"
            raise ChildError(f"the embedded broker did not start: {why}\n{child.log_tail()}")
    raise AssertionError("unreachable")  # pragma: no cover - the loop returns or raises


def _configure(log_path: Path, port: int) -> tuple[Path, int]:
    """The broker's configuration file, written beside its log; where its log ends now."""
    config = log_path.with_name("mosquitto.conf")
    user = pwd.getpwuid(os.getuid()).pw_name
    config.write_text(broker_config(BROKER_HOST, port, user), encoding="utf-8")
    return config, log_path.stat().st_size if log_path.exists() else 0


async def _listening(child: Child, *, since: int) -> bool:
    """Whether ``child`` logs that it listens before it exits or :data:`BROKER_START_S` ends.

    Its log says so, not a connection to the port: another process may listen there.
    """
    try:
        async with asyncio.timeout(BROKER_START_S):
            while child.running:
                if RUNNING.search(child.log_tail(since=since)):
                    return True
                await asyncio.sleep(0.02)
    except TimeoutError:
        pass
    return False


async def start_table(
    run_flags: Sequence[str], log_path: Path, env: Mapping[str, str] | None = None
) -> Child:
    """``table-controller run`` with these flags (this Python, this installation)."""
    command = (sys.executable, "-m", "table_controller", "run", *run_flags)
    return await _spawn("table service", command, log_path, env=env)
