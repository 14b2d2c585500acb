# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""One web address's defences: request and idle timeouts, connection caps, failing accepts.

Adapter (asyncio, aiohttp). aiohttp closes a kept-alive connection left idle (its
``keepalive_timeout``) but has no limit on a request that never finishes arriving: a client
that sends half its headers and waits holds a file descriptor as long as it likes, and a few
hundred of them exhaust the process's (``LimitNOFILE`` in ``deploy/table-controller.service``),
the dealer's screen and ``/health`` included. Here each accepted connection is wrapped
(:class:`GuardedConnection`) before aiohttp sees it, and its listener (:class:`Listener`)
keeps the count:

- an address holds at most ``max_connections`` connections, one client (peer address) at most
  ``max_per_client``; a connection over either cap is answered 503 and closed at once, before
  aiohttp reads a byte of it. Each address has its own caps: a full board address leaves the
  dealer's and the metrics' as they were;
- a request must arrive whole (request line, headers and body) within ``request_timeout_s`` of
  the connection opening, or of its first byte on a kept-alive connection; one that does not
  is closed, after a 408 unless its handler had begun. Once whole, its handler runs as long
  as it needs: an event stream is never cut by a timeout. (A request sent in the same packet
  as the one before it, pipelined, is bounded by the idle timeout instead: aiohttp closes a
  connection whose next request has not arrived whole when that runs out.);
- a kept-alive connection with no request in progress closes after ``idle_timeout_s``
  (aiohttp's ``keepalive_timeout``).

The middleware :func:`requests_arrived` tells a connection when its request is whole (the
body too: its reader's end-of-file). Refusals and timeouts are counted
(:attr:`Listener.refusals`) and logged once per interval of each kind, with the number since
the last line (``screens/http_limits.py``). A failing ``accept()`` (no descriptor left)
reaches the event loop's exception handler, once per waiting connection and again every
second while it lasts: :class:`AcceptFailures` counts those reports and logs them alike.
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import errno
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any, Final, Self

import structlog
from aiohttp import StreamReader, web

from table_controller.screens.http_limits import BACKLOG, ListenerLimits, LogThrottle

if TYPE_CHECKING:
    from structlog.typing import FilteringBoundLogger

_LOG = structlog.get_logger("table_controller.http")

#: What ``accept()`` fails with when the process or the system runs out of descriptors or memory.
RESOURCE_ERRNOS: Final = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})


def _answer(status: str, text: str) -> bytes:
    """A whole HTTP/1.1 answer that closes the connection, written before aiohttp has one."""
    body = text.encode()
    head = (
        f"HTTP/1.1 {status}\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8"
        f"\r\nContent-Length: {len(body)}\r\n\r\n"
    )
    return head.encode() + body


_BUSY: Final = _answer("503 Service Unavailable", "too many connections; try again later\n")
_TIMED_OUT: Final = _answer("408 Request Timeout", "the request did not arrive in time\n")


class Refusal(enum.StrEnum):
    """Why a listener ended a connection of its own accord."""

    #: The address held ``max_connections`` already.
    LISTENER_FULL = "listener_full"
    #: The client held ``max_per_client`` already.
    CLIENT_FULL = "client_full"
    #: The request did not arrive whole within ``request_timeout_s``.
    REQUEST_TIMEOUT = "request_timeout"


class _Phase(enum.Enum):
    #: A request is expected or arriving; the request timeout runs.
    RECEIVING = enum.auto()
    #: The request arrived whole; its handler has it.
    WHOLE = enum.auto()
    #: The handler is done and nothing of another request came yet (aiohttp's idle timeout).
    IDLE = enum.auto()


