# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""One screen's view of the table kept up to date, and served: the dealer display's, the board's.

Adapter (aiohttp). A :class:`ViewFeed` is one of the table service's observers: told every
message the table publishes and its journal refusing writes and recording again, it folds each
into the screen's pure view model and queues the events that come of it for each open stream
(``screens/web/event_streams.py``); a call never waits, never raises. It answers the screen's
``api/state`` (the whole view) and ``api/events`` (the stream).
"""

from __future__ import annotations

from typing import Generic, Protocol, TypeVar

import structlog
from aiohttp import web

from table_controller.contract import (
    JournalRefusal,
    JsonValue,
    OutgoingMessage,
    TableSnapshot,
    TableState,
)
from table_controller.screens.web.event_streams import HEARTBEAT_S, StreamHub, json_text


class SnapshotSource(Protocol):
    """Where the table is now (the table procedure)."""

    def snapshot(self) -> TableSnapshot: ...


class ViewModel(Protocol):
    """A screen's pure view model (``screens/dealer/view.py``, ``screens/board/view.py``)."""

    def show(self, snapshot: TableSnapshot) -> list[tuple[str, JsonValue]]:
        """The events that show the table as ``snapshot`` has it."""
        ...

    def apply(self, message: OutgoingMessage) -> list[tuple[str, JsonValue]]:
        """The events that show one published message."""
        ...

    def journal(self, refusal: JournalRefusal | None) -> list[tuple[str, JsonValue]]:
        """The events that show the journal refusing writes (why), or recording again (None)."""
        ...

    def view(self) -> dict[str, JsonValue]:
        """The whole view."""
        ...


Model = TypeVar("Model", bound=ViewModel)


class ViewFeed(Generic[Model]):
    """A screen's view model following one table, and the screen's open event streams.

    Given to the table service among its observers, it follows the journal's replay too, so
    the replayed shoe fills the scoreboards.

    Args:
        table: The table shown (its procedure): a ``state`` message shows its snapshot.
        model: The screen's view model, made from the table's snapshot now.
        screen: The screen's name in the log (``display``, ``board``).
        heartbeat_s: Seconds between heartbeats on an idle event stream.
    """

    def __init__(
        self,
        table: SnapshotSource,
        model: Model,
        *,
        screen: str,
        heartbeat_s: float = HEARTBEAT_S,
    ) -> None:
        self._table = table
        self.model = model
        self.hub = StreamHub(screen, heartbeat_s=heartbeat_s)
        self._log = structlog.get_logger(f"table_controller.{screen}")

    @property
    def open_streams(self) -> int:
        """The pages following the table now."""
        return self.hub.open_streams

    async def close_streams(self) -> None:
        await self.hub.close_all()

    def on_journal(self, refusal: JournalRefusal | None) -> None:
        """Called by the service when its journal refuses writes or records again."""
        try:
            self.hub.broadcast(self.model.journal(refusal))
        except Exception:  # noqa: BLE001 - a screen must never stop the table
            self._log.exception(f"{self.hub.screen} could not show the journal's state")

    def on_message(self, message: OutgoingMessage, *, live: bool) -> None:
        """Called by the service for each message it publishes: never raises, never waits."""
        del live  # a replayed message is shown as the live one was
        try:
            if isinstance(message.payload, TableState):
                events = self.model.show(self._table.snapshot())
            else:
                events = self.model.apply(message)
            self.hub.broadcast(events)
        except Exception:  # noqa: BLE001 - a screen must never stop the table
            self._log.exception(f"{self.hub.screen} could not show a message", topic=message.topic)

    def on_input(self, handled: object) -> None:
        """A screen shows the messages, not the inputs that made them."""
        del handled

    async def state(self, request: web.Request) -> web.Response:
        """``GET api/state``: the whole view, with the number of the last event sent."""
        del request
        view = self.model.view() | {"seq": self.hub.seq}
        return web.Response(text=json_text(view), content_type="application/json")

    async def events(self, request: web.Request) -> web.StreamResponse:
        """``GET api/events``: the stream, the whole view (with the heartbeat's period) first."""
        heartbeat_ms = round(self.hub.heartbeat_s * 1000)
        return await self.hub.serve(
            request, lambda: self.model.view() | {"heartbeat_ms": heartbeat_ms}
        )
