# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""One screen's view of the table kept up to date, and served: the dealer display's, the board's.

Adapter (aiohttp). A :class:`ViewFeed` listens to every message the table publishes (its
``listeners``) and to its journal refusing writes and recording again (its
``journal_listeners``), folds each into the screen's pure view model and queues the events
that come of it for each open stream (``screens/web/event_streams.py``); a listener call never
waits, never raises. It answers the screen's ``api/state`` (the whole view) and
``api/events`` (the stream).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from typing import Generic, Protocol, TypeVar

import structlog
from aiohttp import web

from table_controller.contract.envelope import JsonValue
from table_controller.contract.journal_refusal import JournalRefusal
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.contract.payloads.state import TableSnapshot, TableState
from table_controller.screens.web.event_streams import HEARTBEAT_S, StreamHub, json_text


class SnapshotSource(Protocol):
    """Where the table is now (the table procedure)."""

    def snapshot(self) -> TableSnapshot: ...


class ShownTable(Protocol):
    """What a screen needs of the table it shows (the table service)."""

    @property
    def procedure(self) -> SnapshotSource: ...

    @property
    def listeners(self) -> list[Callable[[OutgoingMessage], None]]:
        """Called with every message the table publishes, in order."""
        ...

    @property
    def journal_listeners(self) -> list[Callable[[JournalRefusal | None], None]]:
        """Called when the journal starts refusing writes (why) and records again (None)."""
        ...


class ViewModel(Protocol):
    """A screen's pure view model (``display_view.py``, ``board_view.py``)."""

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

    It follows the service from construction (it listens to every message), so create it
    before ``TableService.recover()`` and the replayed shoe fills the scoreboards.

    Args:
        service: The table shown.
        model: The screen's view model, made from the table's snapshot now.
        screen: The screen's name in the log (``display``, ``board``).
        heartbeat_s: Seconds between heartbeats on an idle event stream.
    """

    def __init__(
        self,
        service: ShownTable,
        model: Model,
        *,
        screen: str,
        heartbeat_s: float = HEARTBEAT_S,
    ) -> None:
        self._service = service
        self.model = model
        self.hub = StreamHub(screen, heartbeat_s=heartbeat_s)
        self._log = structlog.get_logger(f"table_controller.{screen}")
        service.listeners.append(self._on_message)
        service.journal_listeners.append(self._on_journal)

    @property
    def open_streams(self) -> int:
        """The pages following the table now."""
        return self.hub.open_streams

    async def close_streams(self) -> None:
        await self.hub.close_all()

    def detach(self) -> None:
        """Stop following the service (when the screen is retired)."""
        with contextlib.suppress(ValueError):
            self._service.listeners.remove(self._on_message)
        with contextlib.suppress(ValueError):
            self._service.journal_listeners.remove(self._on_journal)

    def _on_journal(self, refusal: JournalRefusal | None) -> None:
        """Called by the service when its journal refuses writes or records again."""
        try:
            self.hub.broadcast(self.model.journal(refusal))
        except Exception:  # noqa: BLE001 - a screen must never stop the table
            self._log.exception(f"{self.hub.screen} could not show the journal's state")

    def _on_message(self, message: OutgoingMessage) -> None:
        """Called by the service for each message it publishes: never raises, never waits."""
        try:
            if isinstance(message.payload, TableState):
                events = self.model.show(self._service.procedure.snapshot())
            else:
                events = self.model.apply(message)
            self.hub.broadcast(events)
        except Exception:  # noqa: BLE001 - a screen must never stop the table
            self._log.exception(f"{self.hub.screen} could not show a message", topic=message.topic)

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
