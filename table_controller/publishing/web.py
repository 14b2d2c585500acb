# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The dealer's display: a web page served from the table service's own event loop.

Adapter (aiohttp, aiohttp-sse). It decides nothing about the game: every prompt, card, result
and scoreboard mark comes from the messages the table publishes (its ``listeners``) and from its
snapshot. It must not delay the table:
a listener call only folds the message into the view and queues text for each open stream;
a slow or vanished browser is cut off, never waited for. It must not reach the internet: the
page, its style and its script are files of this package (no CDN, no web fonts), and the
Content-Security-Policy forbids anything else. It must not let a supervisor command through
without the configured PIN: a wrong PIN is refused here and never reaches the core.

Routes:

- ``GET /``: the page; ``GET /static/...``: its assets.
- ``GET /api/state``: the whole view (snapshot, prompt text, hands, last result, the commands
  the table takes now, scoreboards laid out on their drawn grids, recent alarms) as JSON.
- ``GET /api/events``: server-sent events. The first event (``view``) is the whole view, so a
  page that loads or reconnects shows the current state at once; then ``table``, ``roads`` and
  ``alarm`` events as the table moves, and a ``heartbeat`` every few seconds so the page can
  tell a silent controller from a quiet table. Each event's ``id:`` is the running message
  number of this display.
- ``GET /i18n/{screen}.json?lang=TAG``: a screen's texts (``publishing/languages.py``):
  the ``lang`` asked for if it is one of ours, else the language configured for that screen.
- ``POST /api/commands``: ``{"command": ..., "args": {...}, "staff_id": "...", "pin": "..."}``
  from the buttons and the staff keypad, as JSON from this page's own origin only (another
  site's page cannot post a command). Who may give which command, and as whom it is recorded,
  is ``publishing/display_commands.py``: a supervisor's PIN (or the shared display PIN) is
  checked in constant time, and a run of wrong PINs locks for a while. Refusals are counted
  (:attr:`DisplayServer.pin_refusals`) and logged, never the PIN.

What the page shows is worked out by the pure view model (``publishing/display_view.py``); the
PIN and its lockout by ``publishing/pin_lockout.py``. The server reads the table through the
small :class:`DisplayedTable` protocol, so this package needs nothing of the runtime.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections import deque
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final, Protocol
from urllib.parse import urlsplit

import structlog
from aiohttp import web
from aiohttp_sse import sse_response

from table_controller.procedure.payloads import TableSnapshot, TableState
from table_controller.publishing.display_commands import CommandError, DisplayGate, StaffCheck
from table_controller.publishing.display_view import DisplayModel
from table_controller.publishing.http_site import AddressUnusableError, start_site
from table_controller.publishing.languages import (
    DEFAULT_LANGUAGE,
    SCREENS,
    Catalogues,
    language_for,
)
from table_controller.publishing.messages import JsonValue, to_wire
from table_controller.publishing.models import CommandErrorCode
from table_controller.publishing.outgoing import OutgoingMessage
from table_controller.publishing.recall import RecallBook

_LOG = structlog.get_logger("table_controller.display")

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8080
#: The page, its style sheet and its script: inside the package, so it works offline.
STATIC_DIR: Final = Path(__file__).resolve().with_name("static")
#: A command body is a few dozen bytes; anything this big is not one.
MAX_BODY_BYTES: Final = 4096
#: Seconds between heartbeats on an idle stream; the page calls the controller unreachable
#: after about two and a half of these without a word.
HEARTBEAT_S: Final = 5.0
#: How long the browser waits before reconnecting a dropped stream (SSE ``retry:``, ms).
RECONNECT_MS: Final = 1000
#: Events queued for one stream before it is cut off (it reconnects and gets a fresh view).
STREAM_BACKLOG: Final = 256
#: Seconds one write to a page may take before the page is taken as gone.
SEND_TIMEOUT_S: Final = 10.0
#: Seconds a command may wait for the controller before the display gives up on the answer.
COMMAND_TIMEOUT_S: Final = 10.0
#: Seconds the streams get to finish on shutdown before they are cancelled (STACK pitfall 12).
STREAM_CLOSE_S: Final = 0.5



class SnapshotSource(Protocol):
    """Where the table is now (the table procedure)."""

    def snapshot(self) -> TableSnapshot: ...


class DisplayedTable(Protocol):
    """What the display needs of the table it shows (the table service)."""

    @property
    def procedure(self) -> SnapshotSource: ...

    @property
    def virtual(self) -> bool:
        """The table draws its own cards."""
        ...

    @property
    def listeners(self) -> list[Callable[[OutgoingMessage], None]]:
        """Called with every message the table publishes, in order."""
        ...

    @property
    def recall(self) -> RecallBook:
        """The last rounds with every step (``recall``)."""
        ...

    async def submit(self, record: Mapping[str, object]) -> dict[str, object]:
        """Carry out one command record; its reply."""
        ...

    async def answer(self, reply: Mapping[str, object]) -> dict[str, object]:
        """Journal and publish a reply the edge gave (``recall``'s); the reply."""
        ...


