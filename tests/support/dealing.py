# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Scripted rounds: a seeded shoe dealt by the virtual shoe's own dealer rule.

The cards come out of the simulator's ``Shoe`` (its cut card where a casino puts it) and a
card is dealt exactly when the simulator's automatic dealer would deal one: when the lamp the
table shows asks for it. Between rounds the dealer opens and closes betting.

:class:`ScriptedDealer` says what to give the table next, as input records (``{"card": …}``,
``{"cut": true}``, ``{"command": …}``); adapters carry the records to where a test's table
is: :class:`ProcedureTable` to a bare procedure, :class:`LinkedService` to a running service
through its shoe link. A test that deals with faults or clears holds keeps that part itself
and asks the dealer only for the step and the records.
"""

from __future__ import annotations

import asyncio
import enum
import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, Final

from drivers.events import CardSeen, CutCardSeen, Delivery, ReaderEvent, ReaderHello
from drivers.srp.constants import Lamp
from simulators.virtual_shoe import deck
from simulators.virtual_shoe.dealer import should_deal
from simulators.virtual_shoe.shuffle import seeded_order
from table_controller.contract.codes import PromptAction
from table_controller.contract.envelope import fields_of
from table_controller.contract.payloads.round import ResultOfCards, RoundSettled
from table_controller.contract.payloads.state import TableSnapshot
from table_controller.procedure.decisions import Publish
from table_controller.procedure.inputs import CardDrawn, CloseBetting, Input, OpenBetting
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.records import RecordRejected, input_from_record
from table_controller.rules.cards import Card
from table_controller.runtime.card_source import RngCardSource
from table_controller.runtime.interpreter import DecisionInterpreter
from table_controller.runtime.service import TableService
from tests.support.links import MemoryLink
from tests.support.observers import Heard

#: One input as a JSON-lines record (what ``replay --inputs`` reads).
Record = dict[str, object]
#: The cut card among the codes of :func:`seeded_shoe`.
CUT: Final = "CUT"
#: Prompts after which the dealer opens (and closes) betting.
BETWEEN_ROUNDS: Final = frozenset({PromptAction.OPEN_BETTING, PromptAction.RESULT})


def seeded_shoe(seed: int, decks: int = 8) -> list[str]:
    """The codes a seeded virtual shoe deals, in order, with ``CUT`` where the cut card lies."""
    order = seeded_order(decks, seed)
    shoe = deck.Shoe(cards=order, cut_depth=deck.default_cut_depth(len(order)))
    return [draw.card if isinstance(draw, deck.CardDrawn) else CUT for draw in shoe.draw_all()]


class Step(enum.Enum):
    """What the table asks of its dealer now."""

    #: The lamp asks for a card (a burn card, a round's card).
    DEAL = "deal"
    #: Between rounds: the pit opens and closes betting.
    BETTING = "betting"
    #: The table holds: only a supervisor's command lets it go on.
    HOLD = "hold"
    #: Nothing: the shoe is over (or no shoe was started).
    OVER = "over"


def next_step(lamp: Lamp | str, action: PromptAction | str | None) -> Step:
    """The step for the lamp the table shows and its prompt's action (None: no prompt).

    A card is due exactly when the virtual shoe's automatic dealer would deal one.
    """
    if should_deal(lamp=Lamp(lamp), awaiting_ack=False, plugged=True):
        return Step.DEAL
    shown = None if action is None else PromptAction(action)
    if shown in BETWEEN_ROUNDS:
        return Step.BETTING
    if shown is PromptAction.HOLD:
        return Step.HOLD
    return Step.OVER


def step_of(snapshot: TableSnapshot) -> Step:
    """The step for a procedure's snapshot."""
    prompt = snapshot.state.prompt
    return next_step(snapshot.state.lamp.value, None if prompt is None else prompt.action)


