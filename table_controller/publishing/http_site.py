# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Serve an aiohttp application on one address: the dealer display and the health endpoint.

Adapter: binds a socket. Port 0 takes a free port; the bound one is returned, so a caller can
print its URL. A failed bind leaves nothing behind and raises :class:`AddressUnusableError`.
aiohttp is imported only where a site starts: ``run`` catches the error without loading it.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from aiohttp import web


class AddressUnusableError(OSError):
    """The address cannot be bound (in use, not this machine's); the message names it."""


async def start_site(
    app: web.Application, host: str, port: int, *, shutdown_timeout: float
) -> tuple[web.AppRunner, int]:
    """Set the application up and bind it; its runner (to clean up) and the bound port.

    Raises:
        AddressUnusableError: the address cannot be bound (in use, not this machine's).
    """
    from aiohttp import web  # noqa: PLC0415 - see the module's docstring

    runner = web.AppRunner(app, shutdown_timeout=shutdown_timeout, access_log=None)
    await runner.setup()
    try:
        await web.TCPSite(runner, host, port).start()
    except OSError as error:
        await runner.cleanup()
        reason = os.strerror(error.errno) if error.errno else str(error)
        raise AddressUnusableError(f"{host}:{port}: {reason}") from error
    for address in runner.addresses:
        if isinstance(address, tuple) and len(address) >= 2:
            return runner, int(address[1])
    return runner, port
