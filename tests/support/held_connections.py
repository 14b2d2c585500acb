# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Web clients that hold a connection open as a hostile one would: half-sent requests.

Real TCP connections to a real server. Each may come from its own loopback address
(``127.0.0.2`` ...), which the server sees as another client.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass

#: A request line and one header, the blank line that ends the headers never sent.
HALF_SENT = b"GET /board HTTP/1.1\r\nHost: 127.0.0.1\r\n"
#: Seconds a connect may take: a dropped SYN is sent again after a second.
CONNECT_TIMEOUT_S = 10.0
#: What :meth:`HeldConnection.answer` gives for a connection the server reset. A server that
#: closes a connection without reading what the client sent resets it, and the reset may
#: overtake the answer it wrote before.
RESET = b"(reset)"


@dataclass(frozen=True, slots=True)
class HeldConnection:
    """One client connection and what it sent."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    source: str

    async def answer(self, timeout: float = 5.0) -> bytes:  # noqa: ASYNC109 - a test's deadline
        """Everything the server sends until it closes the connection (:data:`RESET`: reset)."""
        try:
            async with asyncio.timeout(timeout):
                return await self.reader.read()
        except ConnectionResetError:
            return RESET

    async def open_after(self, seconds: float) -> bool:
        """Whether the server has neither answered nor closed the connection ``seconds`` on."""
        try:
            async with asyncio.timeout(seconds):
                await self.reader.read(1)
        except TimeoutError:
            return True
        return False


def turned_away(answer: bytes) -> bool:
    """Whether an answer is a connection refused over a cap: 503, or reset before it came."""
    return answer.startswith(b"HTTP/1.1 503 Service Unavailable\r\n") or answer == RESET


async def connect(
    host: str, port: int, sent: bytes = HALF_SENT, *, source: str = "127.0.0.1"
) -> HeldConnection:
    """A connection from ``source`` that has sent ``sent`` and waits."""
    async with asyncio.timeout(CONNECT_TIMEOUT_S):
        reader, writer = await asyncio.open_connection(host, port, local_addr=(source, 0))
    with contextlib.suppress(ConnectionError):  # a connection refused at once: its answer says
        writer.write(sent)
        await writer.drain()
    return HeldConnection(reader, writer, source)


@contextlib.asynccontextmanager
async def held_connections(
    host: str,
    port: int,
    count: int,
    sent: bytes = HALF_SENT,
    *,
    sources: Sequence[str] = ("127.0.0.1",),
) -> AsyncIterator[list[HeldConnection]]:
    """``count`` connections that sent ``sent``, from ``sources`` in turn; closed at the end."""
    held: list[HeldConnection] = []
    try:
        for n in range(count):  # one after another: each connect is a test of its own
            connection = await connect(host, port, sent, source=sources[n % len(sources)])
            held.append(connection)
        yield held
    finally:
        for connection in held:
            connection.writer.close()
        for connection in held:
            with contextlib.suppress(ConnectionError):
                await connection.writer.wait_closed()
