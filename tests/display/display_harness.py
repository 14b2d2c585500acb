# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""A real table for the display tests: journal, procedure, service, an in-memory shoe link.

The shoe link is fed by the test; a seeded shoe and a scripted dealer follow the prompts.
:func:`assert_fits` measures the page in the browser: nothing scrolls, nothing is cut off.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import random
import time
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from playwright.async_api import Page

from drivers.events import CardMisread, CardSeen, CutCardSeen, ReaderEvent
from table_controller.contract.codes import CutCardWhen
from table_controller.contract.envelope import JsonValue, fields_of
from table_controller.contract.outgoing import OutgoingMessage
from table_controller.contract.payloads.board import Roads
from table_controller.contract.payloads.shoe import LastRound
from table_controller.contract.payloads.state import TableLimits, TableSnapshot, TableState
from table_controller.history.pace import Pace
from table_controller.procedure.decisions import Decision, Publish
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.variants import VARIANTS, Variant
from table_controller.runtime.card_source import RngCardSource
from table_controller.runtime.interpreter import DecisionInterpreter
from table_controller.runtime.journal.journal import Journal
from table_controller.runtime.service import TableService
from table_controller.runtime.service_ports import TableObserver
from table_controller.screens.dealer.app import DisplayFeeds, DisplayServer
from table_controller.screens.dealer.view import DisplayModel
from table_controller.screens.http_limits import ListenerLimits
from table_controller.staff.desk import StaffDesk
from tests.support.dealing import CUT, dealer_inputs, seeded_shoe
from tests.support.links import ListSink, MemoryLink
from tests.support.observers import Heard

ROOT = Path(__file__).resolve().parents[2]
PIN = "246810"


#: Everything on the page that does not fit, in words; an empty list when all fits.
MEASURE = """() => {
  const problems = [];
  const width = window.innerWidth;
  const height = window.innerHeight;
  const page = document.documentElement;
  if (page.scrollWidth > width || page.scrollHeight > height) {
    problems.push(`the page is ${page.scrollWidth}x${page.scrollHeight} in ${width}x${height}`);
  }
  const name = (node) => node.id ? "#" + node.id
    : node.tagName.toLowerCase() + [...node.classList].map((c) => "." + c).join("");
  // Drawn on the screen: not hidden, nor folded away in a closed <details>.
  const shown = (node) => node.checkVisibility({ visibilityProperty: true });
  const all = [...document.querySelectorAll("body *")].filter(shown);
  for (const node of all) {
    const style = getComputedStyle(node);
    const clips = style.overflowX !== "visible" || style.overflowY !== "visible";
    if (clips && (node.scrollHeight > node.clientHeight || node.scrollWidth > node.clientWidth)) {
      problems.push(`${name(node)} scrolls: ${node.scrollWidth}x${node.scrollHeight}`
        + ` in ${node.clientWidth}x${node.clientHeight}`);
    }
  }
  const texts = "#prompt, #prompt-detail, .hand h2, button, .last-round, header.top, .stats,"
    + " .ask, .command-status, .supervisor-panel .row, .buttons, .alarms li, .dispute-banner";
  for (const node of document.querySelectorAll(texts)) {
    if (shown(node) && node.scrollWidth > node.clientWidth) {
      problems.push(`${name(node)} is wider than its box: ${node.scrollWidth}`
        + ` > ${node.clientWidth}`);
    }
  }
  const whole = "button, input, summary, .card, .bead, .ring, .mark, .grid, figcaption, h2, h3,"
    + " #prompt, #prompt-detail, .ask-row, .stats, .alarms li, .command-status";
  for (const node of [...document.querySelectorAll(whole)].filter(shown)) {
    const box = node.getBoundingClientRect();
    if (box.left < 0 || box.top < 0 || box.right > width + 0.5 || box.bottom > height + 0.5) {
      problems.push(`${name(node)} is not wholly on the screen: ${JSON.stringify(box)}`);
    }
    const panel = node.closest("section");
    if (panel) {
      const edge = panel.getBoundingClientRect();
      if (box.left < edge.left - 0.5 || box.top < edge.top - 0.5
          || box.right > edge.right + 0.5 || box.bottom > edge.bottom + 0.5) {
        problems.push(`${name(node)} spills out of ${name(panel)}`);
      }
    }
  }
  for (const grid of [...document.querySelectorAll(".grid")].filter(shown)) {
    const box = grid.getBoundingClientRect();
    const board = grid.parentElement.getBoundingClientRect();
    if (box.right > board.right + 0.5 || box.bottom > board.bottom + 0.5) {
      problems.push(`${name(grid)} is larger than its board`);
    }
  }
  for (const hand of document.querySelectorAll(".cards")) {
    const tops = [...hand.children].map((card) => Math.round(card.getBoundingClientRect().top));
    const rows = new Set(tops);
    if (rows.size > 1) problems.push(`${name(hand)}: its cards wrap onto ${rows.size} rows`);
  }
  return problems;
}"""
#: Two animation frames: the page has drawn what it was sent and refitted its scoreboards.
SETTLED = "() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))"


