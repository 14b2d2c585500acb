# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The floor view: a web page of every table, live from the broker, history from the database.

Adapter (aiohttp, aiohttp-sse). :class:`FloorService` ties the parts together: the broker link
(``floor/live.py``) folds each table's messages into the pure :class:`~table_controller.floor.
model.FloorModel`; the tiles changed are pushed to every open page at most every
:data:`FLUSH_S`; the database (``floor/records.py``) gives the open alarms older than the
tables' ``state`` lists and each table's page. :class:`FloorServer` serves it.

Routes (each refused with 421 when the request's ``Host`` is none of the floor's names, each
connection held to its address's caps and timeouts, as the screens: ``screens/web``):

- ``GET /``: the floor's page; ``GET /tables/{table_id}``: a table's page;
  ``GET /static/{name}``: their style sheets and scripts; ``GET /i18n/floor.json?lang=``: their
  texts in one of the six languages.
- ``GET /api/session``: who is signed in at this browser, and the session's CSRF token (a
  session is made, and its cookie set, for a browser that has none).
- ``POST /api/sign-in`` ``{"staff_id", "pin"}``, ``POST /api/sign-out``.
- ``GET /api/floor``: the whole floor (areas, tiles, open alarms, problems) as JSON;
  ``GET /api/events``: server-sent events, the whole floor first (``view``), then ``tiles``
  (the tiles that changed), ``alarms`` (the floor's open alarms, oldest first) and
  ``problems`` (the broker or the database lost or found again), with a ``heartbeat``.
- ``GET /api/tables/{table_id}``: the table's tile and its history from the database.
- ``POST /api/tables/{table_id}/alarms/{alarm_id}/acknowledge`` ``{"comment"}``: a supervisor
  acknowledges an open alarm: ``acknowledge_alarm`` is sent to the table as the supervisor, and
  the table's reply is the answer.

Every ``api`` route but ``session`` needs a signed-in session; every ``POST`` needs the
session's CSRF token in :data:`~table_controller.floor.sessions.CSRF_HEADER`, a JSON body, and
(when the browser names one) this site as its ``Origin``.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import secrets
import time
from collections.abc import Awaitable, Callable, Collection, Mapping
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import structlog
from aiohttp import web
from pydantic import ValidationError

from table_controller.contract import StaffRole
from table_controller.floor.live import BrokerUnavailable, FloorLink
from table_controller.floor.model import FloorModel
from table_controller.floor.records import OPEN_ALARM_DAYS, DatabaseUnavailable, FloorRecords
from table_controller.floor.sessions import COOKIE, CSRF_HEADER, Role, Session, Sessions
from table_controller.floor.texts import FloorTexts
from table_controller.screens import ListenerLimits, PinRefusal
from table_controller.screens.web import (
    SHARED_STATIC_DIR,
    SiteServer,
    StreamHub,
    asset_files,
    json_text,
    no_icon,
    security_headers,
    serve_assets,
)
from table_controller.staff import StaffDesk

_LOG = structlog.get_logger("table_controller.floor")

#: The floor's pages, style sheets and scripts: inside the package, so they work offline.
STATIC_DIR: Final = Path(__file__).resolve().with_name("static")
#: Seconds between two pushes of the tiles that changed: a page gets at most this many a second.
FLUSH_S: Final = 0.1
#: Seconds between two reads of the open alarms in the database, while it answers.
ALARMS_EVERY_S: Final = 60.0
#: Seconds between two tries of a database that did not answer.
RETRY_DATABASE_S: Final = 5.0
#: A request body (a sign-in, a comment) is far smaller.
MAX_BODY_BYTES: Final = 4096
#: Seconds between two looks at the session of an open event stream.
SESSION_CHECK_S: Final = 5.0
#: The longest comment an acknowledgement takes (as ``acknowledge_alarm``'s args).
MAX_COMMENT: Final = 500


class FloorService:
    """The floor's state: the model, its open pages, the broker and the database's health.

    Args:
        model: The floor's tiles.
        records: The database; None: no history (tests of the live part alone).
        hub: The pages' event streams.
        clock: Wall time, for how far back open alarms are read.
    """

    def __init__(
        self,
        model: FloorModel,
        records: FloorRecords | None,
        *,
        hub: StreamHub,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
    ) -> None:
        self.model = model
        self.records = records
        self.hub = hub
        self.link: FloorLink | None = None
        self._clock = clock
        self._dirty: set[str] = set()
        self._alarms_sent = -1
        self._wake = asyncio.Event()
        self._retry_database = asyncio.Event()
        #: What is wrong now, by part (``broker``, ``database``); None: nothing.
        self.problems: dict[str, str | None] = {"broker": "connecting", "database": None}
        #: Messages folded since start.
        self.messages = 0

    # --- from the broker ----------------------------------------------------------------------

    def on_message(self, table_id: str, kind: str, message: Mapping[str, Any]) -> None:
        self.messages += 1
        if self.model.apply(table_id, kind, message):
            self._dirty.add(table_id)
            self._wake.set()

    def on_connection(self, problem: str | None) -> None:
        self._problem("broker", None if problem is None else f"broker unreachable: {problem}")
        if problem is None:
            self._wake.set()

    def _problem(self, part: str, problem: str | None) -> None:
        if self.problems.get(part) == problem:
            return
        before = self.problems.get(part)
        self.problems[part] = problem
        if problem is None:
            _LOG.info(f"floor {part} back", was=before)
        elif before is None or before == "connecting" or part == "database":
            _LOG.warning(f"floor {part} unavailable", problem=problem)
        self.hub.broadcast([("problems", dict(self.problems))])

    # --- pushing changes ----------------------------------------------------------------------

    async def flush_forever(self) -> None:
        """Push the tiles that changed (and the open alarms) at most every :data:`FLUSH_S`."""
        while True:
            await self._wake.wait()
            self._wake.clear()
            self.flush()
            await asyncio.sleep(FLUSH_S)

    def flush(self) -> None:
        events: list[tuple[str, Any]] = []
        if self._dirty:
            tiles = {table_id: self.model.tile(table_id) for table_id in sorted(self._dirty)}
            self._dirty.clear()
            events.append(("tiles", {"tiles": tiles, "areas": self.model.area_list()}))
        if self._alarms_sent != self.model.alarms_version:
            self._alarms_sent = self.model.alarms_version
            events.append(("alarms", {"alarms": self.model.open_alarms()}))
        if events:
            self.hub.broadcast(events)

    def view(self) -> dict[str, Any]:
        return self.model.view() | {"problems": dict(self.problems)}

    # --- the database -------------------------------------------------------------------------

    async def read_alarms_forever(self) -> None:
        """Read the database's open alarms now and every minute (every 5 s while it fails)."""
        while True:
            await self.read_alarms()
            wait_s = ALARMS_EVERY_S if self.problems["database"] is None else RETRY_DATABASE_S
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(wait_s):
                    await self._retry_database.wait()
            self._retry_database.clear()

    async def read_alarms(self) -> None:
        if self.records is None:
            return
        since = self._clock() - timedelta(days=OPEN_ALARM_DAYS)
        try:
            found = await self.records.open_alarms(since=since)
        except DatabaseUnavailable as error:
            self.database_failed(str(error))
            return
        self._problem("database", None)
        for table_id, alarms in found.items():
            if self.model.seed_alarms(table_id, alarms):
                self._dirty.add(table_id)
        if self._dirty:
            self._wake.set()

    def database_failed(self, problem: str) -> None:
        """A read failed: said at once, and tried again within :data:`RETRY_DATABASE_S`."""
        if self.problems["database"] is None:
            self._retry_database.set()  # the reader's next wait is the short one
        self._problem("database", f"database unavailable: {problem}")

    def database_answered(self) -> None:
        self._problem("database", None)


class FloorServer(SiteServer):
    """The floor's web server.

    Args:
        service: The floor's state.
        desk: The staff register and its lockouts (``staff/desk.py``).
        host: Address to bind.
        port: TCP port; 0 picks a free one.
        texts: The pages' texts.
        title: The floor's name, shown on its pages.
        secure_cookies: Mark the session cookie ``Secure`` (off only for a plain-HTTP test
            on a name a browser does not take as this machine).
        limits: The address's caps and timeouts; None: the defaults.
        allowed_hosts: The names it answers to besides its addresses; None: any name.
        monotonic: Monotonic seconds, for the sessions.
    """

    site_name = "floor view"

    def __init__(  # noqa: PLR0913 - the deployment's settings, all keyword-only
        self,
        service: FloorService,
        desk: StaffDesk,
        *,
        host: str,
        port: int,
        texts: FloorTexts,
        title: str = "",
        secure_cookies: bool = True,
        limits: ListenerLimits | None = None,
        allowed_hosts: Collection[str] | None = (),
        monotonic: Callable[[], float] = time.monotonic,
    ) -> None:
        super().__init__(host, port, log=_LOG, limits=limits, host_names=allowed_hosts)
        self.service = service
        self.desk = desk
        self.texts = texts
        self.title = title
        self.secure_cookies = secure_cookies
        self.sessions = Sessions(lambda: secrets.token_urlsafe(32))
        self._monotonic = monotonic
        #: Requests refused for a missing or wrong CSRF token, or another site's origin.
        self.forged = 0

    def make_app(self) -> web.Application:
        app = self.application(client_max_size=MAX_BODY_BYTES, middlewares=[security_headers])
        app.router.add_get("/", self._page("floor.html"))
        app.router.add_get("/tables/{table_id}", self._page("table.html"))
        app.router.add_get("/favicon.ico", no_icon)
        app.router.add_get(
            "/static/{name}", serve_assets(asset_files(STATIC_DIR, SHARED_STATIC_DIR))
        )
        app.router.add_get("/i18n/floor.json", self.texts.handler)
        app.router.add_get("/api/session", self._session)
        app.router.add_post("/api/sign-in", self._sign_in)
        app.router.add_post("/api/sign-out", self._sign_out)
        app.router.add_get("/api/floor", self._signed_in(self._floor))
        app.router.add_get("/api/events", self._signed_in(self._events))
        app.router.add_get("/api/tables/{table_id}", self._signed_in(self._table))
        app.router.add_post(
            "/api/tables/{table_id}/alarms/{alarm_id}/acknowledge",
            self._signed_in(self._acknowledge, change=True),
        )
        app.on_shutdown.append(self._on_shutdown)
        return app

    async def _close_streams(self) -> None:
        await self.service.hub.close_all()

    # --- pages --------------------------------------------------------------------------------

    @staticmethod
    def _page(name: str) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        async def page(request: web.Request) -> web.StreamResponse:
            del request
            return web.FileResponse(STATIC_DIR / name, headers={"Cache-Control": "no-cache"})

        return page

    # --- sessions -----------------------------------------------------------------------------

    def _find(self, request: web.Request) -> Session | None:
        return self.sessions.find(request.cookies.get(COOKIE), self._monotonic())

    def _set_cookie(self, response: web.StreamResponse, session: Session) -> None:
        response.set_cookie(
            COOKIE,
            session.id,
            path="/",
            httponly=True,
            secure=self.secure_cookies,
            samesite="Strict",
        )

    def _who(self, session: Session) -> dict[str, Any]:
        return {
            "signed_in": session.signed_in,
            "staff_id": session.staff_id,
            "name": session.name,
            "role": None if session.role is None else session.role.value,
            "csrf": session.csrf,
            "title": self.title,
        }

    async def _session(self, request: web.Request) -> web.Response:
        session = self._find(request)
        ended = session is None and COOKIE in request.cookies
        if session is None:
            session = self.sessions.new(self._monotonic())
        response = _json(200, self._who(session) | {"ended": ended})
        self._set_cookie(response, session)
        return response

    def _refuse_forgery(self, request: web.Request, session: Session) -> web.Response | None:
        """The refusal of a change that is not this site's page's own, or None."""
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            self.forged += 1
            _LOG.warning("floor change refused: another site's page", origin=origin[:80])
            return _error(403, "foreign_origin", "changes come only from the floor's own pages")
        if not session.csrf_matches(request.headers.get(CSRF_HEADER)):
            self.forged += 1
            _LOG.warning("floor change refused: CSRF token missing or wrong", path=request.path)
            return _error(403, "csrf", "the page's security token is missing or out of date")
        if request.content_type != "application/json":
            return _error(415, "not_json", "send the request as application/json")
        return None

    async def _body(self, request: web.Request) -> dict[str, Any] | web.Response:
        try:
            body = await request.json()
        except web.HTTPRequestEntityTooLarge:
            return _error(413, "oversized", f"a request is at most {MAX_BODY_BYTES} bytes")
        except (ValueError, RecursionError):
            return _error(400, "malformed_json", "the body is not JSON")
        if not isinstance(body, dict):
            return _error(400, "malformed_json", "the body must be a JSON object")
        return body

    def _session_for_change(self, request: web.Request) -> Session | web.Response:
        """The page's session for a change it asks for, or the refusal of the change.

        Refused when the page's session has ended, or when the change is not the floor's
        own page's (:meth:`_refuse_forgery`).
        """
        session = self._find(request)
        if session is None:
            return _error(401, "session_ended", "the page's session has ended: load it again")
        refused = self._refuse_forgery(request, session)
        return session if refused is None else refused

    async def _sign_in(self, request: web.Request) -> web.Response:
        session = self._session_for_change(request)
        if isinstance(session, web.Response):
            return session
        body = await self._body(request)
        if isinstance(body, web.Response):
            return body
        found = await self.desk.identify(
            body.get("staff_id"),
            body.get("pin"),
            purpose="floor sign-in",
            client=f"floor {request.remote}",
        )
        if isinstance(found, PinRefusal):
            _LOG.warning(found.log_event, client=request.remote, locked=found.locked)
            wait = re.search(r"(\d+) s\b", found.message) if found.locked else None
            return _json(
                found.status,
                {
                    "ok": False,
                    "error": found.error.value,
                    "message": found.message,
                    "retry_s": None if wait is None else int(wait.group(1)),
                },
            )
        role = Role.SUPERVISOR if found.role is StaffRole.SUPERVISOR else Role.VIEWER
        signed = self.sessions.sign_in(
            session, staff_id=found.id, name=found.name, role=role, now=self._monotonic()
        )
        _LOG.info("floor sign-in", staff_id=found.id, role=role.value, client=request.remote)
        response = _json(200, self._who(signed))
        self._set_cookie(response, signed)
        return response

    async def _sign_out(self, request: web.Request) -> web.Response:
        session = self._session_for_change(request)
        if isinstance(session, web.Response):
            return session
        if session.staff_id is not None:
            _LOG.info("floor sign-out", staff_id=session.staff_id)
        self.sessions.end(session)
        fresh = self.sessions.new(self._monotonic())
        response = _json(200, self._who(fresh))
        self._set_cookie(response, fresh)
        return response

    def _signed_in(
        self,
        handler: Callable[[web.Request, Session], Awaitable[web.StreamResponse]],
        *,
        change: bool = False,
    ) -> Callable[[web.Request], Awaitable[web.StreamResponse]]:
        """``handler`` for a signed-in session only (and, for a change, its CSRF token)."""

        async def guarded(request: web.Request) -> web.StreamResponse:
            session = self._find(request)
            if session is None or not session.signed_in:
                if COOKIE in request.cookies and session is None:
                    _LOG.info("floor: a request of an ended session", path=request.path[:80])
                    return _error(401, "session_ended", "your session has ended: sign in again")
                return _error(401, "signed_out", "sign in first")
            member = (
                None
                if self.desk.register is None
                else self.desk.register.get(str(session.staff_id))
            )
            if member is None:  # taken out of the register since
                self.sessions.end(session)
                return _error(401, "session_ended", "your session has ended: sign in again")
            if change:
                refused = self._refuse_forgery(request, session)
                if refused is not None:
                    return refused
            return await handler(request, session)

        return guarded

    # --- the floor ----------------------------------------------------------------------------

    async def _floor(self, request: web.Request, session: Session) -> web.Response:
        del request, session
        return _json(200, self.service.view() | {"seq": self.service.hub.seq})

    async def _events(self, request: web.Request, session: Session) -> web.StreamResponse:
        """The floor's stream, for as long as the session lasts.

        An open page keeps its session alive (the stream is a request that goes on); a
        session that ends meanwhile (signed out, too old, its member out of the register)
        ends the stream within :data:`SESSION_CHECK_S`, and the page asks for a sign-in.
        """
        heartbeat_ms = round(self.service.hub.heartbeat_s * 1000)
        stream = asyncio.current_task()
        assert stream is not None
        watcher = asyncio.create_task(self._watch_session(session, stream))
        try:
            return await self.service.hub.serve(
                request, lambda: self.service.view() | {"heartbeat_ms": heartbeat_ms}
            )
        finally:
            watcher.cancel()

    async def _watch_session(self, session: Session, stream: asyncio.Task[object]) -> None:
        while True:
            await asyncio.sleep(SESSION_CHECK_S)
            found = self.sessions.find(session.id, self._monotonic())
            register = self.desk.register
            member = None if register is None else register.get(str(session.staff_id))
            if found is None or member is None:
                _LOG.info("floor stream ended: session over", staff_id=session.staff_id)
                stream.cancel()
                return

    async def _table(self, request: web.Request, session: Session) -> web.Response:
        del session
        table_id = request.match_info["table_id"]
        records = self.service.records
        history: dict[str, Any] | None = None
        problem: str | None = None
        known = self.service.model.knows(table_id)
        if records is not None:
            try:
                known = known or await records.known(table_id)
                if known:
                    history = await records.table_page(table_id)
                self.service.database_answered()
            except DatabaseUnavailable as error:
                self.service.database_failed(str(error))
                problem = f"database unavailable: {error}"
        if not known and problem is None:
            _LOG.info("floor: unknown table asked for", table_id=table_id[:40])
            return _error(404, "unknown_table", f"no table {table_id[:40]!r} on this floor")
        tile = self.service.model.tile(table_id) if self.service.model.knows(table_id) else None
        return _json(
            200,
            {
                "table_id": table_id,
                "tile": tile,
                "history": history,
                "heard_acknowledgements": self.service.model.acknowledgements(table_id),
                "problem": problem,
                "problems": dict(self.service.problems),
            },
        )

    async def _acknowledge(self, request: web.Request, session: Session) -> web.Response:
        table_id = request.match_info["table_id"]
        alarm_id = request.match_info["alarm_id"]
        staff_id = str(session.staff_id)
        args = await self._acknowledgement(request, session, table_id, alarm_id)
        if isinstance(args, web.Response):
            return args
        reply = await self._send(table_id, staff_id, args)
        if isinstance(reply, web.Response):
            return reply
        ok = reply.get("ok") is True
        (_LOG.info if ok else _LOG.warning)(
            "floor acknowledgement",
            table_id=table_id,
            alarm_id=alarm_id,
            staff_id=staff_id,
            ok=ok,
            error=reply.get("error"),
        )
        return _json(
            200 if ok else 409,
            {
                "ok": ok,
                "error": reply.get("error"),
                "message": reply.get("message"),
                "supervisor": reply.get("supervisor"),
            },
        )

    async def _acknowledgement(
        self, request: web.Request, session: Session, table_id: str, alarm_id: str
    ) -> dict[str, object] | web.Response:
        """The args of ``acknowledge_alarm`` for a supervisor's request, or its refusal."""
        staff_id = str(session.staff_id)
        member = None if self.desk.register is None else self.desk.register.get(staff_id)
        supervisor = member is not None and member.role is StaffRole.SUPERVISOR
        if session.role is not Role.SUPERVISOR or not supervisor:
            _LOG.warning("floor acknowledgement refused: not a supervisor", staff_id=staff_id)
            return _error(403, "not_authorised", "only a supervisor acknowledges alarms")
        body = await self._body(request)
        if isinstance(body, web.Response):
            return body
        comment = body.get("comment")
        if isinstance(comment, str):
            comment = " ".join(comment.split()) or None
        if comment is not None and (not isinstance(comment, str) or len(comment) > MAX_COMMENT):
            return _error(400, "invalid_args", f"a comment is at most {MAX_COMMENT} characters")
        if not self.service.model.knows(table_id):
            return _error(404, "unknown_table", f"no table {table_id[:40]!r} on this floor")
        args: dict[str, object] = {"alarm_id": alarm_id}
        if comment:
            args["comment"] = comment
        return args

    async def _send(
        self, table_id: str, staff_id: str, args: Mapping[str, object]
    ) -> dict[str, Any] | web.Response:
        """The table's reply to ``acknowledge_alarm``, or why there is none."""
        link = self.service.link
        if link is None:
            return _error(503, "broker_unavailable", "the floor has no broker")
        try:
            reply = await link.command(table_id, "acknowledge_alarm", operator=staff_id, args=args)
        except BrokerUnavailable as error:
            _LOG.error("floor acknowledgement not sent", table_id=table_id, error=str(error))
            return _error(503, "broker_unavailable", str(error))
        except ValidationError:
            return _error(400, "invalid_args", "the alarm id or the comment cannot be sent")
        if reply is None:
            _LOG.error("floor acknowledgement unanswered", table_id=table_id, args=dict(args))
            return _error(504, "no_answer", "the table did not answer in time")
        return reply


def _json(status: int, body: Mapping[str, Any]) -> web.Response:
    return web.Response(
        status=status,
        text=json_text(dict(body)),
        content_type="application/json",
        headers={"Cache-Control": "no-store"},
    )


def _error(status: int, error: str, message: str) -> web.Response:
    return _json(status, {"ok": False, "error": error, "message": message})


async def run_floor(
    service: FloorService, server: FloorServer, link: FloorLink | None, desk: StaffDesk
) -> None:
    """Serve the floor and keep it live until cancelled."""
    service.link = link
    await server.start()
    try:
        async with asyncio.TaskGroup() as tasks:
            tasks.create_task(service.flush_forever(), name="floor-flush")
            tasks.create_task(service.read_alarms_forever(), name="floor-alarms")
            tasks.create_task(desk.watch(), name="floor-staff-register")
            if link is not None:
                tasks.create_task(link.run(), name="floor-broker")
    finally:
        with contextlib.suppress(Exception):
            await server.stop()
        if service.records is not None:
            await service.records.close()
