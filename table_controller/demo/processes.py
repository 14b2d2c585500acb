# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The demo's child processes: the embedded broker and the table service.

Adapter: starts processes, reads their first words, watches them end, stops them. Each child
runs in a session of its own, so a Ctrl-C at the terminal reaches only the demo, which then
stops its children in order (the table first, so that it can still tell the broker it goes
offline; the broker last). Stopping is SIGTERM, a bounded wait, then SIGKILL, and always a
wait: no child is left behind, not even a zombie. Each child's standard error goes to a log
file, whose tail is shown when a child stops by itself.

If the demo itself is killed (SIGKILL: no chance to stop anything), Linux sends each child
SIGTERM (``PR_SET_PDEATHSIG``, set in the child before it runs), so the table and the broker
stop by themselves as after a Ctrl-C.
"""

from __future__ import annotations

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from table_controller.demo.broker import READY_PREFIX

#: How long the broker may take to start listening (amqtt imports a lot).
BROKER_START_S: Final = 30.0
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
        code = await self.process.wait()
        if self.process.stdin is not None:
            self.process.stdin.close()
        return code

    def log_tail(self, lines: int = LOG_TAIL_LINES) -> str:
        """The last lines of the child's log ('' if none)."""
        try:
            text = self.log_path.read_text(encoding="utf-8", errors="replace")
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
    stdio_pipes: bool = False,
) -> Child:
    with log_path.open("ab") as log:
        process = await asyncio.create_subprocess_exec(
            *command,
            stdin=asyncio.subprocess.PIPE if stdio_pipes else asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE if stdio_pipes else asyncio.subprocess.DEVNULL,
            stderr=log,
            env=None if env is None else dict(env),
            start_new_session=True,
            preexec_fn=_stop_with(os.getpid()),
        )
    return Child(name=name, process=process, log_path=log_path)


async def start_broker(log_path: Path) -> tuple[Child, int]:
    """The embedded broker on a free port of 127.0.0.1, once it accepts connections.

    Its standard input is a pipe from this process: if the demo dies without stopping it,
    the broker sees the pipe close and stops (``--stop-on-eof``).

    Raises:
        ChildError: It exited or did not say it listens within :data:`BROKER_START_S`.
    """
    command = (sys.executable, "-m", "table_controller.demo.broker", "--port", "0")
    child = await _spawn("broker", (*command, "--stop-on-eof"), log_path, stdio_pipes=True)
    stdout = child.process.stdout
    assert stdout is not None
    try:
        async with asyncio.timeout(BROKER_START_S):
            line = (await stdout.readline()).decode(errors="replace").strip()
    except TimeoutError:
        line = ""
    except BaseException:  # cancelled (the demo was stopped meanwhile): leave nothing behind
        await child.stop()
        raise
    host, _, port = line.removeprefix(READY_PREFIX).rpartition(":")
    if not line.startswith(READY_PREFIX) or not host or not port.isdigit():
        await child.stop()
        raise ChildError(f"the embedded broker did not start:\n{child.log_tail()}")
    return child, int(port)


async def start_table(
    run_flags: Sequence[str], log_path: Path, env: Mapping[str, str] | None = None
) -> Child:
    """``table-controller run`` with these flags (this Python, this installation)."""
    command = (sys.executable, "-m", "table_controller", "run", *run_flags)
    return await _spawn("table service", command, log_path, env=env)
