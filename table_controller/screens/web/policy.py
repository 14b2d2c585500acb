# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What every screen's web server answers with: security headers, its names, its texts, no icon.

Adapter (aiohttp). The pages of the dealer display and of the players' board load only their
own files, scripts and streams: no CDN, no web fonts, no framing by another site. A screen
answers only to its own names (:class:`HostCheck`), so a page of another site whose name was
pointed at the table's address (DNS rebinding) is refused before it reads or commands anything.
"""

from __future__ import annotations

import ipaddress
from collections.abc import Awaitable, Callable, Collection, Iterable, Mapping
from typing import Final
from urllib.parse import urlsplit

import structlog
from aiohttp import web

from table_controller.screens.http_limits import LogThrottle
from table_controller.screens.languages import (
    DEFAULT_LANGUAGE,
    SCREENS,
    Catalogues,
    language_for,
)

#: Only the screen's own files, scripts and streams (no CDN, no fonts, no framing).
CONTENT_SECURITY_POLICY: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@web.middleware
async def security_headers(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
    """The policy, ``nosniff`` and no referrer on every answer, errors included."""
    try:
        response = await handler(request)
    except web.HTTPException as error:
        response = error
    if not response.prepared:
        response.headers["Content-Security-Policy"] = CONTENT_SECURITY_POLICY
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "no-referrer"
    if isinstance(response, web.HTTPException):
        raise response
    return response


#: The names of this machine over its loopback interface.
LOCALHOST_NAMES: Final = frozenset({"localhost"})
_LOG = structlog.get_logger("table_controller.http")


def host_name(host: str) -> str | None:
    """The name in a ``Host`` header or an address, lower case, with no port or brackets.

    An IP address comes back in its normal form (``::1``, ``127.0.0.1``, an IPv4 address
    mapped into IPv6 as itself); text that names no host comes back None.
    """
    name: str | None = host
    try:
        address = ipaddress.ip_address(host)  # a bare address: a socket's, or a bind's
    except ValueError:
        try:
            name = urlsplit(f"//{host}").hostname
        except ValueError:
            return None
        if not name:
            return None
        name = name.rstrip(".")
        try:
            address = ipaddress.ip_address(name)
        except ValueError:
            return name
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        address = address.ipv4_mapped
    return str(address)


def _is_loopback(name: str) -> bool:
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class HostCheck:
    """A screen answers to its names only; any other ``Host`` gets 421 Misdirected Request.

    The names: those configured (``allowed_hosts``), the address the server is bound to, the
    address the connection came in on (a server bound to ``0.0.0.0`` is each of the machine's
    addresses), and ``localhost`` for a connection over loopback. A browser sends the name of
    the page's own site, so a page of another site whose name was made to point here is
    refused whatever it asks for: page, state, stream or command. Refusals are counted
    (:attr:`refused`) and logged at most once per
    :data:`~table_controller.screens.http_limits.LOG_INTERVAL_S`.

    Args:
        bound: The address the server is bound to (``display``, ``board_address``).
        names: The other names it answers to.
    """

    def __init__(self, bound: str, names: Iterable[str] = ()) -> None:
        named = (host_name(name) for name in (bound, *names))
        self.names = frozenset(name for name in named if name is not None)
        #: Requests refused for their ``Host`` since start.
        self.refused = 0
        self._throttle = LogThrottle()

    def allows(self, host: str | None, arrived_at: str | None) -> bool:
        """Whether ``host`` (a ``Host`` header) names us, on a connection to ``arrived_at``."""
        name = None if host is None else host_name(host)
        if name is None:
            return False
        if name in self.names:
            return True
        local = None if arrived_at is None else host_name(arrived_at)
        if local is None:
            return False
        return name == local or (_is_loopback(local) and name in LOCALHOST_NAMES)

    @web.middleware
    async def middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """Refuse a request for a name that is not the screen's, before its handler sees it."""
        host = request.headers.get("Host")
        transport = request.transport
        sockname = None if transport is None else transport.get_extra_info("sockname")
        arrived_at = str(sockname[0]) if isinstance(sockname, tuple) and sockname else None
        if self.allows(host, arrived_at):
            return await handler(request)
        self.refused += 1
        events = self._throttle.due()
        if events is not None:
            _LOG.warning(
                "request for another host refused",
                host=(host or "")[:80],
                path=request.path[:80],
                client=request.remote,
                refused=events,
                total=self.refused,
            )
        raise web.HTTPMisdirectedRequest(
            text="this screen does not answer to that name (the allowed_hosts setting)"
        )


async def no_icon(request: web.Request) -> web.Response:
    """``/favicon.ico``: nothing, without a 404 in the browser's console."""
    del request
    return web.Response(status=204)


def screen_texts(
    catalogues: Catalogues, languages: Mapping[str, str], screens: Collection[str] = SCREENS
) -> Callable[[web.Request], Awaitable[web.Response]]:
    """``GET /i18n/{screen}.json?lang=``: a screen's texts in the language its page asks for.

    Without a ``lang`` the page's screen shows its configured language (``languages``); a
    screen not in ``screens`` is not found.
    """

    async def texts(request: web.Request) -> web.Response:
        screen = request.match_info["screen"]
        if screen not in screens:
            raise web.HTTPNotFound
        asked = language_for(request.query.get("lang"))
        tag = languages.get(screen, DEFAULT_LANGUAGE) if asked is None else asked.tag
        body = {"lang": tag, "messages": catalogues.messages(tag, screen)}
        return web.json_response(body, headers={"Cache-Control": "no-cache"})

    return texts