def _text(data: JsonValue) -> str:
    """Any JSON value as compact text (the messages' own :func:`dumps` takes only objects)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)



# --- the server (adapter) ----------------------------------------------------------------


@dataclass(slots=True, eq=False)
class _Stream:
    """One open event stream: text waiting to be sent, and a flag to end it."""

    pending: deque[tuple[int, str, str]] = field(default_factory=deque)
    wake: asyncio.Event = field(default_factory=asyncio.Event)
    #: Set once the handler serving this stream has returned.
    finished: asyncio.Event = field(default_factory=asyncio.Event)
    closing: bool = False
    task: asyncio.Task[object] | None = None

    def push(self, seq: int, event: str, data: str) -> bool:
        """Queue one event; False when this push finds the stream too far behind and ends it.

        An ending stream takes nothing more: its page reconnects and gets a fresh view.
        """
        if self.closing:
            return True
        if len(self.pending) >= STREAM_BACKLOG:
            self.close()
            return False
        self.pending.append((seq, event, data))
        self.wake.set()
        return True

    def close(self) -> None:
        self.closing = True
        self.wake.set()


class DisplayServer:
    """The dealer display of one table, served with aiohttp on ``host:port``.

    The display follows the service from construction (it listens to every message), so
    attach it before ``TableService.recover()`` and the replayed shoe fills its scoreboards.
    :meth:`start` and :meth:`stop` open and close the web side only; they may be repeated.

    Args:
        service: The table whose state is shown and to which commands go.
        host: Address to bind; localhost unless the deployment says otherwise.
        port: TCP port; 0 picks a free one (see :attr:`port` after :meth:`start`).
        pin: The shared supervisor PIN of a table without a staff register; None: none.
        staff: The staff desk: sign-in, and supervisors approving with their own PIN.
        languages: Each screen's language (BCP 47 tag) when its page asks for none;
            the screens not named show English.
        catalogues: The screens' texts; None: read from the package's catalogues.
        heartbeat_s: Seconds between heartbeats on an idle event stream.
        clock: Monotonic seconds, for the PIN lockout.
    """

    def __init__(  # noqa: PLR0913 - the deployment's settings, all keyword-only
        self,
        service: DisplayedTable,
        *,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        pin: str | None = None,
        staff: StaffCheck | None = None,
        languages: Mapping[str, str] | None = None,
        catalogues: Catalogues | None = None,
        heartbeat_s: float = HEARTBEAT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._service = service
        self.host = host
        self.port = port
        self.gate = DisplayGate(pin=pin, staff=staff, clock=clock)
        self._heartbeat_s = heartbeat_s
        self._catalogues = Catalogues() if catalogues is None else catalogues
        self._languages = dict.fromkeys(SCREENS, DEFAULT_LANGUAGE) | dict(languages or {})
        self._model = DisplayModel(
            service.procedure.snapshot(), virtual=service.virtual, staff=lambda: self.gate.staff
        )
        self._seq = 0
        self._streams: set[_Stream] = set()
        self._runner: web.AppRunner | None = None
        #: Bodies refused before they were read as a command (bad JSON, oversized ...).
        self._bad_bodies = 0
        #: Streams cut off because their browser fell too far behind.
        self.streams_dropped = 0
        service.listeners.append(self._on_message)

    # --- life cycle ---------------------------------------------------------------------

    @property
    def url(self) -> str:
        """The page's address (after :meth:`start`, with the port actually bound)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"http://{host}:{self.port}/"

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
        return len(self._streams)

    @property
    def model(self) -> DisplayModel:
        return self._model

    def make_app(self) -> web.Application:
        """The aiohttp application (routes, security headers, stream clean-up)."""
        app = web.Application(client_max_size=MAX_BODY_BYTES, middlewares=[_security_headers])
        app.router.add_get("/", self._index)
        app.router.add_get("/favicon.ico", _no_icon)
        app.router.add_get("/api/state", self._state)
        app.router.add_get("/api/events", self._events)
        app.router.add_post("/api/commands", self._command)
        app.router.add_get("/i18n/{screen}.json", self._texts)
        app.router.add_static("/static", STATIC_DIR, follow_symlinks=False)
        app.on_shutdown.append(self._on_shutdown)
        return app

    async def start(self) -> None:
        """Bind and serve; :attr:`port` becomes the bound port.

        Raises:
            AddressUnusableError: the address cannot be bound (logged once, critical).
        """
        if self._runner is not None:
            return
        try:
            self._runner, self.port = await start_site(
                self.make_app(), self.host, self.port, shutdown_timeout=1.0
            )
        except AddressUnusableError as error:
            _LOG.critical("dealer display address unusable", url=self.url, error=str(error))
            raise
        _LOG.info("dealer display serving", url=self.url)

    async def stop(self) -> None:
        """End every event stream and stop serving."""
        runner, self._runner = self._runner, None
        if runner is None:
            return
        await self._close_streams()
        await runner.cleanup()
        _LOG.info("dealer display stopped", url=self.url)

    def detach(self) -> None:
        """Stop following the service (after :meth:`stop`, when the display is retired)."""
        with contextlib.suppress(ValueError):
            self._service.listeners.remove(self._on_message)

    async def _on_shutdown(self, app: web.Application) -> None:
        del app
        await self._close_streams()

    async def _close_streams(self) -> None:
        """Ask every stream to end, then cancel those that have not (STACK pitfall 12)."""
        streams = list(self._streams)
        for stream in streams:
            stream.close()
        try:
            async with asyncio.timeout(STREAM_CLOSE_S):
                for stream in streams:
                    await stream.finished.wait()
        except TimeoutError:
            for stream in streams:
                if not stream.finished.is_set() and stream.task is not None:
                    stream.task.cancel()

    # --- the table's messages -------------------------------------------------------------

    def _on_message(self, message: OutgoingMessage) -> None:
        """Called by the service for each message it publishes: never raises, never waits."""
        try:
            if isinstance(message.payload, TableState):
                events = self._model.show(self._service.procedure.snapshot())
            else:
                events = self._model.apply(message)
            for name, data in events:
                self._seq += 1
                text = _text(data)
                for stream in list(self._streams):
                    if not stream.push(self._seq, name, text):
                        self.streams_dropped += 1
                        _LOG.warning("display stream too far behind: cut off")
        except Exception:  # noqa: BLE001 - the display must never stop the table
            _LOG.exception("display could not show a message", topic=message.topic)

    # --- handlers ----------------------------------------------------------------------------

    async def _index(self, request: web.Request) -> web.StreamResponse:
        del request
        return web.FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    async def _texts(self, request: web.Request) -> web.Response:
        screen = request.match_info["screen"]
        if screen not in SCREENS:
            raise web.HTTPNotFound
        asked = language_for(request.query.get("lang"))
        tag = self._languages[screen] if asked is None else asked.tag
        body = {"lang": tag, "messages": self._catalogues.messages(tag, screen)}
        return web.json_response(body, headers={"Cache-Control": "no-cache"})

    async def _state(self, request: web.Request) -> web.Response:
        del request
        view = self._model.view() | {"seq": self._seq}
        return web.Response(text=_text(view), content_type="application/json")

    async def _events(self, request: web.Request) -> web.StreamResponse:
        stream = _Stream(task=asyncio.current_task())
        # The view and the registration happen together: nothing is missed or sent twice.
        view = self._model.view() | {"heartbeat_ms": round(self._heartbeat_s * 1000)}
        first, seq = _text(view), self._seq
        self._streams.add(stream)
        last_seen = request.headers.get("Last-Event-ID")
        if last_seen is not None:
            _LOG.info("display reconnected", last_event_id=last_seen[:20], now=seq)
        try:
            async with sse_response(
                request,
                ping_interval=self._heartbeat_s * 3,
                send_timeout=SEND_TIMEOUT_S,
                headers={"Cache-Control": "no-store"},
            ) as response:
                try:
                    await response.send(first, id=str(seq), event="view", retry=RECONNECT_MS)
                    await self._pump(stream, response.send)
                except ConnectionResetError:
                    _LOG.info("display stream closed by the browser")
                except TimeoutError:  # aiohttp-sse aborted the connection: the page stalled
                    _LOG.warning("display stream stalled: dropped")
        finally:
            self._streams.discard(stream)
            stream.finished.set()
        return response

    async def _pump(self, stream: _Stream, send: Callable[..., Awaitable[None]]) -> None:
        """Send queued events as they come, a heartbeat when there are none; until closed."""
        while not stream.closing:
            try:
                async with asyncio.timeout(self._heartbeat_s):
                    await stream.wake.wait()
            except TimeoutError:
                await send("{}", event="heartbeat")
                continue
            stream.wake.clear()
            while stream.pending and not stream.closing:
                seq, name, data = stream.pending.popleft()
                await send(data, id=str(seq), event=name)

    async def _command(self, request: web.Request) -> web.Response:
        try:
            record = await self._authorised_record(request)
        except CommandError as refused:
            return _reply(
                refused.status, {"ok": False, "error": refused.error, "message": refused.message}
            )
        try:
            async with asyncio.timeout(COMMAND_TIMEOUT_S):
                own = self.gate.edge_reply(record, self._service.recall)
                service = self._service
                reply = await (service.submit(record) if own is None else service.answer(own))
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
        elif reply.get("error") in frozenset(CommandErrorCode):
            status = 400  # refused as read, before the table procedure
        else:
            status = 409
        return _reply(status, reply)

    async def _authorised_record(self, request: web.Request) -> dict[str, object]:
        """The command record for a request, or :class:`CommandError` saying why not."""
        return await self.gate.record(await self._body(request))

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


async def _no_icon(request: web.Request) -> web.Response:
    del request
    return web.Response(status=204)


def _reply(status: int, body: Mapping[str, object]) -> web.Response:
    return web.Response(status=status, text=_text(to_wire(body)), content_type="application/json")


#: Only this display's own files, scripts and streams (no CDN, no fonts, no framing).
CONTENT_SECURITY_POLICY: Final = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)


@web.middleware
async def _security_headers(
    request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
) -> web.StreamResponse:
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