def step_of_state(state: Mapping[str, Any]) -> Step:
    """The step for a published ``state`` message (``{}``: nothing published yet)."""
    prompt = state.get("prompt")
    action = None if prompt is None else prompt["action"]
    return next_step(state.get("lamp", Lamp.OFF.value), action)


class ScriptedDealer:
    """The records a dealer gives for each step: the shoe's next draw, the pit's betting.

    Args:
        shoe: Card codes in the order they leave the shoe, ``CUT`` for the cut card.
        operator: Who gives the commands.
        rounds: How many rounds to open betting for; None: as many as the shoe holds.
        ids: Numbers for the command ids (share one between dealers of one table: a repeated
            id is answered, not carried out).
        prefix: What each command id starts with.
    """

    def __init__(
        self,
        shoe: Iterable[str],
        *,
        operator: str = "dealer",
        rounds: int | None = None,
        ids: Iterator[int] | None = None,
        prefix: str = "c",
    ) -> None:
        self._shoe = iter(shoe)
        self._ids = itertools.count(1) if ids is None else ids
        self.operator = operator
        self.prefix = prefix
        self.rounds_left = rounds

    def command(self, name: str, **args: object) -> Record:
        """The pit's command ``name`` with a new id."""
        record: Record = {"command": name, "id": f"{self.prefix}-{next(self._ids)}",
                          "operator": self.operator}  # fmt: skip
        if args:
            record["args"] = args
        return record

    def draw(self) -> Record | None:
        """The shoe's next draw (the cut card included); None once the shoe is empty."""
        code = next(self._shoe, None)
        if code is None:
            return None
        return {"cut": True} if code == CUT else {"card": code}

    def betting(self) -> list[Record]:
        """Open and close betting for the next round; nothing once the rounds are played."""
        if self.rounds_left is not None:
            if self.rounds_left == 0:
                return []
            self.rounds_left -= 1
        return [self.command("open_betting"), self.command("close_betting")]

    def records(self, step: Step) -> list[Record]:
        """What to give for ``step``: none on a hold, at the end, or once the shoe is empty."""
        match step:
            case Step.DEAL:
                drawn = self.draw()
                return [] if drawn is None else [drawn]
            case Step.BETTING:
                return self.betting()
            case Step.HOLD | Step.OVER:
                return []


def next_records(
    snapshot: TableSnapshot, shoe: Iterator[str], counter: Iterator[int]
) -> list[Record]:
    """The records the dealer gives for the table's state (none once the shoe is over)."""
    return ScriptedDealer(shoe, ids=counter).records(step_of(snapshot))


def as_input(record: Record) -> Input:
    """The procedure's input for a record of the dealer's (at time 0)."""
    event = input_from_record(
        record, default_at=0.0, default_command_id="c", default_operator="dealer"
    )
    assert not isinstance(event, RecordRejected), event
    return event


def dealer_inputs(procedure: TableProcedure, shoe: Iterator[str]) -> Iterator[Input]:
    """A new shoe, then the dealer's inputs for each state of ``procedure``, until it ends."""
    dealer = ScriptedDealer(shoe)
    yield as_input(dealer.command("new_shoe", shoe_id="S-1"))
    while records := dealer.records(step_of(procedure.snapshot())):
        yield from (as_input(record) for record in records)


class ProcedureTable:
    """A bare procedure given records as the service gives them, keeping what it publishes.

    ``records`` holds every record given, ``events`` every event published as
    ``(type, payload)``; ``observers`` are called with each event as it is published.
    """

    def __init__(self, procedure: TableProcedure) -> None:
        self.procedure = procedure
        self.records: list[Record] = []
        self.events: list[tuple[str, Mapping[str, object]]] = []
        self.observers: list[Callable[[str, Mapping[str, object]], None]] = []
        self._interpreter = DecisionInterpreter()

    def give(self, record: Record) -> None:
        self.records.append(record)
        decisions = self.procedure.handle(as_input(record))
        outcome = self._interpreter.interpret(
            decisions, self.procedure.snapshot(), key=str(len(self.records)), ts=None
        )
        for message in outcome.messages:
            if message.is_event:
                payload = fields_of(message.payload)
                self.events.append((message.event_type, payload))
                for observe in self.observers:
                    observe(message.event_type, payload)

    def state(self) -> Mapping[str, Any]:
        """The table's ``state`` as it is published (JSON data)."""
        return fields_of(self.procedure.snapshot().state)

    def step(self) -> Step:
        return step_of(self.procedure.snapshot())

    def play(self, dealer: ScriptedDealer) -> None:
        """Give the dealer's records until it has none for the table's step."""
        while records := dealer.records(self.step()):
            for record in records:
                self.give(record)


