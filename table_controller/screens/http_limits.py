# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""How much the web addresses take: caps, timeouts, the descriptors they need, log lines.

Adapter support, without aiohttp (the settings read the defaults here). Each web address (the
dealer display, the players' board, the metrics) has its own :class:`ListenerLimits`, held to
by ``screens/web/listener.py``. Every connection is a file descriptor: the caps of all the
addresses, the connections accepted before a cap closes them, and what the rest of the process
holds must fit under the open-file limit (``LimitNOFILE`` in
``deploy/table-controller.service``), or a flood on one address could still starve the others
(:func:`descriptors_needed`, :func:`ensure_descriptors`). A refusal that repeats is logged once
per :data:`LOG_INTERVAL_S` with its count (:class:`LogThrottle`), never once per connection.
An address that cannot be bound raises :class:`AddressUnusableError`.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

import structlog

if TYPE_CHECKING:
    from structlog.typing import FilteringBoundLogger

_LOG = structlog.get_logger("table_controller.http")

#: Connections one address holds at most.
MAX_CONNECTIONS: Final = 256
#: Connections one client (peer address) holds at most on one address: a browser page opens
#: up to six to a server, and one machine may drive several screens (or several share an
#: address behind a router); a quarter of :data:`MAX_CONNECTIONS`.
MAX_PER_CLIENT: Final = 64
#: Seconds a request has to arrive whole.
REQUEST_TIMEOUT_S: Final = 10.0
#: Seconds a kept-alive connection may stay idle.
IDLE_TIMEOUT_S: Final = 60.0
#: The kernel's queue of connections not yet accepted, per address; also how many the event
#: loop accepts in one go.
BACKLOG: Final = 128
#: Accept rounds whose connections may be open before the loop closes those over a cap.
ACCEPT_ROUNDS_IN_FLIGHT: Final = 4
#: Descriptors the process holds besides web connections (the journal and its write-ahead
#: log, the outbox, the broker, the reader, the logs), with room to spare.
RESERVED_DESCRIPTORS: Final = 64
#: Seconds between two log lines of one kind of refusal.
LOG_INTERVAL_S: Final = 10.0


class AddressUnusableError(OSError):
    """The address cannot be bound (in use, not this machine's); the message names it."""


@dataclass(frozen=True, slots=True, kw_only=True)
class ListenerLimits:
    """How long a client may take and how many connections it may hold, on one address."""

    #: Seconds a request has to arrive whole (line, headers and body).
    request_timeout_s: float = REQUEST_TIMEOUT_S
    #: Seconds a kept-alive connection with no request in progress stays open.
    idle_timeout_s: float = IDLE_TIMEOUT_S
    #: Connections the address holds at most.
    max_connections: int = MAX_CONNECTIONS
    #: Connections one client (peer address) holds at most on the address.
    max_per_client: int = MAX_PER_CLIENT

    @property
    def descriptors(self) -> int:
        """The most descriptors the address holds at once (those over a cap until closed)."""
        return self.max_connections + ACCEPT_ROUNDS_IN_FLIGHT * BACKLOG


def descriptors_needed(listeners: Iterable[ListenerLimits]) -> int:
    """Descriptors the process needs for these addresses and everything else it holds."""
    return RESERVED_DESCRIPTORS + sum(limits.descriptors for limits in listeners)


def ensure_descriptors(needed: int, *, log: FilteringBoundLogger = _LOG) -> int:
    """Raise the process's soft limit of open files to ``needed`` if its hard limit allows.

    Returns the soft limit now. One still below ``needed`` is logged as a warning: a flood of
    connections could then exhaust the descriptors the caps are meant to keep.
    """
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft != resource.RLIM_INFINITY and soft < needed:
        wanted = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
        if wanted > soft:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
            soft = wanted
    if soft != resource.RLIM_INFINITY and soft < needed:
        log.warning(
            "open-file limit below what the web connection caps need",
            limit=soft,
            needed=needed,
            hint="raise LimitNOFILE, or lower http_max_connections",
        )
    return soft


class LogThrottle:
    """One log line per ``interval_s`` for an event that repeats; the others only counted.

    Args:
        interval_s: The least time between two lines.
        clock: Monotonic seconds.
    """

    def __init__(
        self, interval_s: float = LOG_INTERVAL_S, *, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._interval_s = interval_s
        self._clock = clock
        self._next_at = float("-inf")
        self._unlogged = 0

    def due(self) -> int | None:
        """Count one event; when a line is due, the events it stands for (this one included)."""
        self._unlogged += 1
        now = self._clock()
        if now < self._next_at:
            return None
        self._next_at = now + self._interval_s
        events, self._unlogged = self._unlogged, 0
        return events

    def unlogged(self) -> int:
        """The events counted since the last line, now taken as logged (for a last line)."""
        events, self._unlogged = self._unlogged, 0
        return events
