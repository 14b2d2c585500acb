# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The virtual shoe's servers against real pseudo-terminals, real TCP and the in-memory pipe.

The host side here is written by hand with the shared SRP/1 codec, so these tests check the
adapters (ports, plugging, the one timer, the keyboard dealer) apart from the driver.
"""

import asyncio
import contextlib
import os
from collections.abc import AsyncIterator, Awaitable, Callable
from pathlib import Path

import pytest

from drivers.srp.codec import FrameDecoder
from drivers.srp.frames import Frame, FrameType, Talker
from simulators.virtual_shoe.dealer import run_commands
from simulators.virtual_shoe.deck import Shoe
from simulators.virtual_shoe.device import ShoeDevice
from simulators.virtual_shoe.server import (
    MAX_PTY_BACKLOG,
    MemoryPort,
    PtyPort,
    TcpPort,
    VirtualShoe,
)

pytestmark = pytest.mark.usefixtures("no_leaks")

CARDS = ("AS", "2H", "3D", "4C")


def ack(seq: int) -> bytes:
    return Frame(talker=Talker.HOST, seq=0, type=FrameType.ACK, fields=(str(seq),)).encode()


class FrameReader:
    """Collects whole frames from a stream of bytes."""

    def __init__(self) -> None:
        self.decoder = FrameDecoder()
        self.frames: list[Frame] = []

    def feed(self, data: bytes) -> None:
        for item in self.decoder.feed(data):
            assert isinstance(item, Frame), item
            self.frames.append(item)


async def lines(*texts: str) -> AsyncIterator[str]:
    for text in texts:
        yield text + "\n"


async def read_frames(
    host_read: Callable[[], Awaitable[bytes]], reader: FrameReader, count: int
) -> list[Frame]:
    """Read until ``count`` more frames arrived."""
    start = len(reader.frames)
    async with asyncio.timeout(5):
        while len(reader.frames) < start + count:
            data = await host_read()
            assert data, "the line closed"
            reader.feed(data)
    return reader.frames[start:]


def link_target(link: Path) -> str | None:
    """Where the link points, or None if there is no link."""
    return str(link.readlink()) if link.is_symlink() else None


def hung_up(fd: int) -> bool:
    """Whether reading ``fd`` shows the other end gone (EOF or an error), after any data."""
    for _ in range(100):
        try:
            if not os.read(fd, 4096):
                return True
        except BlockingIOError:
            return False
        except OSError:
            return True
    return False


def shoe_on(port: MemoryPort | PtyPort | TcpPort, announced: list[str]) -> VirtualShoe:
    return VirtualShoe(
        shoe=Shoe(cards=CARDS, cut_depth=2),
        session=ShoeDevice(),
        port=port,
        announce=announced.append,
    )


async def test_the_keyboard_deals_unplugs_and_power_cycles_over_the_memory_pipe() -> None:
    port = MemoryPort()
    announced: list[str] = []
    async with shoe_on(port, announced) as shoe:
        assert port.host is not None
        host = port.host
        reader = FrameReader()
        (hello,) = await read_frames(host.read, reader, 1)
        assert (hello.seq, hello.type) == (0, FrameType.HELLO)
        host.write(ack(0))
        assert not await run_commands(shoe, lines("deal 2", "status"), announced.append)
        (first,) = await read_frames(host.read, reader, 1)
        assert first.fields == ("AS",)
        host.write(ack(first.seq))
        (second,) = await read_frames(host.read, reader, 1)
        assert second.fields == ("2H",)
        assert announced[-3:] == [
            "draw 1: AS",
            "draw 2: 2H",
            "lamp OFF, 2 drawn, 2 cards left, plugged in, waiting for the host",
        ]
        # Unplugged before the ACK: the host's end closes; the card waits in the shoe.
        assert not await run_commands(shoe, lines("unplug", "deal"), announced.append)
        assert await host.read() == b""
        assert port.host is None
        assert shoe.dealt[-1].number == 3
        assert await run_commands(shoe, lines("plug", "quit", "deal"), announced.append)
        assert port.host is not None
        host = port.host
        # The same frame again, same seq: the host can tell it is a resend.
        (again,) = await read_frames(host.read, reader, 1)
        assert again == second
        host.write(ack(second.seq))
        (cut,) = await read_frames(host.read, reader, 1)
        assert (cut.seq, cut.type) == (second.seq + 1, FrameType.CUT)
        assert shoe.draws == 3  # "quit" stopped the script before its last line
        assert "unplugged" in announced
        assert "plugged back in on memory" in announced


async def test_heartbeats_come_from_the_one_timer() -> None:
    port = MemoryPort()
    async with shoe_on(port, []):
        assert port.host is not None
        host = port.host
        reader = FrameReader()
        await read_frames(host.read, reader, 1)
        host.write(ack(0))
        loop = asyncio.get_running_loop()
        started = loop.time()
        heartbeats = await read_frames(host.read, reader, 2)
        assert [f.type for f in heartbeats] == [FrameType.HB, FrameType.HB]
        assert [f.seq for f in heartbeats] == [1, 2]
        assert 1.5 <= loop.time() - started < 3.0


async def test_a_pty_serves_its_slave_path_and_unplugging_removes_it(pty_link: Path) -> None:
    port = PtyPort(link=pty_link)
    announced: list[str] = []
    async with shoe_on(port, announced) as shoe:
        first_path = port.path
        assert first_path is not None
        assert link_target(pty_link) == first_path
        assert announced == [f"virtual shoe ready on {pty_link} -> {first_path}"]
        fd = os.open(pty_link, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        try:
            loop = asyncio.get_running_loop()
            reader = FrameReader()
            received = asyncio.Event()

            def readable() -> None:
                with contextlib.suppress(BlockingIOError, OSError):
                    reader.feed(os.read(fd, 4096))
                received.set()

            loop.add_reader(fd, readable)
            try:
                async with asyncio.timeout(5):
                    while not reader.frames:
                        await received.wait()
                        received.clear()
                assert reader.frames[0].type is FrameType.HELLO
                os.write(fd, ack(0))
                async with asyncio.timeout(5):
                    while shoe.awaiting_ack:
                        await shoe.changed()
                shoe.unplug()
                assert link_target(pty_link) is None
                # The host's end now hangs up, as a pulled USB adapter does.
                assert hung_up(fd)
            finally:
                loop.remove_reader(fd)
        finally:
            os.close(fd)
        shoe.plug_in()
        assert link_target(pty_link) == port.path
        assert announced[-1] == f"plugged back in on {pty_link} -> {port.path}"
    assert link_target(pty_link) is None


async def test_a_pty_nobody_reads_drops_bytes_beyond_its_bound() -> None:
    port = PtyPort()
    async with shoe_on(port, []):
        chunk = b"x" * 4096
        for _ in range(MAX_PTY_BACKLOG // len(chunk) * 4):
            port.write(chunk)
        assert port.bytes_dropped > 0
        assert len(port._backlog) <= MAX_PTY_BACKLOG


async def read_tcp(reader: asyncio.StreamReader) -> bytes:
    return await reader.read(4096)


async def test_tcp_serves_one_client_and_refuses_clients_while_unplugged() -> None:
    port = TcpPort("127.0.0.1", 0)
    announced: list[str] = []
    async with shoe_on(port, announced) as shoe:
        assert shoe.address == f"127.0.0.1:{port.port}"
        assert port.port != 0
        reader, writer = await asyncio.open_connection("127.0.0.1", port.port)
        frames = FrameReader()
        (hello,) = await read_frames(lambda: read_tcp(reader), frames, 1)
        assert hello.type is FrameType.HELLO
        # A second client replaces the first, which is closed; the HELLO comes again.
        reader2, writer2 = await asyncio.open_connection("127.0.0.1", port.port)
        async with asyncio.timeout(5):
            while await reader.read(4096):
                pass
        writer.close()
        await writer.wait_closed()
        (again,) = await read_frames(lambda: read_tcp(reader2), FrameReader(), 1)
        assert again == hello
        shoe.unplug()
        async with asyncio.timeout(5):
            while await reader2.read(4096):
                pass
        writer2.close()
        await writer2.wait_closed()
        refused_reader, refused_writer = await asyncio.open_connection("127.0.0.1", port.port)
        async with asyncio.timeout(5):
            assert await refused_reader.read(4096) == b""
        refused_writer.close()
        await refused_writer.wait_closed()
        shoe.plug_in()
        reader3, writer3 = await asyncio.open_connection("127.0.0.1", port.port)
        (third,) = await read_frames(lambda: read_tcp(reader3), FrameReader(), 1)
        assert third == hello
        writer3.close()
        await writer3.wait_closed()
