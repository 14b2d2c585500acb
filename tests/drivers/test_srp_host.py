# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""SRP/1 host session: pure tests with synthetic times, no event loop."""

from __future__ import annotations

import random
from dataclasses import dataclass, field

import pytest

from drivers.events import (
    CardMisread,
    CardSeen,
    CutCardSeen,
    Delivery,
    FramesLost,
    LineRejected,
    ReaderEvent,
    ReaderHello,
    ReaderOffline,
    ReaderOnline,
    ReaderStatus,
    ShoeState,
)
from drivers.srp.codec import FrameDecoder
from drivers.srp.constants import MAX_RESENDS, OFFLINE_AFTER_S, RESEND_INTERVAL_S, Lamp
from drivers.srp.frames import Frame, FrameType, Talker
from drivers.srp.host import SILENT_REASON, HostSession
from tests.drivers.driver_test_support import card, shoe


def hello(seq: int = 0, serial: str = "SN1") -> bytes:
    return shoe(seq, FrameType.HELLO, "BT-9000", "2.1", serial)


def connected(now: float = 0.0) -> HostSession:
    session = HostSession()
    session.connection_made(now)
    return session


def without_online(events: list[ReaderEvent]) -> list[ReaderEvent]:
    return [event for event in events if not isinstance(event, ReaderOnline)]


# --- acknowledgement only after the caller confirms -------------------------------------------


def test_card_is_delivered_and_acknowledged_only_once_confirmed() -> None:
    session = connected()
    events = session.receive_data(card(17, "QH"), now=0.1)
    assert events == [
        ReaderOnline(),
        CardSeen(card="QH", burn_mode=False, delivery=Delivery(epoch=0, seq=17)),
    ]
    assert session.data_to_send() == b""
    session.confirm(Delivery(epoch=0, seq=17))
    # "HO,0,ACK,17" XOR = 0x54, computed outside the code under test
    assert session.data_to_send() == b"$HO,0,ACK,17*54\r\n"
    assert session.data_to_send() == b""


def test_confirming_twice_sends_one_ack() -> None:
    session = connected()
    session.receive_data(card(1, "2C"), now=0.0)
    session.confirm(Delivery(epoch=0, seq=1))
    session.confirm(Delivery(epoch=0, seq=1))
    assert session.data_to_send().count(b"ACK") == 1


def test_resend_before_confirm_is_neither_delivered_nor_acknowledged() -> None:
    session = connected()
    session.receive_data(card(4, "9D"), now=0.0)
    assert session.receive_data(card(4, "9D"), now=0.25) == []
    assert session.receive_data(card(4, "9D"), now=0.5) == []
    assert session.data_to_send() == b""
    session.confirm(Delivery(epoch=0, seq=4))
    assert session.data_to_send().count(b"ACK,4*") == 1


def test_resend_after_confirm_is_acknowledged_again_not_delivered() -> None:
    session = connected()
    session.receive_data(card(4, "9D"), now=0.0)
    session.confirm(Delivery(epoch=0, seq=4))
    first = session.data_to_send()
    assert session.receive_data(card(4, "9D"), now=0.25) == []
    again = session.data_to_send()
    assert b"ACK,4*" in first
    assert b"ACK,4*" in again


@pytest.mark.parametrize(
    ("frame", "event"),
    [
        (shoe(1, FrameType.CUT), CutCardSeen(delivery=Delivery(epoch=0, seq=1))),
        (shoe(1, FrameType.MISREAD), CardMisread(delivery=Delivery(epoch=0, seq=1))),
        (
            hello(1),
            ReaderHello(
                model="BT-9000", firmware="2.1", serial="SN1", delivery=Delivery(epoch=1, seq=1)
            ),
        ),
        (shoe(1, FrameType.STATUS, "READY"), ReaderStatus(state=ShoeState.READY)),
        (shoe(1, FrameType.STATUS, "FAULT", "E7"), ReaderStatus(state=ShoeState.FAULT, code="E7")),
    ],
)
def test_each_shoe_frame_type_gives_its_event(frame: bytes, event: ReaderEvent) -> None:
    assert without_online(connected().receive_data(frame, now=0.0)) == [event]


