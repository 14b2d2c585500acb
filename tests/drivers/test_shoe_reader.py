# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""ShoeReader against real pseudo-terminals and real TCP sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager

import pytest

from drivers.backoff import Backoff
from drivers.events import (
    CardSeen,
    Delivery,
    FramesLost,
    LineRejected,
    ReaderEvent,
    ReaderOffline,
    ReaderOnline,
)
from drivers.shoe_reader import ShoeProtocol, ShoeReader
from drivers.srp.constants import Lamp
from drivers.srp.frames import FrameType
from tests.drivers.driver_test_support import PtyShoe, TcpShoe, card, shoe

FAST = Backoff(initial_s=0.02, factor=2.0, cap_s=0.1)


def heartbeat(seq: int) -> bytes:
    return shoe(seq, FrameType.HB)


def ack(seq: int) -> bytes:
    return f",ACK,{seq}*".encode()


class Journal:
    """Consumes a reader like the controller: records each event, then confirms it."""

    def __init__(self, reader: ShoeReader, *, auto_confirm: bool = True) -> None:
        self.reader = reader
        self.auto_confirm = auto_confirm
        self.events: list[ReaderEvent] = []
        self._changed = asyncio.Event()

    async def run(self) -> None:
        async for event in self.reader:
            self.events.append(event)
            self._changed.set()
            if self.auto_confirm and isinstance(event, CardSeen):
                await self.reader.confirm(event.delivery)

    def cards(self) -> list[str]:
        return [event.card for event in self.events if isinstance(event, CardSeen)]

    def count(self, kind: type) -> int:
        return sum(isinstance(event, kind) for event in self.events)

    async def wait_for(self, predicate: Callable[[], bool], limit_s: float = 3.0) -> None:
        """Wait until ``predicate()``; re-checked on each event and every 10 ms."""
        async with asyncio.timeout(limit_s):
            while not predicate():
                self._changed.clear()
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(0.01):
                        await self._changed.wait()


@asynccontextmanager
async def reading(
    url: str, *, auto_confirm: bool = True, protocol: ShoeProtocol = ShoeProtocol.SRP
) -> AsyncIterator[Journal]:
    async with ShoeReader(url, protocol=protocol, backoff=FAST, rng=random.Random(7)) as reader:
        journal = Journal(reader, auto_confirm=auto_confirm)
        task = asyncio.create_task(journal.run(), name="test journal")
        try:
            yield journal
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)


# --- pseudo-terminal --------------------------------------------------------------------------


async def test_pty_card_is_acknowledged_only_after_confirm(pty_shoe: PtyShoe) -> None:
    async with reading(str(pty_shoe.path), auto_confirm=False) as journal:
        await journal.wait_for(lambda: journal.reader.connected)
        pty_shoe.send(card(3, "QH"))
        await journal.wait_for(lambda: journal.cards() == ["QH"])
        await asyncio.sleep(0.1)
        assert ack(3) not in pty_shoe.received
        await journal.reader.confirm(Delivery(epoch=0, seq=3))
        await pty_shoe.wait_received(ack(3))


async def test_pty_lamp_frame_reaches_the_shoe(pty_shoe: PtyShoe) -> None:
    async with reading(str(pty_shoe.path)) as journal:
        await journal.wait_for(lambda: journal.reader.connected)
        await journal.reader.set_lamp(Lamp.BANKER)
        await pty_shoe.wait_received(b",LAMP,BANKER*")


async def test_pty_unplug_and_replug_loses_and_duplicates_nothing(pty_shoe: PtyShoe) -> None:
    async with reading(str(pty_shoe.path)) as journal:
        await journal.wait_for(lambda: journal.reader.connected)
        pty_shoe.send(card(0, "AS") + card(1, "2D"))
        await pty_shoe.wait_received(ack(1))

        pty_shoe.unplug()  # the cable is pulled; the device node disappears
        await journal.wait_for(lambda: journal.count(ReaderOffline) == 1)
        await asyncio.sleep(0.3)  # reopening fails meanwhile: the node is gone
        assert journal.count(ReaderOffline) == 1, "offline is reported once"

        pty_shoe.plug()
        # The shoe never saw ACK 1 (say): it resends card 1, then sends card 2.
        await journal.wait_for(lambda: journal.reader.connected, limit_s=2.0)
        pty_shoe.send(card(1, "2D") + card(2, "7H"))
        await journal.wait_for(lambda: journal.cards() == ["AS", "2D", "7H"])
        await pty_shoe.wait_received(ack(1))  # the resend is acknowledged again
        await pty_shoe.wait_received(ack(2))
        assert journal.count(ReaderOnline) == 2
        assert journal.count(FramesLost) == 0
        assert all(delay <= FAST.cap_s for delay in journal.reader.backoff_history)
        assert len(journal.reader.backoff_history) >= 3


