# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""ShoeReader: the asyncio adapter between a shoe's port and a protocol session.

Adapter: holds no protocol rules (those are in ``drivers.srp.host`` and ``drivers.textline``).
It opens the port, feeds bytes and the loop's monotonic time to the session, writes what the
session wants sent, turns ``session.deadline()`` into one ``loop.call_at``, and reopens the
port with capped, jittered exponential backoff whenever it is lost, fails to open, or the
reader falls silent.

Nothing is lost or duplicated across a reconnection because the session outlives the
connection: a frame delivered but not yet acknowledged and resent after the reconnection is
recognised as a resend, and a frame the shoe gave up on shows as ``FramesLost``.

Usage::

    async with ShoeReader("/dev/serial/by-id/usb-shoe", protocol=ShoeProtocol.SRP) as reader:
        await reader.set_lamp(Lamp.PLAYER)
        async for event in reader:
            record_durably(event)
            await reader.confirm(getattr(event, "delivery", None))
"""

from __future__ import annotations

import asyncio
import contextlib
import enum
import logging
import os
import random
from collections.abc import Callable
from types import TracebackType
from typing import TYPE_CHECKING, Final, Protocol, Self

from drivers.backoff import Backoff, JitterSource
from drivers.events import (
    Delivery,
    LineRejected,
    ReaderEvent,
    ReaderOffline,
    ReaderOnline,
)
from drivers.port import open_port, parse_port_url
from drivers.srp.constants import DEFAULT_BAUDRATE, Lamp
from drivers.srp.host import HostSession
from drivers.textline import TextLineSession

if TYPE_CHECKING:
    import collections

__all__ = ["ReaderSession", "ShoeProtocol", "ShoeReader"]

_LOGGER = logging.getLogger(__name__)
_READ_SIZE: Final = 4096
_CLOSED: Final = object()


class ShoeProtocol(enum.StrEnum):
    """Which protocol the shoe speaks."""

    #: SRP/1, checksummed and acknowledged (shoe-protocol.md).
    SRP = "srp"
    #: Bee-Tek style text lines (shoe-protocol.md, "The text-line profile").
    BEETEK = "beetek"


class ReaderSession(Protocol):
    """The shape every protocol session has (``HostSession``, ``TextLineSession``)."""

    @property
    def rejected(self) -> collections.Counter[str]: ...
    @property
    def online(self) -> bool | None: ...
    @property
    def silent(self) -> bool: ...
    def connection_made(self, now: float) -> list[ReaderEvent]: ...
    def connection_lost(self, now: float, reason: str) -> list[ReaderEvent]: ...
    def receive_data(self, data: bytes, now: float) -> list[ReaderEvent]: ...
    def confirm(self, delivery: Delivery | None) -> None: ...
    def set_lamp(self, lamp: Lamp) -> None: ...
    def data_to_send(self) -> bytes: ...
    def deadline(self) -> float | None: ...
    def on_deadline(self, now: float) -> list[ReaderEvent]: ...


def _new_session(protocol: ShoeProtocol) -> ReaderSession:
    match protocol:
        case ShoeProtocol.SRP:
            return HostSession()
        case ShoeProtocol.BEETEK:
            return TextLineSession()


class ShoeReader:
    """A shoe reader on one port, reopened for as long as the reader is open.

    An async context manager and an async iterator of ``ReaderEvent``. Each event with a
    ``delivery`` must be confirmed, once recorded durably, with ``confirm``; only then is the
    shoe sent its acknowledgement. Iteration ends when the reader is closed.

    Not reentrant; one consumer iterates.
    """

    def __init__(  # noqa: PLR0913 - each is a separate, optional setting
        self,
        url: str,
        *,
        baudrate: int = DEFAULT_BAUDRATE,
        protocol: ShoeProtocol = ShoeProtocol.SRP,
        backoff: Backoff | None = None,
        rng: JitterSource | None = None,
        session: ReaderSession | None = None,
        on_retry: Callable[[str, float], None] | None = None,
    ) -> None:
        """Prepare the reader; nothing is opened until the context is entered.

        Args:
            url: A device path or ``socket://host:port``.
            baudrate: Line speed for a device path.
            protocol: What the shoe speaks.
            backoff: Reopening delays; the default waits 0.25 s doubling up to 5 s.
            rng: Jitter source; the default is ``random.SystemRandom()``.
            session: A prepared session (tests); by default one for ``protocol``.
            on_retry: Called before each wait to reopen the port, with why it is closed
                (``cannot open: ...``, ``closed by the peer``) and the seconds until the next
                attempt: a tool can say it is retrying, and why, at every attempt.

        Raises:
            ValueError: The URL is not a device path or ``socket://host:port``.
        """
        parse_port_url(url)
        self._url = url
        self._baudrate = baudrate
        self._backoff = backoff or Backoff()
        self._rng = rng or random.SystemRandom()
        self._session = session or _new_session(protocol)
        self._on_retry = on_retry
        self._events: asyncio.Queue[ReaderEvent | object] = asyncio.Queue()
        self._runner: asyncio.Task[None] | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._failure: BaseException | None = None
        self._closing = False
        #: Seconds waited before each reopening attempt, newest last (for tests and the CLI).
        self.backoff_history: list[float] = []

    @property
    def session(self) -> ReaderSession:
        """The protocol session (read its ``rejected`` counts, ``online`` state)."""
        return self._session

    @property
    def connected(self) -> bool:
        """Whether the port is open now."""
        return self._writer is not None

    async def __aenter__(self) -> Self:
        if self._runner is not None:
            raise RuntimeError("a ShoeReader is not reentrant")
        self._runner = asyncio.create_task(self._run(), name=f"shoe-reader {self._url}")
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        """Stop reading, close the port, and end the iteration."""
        self._closing = True
        runner, self._runner = self._runner, None
        if runner is not None:
            runner.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await runner
        self._events.put_nowait(_CLOSED)

    def __aiter__(self) -> Self:
        return self

    async def __anext__(self) -> ReaderEvent:
        item = await self._events.get()
        if item is _CLOSED:
            self._events.put_nowait(_CLOSED)
            if self._failure is not None:
                raise self._failure
            raise StopAsyncIteration
        return item  # type: ignore[return-value]

    async def confirm(self, delivery: Delivery | None) -> None:
        """The event carrying ``delivery`` is durably recorded: acknowledge it to the shoe.

        If the port is down, the acknowledgement goes out once it is open again. None, or a
        handle from before the shoe restarted, is ignored.
        """
        self._session.confirm(delivery)
        await self._flush()

    async def set_lamp(self, lamp: Lamp) -> None:
        """Light the shoe's indicator (a no-op on Bee-Tek shoes, which have none)."""
        self._session.set_lamp(lamp)
        await self._flush()

    async def _flush(self) -> None:
        """Write what the session has to send, if the port is open."""
        writer = self._writer
        if writer is None or writer.is_closing():
            return
        data = self._session.data_to_send()
        if data:
            writer.write(data)
            with contextlib.suppress(OSError):
                await writer.drain()

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        attempt = 0
        try:
            while True:
                try:
                    reader, writer = await open_port(self._url, self._baudrate)
                except OSError as error:
                    # pyserial repeats the path and the errno; the system's words say it all.
                    reason = os.strerror(error.errno) if error.errno else str(error)
                    cause = f"cannot open: {reason}"
                    self._emit(self._session.connection_lost(loop.time(), cause))
                else:
                    heard, cause = await self._serve(reader, writer)
                    if heard:
                        attempt = 0
                delay = self._backoff.delay(attempt, self._rng)
                self.backoff_history.append(delay)
                if self._on_retry is not None:
                    self._on_retry(cause, delay)
                attempt += 1
                await asyncio.sleep(delay)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            # A bug, not a line fault: end the iteration with it rather than hang the caller.
            self._failure = error
            self._events.put_nowait(_CLOSED)
            raise

    async def _serve(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> tuple[bool, str]:
        """Run one connection until it ends; returns whether the reader was heard, and why not."""
        loop = asyncio.get_running_loop()
        self._writer = writer
        heard = False
        reason = "closed by the peer"
        try:
            self._emit(self._session.connection_made(loop.time()))
            await self._flush()
            self._arm_timer()
            while True:
                try:
                    data = await reader.read(_READ_SIZE)
                except OSError as error:
                    reason = f"port failed: {error}"
                    break
                if not data:
                    break
                events = self._session.receive_data(data, loop.time())
                heard = heard or any(not isinstance(e, LineRejected) for e in events)
                self._emit(events)
                await self._flush()
                self._arm_timer()
        finally:
            self._writer = None
            self._cancel_timer()
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
        if not self._closing:
            if self._session.silent:
                reason = "reader silent, port reopened"
            self._emit(self._session.connection_lost(loop.time(), reason))
        return heard, reason

    def _arm_timer(self) -> None:
        self._cancel_timer()
        deadline = self._session.deadline()
        if deadline is not None:
            self._timer = asyncio.get_running_loop().call_at(deadline, self._on_timer)

    def _cancel_timer(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _on_timer(self) -> None:
        self._timer = None
        self._emit(self._session.on_deadline(asyncio.get_running_loop().time()))
        if self._session.silent:
            if self._writer is not None:
                self._writer.close()  # the read loop sees EOF and the port is reopened
        else:
            self._arm_timer()

    def _emit(self, events: list[ReaderEvent]) -> None:
        for event in events:
            if isinstance(event, ReaderOffline):
                _LOGGER.warning("shoe reader on %s offline: %s", self._url, event.reason)
            elif isinstance(event, ReaderOnline):
                _LOGGER.info("shoe reader on %s online", self._url)
            self._events.put_nowait(event)