def test_status_and_heartbeat_are_never_acknowledged() -> None:
    session = connected()
    session.receive_data(shoe(1, FrameType.STATUS, "EMPTY") + shoe(2, FrameType.HB), now=0.0)
    session.receive_data(shoe(2, FrameType.HB), now=0.1)
    assert session.data_to_send() == b""


# --- sequence numbers -------------------------------------------------------------------------


def test_a_jump_in_seq_reports_lost_frames_before_the_frame() -> None:
    session = connected()
    session.receive_data(card(5, "AH"), now=0.0)
    events = session.receive_data(card(9, "2S"), now=1.0)
    assert events == [
        FramesLost(expected_seq=6, received_seq=9, count=3),
        CardSeen(card="2S", delivery=Delivery(epoch=0, seq=9)),
    ]


def test_heartbeats_count_in_the_sequence() -> None:
    session = connected()
    events = session.receive_data(
        card(1, "AH") + shoe(2, FrameType.HB) + shoe(3, FrameType.HB) + card(4, "KD"), now=0.0
    )
    assert not any(isinstance(event, FramesLost) for event in events)


def test_seq_wraps_from_65535_to_0_without_a_gap() -> None:
    session = connected()
    session.receive_data(card(65535, "KC"), now=0.0)
    events = session.receive_data(card(0, "9D"), now=0.1)
    assert events == [CardSeen(card="9D", delivery=Delivery(epoch=0, seq=0))]


def test_a_gap_across_the_wrap_is_counted_modulo_65536() -> None:
    session = connected()
    session.receive_data(card(65534, "KC"), now=0.0)
    lost = session.receive_data(card(1, "9D"), now=0.1)[0]
    assert lost == FramesLost(expected_seq=65535, received_seq=1, count=2)


def test_the_first_frame_sets_the_baseline() -> None:
    events = connected().receive_data(card(4000, "5H"), now=0.0)
    assert not any(isinstance(event, FramesLost) for event in events)


def test_same_seq_with_other_content_is_rejected_not_delivered() -> None:
    session = connected()
    session.receive_data(card(7, "QH"), now=0.0)
    (event,) = session.receive_data(card(7, "QS"), now=0.1)
    assert event == LineRejected(reason="seq_reused", raw=card(7, "QS"))
    assert session.rejected["seq_reused"] == 1


def test_a_seq_behind_is_rejected_not_delivered() -> None:
    session = connected()
    session.receive_data(card(7, "QH") + card(8, "QS"), now=0.0)
    (event,) = session.receive_data(card(3, "2D"), now=0.1)
    assert event == LineRejected(reason="seq_behind", raw=card(3, "2D"))


# --- HELLO and epochs -------------------------------------------------------------------------


def test_hello_starts_a_new_epoch_without_a_gap() -> None:
    session = connected()
    session.receive_data(card(40, "QH"), now=0.0)
    events = session.receive_data(hello(0, "SN2"), now=1.0)
    assert events == [
        ReaderHello(
            model="BT-9000", firmware="2.1", serial="SN2", delivery=Delivery(epoch=1, seq=0)
        )
    ]
    assert session.epoch == 1
    assert session.receive_data(card(1, "3D"), now=1.1) == [
        CardSeen(card="3D", delivery=Delivery(epoch=1, seq=1))
    ]


def test_a_handle_from_before_hello_is_never_acknowledged() -> None:
    session = connected()
    session.receive_data(card(1, "QH"), now=0.0)
    session.receive_data(hello(0), now=0.5)
    session.receive_data(card(1, "4S"), now=0.6)
    session.confirm(Delivery(epoch=0, seq=1))  # the old QH, recorded late
    assert b"ACK,1*" not in session.data_to_send()


