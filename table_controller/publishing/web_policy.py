# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What every screen's web server answers with: security headers, its texts, and no icon.

Adapter (aiohttp). The pages of the dealer display and of the players' board load only their
own files, scripts and streams: no CDN, no web fonts, no framing by another site.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Collection, Mapping
from typing import Final

from aiohttp import web

from table_controller.publishing.languages import (
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