async def test_pty_card_unconfirmed_across_unplug_is_delivered_once(pty_shoe: PtyShoe) -> None:
    async with reading(str(pty_shoe.path), auto_confirm=False) as journal:
        await journal.wait_for(lambda: journal.reader.connected)
        pty_shoe.send(card(0, "KD"))
        await journal.wait_for(lambda: journal.cards() == ["KD"])
        pty_shoe.unplug()
        await journal.wait_for(lambda: journal.count(ReaderOffline) == 1)
        await journal.reader.confirm(Delivery(epoch=0, seq=0))  # recorded while unplugged
        pty_shoe.plug()
        await journal.wait_for(lambda: journal.reader.connected, limit_s=2.0)
        await pty_shoe.wait_received(ack(0))  # the queued ACK goes out on reconnection
        pty_shoe.send(card(0, "KD"))  # a resend that crossed it
        await pty_shoe.wait_received(b"ACK,0*", limit_s=2.0)
        await asyncio.sleep(0.1)
        assert journal.cards() == ["KD"]


async def test_pty_garbage_is_reported_with_its_reason(pty_shoe: PtyShoe) -> None:
    async with reading(str(pty_shoe.path)) as journal:
        await journal.wait_for(lambda: journal.reader.connected)
        pty_shoe.send(b"\x00\xffnoise\r\n$SH,17,CARD,QH*3D\r\n" + card(17, "QH"))
        await journal.wait_for(lambda: journal.cards() == ["QH"])
        reasons = [e.reason for e in journal.events if isinstance(e, LineRejected)]
        assert reasons == ["garbage", "bad_checksum"]


@pytest.mark.timeout(20)
async def test_pty_silent_reader_is_offline_after_three_seconds(pty_shoe: PtyShoe) -> None:
    async with reading(str(pty_shoe.path)) as journal:
        await journal.wait_for(lambda: journal.reader.connected)
        pty_shoe.send(heartbeat(1))
        await journal.wait_for(lambda: journal.count(ReaderOnline) == 1)
        loop = asyncio.get_running_loop()
        started = loop.time()
        await journal.wait_for(lambda: journal.count(ReaderOffline) == 1, limit_s=5.0)
        assert 2.9 <= loop.time() - started <= 3.6
        # a silent reader's port is closed and reopened
        await journal.wait_for(lambda: len(journal.reader.backoff_history) >= 1, limit_s=1.0)
        await journal.wait_for(lambda: journal.reader.connected, limit_s=1.0)
        pty_shoe.send(heartbeat(2))
        await journal.wait_for(lambda: journal.count(ReaderOnline) == 2, limit_s=2.0)
        assert journal.count(ReaderOffline) == 1


# --- TCP (serial device server) ---------------------------------------------------------------


@pytest.mark.timeout(20)
async def test_tcp_server_restart_loses_and_duplicates_nothing(tcp_shoe: TcpShoe) -> None:
    async with reading(tcp_shoe.url) as journal:
        await tcp_shoe.wait_connections(1)
        tcp_shoe.send(card(10, "3C") + card(11, "4C"))
        await tcp_shoe.wait_received(ack(11))

        await tcp_shoe.stop()  # the device server goes away: a clean close (pitfall 9)
        await journal.wait_for(lambda: journal.count(ReaderOffline) == 1)
        await asyncio.sleep(0.3)  # connections are refused meanwhile
        await tcp_shoe.start()  # same port
        await tcp_shoe.wait_connections(2)
        tcp_shoe.send(card(11, "4C") + card(12, "5C") + card(12, "5C") + card(13, "6C"))
        await journal.wait_for(lambda: journal.cards() == ["3C", "4C", "5C", "6C"])
        await tcp_shoe.wait_received(ack(13))
        await asyncio.sleep(0.1)
        assert journal.cards() == ["3C", "4C", "5C", "6C"]
        assert journal.count(ReaderOffline) == 1
        assert journal.count(FramesLost) == 0