class LinkedService:
    """A running service dealt into through its shoe link; the pit's commands go to ``submit``.

    Each input waits until the table has handled it and the assessment it made due, if any,
    as a pit waits for the odds before it opens betting: the live table then takes every
    assessment right after the input that made it due, where ``replay`` takes it. ``heard``
    is among the service's observers: it counts the inputs handled.
    """

    def __init__(self, service: TableService, link: MemoryLink, heard: Heard) -> None:
        self.service = service
        self.link = link
        self.seq = 0
        self.given = 0
        self._heard = heard

    @property
    def handled(self) -> int:
        """The inputs the service carried out live."""
        return self._heard.handled

    def _next(self) -> Delivery:
        delivery = Delivery(epoch=1, seq=self.seq)
        self.seq += 1
        return delivery

    async def hello(self) -> None:
        """The shoe's greeting, acknowledged."""
        await self.link.events.put(
            ReaderHello(model="VS", firmware="1", serial="1", delivery=self._next())
        )
        await self._confirmed()

    async def _confirmed(self) -> None:
        await self.link.wait_until(lambda: len(self.link.confirmed) >= self.seq, timeout=20)

    async def give(self, record: Record) -> None:
        """A card or the cut card through the link, or a command, which must be ok."""
        self.given += 1
        if "command" in record:
            reply = await self.service.submit(record)
            assert reply["ok"], reply
        else:
            event: ReaderEvent = (
                CutCardSeen(delivery=self._next())
                if record.get("cut")
                else CardSeen(card=str(record["card"]), delivery=self._next())
            )
            await self.link.events.put(event)
            await self._confirmed()
        await self.settled()

    async def settled(self) -> None:
        """Wait until every input given and every assessment they made due was handled.

        Between an input's ``on_input`` call and the service's request of an assessment
        nothing awaits that could let this task run, so an idle service is never mistaken.
        """
        async with asyncio.timeout(20):
            while (  # noqa: ASYNC110 - the service has no event to wait for
                self.service.analysing or self.handled < self.given + self.service.assessments
            ):
                await asyncio.sleep(0.002)

    async def play(self, dealer: ScriptedDealer) -> None:
        """Give the dealer's records until it has none for the table's step."""
        while records := dealer.records(step_of(self.service.procedure.snapshot())):
            for record in records:
                await self.give(record)


def rng_round(
    procedure: TableProcedure, source: RngCardSource, number: int, *, operator: str
) -> tuple[list[Card], ResultOfCards]:
    """Round ``number`` of a virtual table: betting opened and closed, then the source's cards.

    Returns the cards in the order dealt and the settled result.
    """
    procedure.handle(OpenBetting(at=0.0, command_id=f"o-{number}", operator=operator))
    procedure.handle(CloseBetting(at=0.0, command_id=f"c-{number}", operator=operator))
    cards: list[Card] = []
    settled: list[ResultOfCards] = []
    while (state := procedure.snapshot()).card_wanted:
        event = source.draw(state, at=0.0)
        assert isinstance(event, CardDrawn)
        cards.append(event.card)
        settled.extend(
            decision.payload.result
            for decision in procedure.handle(event)
            if isinstance(decision, Publish) and isinstance(decision.payload, RoundSettled)
        )
        source.observe(event, procedure.snapshot())
    (result,) = settled
    return cards, result