def test_unsent_acks_of_the_old_epoch_are_dropped_at_hello() -> None:
    session = connected()
    session.receive_data(card(1, "QH"), now=0.0)
    session.confirm(Delivery(epoch=0, seq=1))
    session.receive_data(hello(0), now=0.5)
    assert b"ACK" not in session.data_to_send()


def test_a_repeated_hello_is_a_resend_not_a_new_epoch() -> None:
    session = connected()
    session.receive_data(hello(0), now=0.0)
    session.confirm(Delivery(epoch=1, seq=0))
    session.data_to_send()
    assert session.receive_data(hello(0), now=0.25) == []
    assert session.epoch == 1
    assert b"ACK,0*" in session.data_to_send()


# --- liveness ---------------------------------------------------------------------------------


def test_three_seconds_without_a_frame_is_offline_once() -> None:
    session = connected(now=10.0)
    session.receive_data(shoe(1, FrameType.HB), now=10.5)
    assert session.deadline() == 10.5 + OFFLINE_AFTER_S
    assert session.on_deadline(13.4) == []
    assert session.on_deadline(13.5) == [ReaderOffline(reason=SILENT_REASON)]
    assert session.silent
    assert session.deadline() is None
    assert session.on_deadline(20.0) == []


def test_a_silent_port_from_the_start_is_reported_offline() -> None:
    session = connected(now=0.0)
    assert session.on_deadline(3.0) == [ReaderOffline(reason=SILENT_REASON)]


def test_rejected_bytes_are_not_a_sign_of_life() -> None:
    session = connected(now=0.0)
    session.receive_data(b"$SH,1,HB*00\r\n", now=2.9)
    assert session.deadline() == OFFLINE_AFTER_S


def test_the_next_frame_brings_it_back_online() -> None:
    session = connected(now=0.0)
    session.on_deadline(3.0)
    assert session.receive_data(shoe(1, FrameType.HB), now=4.0) == [ReaderOnline()]
    assert not session.silent
    assert session.deadline() == 4.0 + OFFLINE_AFTER_S


def test_a_lost_connection_is_offline_once_even_after_silence() -> None:
    session = connected(now=0.0)
    assert session.connection_lost(1.0, "unplugged") == [ReaderOffline(reason="unplugged")]
    assert session.deadline() is None
    session.connection_made(2.0)
    assert session.on_deadline(5.0) == []  # already reported offline
    assert session.connection_lost(5.0, "again") == []


def test_a_frame_cut_by_the_disconnection_is_reported() -> None:
    session = connected()
    session.receive_data(shoe(1, FrameType.HB) + b"$SH,2,CA", now=0.0)
    events = session.connection_lost(0.5, "gone")
    assert events == [
        LineRejected(reason="truncated", raw=b"$SH,2,CA"),
        ReaderOffline(reason="gone"),
    ]


# --- lamp and echoes --------------------------------------------------------------------------


def test_lamp_frames_go_out_and_collapse_while_unsent() -> None:
    session = connected()
    session.set_lamp(Lamp.PLAYER)
    session.set_lamp(Lamp.BANKER)
    assert session.data_to_send() == b"$HO,0,LAMP,BANKER*1A\r\n"  # "HO,0,LAMP,BANKER" XOR 0x1A


def test_lamp_is_sent_again_when_the_reader_comes_back_and_after_hello() -> None:
    session = connected()
    session.set_lamp(Lamp.HOLD)
    session.data_to_send()
    session.receive_data(shoe(1, FrameType.HB), now=0.0)  # first heard: online
    assert b"LAMP,HOLD" in session.data_to_send()
    session.receive_data(hello(0), now=0.1)
    assert b"LAMP,HOLD" in session.data_to_send()
    session.on_deadline(5.0)
    session.receive_data(shoe(1, FrameType.HB), now=6.0)
    assert b"LAMP,HOLD" in session.data_to_send()


