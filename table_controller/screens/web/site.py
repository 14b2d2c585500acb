# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Serve an aiohttp application on one address: the screens and the health endpoint.

Adapter: binds a socket. Port 0 takes a free port; the bound one is returned, so a caller can
print its URL. A failed bind leaves nothing behind and raises :class:`AddressUnusableError`.
aiohttp is imported only where a site starts: ``run`` catches the error without loading it.
:class:`SiteServer` is what the servers have in common: their address, its caps and timeouts
(``screens/web/listener.py``), the names it answers to, start and stop.
"""

from __future__ import annotations

import os
from collections.abc import Collection, Sequence
from typing import TYPE_CHECKING, ClassVar

from table_controller.screens.http_limits import AddressUnusableError

if TYPE_CHECKING:
    from aiohttp import web
    from aiohttp.typedefs import Middleware
    from structlog.typing import FilteringBoundLogger

    from table_controller.screens.http_limits import ListenerLimits
    from table_controller.screens.web.listener import Listener
    from table_controller.screens.web.policy import HostCheck


async def start_site(
    app: web.Application, host: str, port: int, *, shutdown_timeout: float, listener: Listener
) -> tuple[web.AppRunner, int]:
    """Set the application up and bind it; its runner (to clean up) and the bound port.

    Each connection is held to ``listener``'s caps and timeouts; the application's outermost
    middleware must be :func:`~table_controller.screens.web.listener.requests_arrived`.

    Raises:
        AddressUnusableError: the address cannot be bound (in use, not this machine's).
    """
    from aiohttp import web  # noqa: PLC0415 - see the module's docstring

    from table_controller.screens.web.listener import GuardedSite  # noqa: PLC0415 - idem

    runner = web.AppRunner(
        app,
        shutdown_timeout=shutdown_timeout,
        access_log=None,
        keepalive_timeout=listener.limits.idle_timeout_s,
    )
    await runner.setup()
    try:
        await GuardedSite(runner, host, port, listener).start()
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
        limits: Its caps and timeouts; None: the defaults.
        host_names: The names it answers to besides its addresses (``allowed_hosts``); None:
            any name (no :class:`~table_controller.screens.web.policy.HostCheck`).
    """

    #: What the log calls the server ("dealer display").
    site_name: ClassVar[str]
    #: The path its :attr:`url` ends with.
    site_path: ClassVar[str] = ""
    #: Seconds a stopping server gives the requests in progress.
    shutdown_timeout: ClassVar[float] = 1.0

    def __init__(
        self,
        host: str,
        port: int,
        *,
        log: FilteringBoundLogger,
        limits: ListenerLimits | None = None,
        host_names: Collection[str] | None = None,
    ) -> None:
        from table_controller.screens.http_limits import ListenerLimits  # noqa: PLC0415
        from table_controller.screens.web.listener import Listener  # noqa: PLC0415

        self.host = host
        self.port = port
        self._log = log
        self._runner: web.AppRunner | None = None
        #: The address's connections: caps, timeouts, refusals.
        self.listener = Listener(
            self.site_name, ListenerLimits() if limits is None else limits, log=log
        )
        self._host_check: HostCheck | None = None
        if host_names is not None:
            from table_controller.screens.web.policy import HostCheck  # noqa: PLC0415

            self._host_check = HostCheck(host, host_names)

    @property
    def misdirected(self) -> int:
        """Requests refused for a ``Host`` that is none of the server's names, since start."""
        return 0 if self._host_check is None else self._host_check.refused

    def application(
        self, *, client_max_size: int = 1024**2, middlewares: Sequence[Middleware] = ()
    ) -> web.Application:
        """A new application for :meth:`make_app`, with ``middlewares`` inside the server's own.

        Outermost the listener's (:func:`~table_controller.screens.web.listener.
        requests_arrived`), innermost the host check, so its refusal passes through
        ``middlewares`` (the security headers) like any answer.
        """
        from aiohttp import web  # noqa: PLC0415 - see the module's docstring

        from table_controller.screens.web.listener import requests_arrived  # noqa: PLC0415

        own: list[Middleware] = [requests_arrived, *middlewares]
        if self._host_check is not None:
            own.append(self._host_check.middleware)
        return web.Application(client_max_size=client_max_size, middlewares=own)

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
                self.make_app(),
                self.host,
                self.port,
                shutdown_timeout=self.shutdown_timeout,
                listener=self.listener,
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