async def assert_fits(page: Page, folder: Path, case: str) -> None:
    """Nothing on the page scrolls or is cut off; the screen is kept as ``case``.png."""
    await page.evaluate(SETTLED)
    await page.screenshot(path=folder / f"{case}.png")
    problems = await page.evaluate(MEASURE)
    assert not problems, f"{case}: " + "; ".join(problems)


def outgoing(
    interpreter: DecisionInterpreter,
    decisions: Sequence[Decision],
    snapshot: TableSnapshot,
    n: int,
) -> list[OutgoingMessage]:
    """The messages the service would publish for input ``n``'s decisions."""
    outcome = interpreter.interpret(decisions, snapshot, key=str(n), ts="2026-11-29T12:00:00.000Z")
    return list(outcome.messages)


def shown(
    model: DisplayModel, messages: Sequence[OutgoingMessage], snapshot: TableSnapshot
) -> list[tuple[str, JsonValue]]:
    """The events ``model`` sends the pages for these messages, as the display server folds them."""
    events: list[tuple[str, JsonValue]] = []
    for message in messages:
        if isinstance(message.payload, TableState):
            events += model.show(snapshot)
        else:
            events += model.apply(message)
    return events


def seed_for_the_scoreboards(rounds: int, seeds: range = range(1, 300)) -> int:
    """A seed whose shoe has a dragon tail early and a cut card during a round.

    The first seed whose Big Road has a column over 6 long within ``rounds`` rounds and whose
    cut card comes out during a round (so a last round is played and the banner shows).
    """
    for seed in seeds:
        procedure = TableProcedure(VARIANTS["commission"], table_id="T07")
        longest_early = 0
        cut_in_round = False
        for event in dealer_inputs(procedure, iter(seeded_shoe(seed))):
            for decision in procedure.handle(event):
                match decision:
                    case Publish(payload=Roads() as roads) if roads.stats["rounds"] <= rounds:
                        longest_early = max([len(column) for column in roads.big_road] + [0])
                    case Publish(payload=LastRound() as last):
                        cut_in_round = last.cut_card is CutCardWhen.DURING_ROUND
                    case _:
                        pass
        if longest_early > 6 and cut_in_round:
            return seed
    raise AssertionError(f"no seed in {seeds} has a long run and a cut card during a round")


