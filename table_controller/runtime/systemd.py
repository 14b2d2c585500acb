# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Service notifications to systemd (``sd_notify``): ready, watchdog, status, stopping.

Adapter: one unix datagram socket (standard library ``socket``) to ``$NOTIFY_SOCKET``; it
decides nothing about the table. Outside systemd (no ``NOTIFY_SOCKET``) every call does nothing
and says so by returning ``False``, so ``run`` behaves the same in a terminal.

The unit ``deploy/table-controller.service`` is ``Type=notify`` with ``WatchdogSec=``: systemd
counts the service as started only when it sends ``READY=1``, and kills and restarts it when no
``WATCHDOG=1`` arrives within ``WatchdogSec``. The pings come from a task of the service's own
event loop, so they prove that the loop still runs: a loop blocked by a stuck call stops them.

How ``run`` uses it (``table_controller/cli/run.py``, where the reader and the service's
tasks start, once the journal is replayed and the display started)::

    async with reader, asyncio.TaskGroup() as group, notify_systemd():
        ...

:func:`notify_systemd` sends ``READY=1`` on entry, pings the watchdog at half its interval
while inside, and sends ``STOPPING=1`` on the way out (before the tasks are awaited).

The environment is parsed by :func:`notify_target`, which takes it as data (no ``os.environ``
read there), as the protocol of ``sd_notify(3)`` describes: ``NOTIFY_SOCKET`` is a socket path
or, starting with ``@``, an abstract socket name; ``WATCHDOG_USEC`` is the interval in
microseconds, meant for the process named by ``WATCHDOG_PID`` when that is set.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import socket
from collections.abc import AsyncIterator, Mapping
from dataclasses import dataclass
from typing import Final, Self

#: systemd advises pinging at half the watchdog interval (``sd_watchdog_enabled(3)``).
WATCHDOG_FRACTION: Final = 0.5
#: A datagram's fields are ``NAME=value`` lines; a value may not contain a newline.
_FIELD_SEPARATOR: Final = "\n"


@dataclass(frozen=True, slots=True, kw_only=True)
class NotifyTarget:
    """Where notifications go and how often the watchdog wants a ping."""

    #: The address for ``socket.sendto``: a path, or ``"\\0name"`` for an abstract socket.
    address: str | None
    #: Seconds between two pings, or ``None`` when no watchdog watches this process.
    watchdog_interval_s: float | None

    @property
    def enabled(self) -> bool:
        return self.address is not None


def notify_target(environ: Mapping[str, str], *, pid: int) -> NotifyTarget:
    """The notification socket and watchdog interval the environment gives process ``pid``.

    A malformed ``WATCHDOG_USEC`` or one meant for another process (``WATCHDOG_PID``) means no
    watchdog, as in ``sd_watchdog_enabled(3)``; an empty or relative ``NOTIFY_SOCKET`` means no
    notifications.
    """
    raw = environ.get("NOTIFY_SOCKET", "")
    address: str | None
    if raw.startswith("@") and len(raw) > 1:
        address = "\0" + raw[1:]
    elif raw.startswith("/"):
        address = raw
    else:
        address = None
    return NotifyTarget(address=address, watchdog_interval_s=_watchdog_interval(environ, pid))


def _watchdog_interval(environ: Mapping[str, str], pid: int) -> float | None:
    usec_text = environ.get("WATCHDOG_USEC", "")
    pid_text = environ.get("WATCHDOG_PID", "")
    if not usec_text.isdigit() or int(usec_text) == 0:
        return None
    if pid_text and (not pid_text.isdigit() or int(pid_text) != pid):
        return None
    return int(usec_text) / 1_000_000 * WATCHDOG_FRACTION


def notify_message(fields: Mapping[str, str]) -> bytes:
    """One datagram: ``NAME=value`` lines in the given order.

    Raises:
        ValueError: a name is not upper-case letters, digits and ``_``, or a value holds a
            newline (it would smuggle in another field).
    """
    lines = []
    for name, value in fields.items():
        if not name or not all(char.isupper() or char.isdigit() or char == "_" for char in name):
            raise ValueError(f"notification field {name!r}: use upper-case letters, digits, _")
        if _FIELD_SEPARATOR in value:
            raise ValueError(f"notification field {name}: the value holds a newline")
        lines.append(f"{name}={value}")
    return _FIELD_SEPARATOR.join(lines).encode("utf-8")


class SystemdNotifier:
    """Sends notifications to the service manager; every method returns whether it was sent.

    Use :meth:`from_environment` (or give a :class:`NotifyTarget`); close with :meth:`close` or
    ``with``. Not thread-safe: call it from the event loop.
    """

    def __init__(self, target: NotifyTarget) -> None:
        self.target = target
        self._socket: socket.socket | None = None
        if target.address is not None:
            self._socket = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
        #: The last error a send met (the socket gone, for instance), for the log.
        self.last_error: str | None = None

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> Self:
        """A notifier for this process, from ``os.environ`` unless ``environ`` is given."""
        return cls(notify_target(os.environ if environ is None else environ, pid=os.getpid()))

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        if self._socket is not None:
            self._socket.close()
            self._socket = None

    @property
    def watchdog_interval_s(self) -> float | None:
        return self.target.watchdog_interval_s

    def send(self, fields: Mapping[str, str]) -> bool:
        """Send one notification; ``False`` outside systemd or when the send failed."""
        if self._socket is None or self.target.address is None:
            return False
        try:
            self._socket.sendto(notify_message(fields), self.target.address)
        except OSError as error:
            self.last_error = f"{type(error).__name__}: {error}"
            return False
        return True

    def ready(self, status: str | None = None) -> bool:
        """The service is up: ``READY=1`` (and a status line for ``systemctl status``)."""
        fields = {"READY": "1"}
        if status is not None:
            fields["STATUS"] = status
        return self.send(fields)

    def status(self, text: str) -> bool:
        return self.send({"STATUS": text})

    def watchdog(self) -> bool:
        """Tell the watchdog the service is alive (``WATCHDOG=1``)."""
        return self.send({"WATCHDOG": "1"})

    def stopping(self) -> bool:
        return self.send({"STOPPING": "1"})

    def extend_start_timeout(self, seconds: float) -> bool:
        """Ask for more start time (``EXTEND_TIMEOUT_USEC``): a long journal check at start."""
        return self.send({"EXTEND_TIMEOUT_USEC": str(round(seconds * 1_000_000))})


async def feed_watchdog(notifier: SystemdNotifier) -> None:
    """Ping the watchdog at its interval until cancelled; returns at once if none is set."""
    interval = notifier.watchdog_interval_s
    if interval is None:
        return
    while True:
        notifier.watchdog()
        await asyncio.sleep(interval)


@contextlib.asynccontextmanager
async def notify_systemd(
    *, status: str | None = None, environ: Mapping[str, str] | None = None
) -> AsyncIterator[SystemdNotifier]:
    """``READY=1`` on entry, watchdog pings while inside, ``STOPPING=1`` on exit.

    Outside systemd it does nothing and costs nothing but the check of the environment.
    """
    with SystemdNotifier.from_environment(environ) as notifier:
        pinger = asyncio.create_task(feed_watchdog(notifier), name="systemd-watchdog")
        notifier.ready(status)
        try:
            yield notifier
        finally:
            notifier.stopping()
            pinger.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pinger
