# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the table service needs of its adapters, and what waits in its queue.

A small protocol per adapter; :class:`QueuedInput`, the queue's item, is made by the shoe feed
(``shoe_feed.py``) and the command replies (``command_replies.py``) too.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Protocol

from drivers.events import Delivery, ReaderEvent
from drivers.srp.constants import Lamp as ShoeLamp
from table_controller.contract import (
    CommandReply,
    JournalRefusal,
    OutgoingMessage,
    Payload,
    TableSnapshot,
)
from table_controller.procedure import Input, RoundAssessed, ShoeCount
from table_controller.protection import Analysis, AssessmentRequest


class MessageSink(Protocol):
    """Where the service hands its outgoing messages: the durable outbox, or a JSON-lines file."""

    def add(self, messages: list[OutgoingMessage]) -> None:
        """Take messages in order now; a key already taken is skipped (the journal's replay)."""

    def stage(self, messages: list[OutgoingMessage]) -> Callable[[], None]:
        """Take a live input's messages on the event loop; returns the writer thread's write."""


class Outlet(Protocol):
    """Where staged messages leave the process (the MQTT link's publishes)."""

    async def let_out(self) -> None:
        """Return once the messages just staged are written to the socket."""


class UnrecordedOutlet(Protocol):
    """Where a reply the journal could not record leaves the process (the MQTT link)."""

    def publish_unrecorded(self, message: OutgoingMessage) -> None:
        """Publish it once, without a ``seq``, if the broker is there; never waits."""


class CardSource(Protocol):
    """Where a virtual table's cards come from (:class:`~.card_source.RngCardSource`)."""

    def observe(self, event: Input, state: TableSnapshot) -> None:
        """The table took an input; ``state`` is its snapshot after it."""

    def draw(self, state: TableSnapshot, *, at: float) -> Input:
        """The next card (or the cut card) for the table in ``state``."""


class Advisor(Protocol):
    """Works out each round's odds and alarms (``protection.advisor.RoundAdvisor``)."""

    def observe(self, event: Input, state: TableSnapshot) -> None:
        """The table took an input (live or replayed); ``state`` is its snapshot after it."""

    def request(self, count: ShoeCount | None) -> AssessmentRequest | None:
        """An assessment to run now, if one is due."""

    def conclude(self, analysis: Analysis, *, at: float) -> RoundAssessed | None:
        """The procedure's input from a finished analysis (None: nothing to tell)."""

    def warm_up(self) -> None:
        """Compute what the first assessment would otherwise compute while cards are dealt."""


class ShoeLink(Protocol):
    """The part of :class:`drivers.shoe_reader.ShoeReader` the service uses."""

    def __aiter__(self) -> AsyncIterator[ReaderEvent]: ...
    async def confirm(self, delivery: Delivery | None) -> None: ...
    async def set_lamp(self, lamp: ShoeLamp) -> None: ...


@dataclass(frozen=True, slots=True)
class HandledInput:
    """One journaled input carried out, as :class:`TableObserver` is told it."""

    event: Input
    #: Its journal row.
    seq: int
    #: Its journal time stamp.
    ts: str
    #: Everything it published, in order.
    messages: Sequence[OutgoingMessage]
    #: False while the journal is replayed on start.
    live: bool
    #: Seconds from the shoe link's delivery to the input's messages handed out (live, from
    #: the shoe only).
    elapsed_s: float | None = None


class TableObserver(Protocol):
    """Follows the table: a screen, the metrics, a test.

    Given to the service when it is built, so it follows the journal's replay on start as
    well as the live table. Called on the event loop, in the table's order; a call must not
    wait (the card path runs through it).
    """

    def on_message(self, message: OutgoingMessage, *, live: bool) -> None:
        """A message handed to the sink: live, or made again by the journal's replay.

        Live, an input's first message (a card's own event) is told before the MQTT link
        sends it, its other messages after.
        """

    def on_input(self, handled: HandledInput) -> None:
        """An input was carried out and all its messages handed out.

        One that raises is logged and counted; the table goes on.
        """

    def on_journal(self, refusal: JournalRefusal | None) -> None:
        """The journal refuses writes (why: the table is held), or records again (None).

        One that raises is logged; the table goes on.
        """


class StatsObserver(Protocol):
    """Reads what each input published and, when due, publishes one payload after it.

    The game pace (``history/pace.py``) is one: its ``stats`` follows the input that ended a
    round, started a shoe or changed the dealer, as that input's last message.
    """

    def observe(self, ts: str, payloads: Sequence[Payload]) -> Payload | None:
        """One input's payloads, in order, with its journal time stamp; the payload to add."""


@dataclass(slots=True)
class QueuedInput:
    """One input waiting to be recorded and handled."""

    row_type: str
    record: dict[str, object]
    event: Input | None
    delivery: Delivery | None = None
    command_id: str | None = None
    done: asyncio.Future[dict[str, object]] | None = None
    #: Drawn by the card source (a virtual table): the next draw waits until this one is taken.
    drawn: bool = False
    #: When the shoe link delivered it (the service's clock): the start of card-to-prompt latency.
    received_at: float | None = None
    #: Audit rows recorded together, in one transaction, in place of ``record``: the answers
    #: to many commands at once (those refused ``overloaded``).
    rows: list[dict[str, object]] | None = None
    #: An audit row's reply given without the procedure: published under the row, and given
    #: to the submitter (the row may hold only its seal: a ``recall``'s).
    reply: CommandReply | None = None
    #: A ``recall`` answered when its turn comes (its id and the rounds asked): the recall book
    #: is read then, as the journal's rows before it left it, so a replay reads the same.
    recall: tuple[str, int] | None = None