class Table:
    """One running table and its display; the test deals from ``shoe``.

    Each input the test gives returns once the service has handed out its messages, so
    :meth:`messages` (what the service published, as its listeners hear it) is up to date.
    """

    def __init__(
        self,
        *,
        service: TableService,
        link: MemoryLink,
        display: DisplayServer,
        journal: Journal,
        sink: ListSink,
        seed: int,
        heard: Heard,
    ) -> None:
        self.service = service
        self.link = link
        self.display = display
        self.journal = journal
        self.sink = sink
        self.shoe: Iterator[str] = iter(seeded_shoe(seed))
        self._ids = itertools.count(1)
        #: Among the service's observers: what it published live, the inputs it handled.
        self._listened = heard
        self._heard = heard.messages
        self._replayed = service.inputs_handled

    @property
    def _handled(self) -> int:
        return self._listened.handled

    async def settled(self) -> None:
        """Wait until every input the service has taken has its messages handed out."""
        async with asyncio.timeout(5):
            while self._handled < self.service.inputs_handled - self._replayed:  # noqa: ASYNC110
                await asyncio.sleep(0.001)

    @property
    def state(self) -> dict[str, Any]:
        """The table's ``state`` as it is published (JSON data)."""
        return fields_of(self.service.procedure.snapshot().state)

    @property
    def prompt(self) -> str | None:
        prompt = self.service.procedure.snapshot().state.prompt
        return None if prompt is None else prompt.action.value

    def event_types(self) -> list[str]:
        """The type of every message the table published, in order."""
        return [m.event_type for m in self._heard]

    def messages(self, event_type: str) -> list[OutgoingMessage]:
        return [m for m in self._heard if m.event_type == event_type]

    def payloads(self, event_type: str) -> list[dict[str, Any]]:
        """The payloads of the messages of this type the table published, as JSON data."""
        return [fields_of(m.payload) for m in self.messages(event_type)]

    def last(self, event_type: str) -> dict[str, Any]:
        """The payload of the last message of this type the table published, as JSON data."""
        return fields_of(self.messages(event_type)[-1].payload)

    async def command(self, command: str, **args: Any) -> dict[str, object]:
        record = {
            "command": command,
            "id": f"t-{next(self._ids)}",
            "operator": "test",
            "args": args,
        }
        reply = await self.service.submit(record)
        await self.settled()
        return reply

    async def put(self, event: ReaderEvent) -> None:
        """Give the service one shoe event and wait until its messages are handed out."""
        before = self._handled
        await self.link.events.put(event)
        async with asyncio.timeout(5):
            while self._handled == before:  # noqa: ASYNC110 - a counter, no event
                await asyncio.sleep(0.001)
        await self.settled()

    async def next_card(self) -> str:
        """Draw the next card of the shoe (the cut card too) and give it to the service."""
        code = next(self.shoe)
        await self.put(CutCardSeen() if code == CUT else CardSeen(card=code))
        return code

    async def misread(self) -> None:
        await self.put(CardMisread())

    async def step(self) -> str | None:
        """What the dealer does for the prompt on the table; None once the shoe is over."""
        match self.prompt:
            case "burn" | "deal" | "player_draws" | "banker_draws":
                return await self.next_card()
            case "open_betting" | "result":
                if self.state["phase"] == "betting":
                    await self.command("close_betting")
                    return "close_betting"
                await self.command("open_betting")
                return "open_betting"
            case _:
                return None

    async def play_rounds(self, rounds: int) -> None:
        """Deal until ``rounds`` more rounds have a result (or the shoe is over)."""
        target = len(self.messages("round_result")) + rounds
        while len(self.messages("round_result")) < target:
            if await self.step() is None:
                return


@asynccontextmanager
async def running_table(
    tmp_path: Path,
    *,
    seed: int = 7,
    pin: str | None = PIN,
    heartbeat_s: float = 5.0,
    observers: Sequence[TableObserver] = (),
    clock: Callable[[], float] = time.monotonic,
    betting_phase: bool = True,
    virtual: bool = False,
    staff: StaffDesk | None = None,
    require_dealer: bool = False,
    confirm_results: bool = False,
    language: str | None = None,
    limits: TableLimits | None = None,
    web_limits: ListenerLimits | None = None,
    allowed_hosts: Sequence[str] = (),
    variant: Variant = VARIANTS["commission"],
) -> AsyncIterator[Table]:
    """A table service and its display on 127.0.0.1 (a free port), stopped cleanly after.

    A reader table by default, fed by the test; a ``virtual`` one draws its own cards from a
    card source seeded with ``seed`` (its ``link`` is then fed by nobody). ``staff`` is the
    staff desk the display signs staff in with; ``confirm_results``: each result waits for a
    second source's ``confirm_result``; ``language``: the display's configured language;
    ``limits``: the configured stake limits; ``web_limits`` and ``allowed_hosts``: the
    display address's caps and timeouts, and the names it answers to; ``observers``: the test's
    own, told after the display's; ``variant``: the variant played (Standard Baccarat).
    """
    with Journal.open(tmp_path / "display.journal", table_id="T07") as journal:
        link = MemoryLink()
        sink = ListSink()
        procedure = TableProcedure(
            variant,
            table_id="T07",
            betting_phase=betting_phase,
            require_dealer=require_dealer,
            confirm_results=confirm_results,
            limits=limits,
        )
        feeds = DisplayFeeds(
            procedure,
            variant=procedure.variant,
            virtual=virtual,
            staff=staff,
            table_id="T07",
            heartbeat_s=heartbeat_s,
        )
        heard = Heard()
        service = TableService(
            procedure=procedure,
            journal=journal,
            sink=sink,
            pace=Pace(),
            observers=[*feeds.observers, *observers, heard],
            link=None if virtual else link,
            card_source=RngCardSource(variant, rng=random.Random(seed)) if virtual else None,
        )
        display = DisplayServer(
            service,
            feeds,
            port=0,
            pin=pin,
            staff=staff,
            clock=clock,
            languages=None if language is None else {"display": language},
            limits=web_limits,
            allowed_hosts=allowed_hosts,
        )
        run = asyncio.create_task(service.run(), name="table service")
        await display.start()
        try:
            yield Table(
                service=service,
                link=link,
                display=display,
                journal=journal,
                sink=sink,
                seed=seed,
                heard=heard,
            )
        finally:
            await display.stop()
            run.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await run
            await service.aclose()
