# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Opening the shoe's port: a serial device path, or ``socket://host:port``.

Adapter: does I/O, holds no protocol rules. The one place that chooses the serial library
(pyserial + pyserial-asyncio-fast), so changing it touches one file.

Traps handled here:

* ``loop://`` and ``rfc2217://`` do not work with asyncio serial libraries (no ``fileno``): any
  scheme other than ``socket://`` is refused at once with ``ValueError``.
* Device paths are opened with ``exclusive=True`` so a second process (or ModemManager)
  cannot share the port.
* Opening a device runs in a thread; if the caller is cancelled meanwhile, the port that
  thread opens is closed when it arrives instead of leaking its file descriptor.

Disconnections show up in the returned streams: ``read`` returns ``b""`` when the peer closes,
or raises ``OSError`` (``serial.SerialException`` is one) when the device fails or is unplugged.
A silent reader shows nothing at all; the SRP/1 session's watchdog catches that.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import urllib.parse
from dataclasses import dataclass

import serial
import serial_asyncio_fast

from drivers.srp.constants import DEFAULT_BAUDRATE

__all__ = ["PortAddress", "open_port", "parse_port_url"]

_SOCKET_SCHEME = "socket"


@dataclass(frozen=True, slots=True, kw_only=True)
class PortAddress:
    """Where the shoe is: a device path, or a TCP host and port for a serial device server."""

    device: str | None = None
    host: str | None = None
    port: int | None = None

    def __str__(self) -> str:
        return self.device if self.device is not None else f"socket://{self.host}:{self.port}"


def parse_port_url(url: str) -> PortAddress:
    """Check a port name the way pyserial names ports, without opening it.

    Args:
        url: A device path such as ``/dev/ttyUSB0``, or ``socket://host:port``.

    Returns:
        The parsed address.

    Raises:
        ValueError: The name is empty, uses another URL scheme, or lacks a host or port.
    """
    if not url:
        raise ValueError("the port name is empty")
    if "://" not in url:
        return PortAddress(device=url)
    parts = urllib.parse.urlsplit(url)
    if parts.scheme != _SOCKET_SCHEME:
        raise ValueError(f"{url!r}: only a device path or socket://host:port is supported")
    try:
        port = parts.port
    except ValueError as error:
        raise ValueError(f"{url!r}: {error}") from None
    if not parts.hostname or port is None or parts.path not in ("", "/") or parts.query:
        raise ValueError(f"{url!r}: expected socket://host:port")
    return PortAddress(host=parts.hostname, port=port)


async def open_port(
    url: str, baudrate: int = DEFAULT_BAUDRATE
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """Open the shoe's port as asyncio streams.

    Args:
        url: A device path (8N1, no flow control, exclusive) or ``socket://host:port``.
        baudrate: Line speed for a device path; a socket ignores it.

    Returns:
        The reader and writer. Close with ``writer.close()`` then ``await writer.wait_closed()``.

    Raises:
        ValueError: The URL is not one this driver supports.
        OSError: The port cannot be opened now (missing node, refused connection, busy port);
            ``serial.SerialException`` is an ``OSError``. Retry later.
    """
    address = parse_port_url(url)
    if address.device is None:
        return await asyncio.open_connection(address.host, address.port)
    loop = asyncio.get_running_loop()
    opening = loop.run_in_executor(
        None,
        functools.partial(
            serial.Serial,
            address.device,
            baudrate=baudrate,
            bytesize=serial.EIGHTBITS,
            parity=serial.PARITY_NONE,
            stopbits=serial.STOPBITS_ONE,
            xonxoff=False,
            rtscts=False,
            exclusive=True,
        ),
    )
    try:
        instance = await asyncio.shield(opening)
    except asyncio.CancelledError:
        opening.add_done_callback(_close_when_opened)
        raise
    reader = asyncio.StreamReader()
    protocol = asyncio.StreamReaderProtocol(reader)
    transport, _ = await serial_asyncio_fast.connection_for_serial(loop, lambda: protocol, instance)
    return reader, asyncio.StreamWriter(transport, protocol, reader, loop)


def _close_when_opened(opening: asyncio.Future[serial.Serial]) -> None:
    """Close a port whose opener was cancelled while the thread was opening it."""
    if not opening.cancelled() and opening.exception() is None:
        with contextlib.suppress(OSError):
            opening.result().close()
