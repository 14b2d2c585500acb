# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Serving the virtual shoe: on a pseudo-terminal, a TCP port, or an in-memory pipe.

Adapter: does I/O and reads the loop's clock, holds no protocol rules. ``VirtualShoe`` feeds
the session (``device.ShoeDevice`` or ``beetek.BeeTekDevice``) the host's bytes, the dealer's
draws and the time, writes what the session wants sent, and turns ``session.deadline()``
into one ``loop.call_at``. What a draw is, and which fault strikes it, is decided by the pure
``faults.resolve_draw`` and ``FaultPlan``; this module only carries it out.

The ports:

* ``PtyPort``: ``os.openpty()`` in raw mode; the host opens the slave's path (printed). Both
  ends stay open here, so the line works whether or not a host has the path open. Unplugging
  closes both: the host's reads fail, as when a USB adapter is pulled. Plugging back in opens
  a new pseudo-terminal, whose path is printed again; with ``link`` the path is also kept as
  a symbolic link (removed while unplugged), like a udev ``serial/by-id`` name. A link that
  leads to a terminal which is there, another simulator's, is never taken over
  (:class:`PortUnusableError`); one left behind by a simulator that is gone is replaced.
* ``TcpPort``: a listener for ``socket://host:port``, one client at a time (a new client
  replaces the old, as a serial device server does). Unplugging closes the client; until
  plugged back in, new clients are closed at once.
* ``MemoryPort``: an in-memory pipe for tests; ``host`` is the host's end.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import tty
from collections.abc import Callable
from pathlib import Path
from typing import Final, Protocol, Self

from drivers.srp.constants import Lamp
from simulators.virtual_shoe.deck import Shoe
from simulators.virtual_shoe.device import DeviceEvent, ShoeSession
from simulators.virtual_shoe.faults import (
    Dealt,
    Drawn,
    FaultPlan,
    LinkFault,
    PowerCycle,
    ShoeRanOut,
    StallHeartbeats,
    Unplug,
    resolve_draw,
)

_READ_SIZE: Final = 4096
#: Bytes held for a pseudo-terminal nobody reads before they are dropped, as on a real line.
MAX_PTY_BACKLOG: Final = 64 * 1024


class PortUnusableError(OSError):
    """The port cannot be served (a link's directory is missing, its name taken); says why."""


class PortEvents(Protocol):
    """What a port tells the shoe."""

    def port_opened(self) -> None:
        """The port is usable: plugged in, or a TCP client connected."""

    def port_closed(self) -> None:
        """The port is no longer usable: unplugged, or the TCP client went."""

    def data_received(self, data: bytes) -> None:
        """Bytes from the host."""


class Port(Protocol):
    """A port the shoe is served on."""

    async def start(self, events: PortEvents) -> str:
        """Start serving; returns the address a host opens (a device path or host:port)."""

    def plug_in(self) -> str:
        """Plug back in after ``unplug``; returns the address, which may have changed."""

    def unplug(self) -> None:
        """Close the line, as when the cable is pulled."""

    def write(self, data: bytes) -> None:
        """Send bytes to the host, if it is there (bytes on an unplugged line are lost)."""

    async def close(self) -> None:
        """Stop serving for good and release everything."""


