# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Helpers for the driver tests: SRP/1 shoe frames, golden vector files, a pty shoe, a TCP shoe."""

from __future__ import annotations

import ast
import asyncio
import os
import tty
from dataclasses import dataclass
from pathlib import Path

from drivers.srp.frames import Frame, FrameType, Talker

VECTORS = Path(__file__).parent.parent / "vectors"


def shoe(seq: int, frame_type: FrameType, *fields: str) -> bytes:
    """The wire bytes of one frame from the shoe."""
    return Frame(talker=Talker.SHOE, seq=seq, type=frame_type, fields=fields).encode()


def card(seq: int, text: str) -> bytes:
    """The wire bytes of the shoe's ``CARD`` frame for ``text`` (``QH``, or a bad read)."""
    return shoe(seq, FrameType.CARD, text)


@dataclass(frozen=True, slots=True, kw_only=True)
class Vector:
    line_number: int
    expected: tuple[tuple[str, ...], ...]
    wire: bytes


def load_vectors(name: str) -> list[Vector]:
    """Parse ``tests/vectors/<name>``: ``EXPECTATION | "WIRE"`` lines (see the file header)."""
    vectors = []
    for number, line in enumerate((VECTORS / name).read_text().splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        expectation, wire = line.split(" | ", 1)
        items = tuple(tuple(item.split()) for item in expectation.split(" ; "))
        literal = ast.literal_eval("b" + wire.strip())
        assert isinstance(literal, bytes)
        vectors.append(Vector(line_number=number, expected=items, wire=literal))
    return vectors


class PtyShoe:
    """The shoe's end of a real pseudo-terminal, reached through a stable symlink.

    The symlink plays the udev ``/dev/serial/by-id`` name: ``unplug`` closes the master and
    removes the link (the device node is gone); ``plug`` makes a new pty behind the same name.
    """

    def __init__(self, directory: Path) -> None:
        self.path = directory / "shoe"
        self.master: int | None = None
        self.slave: int | None = None
        self.received = bytearray()
        self._data = asyncio.Event()

    def plug(self) -> None:
        master, slave = os.openpty()
        tty.setraw(master)
        os.set_blocking(master, False)
        self.master, self.slave = master, slave
        self.path.symlink_to(os.ttyname(slave))
        asyncio.get_running_loop().add_reader(master, self._readable)

    def unplug(self) -> None:
        if self.master is None or self.slave is None:
            return
        asyncio.get_running_loop().remove_reader(self.master)
        self.path.unlink()
        os.close(self.master)
        os.close(self.slave)
        self.master = self.slave = None

    def send(self, data: bytes) -> None:
        assert self.master is not None
        os.write(self.master, data)

    async def send_all(self, data: bytes, limit_s: float = 30.0) -> None:
        """Write ``data`` whole, waiting while the line's buffer is full (a reader is slow)."""
        assert self.master is not None
        sent = 0
        async with asyncio.timeout(limit_s):
            while sent < len(data):
                try:
                    sent += os.write(self.master, data[sent : sent + 4096])
                except BlockingIOError:
                    await asyncio.sleep(0.01)

    def _readable(self) -> None:
        assert self.master is not None
        try:
            chunk = os.read(self.master, 4096)
        except (BlockingIOError, OSError):
            return
        self.received += chunk
        self._data.set()

    async def wait_received(self, expected: bytes, limit_s: float = 2.0) -> None:
        """Wait until ``received`` contains ``expected``."""
        async with asyncio.timeout(limit_s):
            while expected not in self.received:
                self._data.clear()
                await self._data.wait()


class TcpShoe:
    """A shoe behind a serial device server: a real TCP server on 127.0.0.1.

    It can be stopped and started again on the same port.
    """

    def __init__(self) -> None:
        self.port = 0
        self.connections = 0
        self.received = bytearray()
        self._server: asyncio.Server | None = None
        self._writers: list[asyncio.StreamWriter] = []
        self._handlers: set[asyncio.Task[None]] = set()
        self._changed = asyncio.Event()

    @property
    def url(self) -> str:
        return f"socket://127.0.0.1:{self.port}"

    async def start(self) -> None:
        self._server = await asyncio.start_server(self._on_client, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]

    async def stop(self) -> None:
        """Close the listener and every connection, as a device server going down does."""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None
        for writer in self._writers:
            writer.close()
        self._writers.clear()
        for task in list(self._handlers):
            task.cancel()
        await asyncio.gather(*self._handlers, return_exceptions=True)

    def send(self, data: bytes) -> None:
        assert self._writers, "no reader connected"
        self._writers[-1].write(data)

    async def wait_connections(self, count: int, limit_s: float = 5.0) -> None:
        async with asyncio.timeout(limit_s):
            while self.connections < count:
                self._changed.clear()
                await self._changed.wait()

    async def wait_received(self, expected: bytes, limit_s: float = 2.0) -> None:
        async with asyncio.timeout(limit_s):
            while expected not in self.received:
                self._changed.clear()
                await self._changed.wait()

    async def _on_client(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._handlers.add(task)
        self.connections += 1
        self._writers.append(writer)
        self._changed.set()
        try:
            while data := await reader.read(4096):
                self.received += data
                self._changed.set()
        except (ConnectionError, asyncio.CancelledError):
            pass
        finally:
            writer.close()
            self._handlers.discard(task)