@pytest.mark.timeout(20)
async def test_tcp_frames_lost_while_away_are_reported_not_guessed(tcp_shoe: TcpShoe) -> None:
    async with reading(tcp_shoe.url) as journal:
        await tcp_shoe.wait_connections(1)
        tcp_shoe.send(card(0, "3C"))
        await tcp_shoe.wait_received(ack(0))
        await tcp_shoe.stop()
        await journal.wait_for(lambda: journal.count(ReaderOffline) == 1)
        await tcp_shoe.start()
        await tcp_shoe.wait_connections(2)
        tcp_shoe.send(card(3, "9S"))  # the shoe gave up on seq 1 and 2 while we were away
        await journal.wait_for(lambda: journal.count(FramesLost) == 1)
        lost = next(e for e in journal.events if isinstance(e, FramesLost))
        assert lost == FramesLost(expected_seq=1, received_seq=3, count=2)
        assert journal.cards() == ["3C", "9S"]


@pytest.mark.timeout(20)
async def test_tcp_silent_server_is_offline_and_reopened_with_capped_backoff(
    tcp_shoe: TcpShoe,
) -> None:
    async with reading(tcp_shoe.url) as journal:
        await tcp_shoe.wait_connections(1)
        await journal.wait_for(lambda: journal.count(ReaderOffline) == 1, limit_s=5.0)
        await tcp_shoe.wait_connections(2, limit_s=2.0)  # it keeps reopening the port
        assert journal.count(ReaderOnline) == 0
        tcp_shoe.send(heartbeat(5))
        await journal.wait_for(lambda: journal.count(ReaderOnline) == 1)
        assert all(delay <= FAST.cap_s for delay in journal.reader.backoff_history)


async def test_tcp_refused_connection_is_offline_once_and_retried(tcp_shoe: TcpShoe) -> None:
    await tcp_shoe.stop()
    async with reading(tcp_shoe.url) as journal:
        await journal.wait_for(lambda: len(journal.reader.backoff_history) >= 6)
        assert journal.count(ReaderOffline) == 1
        assert "cannot open" in next(
            e.reason for e in journal.events if isinstance(e, ReaderOffline)
        )
        history = journal.reader.backoff_history
        assert all(FAST.cap_s / 2 <= delay <= FAST.cap_s for delay in history[3:])
        await tcp_shoe.start()
        await tcp_shoe.wait_connections(1, limit_s=2.0)


async def test_tcp_beetek_two_identical_cards_are_two_cards(tcp_shoe: TcpShoe) -> None:
    async with reading(tcp_shoe.url, protocol=ShoeProtocol.BEETEK) as journal:
        await tcp_shoe.wait_connections(1)
        await journal.wait_for(lambda: journal.count(ReaderOnline) == 1)
        await journal.reader.set_lamp(Lamp.PLAYER)
        tcp_shoe.send(
            b" [Game]<Card:4S> \r\n [Game]<Card:4S> \r\n [Manual Burn Cards]<Card:10H> \r\n"
        )
        await journal.wait_for(lambda: len(journal.cards()) == 3)
        assert journal.cards() == ["4S", "4S", "TH"]
        burn = [e.burn_mode for e in journal.events if isinstance(e, CardSeen)]
        assert burn == [False, False, True]
        await asyncio.sleep(0.05)
        assert tcp_shoe.received == b"", "nothing is ever sent to a text-line shoe"


async def test_iteration_ends_when_the_reader_is_closed(tcp_shoe: TcpShoe) -> None:
    reader = ShoeReader(tcp_shoe.url, backoff=FAST)
    async with reader:
        await tcp_shoe.wait_connections(1)
    assert [event async for event in reader] == []


def test_unsupported_url_is_refused_at_once() -> None:
    with pytest.raises(ValueError, match="socket://"):
        ShoeReader("loop://")