class PtyPort:
    """A pseudo-terminal; the host opens the printed slave path (or ``link``).

    Args:
        link: A path kept as a symbolic link to the current slave, if given.
    """

    def __init__(self, *, link: Path | None = None) -> None:
        self._link = link
        self._events: PortEvents | None = None
        self._master: int | None = None
        self._slave: int | None = None
        self._backlog = bytearray()
        self.path: str | None = None
        #: Bytes dropped because nobody read the pseudo-terminal.
        self.bytes_dropped = 0

    async def start(self, events: PortEvents) -> str:
        """Open the first pseudo-terminal.

        Raises:
            PortUnusableError: The link cannot be made: its directory is missing or not
                writable, or its name is taken by another simulator's link or by a file.
        """
        if self._link is not None:
            problem = link_problem(self._link)
            if problem is not None:
                raise PortUnusableError(f"{self._link}: {problem}")
        self._events = events
        try:
            return self.plug_in()
        except OSError as error:  # the link could not be made: nothing stays open
            self._events = None  # it never heard the port open, so it hears no close
            self.unplug()
            raise PortUnusableError(f"{self._link}: {error.strerror or error}") from error

    def plug_in(self) -> str:
        """Open a fresh pseudo-terminal in raw mode and tell the shoe it is plugged in."""
        assert self._events is not None, "start() first"
        if self._master is not None:
            return self.path or ""
        master, slave = os.openpty()
        tty.setraw(slave)
        os.set_blocking(master, False)
        self._master, self._slave = master, slave
        self.path = os.ttyname(slave)
        asyncio.get_running_loop().add_reader(master, self._readable)
        if self._link is not None:
            temporary = self._link.with_name(self._link.name + ".new")
            with contextlib.suppress(FileNotFoundError):
                temporary.unlink()
            temporary.symlink_to(self.path)
            temporary.replace(self._link)
        self._events.port_opened()
        return self.path if self._link is None else f"{self._link} -> {self.path}"

    def unplug(self) -> None:
        """Close both ends: the host's reads fail; the path (and link) disappear."""
        master, slave = self._master, self._slave
        if master is None or slave is None:
            return
        loop = asyncio.get_running_loop()
        loop.remove_reader(master)
        loop.remove_writer(master)
        self._master = self._slave = None
        self._backlog.clear()
        if self._link is not None:
            with contextlib.suppress(FileNotFoundError):
                self._link.unlink()
        os.close(master)
        os.close(slave)
        if self._events is not None:
            self._events.port_closed()

    def write(self, data: bytes) -> None:
        """Write to the master end; what the terminal cannot take yet waits, within a bound."""
        if self._master is None or not data:
            return
        if self._backlog:
            self._backlog += data
        else:
            try:
                written = os.write(self._master, data)
            except BlockingIOError:
                written = 0
            self._backlog += data[written:]
            if self._backlog:
                asyncio.get_running_loop().add_writer(self._master, self._writable)
        if len(self._backlog) > MAX_PTY_BACKLOG:
            self.bytes_dropped += len(self._backlog)
            self._backlog.clear()

    async def close(self) -> None:
        """Unplug for good."""
        self.unplug()
        self._events = None

    def _readable(self) -> None:
        if self._master is None:
            return
        try:
            data = os.read(self._master, _READ_SIZE)
        except BlockingIOError:
            return
        except OSError:
            # Only when the slave side is gone, which cannot happen while we hold it open.
            self.unplug()
            return
        if data and self._events is not None:
            self._events.data_received(data)

    def _writable(self) -> None:
        master = self._master
        if master is None:
            return
        try:
            written = os.write(master, self._backlog)
        except BlockingIOError:
            return
        del self._backlog[:written]
        if not self._backlog:
            asyncio.get_running_loop().remove_writer(master)


def link_problem(link: Path) -> str | None:
    """Why ``link`` cannot be kept pointing at a new pseudo-terminal, or None if it can.

    A symbolic link whose terminal is there belongs to a simulator that is serving it: taking
    it over would cut that simulator's host off. A dangling one is what a simulator that was
    killed leaves behind, and is replaced.
    """
    directory = link.parent
    if not directory.is_dir():
        return f"the directory {directory} does not exist"
    if link.is_symlink():
        target = link.resolve()
        if target.exists():
            return (
                f"already links to {target}, served by another simulator"
                " (stop it, or name another link)"
            )
        return None
    if link.exists():
        return "exists and is not a link: not replaced"
    return None


