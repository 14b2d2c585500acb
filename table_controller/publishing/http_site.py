# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Serve an aiohttp application on one address: the screens and the health endpoint.

Adapter: binds a socket. Port 0 takes a free port; the bound one is returned, so a caller can
print its URL. A failed bind leaves nothing behind and raises :class:`AddressUnusableError`.
aiohttp is imported only where a site starts: ``run`` catches the error without loading it.
:class:`SiteServer` is what the servers have in common: their address, start and stop.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from aiohttp import web
    from structlog.typing import FilteringBoundLogger


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


class SiteServer:
    """An aiohttp application served on ``host:port``: its address, its start and its stop.

    A subclass makes the application (:meth:`make_app`), names itself (:attr:`site_name`,
    the path of its :attr:`url`) and ends its own streams before it stops
    (:meth:`_close_streams`). :meth:`start` and :meth:`stop` may be repeated.

    Args:
        host: Address to bind.
        port: TCP port; 0 picks a free one (see :attr:`port` after :meth:`start`).
        log: Where it says it serves, stopped, or could not bind.
    """

    #: What the log calls the server ("dealer display").
    site_name: ClassVar[str]
    #: The path its :attr:`url` ends with.
    site_path: ClassVar[str] = ""
    #: Seconds a stopping server gives the requests in progress.
    shutdown_timeout: ClassVar[float] = 1.0

    def __init__(self, host: str, port: int, *, log: FilteringBoundLogger) -> None:
        self.host = host
        self.port = port
        self._log = log
        self._runner: web.AppRunner | None = None

    @property
    def url(self) -> str:
        """The server's address (after :meth:`start`, with the port actually bound)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}{self.site_path}"

    def make_app(self) -> web.Application:
        """The application to serve."""
        raise NotImplementedError

    async def start(self) -> None:
        """Bind and serve; :attr:`port` becomes the bound port.

        Raises:
            AddressUnusableError: the address cannot be bound (logged once, critical).
        """
        if self._runner is not None:
            return
        try:
            self._runner, self.port = await start_site(
                self.make_app(), self.host, self.port, shutdown_timeout=self.shutdown_timeout
            )
        except AddressUnusableError as error:
            self._log.critical(f"{self.site_name} address unusable", url=self.url, error=str(error))
            raise
        self._log.info(f"{self.site_name} serving", url=self.url)

    async def stop(self) -> None:
        """End every open stream and stop serving."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        await self._close_streams()
        await runner.cleanup()
        self._log.info(f"{self.site_name} stopped", url=self.url)

    async def _close_streams(self) -> None:
        """End the streams the server holds open (none here)."""

    async def _on_shutdown(self, app: web.Application) -> None:
        """The application's ``on_shutdown``: its streams end before the server waits."""
        del app
        await self._close_streams()