def test_our_own_frames_echoed_back_are_rejected() -> None:
    session = connected()
    echoed = Frame(talker=Talker.HOST, seq=0, type=FrameType.ACK, fields=("1",)).encode()
    assert session.receive_data(echoed, now=0.0) == [LineRejected(reason="from_host", raw=echoed)]


def test_codec_rejections_surface_as_rejected_lines_with_counts() -> None:
    session = connected()
    events = session.receive_data(b"junk\n$SH,17,CARD,QH*3D\r\n", now=0.0)
    assert [event.reason for event in events if isinstance(event, LineRejected)] == [
        "garbage",
        "bad_checksum",
    ]
    assert session.rejected == {"garbage": 1, "bad_checksum": 1}


# --- a shoe and a host over a lossy link: nothing lost, duplicated or invented ---------------


@dataclass
class FakeShoe:
    """A minimal shoe written for this test from the spec's "Delivery" rules."""

    cards: list[str]
    next_seq: int = 0
    waiting: tuple[int, bytes] | None = None
    sends: int = 0
    sent_at: float = 0.0
    gave_up: list[str] = field(default_factory=list)
    decoder: FrameDecoder = field(default_factory=FrameDecoder)

    def poll(self, now: float) -> bytes:
        if self.waiting is not None:
            if now - self.sent_at < RESEND_INTERVAL_S:
                return b""
            if self.sends > MAX_RESENDS:
                self.gave_up.append(self.waiting[1].decode())
                self.waiting = None
            else:
                self.sends += 1
                self.sent_at = now
                return self.waiting[1]
        if self.waiting is None and self.cards:
            raw = card(self.next_seq, self.cards.pop(0))
            self.waiting = (self.next_seq, raw)
            self.next_seq += 1
            self.sends, self.sent_at = 1, now
            return raw
        return b""

    def receive(self, data: bytes) -> None:
        for item in self.decoder.feed(data):
            if (
                isinstance(item, Frame)
                and item.type is FrameType.ACK
                and self.waiting is not None
                and int(item.fields[0]) == self.waiting[0]
            ):
                self.waiting = None


@pytest.mark.parametrize("seed", range(20))
def test_over_a_lossy_link_every_card_arrives_once_in_order(seed: int) -> None:
    rng = random.Random(seed)
    dealt = [rng.choice("A23456789TJQK") + rng.choice("SHDC") for _ in range(40)]
    shoe_side = FakeShoe(cards=list(dealt))
    session = connected()
    delivered: list[tuple[int, str]] = []
    lost_seqs: set[int] = set()
    pending: list[tuple[float, Delivery]] = []  # the journal commits after a random delay
    now = 0.0
    while now < 200 and (shoe_side.cards or shoe_side.waiting or pending):
        now += 0.05
        to_host = shoe_side.poll(now)
        if to_host and rng.random() < 0.3:
            to_host = b""  # lost on the line
        for event in session.receive_data(to_host, now):
            if isinstance(event, CardSeen):
                assert event.delivery is not None
                delivered.append((event.delivery.seq, event.card))
                pending.append((now + rng.uniform(0.0, 0.6), event.delivery))
            elif isinstance(event, FramesLost):
                lost_seqs.update(range(event.expected_seq, event.received_seq))
        for due, delivery in [item for item in pending if item[0] <= now]:
            pending.remove((due, delivery))
            session.confirm(delivery)
        to_shoe = session.data_to_send()
        if to_shoe and rng.random() > 0.3:
            shoe_side.receive(to_shoe)
    seqs = [seq for seq, _ in delivered]
    assert seqs == sorted(set(seqs)), "a card was delivered twice or out of order"
    assert all(dealt[seq] == text for seq, text in delivered), "a card was invented"
    missing = set(range(max(seqs) + 1)) - set(seqs)
    assert missing == lost_seqs, "a card went missing without FramesLost"
    assert len(delivered) >= len(dealt) - len(shoe_side.gave_up)
