# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The dealer's display: a web page served from the table service's own event loop.

Adapter (aiohttp, aiohttp-sse). It decides nothing about the game: every prompt, card, result
and scoreboard mark comes from the messages the procedure publishes (``TableService.listeners``)
and from its snapshot; the only rules it calls are the pure ones of ``table_controller.rules``
(hand totals, :func:`~table_controller.rules.roads.layout_grid`). It must not delay the table:
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
- ``POST /api/commands``: ``{"command": ..., "args": {...}, "pin": "..."}`` from the buttons,
  as JSON from this page's own origin only (another site's page cannot post a command). The
  PIN is compared in constant time; five wrong PINs in a row lock supervisor commands for a
  minute. Refusals are counted (:attr:`DisplayServer.pin_refusals`) and logged, never the PIN.

The view model (:class:`DisplayModel` and the functions above it) is pure: no I/O, no clock.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import json
import time
import uuid
from collections import deque
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final
from urllib.parse import urlsplit

import structlog
from aiohttp import web
from aiohttp_sse import sse_response

from table_controller.procedure.states import COMMANDS_WHILE_HELD, Phase, Trigger, accepts
from table_controller.publishing.displayed_table import DisplayedTable
from table_controller.publishing.http_site import AddressUnusableError, start_site
from table_controller.publishing.messages import JsonValue, to_wire
from table_controller.publishing.models import CommandErrorCode, CommandRejection, validate_command
from table_controller.publishing.outgoing import OutgoingMessage
from table_controller.rules.cards import Card, CardError, hand_total
from table_controller.rules.roads import DEFAULT_GRID_ROWS, layout_grid
from table_controller.rules.variants import VARIANTS, Reshuffle

_LOG = structlog.get_logger("table_controller.display")

DEFAULT_HOST: Final = "127.0.0.1"
DEFAULT_PORT: Final = 8080
#: The page, its style sheet and its script: inside the package, so it works offline.
STATIC_DIR: Final = Path(__file__).resolve().with_name("static")
#: Commands any dealer may give from the display (mqtt-api.md, "Commands").
DEALER_COMMANDS: Final = frozenset(
    {"new_shoe", "open_betting", "close_betting", "deal", "misdeal", "dropped_card"}
)
#: Commands that need the supervisor's PIN (mqtt-api.md: "supervisor commands").
SUPERVISOR_COMMANDS: Final = frozenset({"void_round", "void_shoe", "manual_card", "correct_result"})
#: The commands the page has a button for, in the order it shows them.
DISPLAY_COMMANDS: Final = (
    "new_shoe",
    "open_betting",
    "close_betting",
    "deal",
    "misdeal",
    "dropped_card",
    "void_round",
    "void_shoe",
    "manual_card",
)
#: Operator ids the journal records for commands from the display.
DEALER_OPERATOR: Final = "display"
SUPERVISOR_OPERATOR: Final = "display-supervisor"
#: A command body is a few dozen bytes; anything this big is not one.
MAX_BODY_BYTES: Final = 4096
#: Seconds between heartbeats on an idle stream; the page calls the controller unreachable
#: after about two and a half of these without a word.
HEARTBEAT_S: Final = 5.0
#: How long the browser waits before reconnecting a dropped stream (SSE ``retry:``, ms).
RECONNECT_MS: Final = 1000
#: Events queued for one stream before it is cut off (it reconnects and gets a fresh view).
STREAM_BACKLOG: Final = 256
#: Alarms and voids kept for the page, newest first.
RECENT_ALARMS: Final = 20
#: Seconds one write to a page may take before the page is taken as gone.
SEND_TIMEOUT_S: Final = 10.0
#: Seconds a command may wait for the controller before the display gives up on the answer.
COMMAND_TIMEOUT_S: Final = 10.0
#: Seconds the streams get to finish on shutdown before they are cancelled (STACK pitfall 12).
STREAM_CLOSE_S: Final = 0.5
#: Wrong PINs in a row before supervisor commands are locked for :data:`PIN_LOCKOUT_S`.
MAX_PIN_FAILURES: Final = 5
PIN_LOCKOUT_S: Final = 60.0

#: What the dealer reads under HOLD, per hold reason (errors.py ``HoldReason``).
HOLD_REASONS: Final[Mapping[str, str]] = {
    "reader_offline": "READER OFFLINE: check the shoe's cable and power",
    "misread": "MISREAD: the supervisor enters the card or voids the round",
    "lost_frames": "CARDS MISSED: the supervisor enters them or voids the round",
    "foreign_card": "FOREIGN CARD: set it aside; the supervisor voids the shoe",
    "procedure_fault": "CONTROLLER FAULT: call the technician",
}
_DERIVED_ROADS: Final = ("big_eye_boy", "small_road", "cockroach_pig")