class Listener:
    """One address's connections: their count per client, the caps, the counts of refusals.

    Args:
        name: What the log calls the address ("players' board").
        limits: Its caps and timeouts.
        log: Where refusals are logged.
    """

    def __init__(
        self, name: str, limits: ListenerLimits, *, log: FilteringBoundLogger = _LOG
    ) -> None:
        self.name = name
        self.limits = limits
        #: Connections ended by the listener since it started, by :class:`Refusal`.
        self.refusals = dict.fromkeys(Refusal, 0)
        self._log = log
        self._throttles = {why: LogThrottle() for why in Refusal}
        self._per_client: dict[str, int] = {}
        self._open = 0

    @property
    def open_connections(self) -> int:
        """Connections this address holds now."""
        return self._open

    def protocol_factory(self, make_handler: Callable[[], asyncio.Protocol]) -> GuardedConnection:
        """A connection of this listener, whose HTTP is ``make_handler()``'s once admitted."""
        return GuardedConnection(self, make_handler)

    def admit(self, client: str) -> Refusal | None:
        """Take a connection from ``client``, or say which cap it is over (then not taken)."""
        if self._open >= self.limits.max_connections:
            return Refusal.LISTENER_FULL
        held = self._per_client.get(client, 0)
        if held >= self.limits.max_per_client:
            return Refusal.CLIENT_FULL
        self._open += 1
        self._per_client[client] = held + 1
        return None

    def release(self, client: str) -> None:
        """A connection :meth:`admit` took has closed."""
        self._open -= 1
        held = self._per_client.pop(client) - 1
        if held:
            self._per_client[client] = held

    def refused(self, why: Refusal, client: str) -> None:
        """Count a refusal; log it when its kind's line is due."""
        self.refusals[why] += 1
        events = self._throttles[why].due()
        if events is not None:
            self._log.warning(
                "web connections refused",
                address=self.name,
                reason=why.value,
                client=client,
                refused=events,
                total=self.refusals[why],
                open=self._open,
            )


class GuardedConnection(asyncio.Protocol):
    """One accepted connection: admitted under its listener's caps, its request timed.

    It stands between the transport and aiohttp's protocol (made only once the connection is
    admitted) and passes every call on; the transport's protocol is this object, which is how
    :func:`requests_arrived` finds it from a request.
    """

    def __init__(self, listener: Listener, make_handler: Callable[[], asyncio.Protocol]) -> None:
        self._listener = listener
        self._make_handler = make_handler
        self._handler: asyncio.Protocol | None = None
        self._transport: asyncio.Transport | None = None
        self._client = ""
        self._phase = _Phase.RECEIVING
        self._deadline: asyncio.TimerHandle | None = None
        self._in_handler = False
        self._more_while_busy = False
        #: The request timed out: the connection is being closed.
        self.timed_out = False

    # --- asyncio.Protocol, passed on to aiohttp once admitted --------------------------------

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)  # a TCP listener's
        self._transport = transport
        peer = transport.get_extra_info("peername")
        self._client = str(peer[0]) if isinstance(peer, tuple) and peer else ""
        refusal = self._listener.admit(self._client)
        if refusal is not None:
            self._listener.refused(refusal, self._client)
            self._end(_BUSY)
            return
        self._handler = self._make_handler()
        self._handler.connection_made(transport)
        self._arm()

    def data_received(self, data: bytes) -> None:
        if self._handler is None:
            return
        if self._phase is _Phase.IDLE:
            self._phase = _Phase.RECEIVING
            self._arm()
        elif self._phase is _Phase.WHOLE:
            self._more_while_busy = True  # the next request, pipelined
        self._handler.data_received(data)

    def eof_received(self) -> bool | None:
        return None if self._handler is None else self._handler.eof_received()

    def pause_writing(self) -> None:
        if self._handler is not None:
            self._handler.pause_writing()

    def resume_writing(self) -> None:
        if self._handler is not None:
            self._handler.resume_writing()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        handler, self._handler = self._handler, None
        if handler is not None:
            self._listener.release(self._client)
            handler.connection_lost(exc)
        self._transport = None

    # --- the request's progress (from requests_arrived) --------------------------------------

    def request_started(self, body: StreamReader) -> None:
        """A request's line and headers arrived; ``body`` is its payload's reader."""
        self._in_handler = True
        body.on_eof(self._request_whole)

    def request_handled(self) -> None:
        """The request's handler is done; the next request has the timeout anew."""
        self._in_handler = False
        if self._handler is None:
            return
        if self._more_while_busy:
            self._more_while_busy = False
            self._phase = _Phase.RECEIVING
            self._arm()
        elif self._phase is _Phase.WHOLE:
            self._phase = _Phase.IDLE

    def _request_whole(self) -> None:
        if self._handler is not None and self._phase is _Phase.RECEIVING:
            self._phase = _Phase.WHOLE
            self._disarm()

    # --- the request timeout -----------------------------------------------------------------

    def _arm(self) -> None:
        self._disarm()
        loop = asyncio.get_running_loop()
        self._deadline = loop.call_later(self._listener.limits.request_timeout_s, self._expire)

    def _disarm(self) -> None:
        if self._deadline is not None:
            self._deadline.cancel()
            self._deadline = None

    def _expire(self) -> None:
        self._deadline = None
        if self._handler is None or self._phase is not _Phase.RECEIVING:
            return
        self.timed_out = True
        self._listener.refused(Refusal.REQUEST_TIMEOUT, self._client)
        # A handler that has the request's headers may be writing: add nothing to its bytes.
        self._end(None if self._in_handler else _TIMED_OUT)

    def _end(self, answer: bytes | None) -> None:
        """Close the connection, after ``answer`` when the kernel takes it at once."""
        transport = self._transport
        if transport is None or transport.is_closing():
            return
        if answer is not None:
            transport.write(answer)
        if transport.get_write_buffer_size():  # a client that does not read: no lingering
            transport.abort()
        else:
            transport.close()