class TcpPort:
    """A TCP listener for ``socket://host:port``, one client at a time.

    Args:
        host: The address to listen on.
        port: The port; 0 picks a free one (read ``port`` after ``start``).
    """

    def __init__(self, host: str, port: int) -> None:
        self.host = host
        self.port = port
        self._events: PortEvents | None = None
        self._server: asyncio.Server | None = None
        self._writer: asyncio.StreamWriter | None = None
        self._plugged = False
        self._handlers: dict[asyncio.Task[None], asyncio.StreamWriter] = {}

    async def start(self, events: PortEvents) -> str:
        """Listen; the shoe counts as plugged in once a client connects."""
        self._events = events
        try:
            self._server = await asyncio.start_server(self._client, self.host, self.port)
        except OSError as error:
            reason = os.strerror(error.errno) if error.errno else str(error)
            raise PortUnusableError(f"{self.host}:{self.port}: {reason}") from error
        self.port = self._server.sockets[0].getsockname()[1]
        self._plugged = True
        return self.address

    @property
    def address(self) -> str:
        """``host:port`` as a host writes it after ``socket://``."""
        return f"{self.host}:{self.port}"

    def plug_in(self) -> str:
        """Accept clients again."""
        self._plugged = True
        return self.address

    def unplug(self) -> None:
        """Close the client; refuse new ones until plugged back in."""
        self._plugged = False
        self._drop_client()

    def write(self, data: bytes) -> None:
        """Send to the client, if there is one."""
        if self._writer is not None and not self._writer.is_closing():
            self._writer.write(data)

    async def close(self) -> None:
        """Stop listening and close every connection."""
        self._plugged = False
        self._drop_client()
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        self._events = None
        # Their writers are closed, so their reads end; cancelling a connection handler makes
        # asyncio's start_server log the cancellation as an error on Python 3.11.
        for writer in list(self._handlers.values()):
            writer.close()
        if self._handlers:
            await asyncio.wait(list(self._handlers))

    def _drop_client(self) -> None:
        writer, self._writer = self._writer, None
        if writer is not None:
            writer.close()
            if self._events is not None:
                self._events.port_closed()

    async def _client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers[task] = writer
        try:
            if not self._plugged or self._events is None:
                writer.close()
                return
            self._drop_client()
            self._writer = writer
            self._events.port_opened()
            while True:
                try:
                    data = await reader.read(_READ_SIZE)
                except OSError:
                    break
                if not data or self._writer is not writer:
                    break
                self._events.data_received(data)
            if self._writer is writer:
                self._drop_client()
        finally:
            writer.close()
            with contextlib.suppress(OSError):
                await writer.wait_closed()
            self._handlers.pop(task, None)


class MemoryHost:
    """The host's end of a ``MemoryPort``: read what the shoe sent, write to the shoe."""

    def __init__(self, deliver: Callable[[bytes], None]) -> None:
        self._deliver = deliver
        self.reader = asyncio.StreamReader()
        self.open = True

    def write(self, data: bytes) -> None:
        """Send bytes to the shoe (lost if the pipe was unplugged)."""
        if self.open:
            self._deliver(data)

    async def read(self) -> bytes:
        """The next bytes from the shoe; ``b""`` once unplugged."""
        return await self.reader.read(_READ_SIZE)


class MemoryPort:
    """An in-memory pipe for tests; ``host`` is the host's end of the current connection."""

    def __init__(self) -> None:
        self._events: PortEvents | None = None
        self.host: MemoryHost | None = None

    async def start(self, events: PortEvents) -> str:
        """Connect at once."""
        self._events = events
        return self.plug_in()

    def plug_in(self) -> str:
        """A fresh pipe (a new ``host``)."""
        assert self._events is not None, "start() first"
        if self.host is None:
            self.host = MemoryHost(self._events.data_received)
            self._events.port_opened()
        return "memory"

    def unplug(self) -> None:
        """The host's reads end; what it writes is lost."""
        host, self.host = self.host, None
        if host is not None:
            host.open = False
            host.reader.feed_eof()
            if self._events is not None:
                self._events.port_closed()

    def write(self, data: bytes) -> None:
        """Bytes to the host."""
        if self.host is not None:
            self.host.reader.feed_data(data)

    async def close(self) -> None:
        """Unplug for good."""
        self.unplug()
        self._events = None


