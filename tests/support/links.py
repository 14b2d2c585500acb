# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fakes of the service's adapters: a shoe link fed by the test, and sinks kept in memory."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from functools import partial

from drivers.events import Delivery, ReaderEvent
from drivers.srp.constants import Lamp
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.runtime.journal.journal import Journal


class MemoryLink:
    """A shoe link fed by the test through ``events``; it records what the service gives it.

    ``confirmed`` holds every acknowledgement in order, ``lamps`` every lamp; ``changed`` is
    set on each acknowledgement. Given a journal, ``rows_at_confirm`` holds how many rows the
    journal had when each acknowledgement went out.
    """

    def __init__(self, journal: Journal | None = None) -> None:
        self.events: asyncio.Queue[ReaderEvent] = asyncio.Queue()
        self.confirmed: list[Delivery] = []
        self.rows_at_confirm: list[int] = []
        self.lamps: list[Lamp] = []
        self.changed = asyncio.Event()
        self._journal = journal

    def __aiter__(self) -> AsyncIterator[ReaderEvent]:
        return self._iterate()

    async def _iterate(self) -> AsyncIterator[ReaderEvent]:
        while True:
            yield await self.events.get()

    async def confirm(self, delivery: Delivery | None) -> None:
        assert delivery is not None
        self.confirmed.append(delivery)
        if self._journal is not None:
            self.rows_at_confirm.append(self._journal.head[0])
        self.changed.set()

    async def set_lamp(self, lamp: Lamp) -> None:
        self.lamps.append(lamp)

    async def wait_until(self, condition: Callable[[], bool], timeout: float = 5) -> None:  # noqa: ASYNC109 - a test's deadline
        """Wait, acknowledgement by acknowledgement, until ``condition`` holds."""
        async with asyncio.timeout(timeout):
            while not condition():
                await self.changed.wait()
                self.changed.clear()


class MemorySink:
    """Keeps each outgoing message once (by key), as a durable outbox would."""

    def __init__(self) -> None:
        self.messages: list[OutgoingMessage] = []
        self.keys: set[str] = set()

    def add(self, messages: list[OutgoingMessage]) -> None:
        for message in messages:
            if message.key not in self.keys:
                self.keys.add(message.key)
                self.messages.append(message)

    def stage(self, messages: list[OutgoingMessage]) -> Callable[[], None]:
        return partial(self.add, messages)


class ListSink:
    """Keeps every outgoing message it is given, in order, repeats included."""

    def __init__(self) -> None:
        self.messages: list[OutgoingMessage] = []

    def add(self, messages: list[OutgoingMessage]) -> None:
        self.messages.extend(messages)

    def stage(self, messages: list[OutgoingMessage]) -> Callable[[], None]:
        return partial(self.add, messages)
