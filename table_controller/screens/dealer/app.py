# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The dealer's display: a web page served from the table service's own event loop.

Adapter (aiohttp, aiohttp-sse). It decides nothing about the game: every prompt, card, result
and scoreboard mark comes from the messages the table publishes (its :class:`DisplayFeeds` are
among the table service's observers) and from its snapshot. It must not delay the table:
each message only folds into the view and queues text for each open stream;
a slow or vanished browser is cut off, never waited for. It must not reach the internet: the
page, its style and its script are files of this package (no CDN, no web fonts), and the
Content-Security-Policy forbids anything else. It must not let a supervisor command through
without the configured PIN: a wrong PIN is refused here and never reaches the core.

Routes (each refused with 421 when the request's ``Host`` is none of the display's names, and
each connection held to its address's caps and timeouts: ``screens/web/policy.py``,
``screens/web/listener.py``):

- ``GET /``: the page (``dealer/static/index.html``); ``GET /static/{name}``: its style sheets
  and scripts, the board's and those both share (``screens/web/assets.py``).
- ``GET /api/state``: the whole view (snapshot, prompt text, hands, last result, the commands
  the table takes now, scoreboards laid out on their drawn grids, recent alarms) as JSON.
- ``GET /api/events``: server-sent events. The first event (``view``) is the whole view, so a
  page that loads or reconnects shows the current state at once; then ``table``, ``roads`` and
  ``alarm`` events as the table moves, and a ``heartbeat`` every few seconds so the page can
  tell a silent controller from a quiet table. Each event's ``id:`` is the running message
  number of this display.
- ``GET /i18n/{screen}.json?lang=TAG``: a screen's texts (``screens/languages.py``):
  the ``lang`` asked for if it is one of ours, else the language configured for that screen.
- ``POST /api/commands``: ``{"command": ..., "args": {...}, "staff_id": "...", "pin": "..."}``
  from the buttons and the staff keypad, as JSON from this page's own origin only (another
  site's page cannot post a command). Who may give which command, and as whom it is recorded,
  is ``screens/dealer/commands.py``: a supervisor's PIN (or the shared display PIN) is
  checked in constant time, and a run of wrong PINs locks for a while. Refusals are counted
  (:attr:`DisplayServer.pin_refusals`) and logged, never the PIN.
- ``GET /board``, ``/board/api/state``, ``/board/api/events``: the players' board of the same
  table (``screens/board/app.py``).

The view kept up with the table's messages and its event streams are
``screens/web/view_feed.py``'s, shared with the board. What the page shows is worked out by the
pure view model (``screens/dealer/view.py``); the PIN and its lockout by
``screens/pin_lockout.py``. The server gives commands to the table through the small
:class:`DisplayedTable` protocol, so this package needs nothing of the runtime.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Collection, Mapping
from pathlib import Path
from typing import Final, Protocol
from urllib.parse import urlsplit

import structlog
from aiohttp import web

from table_controller.contract import DEFAULT_CURRENCY, CommandErrorCode, to_wire
from table_controller.rules import Variant
from table_controller.screens.board.app import STATIC_DIR as BOARD_STATIC_DIR
from table_controller.screens.board.app import BoardFeed
from table_controller.screens.dealer.commands import (
    CommandError,
    DisplayGate,
    StaffCheck,
    display_client,
)
from table_controller.screens.dealer.view import DisplayModel
from table_controller.screens.http_limits import ListenerLimits
from table_controller.screens.languages import DEFAULT_LANGUAGE, SCREENS, Catalogues
from table_controller.screens.web.assets import SHARED_STATIC_DIR, asset_files, serve_assets
from table_controller.screens.web.event_streams import HEARTBEAT_S, json_text
from table_controller.screens.web.policy import no_icon, screen_texts, security_headers
from table_controller.screens.web.site import SiteServer
from table_controller.screens.web.view_feed import SnapshotSource, ViewFeed

_LOG = structlog.get_logger("table_controller.display")

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8080
#: The page, its style sheet and its script: inside the package, so it works offline.
STATIC_DIR: Final = Path(__file__).resolve().with_name("static")
#: Where the files served under ``/static/`` are: the display's, the board's, the shared ones.
STATIC_DIRS: Final = (STATIC_DIR, BOARD_STATIC_DIR, SHARED_STATIC_DIR)
#: A command body is a few dozen bytes; anything this big is not one.
MAX_BODY_BYTES: Final = 4096
#: Seconds a command may wait for the controller before the display gives up on the answer.
COMMAND_TIMEOUT_S: Final = 10.0


class DisplayedTable(Protocol):
    """What the display needs of the table it shows (the table service): its commands."""

    async def submit(self, record: Mapping[str, object]) -> dict[str, object]:
        """Carry out one command record; its reply."""
        ...

    async def answer_recall(self, command_id: str, rounds: int) -> dict[str, object]:
        """Answer a ``recall`` from the last rounds, journaled and published; the reply."""
        ...


class DisplayFeeds:
    """The dealer display's views of one table: its own, and the players' board at ``/board``.

    Built before the table service and given to it among its observers (:attr:`observers`),
    so they follow the journal's replay too and the replayed shoe fills their scoreboards.

    Args:
        table: The table shown (its procedure).
        variant: The variant it plays, built in or composed in the variant file: the name
            and the bets both screens show.
        virtual: The table draws its own cards.
        staff: The staff desk, for the names of the staff signed in; None: no register.
        table_id: The table's id, shown on the players' board.
        heartbeat_s: Seconds between heartbeats on an idle event stream.
    """

    def __init__(  # noqa: PLR0913 - the table and its settings, all keyword-only
        self,
        table: SnapshotSource,
        *,
        variant: Variant,
        virtual: bool = False,
        staff: StaffCheck | None = None,
        table_id: str | None = None,
        heartbeat_s: float = HEARTBEAT_S,
    ) -> None:
        model = DisplayModel(
            table.snapshot(),
            variant=variant,
            virtual=virtual,
            staff=lambda: None if staff is None else staff.register,
        )
        #: The dealer display's view of the table and its open streams.
        self.display = ViewFeed(table, model, screen="display", heartbeat_s=heartbeat_s)
        #: The players' board of the same table.
        self.board = BoardFeed(table, variant=variant, table_id=table_id, heartbeat_s=heartbeat_s)

    @property
    def observers(self) -> tuple[ViewFeed[DisplayModel], BoardFeed]:
        """The table service's observers these are."""
        return self.display, self.board


# --- the server (adapter) ----------------------------------------------------------------


class DisplayServer(SiteServer):
    """The dealer display of one table, served with aiohttp on ``host:port``.

    What it shows is its ``feeds``'. :meth:`start` and :meth:`stop` open and close the web side
    only; they may be repeated.

    Args:
        service: The table to which commands go.
        feeds: The display's and the board's views, among the table service's observers.
        host: Address to bind; localhost unless the deployment says otherwise.
        port: TCP port; 0 picks a free one (see :attr:`port` after :meth:`start`).
        pin: The shared supervisor PIN of a table without a staff register; None: none.
        staff: The staff desk: sign-in, and supervisors approving with their own PIN.
        languages: Each screen's language (BCP 47 tag) when its page asks for none;
            the screens not named show English.
        catalogues: The screens' texts; None: read from the package's catalogues.
        clock: Monotonic seconds, for the PIN lockout.
        limits: The address's caps and timeouts; None: the defaults.
        allowed_hosts: The names it answers to besides its addresses (and ``localhost`` over
            loopback); a request for any other gets 421 Misdirected Request.
        currency: The table's: ``set_limits`` amounts finer than its minor unit are refused.
    """

    site_name = "dealer display"
    site_path = "/"

    def __init__(  # noqa: PLR0913 - the deployment's settings, all keyword-only
        self,
        service: DisplayedTable,
        feeds: DisplayFeeds,
        *,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        pin: str | None = None,
        staff: StaffCheck | None = None,
        languages: Mapping[str, str] | None = None,
        catalogues: Catalogues | None = None,
        clock: Callable[[], float] = time.monotonic,
        limits: ListenerLimits | None = None,
        allowed_hosts: Collection[str] = (),
        currency: str = DEFAULT_CURRENCY,
    ) -> None:
        super().__init__(host, port, log=_LOG, limits=limits, host_names=allowed_hosts)
        self._service = service
        self.gate = DisplayGate(pin=pin, staff=staff, clock=clock, currency=currency)
        self._catalogues = Catalogues.packaged() if catalogues is None else catalogues
        self._languages = dict.fromkeys(SCREENS, DEFAULT_LANGUAGE) | dict(languages or {})
        #: The dealer display's view of the table and its open streams.
        self.feed = feeds.display
        #: Bodies refused before they were read as a command (bad JSON, oversized ...).
        self._bad_bodies = 0
        #: The players' board of the same table, at ``/board`` of this server.
        self.board = feeds.board

    # --- life cycle (start, stop and url: SiteServer's) ---------------------------------

    @property
    def pin_refusals(self) -> int:
        """Commands refused for a missing or wrong PIN (or staff id) since start."""
        return self.gate.pin_refusals

    @property
    def bad_requests(self) -> int:
        """Requests refused as malformed (bad JSON, unknown command, oversized body ...)."""
        return self._bad_bodies + self.gate.bad_requests

    @property
    def open_streams(self) -> int:
        """The dealer pages following the table now (the board's are :attr:`board`'s)."""
        return self.feed.open_streams

    @property
    def streams_dropped(self) -> int:
        """Streams cut off because their browser fell too far behind."""
        return self.feed.hub.streams_dropped

    @property
    def model(self) -> DisplayModel:
        return self.feed.model

    def make_app(self) -> web.Application:
        """The aiohttp application (routes, security headers, stream clean-up)."""
        app = self.application(client_max_size=MAX_BODY_BYTES, middlewares=[security_headers])
        app.router.add_get("/", self._index)
        app.router.add_get("/favicon.ico", no_icon)
        app.router.add_get("/api/state", self.feed.state)
        app.router.add_get("/api/events", self.feed.events)
        app.router.add_post("/api/commands", self._command)
        app.router.add_get("/i18n/{screen}.json", screen_texts(self._catalogues, self._languages))
        app.router.add_get("/static/{name}", serve_assets(asset_files(*STATIC_DIRS)))
        self.board.add_routes(app)
        app.on_shutdown.append(self._on_shutdown)
        return app

    async def _close_streams(self) -> None:
        await self.feed.close_streams()
        await self.board.close_streams()

    # --- handlers ----------------------------------------------------------------------------

    async def _index(self, request: web.Request) -> web.StreamResponse:
        del request
        return web.FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    async def _command(self, request: web.Request) -> web.Response:
        try:
            record = await self._authorised_record(request)
        except CommandError as refused:
            return _reply(
                refused.status, {"ok": False, "error": refused.error, "message": refused.message}
            )
        try:
            async with asyncio.timeout(COMMAND_TIMEOUT_S):
                rounds = self.gate.recall_asked(record)
                service = self._service
                reply = await (
                    service.submit(record)
                    if rounds is None
                    else service.answer_recall(str(record["id"]), rounds)
                )
        except TimeoutError:
            _LOG.error("controller did not answer a display command", command=record["command"])
            return _reply(
                503,
                {
                    "id": record["id"],
                    "ok": False,
                    "error": CommandErrorCode.NO_ANSWER,
                    "message": "the controller did not answer in time",
                },
            )
        if reply.get("ok"):
            status = 200
        elif reply.get("error") == CommandErrorCode.JOURNAL_UNAVAILABLE:
            status = 503  # the table cannot record: held until it can
        elif reply.get("error") in frozenset(CommandErrorCode):
            status = 400  # refused as read, before the table procedure
        else:
            status = 409
        return _reply(status, reply)

    async def _authorised_record(self, request: web.Request) -> dict[str, object]:
        """The command record for a request, or :class:`CommandError` saying why not."""
        body = await self._body(request)
        return await self.gate.record(body, client=display_client(request.remote))

    async def _body(self, request: web.Request) -> dict[str, object]:
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            self._bad_bodies += 1
            raise CommandError(
                403, CommandErrorCode.FOREIGN_ORIGIN, "commands come only from this display"
            )
        if request.content_type != "application/json":
            self._bad_bodies += 1
            raise CommandError(
                415, CommandErrorCode.NOT_JSON, "send the command as application/json"
            )
        try:
            body = await request.json()
        except web.HTTPRequestEntityTooLarge:
            self._bad_bodies += 1
            raise CommandError(
                413, CommandErrorCode.OVERSIZED, f"a command is at most {MAX_BODY_BYTES} bytes"
            ) from None
        except (ValueError, RecursionError):  # bad JSON, undecodable bytes, nested too deep
            self._bad_bodies += 1
            raise CommandError(
                400, CommandErrorCode.MALFORMED_JSON, "the body is not JSON"
            ) from None
        if not isinstance(body, dict):
            self._bad_bodies += 1
            raise CommandError(
                400, CommandErrorCode.MALFORMED_JSON, "the body must be a JSON object"
            )
        return body


def _reply(status: int, body: Mapping[str, object]) -> web.Response:
    text = json_text(to_wire(body))
    return web.Response(status=status, text=text, content_type="application/json")