class VirtualShoe:
    """A shoe served on a port: deal from it, and strike it with faults.

    An async context manager. Entering starts the port and switches the shoe on; leaving
    unplugs it and cancels every timer.

    Args:
        shoe: The cards, in order, with the cut card.
        session: The protocol: ``ShoeDevice`` (SRP/1) or ``BeeTekDevice``.
        port: Where it is served.
        faults: The plan; its frame faults must also be given to the session.
        announce: Called with each line to show the person running the shoe.
    """

    def __init__(
        self,
        *,
        shoe: Shoe,
        session: ShoeSession,
        port: Port,
        faults: FaultPlan | None = None,
        announce: Callable[[str], None] | None = None,
    ) -> None:
        self.shoe = shoe
        self.session = session
        self.port = port
        self._faults = faults or FaultPlan()
        self._announce = announce or (lambda _text: None)
        self._loop: asyncio.AbstractEventLoop | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._replug: asyncio.TimerHandle | None = None
        self._plugged = False
        self._waiters: list[asyncio.Future[None]] = []
        self._draws = 0
        #: Everything dealt, in order (what the host should be told, faults included).
        self.dealt: list[Drawn] = []
        #: What the session reported (acknowledgements, lamps, frames given up ...).
        self.events: list[DeviceEvent] = []
        #: The address a host opens now.
        self.address = ""

    async def __aenter__(self) -> Self:
        self._loop = asyncio.get_running_loop()
        self.session.start(self._now())
        self._plugged = True
        self.address = await self.port.start(self)
        self._announce(f"virtual shoe ready on {self.address}")
        self._service()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        """Stop serving: cancel timers, close the port, wake anyone waiting."""
        for handle in (self._timer, self._replug):
            if handle is not None:
                handle.cancel()
        self._timer = self._replug = None
        await self.port.close()
        self._notify()

    # --- state the dealers read ---

    @property
    def lamp(self) -> Lamp | None:
        """The lamp the host lit last; None for a protocol without a lamp."""
        return self.session.lamp

    @property
    def awaiting_ack(self) -> bool:
        """Whether a frame still waits for the host."""
        return self.session.awaiting_ack

    @property
    def plugged(self) -> bool:
        """Whether the port is plugged in."""
        return self._plugged

    @property
    def draws(self) -> int:
        """How many things have been dealt (cards, cut card, misreads, foreign cards)."""
        return self._draws

    async def changed(self) -> None:
        """Wait until something happens: host bytes, a timer, a draw, a plug or unplug."""
        assert self._loop is not None, "enter the context first"
        waiter = self._loop.create_future()
        self._waiters.append(waiter)
        await waiter

    # --- the dealer's hand and the faults on demand ---

    def deal(self) -> Dealt:
        """Draw the next thing from the shoe and report it; link faults aimed at it strike first."""
        number = self._draws + 1
        dealt = resolve_draw(self._faults, self.shoe, number)
        if not isinstance(dealt, ShoeRanOut):
            self._draws = number
            for fault in self._faults.link_faults(number):
                self._strike(fault)
            self.dealt.append(dealt)
        self.session.emit(dealt, self._now())
        self._service()
        return dealt

    def unplug(self, seconds: float | None = None) -> None:
        """Pull the cable; with ``seconds``, plug it back in that much later."""
        if self._plugged:
            self._plugged = False
            self.port.unplug()
            self._announce("unplugged")
        if seconds is not None:
            assert self._loop is not None
            if self._replug is not None:
                self._replug.cancel()
            self._replug = self._loop.call_later(seconds, self.plug_in)
        self._service()

    def plug_in(self) -> None:
        """Plug the cable back in."""
        if self._replug is not None:
            self._replug.cancel()
            self._replug = None
        if not self._plugged:
            self._plugged = True
            self.address = self.port.plug_in()
            self._announce(f"plugged back in on {self.address}")
        self._service()

    def power_cycle(self) -> None:
        """Switch the shoe off and on (it says ``HELLO`` again)."""
        self._announce("power cycle")
        self.session.power_cycle(self._now())
        self._service()

    def stall(self, seconds: float) -> None:
        """Make the shoe send nothing at all for ``seconds``."""
        self._announce(f"stalled for {seconds:g} s")
        self.session.stall(seconds, self._now())
        self._service()

    # --- PortEvents ---

    def port_opened(self) -> None:
        """The port is usable."""
        self.session.port_opened(self._now())
        self._service()

    def port_closed(self) -> None:
        """The port is not usable."""
        self.session.port_closed(self._now())
        self._service()

    def data_received(self, data: bytes) -> None:
        """Bytes from the host."""
        self.events += self.session.receive_data(data, self._now())
        self._service()

    # --- internals ---

    def _strike(self, fault: LinkFault) -> None:
        match fault:
            case StallHeartbeats(seconds=seconds):
                self.stall(seconds)
            case PowerCycle():
                self.power_cycle()
            case Unplug(seconds=seconds):
                self.unplug(seconds)

    def _now(self) -> float:
        assert self._loop is not None, "enter the context first"
        return self._loop.time()

    def _service(self) -> None:
        """Write what is due, re-arm the one timer, wake the dealers."""
        data = self.session.data_to_send()
        if data:
            self.port.write(data)
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        deadline = self.session.deadline()
        if deadline is not None and self._loop is not None:
            self._timer = self._loop.call_at(deadline, self._on_timer)
        self._notify()

    def _on_timer(self) -> None:
        self._timer = None
        self.events += self.session.on_deadline(self._now())
        self._service()

    def _notify(self) -> None:
        waiters, self._waiters = self._waiters, []
        for waiter in waiters:
            if not waiter.done():
                waiter.set_result(None)