@web.middleware
async def requests_arrived(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """Tell the request's connection when its request is whole and when it is handled.

    The outermost middleware of an application served by :class:`GuardedSite`. A request whose
    connection timed out while its body was arriving ends as a 408 that is never sent, not as
    aiohttp's "Error handling request" with a traceback.
    """
    transport = request.transport
    connection = None if transport is None else transport.get_protocol()
    if not isinstance(connection, GuardedConnection):
        return await handler(request)
    connection.request_started(request.content)
    try:
        return await handler(request)
    except ConnectionResetError:
        if connection.timed_out:
            raise web.HTTPRequestTimeout from None
        raise
    finally:
        connection.request_handled()


class GuardedSite(web.BaseSite):
    """aiohttp's TCP site, each connection of it a :class:`GuardedConnection` of ``listener``.

    Args:
        runner: The application's runner, set up.
        host: Address to bind.
        port: TCP port; 0 picks a free one.
        listener: The address's caps, timeouts and counts.
    """

    __slots__ = ("_host", "_listener", "_port")

    def __init__(self, runner: web.BaseRunner, host: str, port: int, listener: Listener) -> None:
        super().__init__(runner, backlog=BACKLOG)
        self._host = host
        self._port = port
        self._listener = listener

    @property
    def name(self) -> str:
        host = f"[{self._host}]" if ":" in self._host else self._host
        return f"http://{host}:{self._port}"

    async def start(self) -> None:
        """Bind and serve (``BaseSite.start`` registers the site with its runner)."""
        await super().start()
        server = self._runner.server
        assert server is not None  # the runner is set up (checked by BaseSite)
        listener = self._listener
        self._server = await asyncio.get_running_loop().create_server(
            lambda: listener.protocol_factory(server), self._host, self._port, backlog=BACKLOG
        )


class AcceptFailures:
    """The event loop's reports of a failing ``accept()``: counted, logged at a bounded rate.

    asyncio reports each failure to the loop's exception handler and tries the address again a
    second later; with no descriptor left that is one report per waiting connection per try.
    :meth:`watching` puts :meth:`handle` in place; any other report goes to the handler there
    was before (or the loop's default).
    """

    def __init__(self, *, log: FilteringBoundLogger = _LOG) -> None:
        self._log = log
        self._throttle = LogThrottle()
        self._previous: Callable[[asyncio.AbstractEventLoop, dict[str, Any]], object] | None = None
        #: Failed accepts since :meth:`watching` began.
        self.failures = 0

    @contextlib.contextmanager
    def watching(self, loop: asyncio.AbstractEventLoop) -> Iterator[Self]:
        """Handle the loop's reports while inside; the handler before is restored after.

        Failures counted since the last line get a last line of their own.
        """
        self._previous = loop.get_exception_handler()
        loop.set_exception_handler(self.handle)
        try:
            yield self
        finally:
            loop.set_exception_handler(self._previous)
            events = self._throttle.unlogged()
            if events:
                self._log_failures(events, None)

    def _log_failures(self, events: int, error: OSError | None) -> None:
        self._log.error(
            "cannot accept web connections",
            error=None if error is None else str(error),
            failures=events,
            total=self.failures,
        )

    def handle(self, loop: asyncio.AbstractEventLoop, context: dict[str, Any]) -> None:
        """The loop's exception handler: a failing accept here, anything else passed on."""
        error = context.get("exception")
        if "socket" in context and isinstance(error, OSError) and error.errno in RESOURCE_ERRNOS:
            self.failures += 1
            events = self._throttle.due()
            if events is not None:
                self._log_failures(events, error)
        elif self._previous is None:
            loop.default_exception_handler(context)
        else:
            self._previous(loop, context)