# --- the view model (pure) -----------------------------------------------------------------


def _mapping(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


def _sequence(value: object) -> Sequence[object]:
    return value if isinstance(value, list | tuple) else ()


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def hand_view(codes: object) -> dict[str, JsonValue]:
    """One hand as the page shows it: its cards and its total (None if empty or unreadable)."""
    cards: list[JsonValue] = [code if isinstance(code, str) else None for code in _sequence(codes)]
    points: list[int] = []
    for code in cards:
        try:
            points.append(Card.parse(code).point if isinstance(code, str) else -1)
        except CardError:
            points.append(-1)
    known = bool(points) and min(points) >= 0
    return {"cards": cards, "total": hand_total(points) if known else None}


def result_view(payload: Mapping[str, object]) -> dict[str, JsonValue]:
    """What the page needs of a ``round_result``: winner, totals, naturals and pairs."""
    return {
        "round_no": _int(payload.get("round_no")),
        "round_id": to_wire(payload.get("round_id")),
        "winner": to_wire(payload.get("winner")),
        "player_total": _int(_mapping(payload.get("player")).get("total")),
        "banker_total": _int(_mapping(payload.get("banker")).get("total")),
        "natural": bool(payload.get("natural")),
        "player_pair": bool(payload.get("player_pair")),
        "banker_pair": bool(payload.get("banker_pair")),
    }


def result_text(result: Mapping[str, JsonValue]) -> tuple[str, str]:
    """``BANKER WINS`` and ``Banker 7 · Player 5 · Natural``: the winner, then the totals.

    Each total stands beside its side's name, the winner's first: two bare numbers joined by
    "to" or a dash read like a payout ("7 to 1", "7-1"), and "TIE 8" like the tie's 8 to 1.
    """
    totals = {"Player": result.get("player_total"), "Banker": result.get("banker_total")}
    match result.get("winner"):
        case "banker":
            text, order = "BANKER WINS", ("Banker", "Player")
        case "player":
            text, order = "PLAYER WINS", ("Player", "Banker")
        case _:
            text, order = "TIE", ("Player", "Banker")
    notes = [f"{side} {totals[side]}" for side in order]
    notes += [
        label
        for key, label in (
            ("natural", "Natural"),
            ("player_pair", "Player pair"),
            ("banker_pair", "Banker pair"),
        )
        if result.get(key)
    ]
    return text, " · ".join(notes)


def prompt_view(  # noqa: C901, PLR0911, PLR0912 - one case per prompt action of mqtt-api.md
    state: Mapping[str, object],
    last_result: Mapping[str, JsonValue] | None,
    prompt_round: int | None = None,
) -> dict[str, JsonValue]:
    """The prompt in words: big ``text``, a smaller ``detail`` line and a ``tone`` for colour.

    ``prompt_round`` is the round the last ``prompt`` event named (the snapshot's prompt does
    not carry it): the round about to be bet on, or the round whose result is shown.
    """
    prompt = state.get("prompt")
    phase = state.get("phase")
    round_no = prompt_round if prompt_round is not None else _int(state.get("round_no"))

    def view(text: str, detail: str, tone: str) -> dict[str, JsonValue]:
        return {"text": text, "detail": detail, "tone": tone}

    if not isinstance(prompt, Mapping):
        if phase == "faulted":
            return view("HOLD", HOLD_REASONS["procedure_fault"], "hold")
        return view("NEW SHOE", "No shoe in play: start a new shoe", "idle")
    match prompt.get("action"):
        case "burn":
            count = _int(prompt.get("count"))
            if count is None:
                return view("BURN", "Turn the first card face up", "burn")
            burned = max(0, (_int(state.get("cards_seen")) or 0) - 1)
            detail = f"Burn {count} face down: {min(burned, count)} of {count} done"
            return view(f"BURN {count}", detail, "burn")
        case "open_betting":
            name = "The next round" if prompt_round is None else f"Round {prompt_round}"
            if phase == "betting":
                return view("BETTING OPEN", f"{name}: close the betting to deal", "bet")
            return view("OPEN BETTING", f"{name} next", "bet")
        case "deal":
            return view("DEAL", "Player, Banker, Player, Banker", "deal")
        case "player_draws":
            return view("PLAYER DRAWS", "A third card to the Player", "player")
        case "banker_draws":
            return view("BANKER DRAWS", "A third card to the Banker", "banker")
        case "result":
            if last_result is not None and last_result.get("round_no") == round_no:
                text, totals = result_text(last_result)
                return view(text, totals, str(last_result.get("winner") or "tie"))
            hands = _mapping(state.get("cards"))
            player = hand_view(hands.get("player")).get("total")
            banker = hand_view(hands.get("banker")).get("total")
            return view("RESULT", f"Player {player} · Banker {banker}", "idle")
        case "hold":
            reason = str(prompt.get("reason") or "")
            words = HOLD_REASONS.get(reason, reason.replace("_", " ").upper())
            return view("HOLD", words, "hold")
        case "shoe_over":
            return view("SHOE OVER", "Start a new shoe", "idle")
        case other:
            return view(str(other).replace("_", " ").upper(), "", "idle")


def commands_offered(state: Mapping[str, object], *, virtual: bool) -> list[str]:
    """The commands of :data:`DISPLAY_COMMANDS` the table takes now: the page shows only these.

    The table's own rules decide, read from its ``state`` snapshot as the procedure applies
    them before any command: an edge out of the phase in the transition table
    (:func:`~table_controller.procedure.states.accepts`), only the hold-clearing commands
    while held, betting commands only with a betting phase and ``deal`` only without one, a
    new shoe between rounds only where every round is a new shoe, a card entered by hand only
    while one is missing; a faulted table, only the ``void_shoe`` that releases it. ``deal``
    is for a ``virtual`` table alone: a reader table's first card starts its round. A command
    refused only for what it names (a round, a card) keeps its button.
    """
    held_in = state.get("held_in")
    try:
        phase = Phase(str(held_in if held_in is not None else state.get("phase")))
    except ValueError:
        return []
    betting = state.get("betting_phase") is not False
    variant = VARIANTS.get(str(state.get("variant")))
    every_round = variant is not None and variant.reshuffle is Reshuffle.EVERY_ROUND
    card_missing = bool(state.get("missing_cards")) or bool(state.get("unresolved_lost_frames"))
    this_kind_takes = {
        "new_shoe": phase is not Phase.BETWEEN_ROUNDS or every_round,
        "open_betting": betting,
        "close_betting": betting,
        "deal": virtual and not betting,
        "misdeal": True,
        "dropped_card": True,
        "void_round": state.get("round_id") is not None,
        "void_shoe": True,
        "manual_card": card_missing,
    }
    return [
        command
        for command in DISPLAY_COMMANDS
        if this_kind_takes[command]
        and (held_in is None or Trigger(command) in COMMANDS_WHILE_HELD)
        and accepts(phase, Trigger(command))
    ]


def roads_view(
    payload: Mapping[str, object], rows: int = DEFAULT_GRID_ROWS
) -> dict[str, JsonValue]:
    """The ``roads`` payload placed on drawn grids ``rows`` high, as a casino draws them.

    The bead plate fills each column top to bottom; the Big Road and the derived roads are
    laid out by :func:`layout_grid` (new columns at the top, dragon tails along the bottom).
    Every placed cell gets ``x`` and ``y`` (from 0); ``width`` is each grid's drawn columns.
    """
    wire = to_wire(payload)
    data: Mapping[str, JsonValue] = wire if isinstance(wire, dict) else {}
    beads: list[JsonValue] = [
        {"x": index // rows, "y": index % rows, **bead}
        for index, bead in enumerate(_sequence(data.get("bead_plate")))
        if isinstance(bead, dict)
    ]
    grids: dict[str, JsonValue] = {"bead_plate": beads}
    widths: dict[str, JsonValue] = {"bead_plate": (len(beads) + rows - 1) // rows}
    big_columns = [list(_sequence(column)) for column in _sequence(data.get("big_road"))]
    big: list[JsonValue] = [
        {"x": x, "y": y, **cell}
        for x, y, cell in layout_grid([c for c in big_columns if c], rows)
        if isinstance(cell, dict)
    ]
    grids["big_road"] = big
    widths["big_road"] = _width(big)
    for name in _DERIVED_ROADS:
        columns = [list(_sequence(column)) for column in _sequence(data.get(name))]
        marks: list[JsonValue] = [
            {"x": x, "y": y, "colour": to_wire(colour)}
            for x, y, colour in layout_grid([c for c in columns if c], rows)
        ]
        grids[name] = marks
        widths[name] = _width(marks)
    return {
        "shoe_id": data.get("shoe_id"),
        "rows": rows,
        **grids,
        "width": widths,
        "ask_banker": data.get("ask_banker"),
        "ask_player": data.get("ask_player"),
        "stats": data.get("stats"),
    }


def _width(cells: Sequence[JsonValue]) -> int:
    """How many drawn columns the placed cells span."""
    columns = [cell["x"] for cell in cells if isinstance(cell, dict)]
    return 1 + max((x for x in columns if isinstance(x, int)), default=-1)


def _text(data: JsonValue) -> str:
    """Any JSON value as compact text (the messages' own :func:`dumps` takes only objects)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


def alarm_view(message: OutgoingMessage) -> dict[str, JsonValue] | None:
    """An alarm, a voided round or a voided shoe as a line of the page's alarm list."""
    payload = message.payload
    base: dict[str, JsonValue] = {"ts": message.ts, "round_id": to_wire(payload.get("round_id"))}
    match message.event_type:
        case "alarm":
            return base | {
                "kind": "alarm",
                "code": to_wire(payload.get("code")),
                "message": to_wire(payload.get("message")),
            }
        case "round_voided":
            reason = str(payload.get("reason") or "").replace("_", " ")
            return base | {
                "kind": "void",
                "code": "round_voided",
                "message": f"Round {payload.get('round_no')} voided ({reason})",
            }
        case "shoe_voided":
            return base | {
                "kind": "void",
                "code": "shoe_voided",
                "message": f"Shoe {payload.get('shoe_id')} voided",
            }
        case _:
            return None


class DisplayModel:
    """What the page shows, kept up to date from the table's messages.

    :meth:`apply` takes one published message and returns the events to send to every open
    page, as ``(event name, data)``; :meth:`view` is everything at once, for a page that
    has just connected. ``virtual`` says the table draws its own cards (a ``deal`` button).
    """

    def __init__(
        self,
        state: Mapping[str, object],
        *,
        virtual: bool = False,
        alarm_limit: int = RECENT_ALARMS,
    ) -> None:
        self._state = state
        self._virtual = virtual
        self._last_result: dict[str, JsonValue] | None = None
        self._roads: dict[str, JsonValue] | None = None
        self._alarms: deque[dict[str, JsonValue]] = deque(maxlen=alarm_limit)
        self._prompt_event: Mapping[str, object] = {}

    def apply(self, message: OutgoingMessage) -> list[tuple[str, JsonValue]]:
        """Fold one message in; the events the open pages need because of it."""
        match message.topic:
            case "state":
                self._state = message.payload
                return [("table", self.table())]
            case "roads":
                self._roads = roads_view(message.payload)
                return [("roads", self._roads)]
        match message.event_type:
            case "round_result" | "result_corrected":
                self._last_result = result_view(message.payload)
            case "shoe_started":
                self._last_result = None
            case "prompt":
                self._prompt_event = message.payload
        alarm = alarm_view(message)
        if alarm is None:
            return []
        self._alarms.appendleft(alarm)
        return [("alarm", alarm)]

    def table(self) -> dict[str, JsonValue]:
        """The snapshot, the prompt in words, the hands, the last result, the commands taken now."""
        hands = _mapping(self._state.get("cards"))
        commands: list[JsonValue] = [*commands_offered(self._state, virtual=self._virtual)]
        return {
            "state": to_wire(self._state),
            "prompt": prompt_view(self._state, self._last_result, self._prompt_round()),
            "hands": {
                "player": hand_view(hands.get("player")),
                "banker": hand_view(hands.get("banker")),
            },
            "last_result": self._last_result,
            "commands": commands,
        }

    def _prompt_round(self) -> int | None:
        """The round of the last ``prompt`` event, if it is the prompt the snapshot shows."""
        shown = _mapping(self._state.get("prompt")).get("action")
        if shown is None or self._prompt_event.get("action") != shown:
            return None
        return _int(self._prompt_event.get("round_no"))

    def view(self) -> dict[str, JsonValue]:
        """Everything the page shows."""
        return {
            "table": self.table(),
            "roads": self._roads,
            "alarms": list(self._alarms),
        }


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


class CommandError(Exception):
    """A request to ``/api/commands`` that is refused before it reaches the core."""

    def __init__(self, status: int, error: CommandErrorCode, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.error = error
        self.message = message


class DisplayServer:
    """The dealer display of one table, served with aiohttp on ``host:port``.

    The display follows the service from construction (it listens to every message), so
    attach it before ``TableService.recover()`` and the replayed shoe fills its scoreboards.
    :meth:`start` and :meth:`stop` open and close the web side only; they may be repeated.

    Args:
        service: The table whose state is shown and to which commands go.
        host: Address to bind; localhost unless the deployment says otherwise.
        port: TCP port; 0 picks a free one (see :attr:`port` after :meth:`start`).
        pin: The supervisor's PIN; None disables supervisor commands on the display.
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
        heartbeat_s: float = HEARTBEAT_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._service = service
        self.host = host
        self.port = port
        self._pin = None if pin is None else pin.encode()
        self._heartbeat_s = heartbeat_s
        self._clock = clock
        self._pin_failures = 0
        self._locked_until = 0.0
        self._model = DisplayModel(service.procedure.snapshot(), virtual=service.virtual)
        self._seq = 0
        self._streams: set[_Stream] = set()
        self._runner: web.AppRunner | None = None
        #: Supervisor commands refused for a missing or wrong PIN since start.
        self.pin_refusals = 0
        #: Requests refused as malformed (bad JSON, unknown command, oversized body...).
        self.bad_requests = 0
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
                reply = await self._service.submit(record)
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
        body = await self._body(request)
        command = body.get("command")
        if not isinstance(command, str) or command not in DEALER_COMMANDS | SUPERVISOR_COMMANDS:
            self.bad_requests += 1
            raise CommandError(
                400, CommandErrorCode.UNKNOWN_COMMAND, f"unknown command {str(command)[:40]!r}"
            )
        operator = DEALER_OPERATOR
        if command in SUPERVISOR_COMMANDS:
            self._check_pin(command, body.get("pin"))
            operator = SUPERVISOR_OPERATOR
        # Read as the same command over MQTT is: one fault, one code and message.
        checked = validate_command(
            {
                "command": command,
                "id": f"display-{uuid.uuid4().hex}",
                "operator": operator,
                "args": body.get("args", {}),
            }
        )
        if isinstance(checked, CommandRejection):
            self.bad_requests += 1
            status = 413 if checked.code is CommandErrorCode.OVERSIZED else 400
            raise CommandError(status, checked.code, checked.message)
        return checked.model_dump(mode="json", exclude={"signature"})

    async def _body(self, request: web.Request) -> dict[str, object]:
        origin = request.headers.get("Origin")
        if origin is not None and urlsplit(origin).netloc != request.host:
            self.bad_requests += 1
            raise CommandError(
                403, CommandErrorCode.FOREIGN_ORIGIN, "commands come only from this display"
            )
        if request.content_type != "application/json":
            self.bad_requests += 1
            raise CommandError(
                415, CommandErrorCode.NOT_JSON, "send the command as application/json"
            )
        try:
            body = await request.json()
        except web.HTTPRequestEntityTooLarge:
            self.bad_requests += 1
            raise CommandError(
                413, CommandErrorCode.OVERSIZED, f"a command is at most {MAX_BODY_BYTES} bytes"
            ) from None
        except (ValueError, RecursionError):  # bad JSON, undecodable bytes, nested too deep
            self.bad_requests += 1
            raise CommandError(
                400, CommandErrorCode.MALFORMED_JSON, "the body is not JSON"
            ) from None
        if not isinstance(body, dict):
            self.bad_requests += 1
            raise CommandError(
                400, CommandErrorCode.MALFORMED_JSON, "the body must be a JSON object"
            )
        return body

    def _check_pin(self, command: str, given: object) -> None:
        """Refuse a supervisor command unless it carries the PIN (compared in constant time)."""
        if self._pin is None:
            self.pin_refusals += 1
            _LOG.warning("supervisor command refused: no display PIN configured", command=command)
            raise CommandError(
                403,
                CommandErrorCode.SUPERVISOR_DISABLED,
                "supervisor commands are disabled on this display (no PIN is configured)",
            )
        now = self._clock()
        if now < self._locked_until:
            self.pin_refusals += 1
            _LOG.warning("supervisor command refused: PIN locked", command=command)
            wait = int(self._locked_until - now) + 1
            raise CommandError(
                429, CommandErrorCode.PIN_LOCKED, f"too many wrong PINs: try again in {wait} s"
            )
        attempt = given.encode() if isinstance(given, str) else b""
        if hmac.compare_digest(attempt, self._pin):
            self._pin_failures = 0
            return
        self.pin_refusals += 1
        self._pin_failures += 1
        if self._pin_failures >= MAX_PIN_FAILURES:
            self._pin_failures = 0
            self._locked_until = now + PIN_LOCKOUT_S
        _LOG.warning(
            "supervisor command refused: wrong PIN",
            command=command,
            pin_given=bool(attempt),
            refusals=self.pin_refusals,
            locked=self._locked_until > now,
        )
        raise CommandError(
            403, CommandErrorCode.WRONG_PIN, f"{command}: the supervisor PIN is missing or wrong"
        )


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
