# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Server-sent event streams to the pages of one screen (the dealer display, the board).

Adapter (aiohttp-sse). A :class:`StreamHub` numbers the events of its screen and queues them
for every open stream; it never waits for a browser: a stream too far behind is cut off (its
page reconnects and gets a fresh view), a stalled one is dropped by aiohttp-sse. The first
event of a stream is the whole view (``view``), so a page that loads or reconnects shows the
current state at once; a ``heartbeat`` goes out every few seconds while idle, so the page can
tell a silent controller from a quiet table. Each event's ``id:`` is the hub's running number.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from typing import Final

import structlog
from aiohttp import web
from aiohttp_sse import sse_response

from table_controller.contract import JsonValue

#: Seconds between heartbeats on an idle stream; a page calls the controller unreachable
#: after about two and a half of these without a word.
HEARTBEAT_S: Final = 5.0
#: How long the browser waits before reconnecting a dropped stream (SSE ``retry:``, ms).
RECONNECT_MS: Final = 1000
#: Events queued for one stream before it is cut off (it reconnects and gets a fresh view).
STREAM_BACKLOG: Final = 256
#: Seconds one write to a page may take before the page is taken as gone.
SEND_TIMEOUT_S: Final = 10.0
#: Seconds the streams get to finish on shutdown before they are cancelled: aiohttp
#: would wait 60 s at shutdown for a stream parked on its queue.
STREAM_CLOSE_S: Final = 0.5


def json_text(data: JsonValue) -> str:
    """Any JSON value as compact text (the messages' own ``dumps`` takes only objects)."""
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


@dataclass(slots=True, eq=False)
class EventStream:
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


class StreamHub:
    """The open event streams of one screen, and the running number of its events.

    Args:
        screen: The screen's name in the log (``display``, ``board``).
        heartbeat_s: Seconds between heartbeats on an idle stream.
    """

    def __init__(self, screen: str, *, heartbeat_s: float = HEARTBEAT_S) -> None:
        self.screen = screen
        self.heartbeat_s = heartbeat_s
        self.seq = 0
        self._streams: set[EventStream] = set()
        #: Streams cut off because their browser fell too far behind.
        self.streams_dropped = 0
        self._log = structlog.get_logger(f"table_controller.{screen}")

    @property
    def open_streams(self) -> int:
        return len(self._streams)

    def broadcast(self, events: Iterable[tuple[str, JsonValue]]) -> None:
        """Number each ``(event name, data)`` and queue it for every open stream; never waits."""
        for name, data in events:
            self.seq += 1
            text = json_text(data)
            for stream in list(self._streams):
                if not stream.push(self.seq, name, text):
                    self.streams_dropped += 1
                    self._log.warning("stream too far behind: cut off", screen=self.screen)

    async def serve(
        self, request: web.Request, view: Callable[[], JsonValue]
    ) -> web.StreamResponse:
        """Answer ``request`` with a stream: ``view()`` first, then every broadcast event."""
        stream = EventStream(task=asyncio.current_task())
        # The view and the registration happen together: nothing is missed or sent twice.
        first, seq = json_text(view()), self.seq
        self._streams.add(stream)
        last_seen = request.headers.get("Last-Event-ID")
        if last_seen is not None:
            self._log.info("page reconnected", last_event_id=last_seen[:20], now=seq)
        try:
            async with sse_response(
                request,
                ping_interval=self.heartbeat_s * 3,
                send_timeout=SEND_TIMEOUT_S,
                headers={"Cache-Control": "no-store"},
            ) as response:
                try:
                    await response.send(first, id=str(seq), event="view", retry=RECONNECT_MS)
                    await self._pump(stream, response.send)
                except ConnectionResetError:
                    self._log.info("stream closed by the browser", screen=self.screen)
                except TimeoutError:  # aiohttp-sse aborted the connection: the page stalled
                    self._log.warning("stream stalled: dropped", screen=self.screen)
        finally:
            self._streams.discard(stream)
            stream.finished.set()
        return response

    async def _pump(self, stream: EventStream, send: Callable[..., Awaitable[None]]) -> None:
        """Send queued events as they come, a heartbeat when there are none; until closed."""
        while not stream.closing:
            try:
                async with asyncio.timeout(self.heartbeat_s):
                    await stream.wake.wait()
            except TimeoutError:
                await send("{}", event="heartbeat")
                continue
            stream.wake.clear()
            while stream.pending and not stream.closing:
                seq, name, data = stream.pending.popleft()
                await send(data, id=str(seq), event=name)

    async def close_all(self) -> None:
        """Ask every stream to end, then cancel those that have not (see :data:`STREAM_CLOSE_S`)."""
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
