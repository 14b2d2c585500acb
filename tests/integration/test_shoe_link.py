# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The driver (ShoeReader) against the virtual shoe over a real pseudo-terminal and real TCP.

Each test deals a shoe with the automatic dealer, which follows the lamp the stand-in
controller lights after every card, and checks that the events the driver delivers are
exactly what the shoe dealt: nothing lost, duplicated or invented; a frame the shoe gave up
on is reported as lost frames, a misread as a misread. Every fault of the simulator is
struck in mid-shoe, unplugging and replugging included.
"""

import asyncio
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

import pytest

from drivers import events
from drivers.backoff import Backoff
from drivers.shoe_reader import ShoeProtocol, ShoeReader
from drivers.srp.constants import Lamp
from simulators.virtual_shoe.beetek import BeeTekDevice, BeeTekStyle
from simulators.virtual_shoe.dealer import auto_deal
from simulators.virtual_shoe.deck import Shoe
from simulators.virtual_shoe.device import FrameAbandoned, ShoeDevice, ShoeSession
from simulators.virtual_shoe.faults import (
    DealtCard,
    DealtMisread,
    parse_faults,
)
from simulators.virtual_shoe.server import Port, PtyPort, TcpPort, VirtualShoe
from simulators.virtual_shoe.shuffle import seeded_order
from tests.support.draws import delivered_event, expected_event

pytestmark = pytest.mark.usefixtures("no_leaks")

Transport = Literal["pty", "tcp"]
TRANSPORTS: list[Transport] = ["pty", "tcp"]
#: Reopen quickly: an unplugged shoe comes back within a few seconds.
FAST_BACKOFF = Backoff(initial_s=0.05, factor=2.0, cap_s=0.4)
TEN_CARDS = ("AS", "2H", "3D", "4C", "5S", "5S", "7D", "8C", "9S", "TH")
DEALT_CARDS = (events.CardSeen, events.CutCardSeen, events.CardMisread)


E = TypeVar("E")


@dataclass
class Run:
    """What one shoe dealt and what the driver delivered."""

    shoe: VirtualShoe
    #: What the shoe told the person running it (shown when an assertion fails).
    announced: list[str]
    delivered: list[events.ReaderEvent] = field(default_factory=list)

    def of_type(self, cls: type[E]) -> list[E]:
        return [event for event in self.delivered if isinstance(event, cls)]


async def controller(reader: ShoeReader, run: Run, *, stop_after: int | None) -> None:
    """Record each event, confirm it at once, and light the lamp for the next card.

    It stops at the empty-shoe status, or after ``stop_after`` cards (Bee-Tek has no status).
    """
    lamps = itertools.cycle([Lamp.BANKER, Lamp.PLAYER])
    await reader.set_lamp(Lamp.PLAYER)
    async for event in reader:
        run.delivered.append(event)
        await reader.confirm(getattr(event, "delivery", None))
        if isinstance(event, (*DEALT_CARDS, events.FramesLost)):
            await reader.set_lamp(next(lamps))
        if isinstance(event, events.ReaderStatus) and event.state is events.ShoeState.EMPTY:
            await reader.set_lamp(Lamp.OFF)
            return
        dealt = sum(isinstance(e, DEALT_CARDS) for e in run.delivered)
        if stop_after is not None and dealt >= stop_after:
            return


async def play(
    transport: Transport,
    link: Path,
    *,
    cards: tuple[str, ...] = TEN_CARDS,
    cut_depth: int = 6,
    faults: str = "",
    protocol: ShoeProtocol = ShoeProtocol.SRP,
    style: BeeTekStyle | None = None,
    speed: float = 50.0,
    stop_after: int | None = None,
) -> Run:
    """Deal a whole shoe to a ShoeReader over ``transport`` with the automatic dealer."""
    plan = parse_faults(faults)
    session: ShoeSession = (
        ShoeDevice(faults=plan)
        if protocol is ShoeProtocol.SRP
        else BeeTekDevice(style=style, faults=plan)
    )
    port: Port = PtyPort(link=link) if transport == "pty" else TcpPort("127.0.0.1", 0)
    announced: list[str] = []
    async with VirtualShoe(
        shoe=Shoe(cards=cards, cut_depth=cut_depth),
        session=session,
        port=port,
        faults=plan,
        announce=announced.append,
    ) as shoe:
        run = Run(shoe=shoe, announced=announced)
        url = str(link) if transport == "pty" else f"socket://{shoe.address}"
        async with (
            ShoeReader(url, protocol=protocol, backoff=FAST_BACKOFF) as reader,
            asyncio.timeout(30),
            asyncio.TaskGroup() as tasks,
        ):
            tasks.create_task(auto_deal(shoe, speed=speed, announce=announced.append))
            tasks.create_task(controller(reader, run, stop_after=stop_after))
    return run


def assert_exactly_what_was_dealt(run: Run) -> None:
    """The driver's cards are the shoe's draws, in order, each once; lost only if given up."""
    abandoned = {
        e.card for e in run.shoe.events if isinstance(e, FrameAbandoned) and e.card is not None
    }
    got = [item for event in run.delivered for item in delivered_event(event)]
    want = [("lost", None) if d.number in abandoned else expected_event(d) for d in run.shoe.dealt]
    assert got == want, run.announced
    # Every card of the shoe was dealt, and it ended with the empty-shoe status.
    assert run.shoe.shoe.remaining == 0
    assert isinstance(run.delivered[-1], events.ReaderStatus)
    # No delivery handle was handed out twice.
    handles = [getattr(e, "delivery", None) for e in run.delivered]
    handles = [h for h in handles if h is not None]
    assert len(handles) == len(set(handles))


@pytest.mark.parametrize("transport", TRANSPORTS)
async def test_a_whole_seeded_shoe_plays_unattended(transport: Transport, pty_link: Path) -> None:
    cards = seeded_order(1, seed=7)
    run = await play(transport, pty_link, cards=cards, cut_depth=38, speed=200.0)
    assert_exactly_what_was_dealt(run)
    assert [e.card for e in run.of_type(events.CardSeen)] == list(cards)
    assert len(run.of_type(events.CutCardSeen)) == 1
    assert len(run.of_type(events.ReaderHello)) == 1
    assert not run.of_type(events.LineRejected)
    assert not run.of_type(events.FramesLost)
    assert not run.of_type(events.ReaderOffline)


async def test_an_eight_deck_shoe_plays_to_the_end_over_a_pty(pty_link: Path) -> None:
    cards = seeded_order(8, seed=2024)
    run = await play("pty", pty_link, cards=cards, cut_depth=402, speed=1000.0)
    assert_exactly_what_was_dealt(run)
    assert len(run.of_type(events.CardSeen)) == 416


FAULT_CASES = {
    "drop once": "drop:card=3",
    "drop every time": "drop:card=3:times=all",
    "corrupt twice": "corrupt:card=3:times=2",
    "split": "split:card=3:parts=5:gap=0.02",
    "delay": "delay:card=3:seconds=0.6",
    "misread": "misread:card=3",
    "foreign card": "foreign:card=3:code=QH",
    "stall": "stall:card=3:seconds=3.5",
    "power cycle": "power-cycle:card=3",
    "unplug mid-round": "unplug:card=3:seconds=1.5",
}


@pytest.mark.parametrize("transport", TRANSPORTS)
@pytest.mark.parametrize("faults", FAULT_CASES.values(), ids=FAULT_CASES.keys())
async def test_each_fault_mid_shoe_loses_duplicates_and_invents_nothing(
    transport: Transport, faults: str, pty_link: Path
) -> None:
    run = await play(transport, pty_link, faults=faults)
    assert_exactly_what_was_dealt(run)
    kind = faults.split(":", 1)[0]
    lost = run.of_type(events.FramesLost)
    rejected = run.of_type(events.LineRejected)
    if faults.endswith("times=all"):
        assert lost == [events.FramesLost(expected_seq=3, received_seq=4, count=1)]
    else:
        assert not lost
    if kind == "corrupt":
        assert [e.reason for e in rejected] == ["bad_checksum", "bad_checksum"]
    else:
        assert not rejected
    if kind == "misread":
        assert isinstance(run.shoe.dealt[2], DealtMisread)
        assert len(run.of_type(events.CardMisread)) == 1
    if kind == "foreign":
        assert run.shoe.dealt[2] == DealtCard(number=3, card="QH", foreign=True)
    if kind in {"stall", "unplug"}:
        # The reader was reported gone and back, and the card dealt meanwhile still arrived.
        kinds = [type(event) for event in run.delivered]
        offline = kinds.index(events.ReaderOffline)
        assert events.ReaderOnline in kinds[offline:]
        assert run.shoe.dealt[2] == DealtCard(number=3, card="3D")
    else:
        assert not run.of_type(events.ReaderOffline)
    assert len(run.of_type(events.ReaderHello)) == (2 if kind == "power-cycle" else 1)


async def test_every_fault_at_once_over_a_pty(pty_link: Path) -> None:
    faults = (
        "drop:card=1,corrupt:card=2,split:card=4:parts=3:gap=0.01,delay:card=5:seconds=0.4,"
        "misread:card=6,unplug:card=7:seconds=1,foreign:card=8:code=KD,power-cycle:card=9,"
        "drop:card=10:times=all,stall:card=11:seconds=3.2"
    )
    run = await play("pty", pty_link, faults=faults)
    assert_exactly_what_was_dealt(run)
    assert len(run.of_type(events.FramesLost)) == 1
    assert len(run.of_type(events.ReaderHello)) == 2


async def test_a_bee_tek_shoe_is_read_in_its_own_dialect(pty_link: Path) -> None:
    style = BeeTekStyle(ten="10", suit_first=True)
    run = await play(
        "pty",
        pty_link,
        protocol=ShoeProtocol.BEETEK,
        style=style,
        faults="misread:card=2,corrupt:card=9",
        stop_after=9,
    )
    # No cut-card line, no sequence numbers: a corrupted line is reported, never a card.
    cards = [e.card for e in run.of_type(events.CardSeen)]
    assert cards == ["AS", "3D", "4C", "5S", "5S", "7D", "9S", "TH"]
    assert len(run.of_type(events.CardMisread)) == 1
    assert [e.reason for e in run.of_type(events.LineRejected)] == ["unparseable"]
    assert all(e.delivery is None for e in run.of_type(events.CardSeen))
