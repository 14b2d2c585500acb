# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The players' board: a page for the players, on the display's server or on its own address.

Adapter (aiohttp). Like the dealer display it follows the table's messages (its
:class:`BoardFeed` is one of the table service's observers) and decides nothing; unlike it, it
takes no command and shows nothing for the staff. Each message only folds into the board's view
and queues text for each open stream (``screens/web/view_feed.py``): a slow browser never
delays the table.

Routes (on the display's server, and alone on :class:`BoardServer`):

- ``GET /board``: the page (``board/static/board.html``); its style sheets and scripts under
  ``/static/`` (``screens/web/assets.py``); its texts at ``/i18n/board.json``.
- ``GET /board/api/state``: the whole view as JSON.
- ``GET /board/api/events``: server-sent events: the whole ``view`` first, then ``board`` and
  ``roads`` events as the table moves, and a ``heartbeat`` while it is quiet. A page whose
  stream drops reconnects by itself and gets a fresh view (a restarted service included).

:class:`BoardServer` serves the board alone: the board's routes and its own assets, no dealer
page, no command route, nothing of the staff.
"""

from __future__ import annotations

from collections.abc import Collection
from pathlib import Path
from typing import Final

import structlog
from aiohttp import web

from table_controller.rules import Variant
from table_controller.screens.board.view import BoardModel
from table_controller.screens.http_limits import ListenerLimits
from table_controller.screens.languages import DEFAULT_LANGUAGE, Catalogues
from table_controller.screens.web.assets import SHARED_STATIC_DIR, asset_files, serve_assets
from table_controller.screens.web.event_streams import HEARTBEAT_S
from table_controller.screens.web.policy import no_icon, screen_texts, security_headers
from table_controller.screens.web.site import SiteServer
from table_controller.screens.web.view_feed import SnapshotSource, ViewFeed

_LOG = structlog.get_logger("table_controller.board")

#: The board's page, style and script: inside the package, so they work offline.
STATIC_DIR: Final = Path(__file__).resolve().with_name("static")


class BoardFeed(ViewFeed[BoardModel]):
    """The board of one table: its view and its open streams (:class:`ViewFeed`); its routes.

    Given to the table service among its observers, it follows the journal's replay too, so
    the replayed shoe fills its scoreboards. ``variant`` is the variant the table plays (its
    name and its bets, shown as they are, built in or composed in the variant file).
    """

    def __init__(
        self,
        table: SnapshotSource,
        *,
        variant: Variant,
        table_id: str | None = None,
        heartbeat_s: float = HEARTBEAT_S,
    ) -> None:
        model = BoardModel(table.snapshot(), variant=variant, table_id=table_id)
        super().__init__(table, model, screen="board", heartbeat_s=heartbeat_s)

    def add_routes(self, app: web.Application) -> None:
        """The board's page, state and events on ``app``."""
        app.router.add_get("/board", _page)
        app.router.add_get("/board/api/state", self.state)
        app.router.add_get("/board/api/events", self.events)


async def _page(request: web.Request) -> web.StreamResponse:
    del request
    return web.FileResponse(STATIC_DIR / "board.html", headers={"Cache-Control": "no-cache"})


async def _to_board(request: web.Request) -> web.StreamResponse:
    raise web.HTTPFound("/board" + (f"?{request.query_string}" if request.query_string else ""))


class BoardServer(SiteServer):
    """The board alone on its own address (the ``board_address`` setting).

    Args:
        feed: The board it serves, one of the table service's observers.
        host: Address to bind.
        port: TCP port; 0 picks a free one (see :attr:`port` after :meth:`start`).
        language: The board's language (BCP 47 tag) when its page asks for none.
        catalogues: The board's texts; None: read from the package's catalogues.
        limits: The address's caps and timeouts; None: the defaults. They are this address's
            own: a board address full of connections leaves the display's as it was.
        allowed_hosts: The names it answers to besides its addresses (and ``localhost`` over
            loopback); a request for any other gets 421 Misdirected Request.
    """

    site_name = "players' board"
    site_path = "/board"

    def __init__(  # noqa: PLR0913 - the deployment's settings, all keyword-only
        self,
        feed: BoardFeed,
        *,
        host: str,
        port: int,
        language: str = DEFAULT_LANGUAGE,
        catalogues: Catalogues | None = None,
        limits: ListenerLimits | None = None,
        allowed_hosts: Collection[str] = (),
    ) -> None:
        super().__init__(host, port, log=_LOG, limits=limits, host_names=allowed_hosts)
        self._texts = screen_texts(
            Catalogues.packaged() if catalogues is None else catalogues,
            {"board": language},
            ("board",),
        )
        self.feed = feed

    def make_app(self) -> web.Application:
        """The board's routes, its own assets and nothing else."""
        app = self.application(client_max_size=1024, middlewares=[security_headers])
        app.router.add_get("/", _to_board)
        app.router.add_get("/favicon.ico", no_icon)
        assets = asset_files(STATIC_DIR, SHARED_STATIC_DIR)
        app.router.add_get("/static/{name}", serve_assets(assets))
        app.router.add_get("/i18n/{screen}.json", self._texts)
        self.feed.add_routes(app)
        app.on_shutdown.append(self._on_shutdown)
        return app

    async def _close_streams(self) -> None:
        await self.feed.close_streams()
