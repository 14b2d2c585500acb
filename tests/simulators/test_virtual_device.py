# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The shoe side of SRP/1 (pure): synthetic times, no loop; the driver's host session as peer."""

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from drivers.events import (
    ReaderEvent,
    ReaderHello,
)
from drivers.srp.codec import FrameDecoder, FrameRejected
from drivers.srp.constants import Lamp
from drivers.srp.frames import Frame, FrameType, Talker
from drivers.srp.host import HostSession
from simulators.virtual_shoe.deck import Shoe, deck_codes
from simulators.virtual_shoe.device import (
    FrameAbandoned,
    FrameAcknowledged,
    HostBytesRejected,
    LampLit,
    ShoeDevice,
    ShoeIdentity,
)
from simulators.virtual_shoe.faults import (
    ALL_TRANSMISSIONS,
    CorruptFrame,
    Dealt,
    DealtCard,
    DealtCutCard,
    DealtMisread,
    DelayFrame,
    DropFrame,
    Fault,
    FaultPlan,
    ForeignCard,
    MisreadCard,
    PowerCycle,
    ShoeRanOut,
    SplitFrame,
    StallHeartbeats,
    Unplug,
    parse_faults,
    resolve_draw,
)
from tests.support.draws import Expected, delivered_event, expected_event


def decode(data: bytes) -> list[Frame]:
    items = FrameDecoder().feed(data)
    assert not [item for item in items if isinstance(item, FrameRejected)]
    return [item for item in items if isinstance(item, Frame)]


def host_frame(frame_type: FrameType, field_text: str, seq: int = 0) -> bytes:
    return Frame(talker=Talker.HOST, seq=seq, type=frame_type, fields=(field_text,)).encode()


def ack(seq: int) -> bytes:
    return host_frame(FrameType.ACK, str(seq))


def shoe_frame(seq: int, frame_type: FrameType, *fields: str) -> Frame:
    return Frame(talker=Talker.SHOE, seq=seq, type=frame_type, fields=fields)


def powered(now: float = 0.0, plan: str = "", *, keep_hello: bool = False) -> ShoeDevice:
    """A connected shoe, switched on; its HELLO (seq 0, unacknowledged) already read off."""
    device = ShoeDevice(faults=parse_faults(plan))
    device.port_opened(now)
    device.start(now)
    if not keep_hello:
        assert [frame.type for frame in decode(device.data_to_send())] == [FrameType.HELLO]
    return device


def run_until(device: ShoeDevice, until: float) -> list[tuple[float, Frame]]:
    """Call on_deadline at each deadline up to ``until``; the frames sent, with their times."""
    sent = []
    while (deadline := device.deadline()) is not None and deadline <= until:
        device.on_deadline(deadline)
        sent += [(deadline, frame) for frame in decode(device.data_to_send())]
    return sent


def test_the_shoe_says_hello_with_seq_0_on_power_up() -> None:
    device = ShoeDevice(identity=ShoeIdentity(model="M1", firmware="2.3", serial="SN9"))
    device.port_opened(0.0)
    device.start(0.0)
    assert decode(device.data_to_send()) == [shoe_frame(0, FrameType.HELLO, "M1", "2.3", "SN9")]
    assert device.awaiting_ack


def test_nothing_is_sent_while_the_port_is_unplugged() -> None:
    device = ShoeDevice()
    device.start(0.0)
    device.emit(DealtCard(number=1, card="QH"), 0.5)
    assert device.data_to_send() == b""
    assert device.deadline() is None
    device.port_opened(10.0)
    assert decode(device.data_to_send()) == [
        shoe_frame(0, FrameType.HELLO, "VirtualShoe", "1.0", "VS-0001")
    ]


def test_an_unacknowledged_frame_is_resent_every_250_ms_eight_times_then_abandoned() -> None:
    device = powered(keep_hello=True)
    device.emit(DealtCard(number=1, card="QH"), 0.0)
    hello = decode(device.data_to_send())
    sent = run_until(device, 2.0)
    assert [t for t, _ in sent] == pytest.approx([0.25 * n for n in range(1, 9)])
    assert {frame for _, frame in sent} == set(hello)
    assert device.deadline() == pytest.approx(2.25)
    events = device.on_deadline(2.25)
    assert events == [FrameAbandoned(seq=0, type=FrameType.HELLO, card=None)]
    # The card queued behind it goes at once, with the next seq.
    assert decode(device.data_to_send()) == [shoe_frame(1, FrameType.CARD, "QH")]
    assert device.counters.resends == 8
    assert device.counters.abandoned == 1


def test_frames_wait_in_order_behind_the_one_in_flight() -> None:
    device = powered()
    device.emit(DealtCard(number=1, card="QH"), 0.1)
    device.emit(DealtCutCard(number=2), 0.1)
    device.emit(DealtMisread(number=3, actual="2C"), 0.1)
    assert device.data_to_send() == b""
    assert device.receive_data(ack(0), 0.2) == [
        FrameAcknowledged(seq=0, type=FrameType.HELLO, card=None)
    ]
    assert decode(device.data_to_send()) == [shoe_frame(1, FrameType.CARD, "QH")]
    device.receive_data(ack(1), 0.3)
    assert decode(device.data_to_send()) == [shoe_frame(2, FrameType.CUT)]
    device.receive_data(ack(2), 0.4)
    assert decode(device.data_to_send()) == [shoe_frame(3, FrameType.MISREAD)]
    assert device.awaiting_ack
    device.receive_data(ack(3), 0.5)
    assert not device.awaiting_ack


def test_an_ack_for_another_seq_changes_nothing() -> None:
    device = powered()
    assert device.receive_data(ack(5), 0.1) == []
    assert device.counters.stale_acks == 1
    assert device.awaiting_ack
    assert decode(run_until(device, 0.25)[0][1].encode()) == [
        shoe_frame(0, FrameType.HELLO, "VirtualShoe", "1.0", "VS-0001")
    ]


def test_heartbeats_go_once_a_second_while_idle_and_never_while_a_frame_is_in_flight() -> None:
    device = powered()
    device.receive_data(ack(0), 0.1)
    sent = run_until(device, 3.0)
    assert sent == [
        (1.0, shoe_frame(1, FrameType.HB)),
        (2.0, shoe_frame(2, FrameType.HB)),
        (3.0, shoe_frame(3, FrameType.HB)),
    ]
    device.emit(DealtCard(number=1, card="9D"), 3.5)
    assert decode(device.data_to_send()) == [shoe_frame(4, FrameType.CARD, "9D")]
    sent = run_until(device, 4.6)
    assert {frame.type for _, frame in sent} == {FrameType.CARD}
    device.receive_data(ack(4), 4.6)
    assert run_until(device, 5.6) == [(5.5, shoe_frame(5, FrameType.HB))]


def test_seq_wraps_from_65535_to_0() -> None:
    device = powered()
    device.receive_data(ack(0), 0.0)
    seqs = [frame.seq for _, frame in run_until(device, 65536.0)]
    assert seqs == [*range(1, 65536), 0]
    device.emit(DealtCard(number=1, card="AS"), 65536.5)
    assert decode(device.data_to_send()) == [shoe_frame(1, FrameType.CARD, "AS")]


def test_the_host_lights_the_lamp() -> None:
    device = powered()
    before = device.lamp
    events = device.receive_data(host_frame(FrameType.LAMP, "BANKER", seq=3), 0.1)
    assert (before, events) == (Lamp.OFF, [LampLit(lamp=Lamp.BANKER)])
    assert device.lamp is Lamp.BANKER


def test_garbage_and_shoe_frames_from_the_host_side_are_counted_not_acted_on() -> None:
    device = powered()
    echo = shoe_frame(0, FrameType.HB).encode()
    bad = bytearray(ack(0))
    bad[-4] ^= 1
    events = device.receive_data(b"noise\r\n" + echo + bytes(bad), 0.1)
    assert [e.reason for e in events if isinstance(e, HostBytesRejected)] == [
        "garbage",
        "not_from_host",
        "bad_checksum",
    ]
    assert device.awaiting_ack
    assert dict(device.counters.host_rejected) == {
        "garbage": 1,
        "not_from_host": 1,
        "bad_checksum": 1,
    }


def test_unplugged_the_shoe_keeps_its_frame_and_resends_it_with_the_same_seq() -> None:
    device = powered()
    device.receive_data(ack(0), 0.0)
    device.emit(DealtCard(number=1, card="KH"), 1.0)
    device.data_to_send()
    device.port_closed(1.1)
    assert device.deadline() is None
    device.on_deadline(30.0)
    assert device.data_to_send() == b""
    device.emit(DealtCard(number=2, card="KS"), 31.0)
    device.port_opened(40.0)
    assert decode(device.data_to_send()) == [shoe_frame(1, FrameType.CARD, "KH")]
    # A fresh budget: eight resends again before it is given up.
    sent = run_until(device, 42.0)
    assert len(sent) == 8
    device.receive_data(ack(1), 42.1)
    assert decode(device.data_to_send()) == [shoe_frame(2, FrameType.CARD, "KS")]


def test_a_stalled_shoe_is_silent_then_sends_what_waited() -> None:
    device = powered()
    device.receive_data(ack(0), 0.0)
    device.stall(4.0, 0.5)
    device.emit(DealtCard(number=1, card="5C"), 1.0)
    assert device.data_to_send() == b""
    assert device.deadline() == pytest.approx(4.5)
    sent = run_until(device, 4.5)
    assert sent == [(4.5, shoe_frame(1, FrameType.CARD, "5C"))]


def test_a_power_cycle_says_hello_again_and_keeps_the_frames_not_yet_sent() -> None:
    device = powered()
    device.receive_data(ack(0), 0.0)
    device.receive_data(host_frame(FrameType.LAMP, "PLAYER"), 0.0)
    device.emit(DealtCard(number=1, card="7H"), 1.0)
    device.emit(DealtCard(number=2, card="8H"), 1.0)
    assert decode(device.data_to_send()) == [shoe_frame(1, FrameType.CARD, "7H")]
    device.power_cycle(1.1)
    # It strikes between frames: the card in flight is settled first.
    assert device.restart_pending
    assert device.lamp is Lamp.PLAYER
    device.receive_data(ack(1), 1.2)
    assert not device.restart_pending
    assert device.lamp is Lamp.OFF
    assert [(f.seq, f.type) for f in decode(device.data_to_send())] == [(0, FrameType.HELLO)]
    device.receive_data(ack(0), 1.3)
    assert decode(device.data_to_send()) == [shoe_frame(1, FrameType.CARD, "8H")]


def test_a_power_cycle_asked_for_during_a_hopeless_frame_follows_its_abandonment() -> None:
    device = powered(plan="drop:card=1:times=all")
    device.receive_data(ack(0), 0.0)
    device.emit(DealtCard(number=1, card="7H"), 1.0)
    device.power_cycle(1.1)
    sent = run_until(device, 3.25)
    assert [(t, f.seq, f.type) for t, f in sent] == [(3.25, 0, FrameType.HELLO)]


def test_an_empty_shoe_is_reported_once_unacknowledged_in_line_order() -> None:
    device = powered(keep_hello=True)
    device.emit(ShoeRanOut(), 0.1)
    device.emit(ShoeRanOut(), 0.2)
    assert [f.type for f in decode(device.data_to_send())] == [FrameType.HELLO]
    device.receive_data(ack(0), 0.3)
    assert decode(device.data_to_send()) == [shoe_frame(1, FrameType.STATUS, "EMPTY")]
    assert not device.awaiting_ack


def test_a_dropped_first_transmission_is_made_good_by_the_resend() -> None:
    device = powered(plan="drop:card=1")
    device.receive_data(ack(0), 0.0)
    device.emit(DealtCard(number=1, card="JD"), 1.0)
    assert device.data_to_send() == b""
    assert run_until(device, 1.25) == [(1.25, shoe_frame(1, FrameType.CARD, "JD"))]


def test_a_frame_dropped_every_time_is_abandoned_and_the_gap_shows() -> None:
    device = powered(plan="drop:card=1:times=all")
    device.receive_data(ack(0), 0.0)
    device.emit(DealtCard(number=1, card="JD"), 1.0)
    events = []
    sent = []
    while (deadline := device.deadline()) is not None and deadline <= 5.0:
        events += device.on_deadline(deadline)
        sent += decode(device.data_to_send())
    assert events == [FrameAbandoned(seq=1, type=FrameType.CARD, card=1)]
    assert [f.seq for f in sent][:1] == [2]
    assert all(f.type is FrameType.HB for f in sent)


def test_a_corrupted_frame_is_rejected_by_the_host_and_the_resend_is_good() -> None:
    device = powered(plan="corrupt:card=1")
    device.receive_data(ack(0), 0.0)
    device.emit(DealtCard(number=1, card="JD"), 1.0)
    items = FrameDecoder().feed(device.data_to_send())
    assert [type(item) for item in items] == [FrameRejected]
    assert run_until(device, 1.25) == [(1.25, shoe_frame(1, FrameType.CARD, "JD"))]


def test_a_split_frame_comes_in_pieces_that_hold_back_what_follows() -> None:
    device = powered(plan="split:card=1:parts=3:gap=0.1")
    device.receive_data(ack(0), 0.0)
    device.emit(DealtCard(number=1, card="JD"), 1.0)
    whole = shoe_frame(1, FrameType.CARD, "JD").encode()
    pieces = [device.data_to_send()]
    for at in (1.1, 1.2):
        assert device.deadline() == pytest.approx(at)
        device.on_deadline(at)
        pieces.append(device.data_to_send())
    assert b"".join(pieces) == whole
    assert all(0 < len(piece) < len(whole) for piece in pieces)


def test_a_delayed_frame_arrives_late_with_its_resends_behind_it() -> None:
    device = powered(plan="delay:card=1:seconds=0.6")
    device.receive_data(ack(0), 0.0)
    device.emit(DealtCard(number=1, card="JD"), 1.0)
    received: list[tuple[float, Frame]] = []
    while (deadline := device.deadline()) is not None and deadline <= 1.6:
        device.on_deadline(deadline)
        received += [(deadline, frame) for frame in decode(device.data_to_send())]
    card = shoe_frame(1, FrameType.CARD, "JD")
    # Resent at 1.25 and 1.5, both held behind the delayed original: first in, first out.
    assert [frame for _, frame in received] == [card] * 3
    assert [at for at, _ in received] == pytest.approx([1.6] * 3)


# --- the shoe against the driver's host session ---------------------------------------------


def match_deliveries(
    drawn: Sequence[Dealt], got: list[Expected], abandoned: set[int], restarts: list[int]
) -> set[int] | None:
    """Whether ``got`` is ``drawn`` in order, each once, allowing only these losses.

    A draw the shoe gave up on may show as ``lost``, or (if a restart follows it, whose
    HELLO restarts ``seq`` before the gap can show) be missing. Returns the draws lost, or
    None if ``got`` is not such a delivery. Identical cards make a greedy match ambiguous,
    hence the search.
    """

    def search(i: int, j: int) -> set[int] | None:
        if i == len(drawn):
            return set() if j == len(got) else None
        draw = drawn[i]
        number = getattr(draw, "number", 0)
        item = got[j] if j < len(got) else None
        if item == expected_event(draw) and (found := search(i + 1, j + 1)) is not None:
            return found
        if number not in abandoned:
            return None
        if item == ("lost", None) and (found := search(i + 1, j + 1)) is not None:
            return {number, *found}
        if any(card > number for card in restarts):
            found = search(i + 1, j)
            return None if found is None else {number, *found}
        return None

    return search(0, 0)


@dataclass
class Pair:
    """A shoe and a host session wired back to back, time advanced by hand."""

    plan: FaultPlan
    #: How long the host's frames take to reach the shoe (the shoe's take no time).
    latency: float = 0.0
    device: ShoeDevice = field(init=False)
    host: HostSession = field(default_factory=HostSession)
    now: float = 0.0
    delivered: list[ReaderEvent] = field(default_factory=list)
    abandoned: set[int] = field(default_factory=set)
    replug_at: float | None = None
    to_shoe: list[tuple[float, bytes]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.device = ShoeDevice(faults=self.plan)
        self.device.port_opened(0.0)
        self.host.connection_made(0.0)
        self.device.start(0.0)
        self.exchange()

    def exchange(self) -> None:
        for _ in range(4):
            for event in self.host.receive_data(self.device.data_to_send(), self.now):
                self.delivered.append(event)
                delivery = getattr(event, "delivery", None)
                self.host.confirm(delivery)
            if data := self.host.data_to_send():
                self.to_shoe.append((self.now + self.latency, data))
            while self.to_shoe and self.to_shoe[0][0] <= self.now:
                shoe_events = self.device.receive_data(self.to_shoe.pop(0)[1], self.now)
                assert not [e for e in shoe_events if isinstance(e, HostBytesRejected)]

    def unplug(self, seconds: float) -> None:
        self.device.port_closed(self.now)
        self.delivered += self.host.connection_lost(self.now, "unplugged")
        self.to_shoe.clear()  # bytes on the line when it is cut are lost
        self.replug_at = self.now + seconds

    def advance(self, until: float) -> None:
        while True:
            in_transit = self.to_shoe[0][0] if self.to_shoe else None
            times = [
                t
                for t in (self.device.deadline(), self.host.deadline(), self.replug_at, in_transit)
                if t is not None and t <= until
            ]
            if not times:
                break
            self.now = max(self.now, min(times))
            if self.replug_at is not None and self.now >= self.replug_at:
                self.replug_at = None
                self.device.port_opened(self.now)
                self.host.connection_made(self.now)
            for event in self.device.on_deadline(self.now):
                if isinstance(event, FrameAbandoned) and event.card is not None:
                    self.abandoned.add(event.card)
            self.delivered += self.host.on_deadline(self.now)
            self.exchange()
        self.now = until

    def deal(self, shoe: Shoe, number: int) -> Dealt:
        for fault in self.plan.link_faults(number):
            match fault:
                case StallHeartbeats(seconds=seconds):
                    self.device.stall(seconds, self.now)
                case PowerCycle():
                    self.device.power_cycle(self.now)
                case Unplug(seconds=seconds):
                    self.unplug(seconds)
        dealt = resolve_draw(self.plan, shoe, number)
        self.device.emit(dealt, self.now)
        self.exchange()
        return dealt


_card_numbers = st.integers(min_value=1, max_value=12)
_pair_faults: st.SearchStrategy[Fault] = st.one_of(
    st.builds(DropFrame, card=_card_numbers, times=st.sampled_from([1, 3, ALL_TRANSMISSIONS])),
    st.builds(CorruptFrame, card=_card_numbers, times=st.sampled_from([1, 2, ALL_TRANSMISSIONS])),
    st.builds(SplitFrame, card=_card_numbers, parts=st.integers(2, 5), gap=st.just(0.05)),
    st.builds(DelayFrame, card=_card_numbers, seconds=st.sampled_from([0.1, 0.6, 1.5])),
    st.builds(MisreadCard, card=_card_numbers),
    st.builds(ForeignCard, card=_card_numbers, code=st.just("QH")),
    st.builds(StallHeartbeats, card=_card_numbers, seconds=st.sampled_from([1.0, 4.0])),
    st.builds(PowerCycle, card=_card_numbers),
    st.builds(Unplug, card=_card_numbers, seconds=st.sampled_from([0.5, 2.5, 5.0])),
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    faults=st.lists(_pair_faults, max_size=6),
    cards=st.lists(st.sampled_from(deck_codes()), min_size=1, max_size=12),
    cut=st.integers(min_value=0, max_value=12),
    latency=st.sampled_from([0.0, 0.02, 0.2, 0.3]),
    pace=st.sampled_from([0.05, 0.3]),
    waits_for_ack=st.booleans(),
)
@example(  # a frame held back twice past the shoe's patience, then cut off by an unplug
    faults=[
        DelayFrame(card=4, seconds=1.5),
        DelayFrame(card=4, seconds=1.5),
        Unplug(card=5, seconds=0.5),
    ],
    cards=["AS"] * 4,
    cut=0,
    latency=0.0,
    pace=0.05,
    waits_for_ack=True,
)
def test_against_the_host_session_nothing_is_lost_duplicated_or_invented(  # noqa: PLR0917
    faults: list[Fault],
    cards: list[str],
    cut: int,
    latency: float,
    pace: float,
    waits_for_ack: bool,
) -> None:
    # A card whose frames never reach the host: dropped or garbled at every transmission, or
    # held back on the line by a delay when a later unplug or power cycle cuts it.
    cut_at = [f.card for f in faults if isinstance(f, Unplug | PowerCycle)]
    dropped_for_good = {
        f.card
        for f in faults
        if (isinstance(f, DropFrame | CorruptFrame) and f.times == ALL_TRANSMISSIONS)
        or (isinstance(f, DelayFrame) and any(card > f.card for card in cut_at))
    }
    plan = FaultPlan(faults=tuple(faults))
    pair = Pair(plan=plan, latency=latency)
    shoe = Shoe(cards=cards, cut_depth=min(cut, len(cards)))
    dealt: list[Dealt] = []
    for number in range(1, len(cards) + 2):
        # Like the automatic dealer (the next card once the shoe has nothing waiting), or a
        # dealer who does not wait: cards then queue in the shoe, and faults strike in flight.
        while waits_for_ack and (pair.device.awaiting_ack or pair.replug_at is not None):
            pair.advance(pair.now + 0.05)
        pair.advance(pair.now + pace)
        dealt.append(pair.deal(shoe, number))
    pair.advance(pair.now + 30.0)
    assert not pair.device.awaiting_ack

    # Each draw is delivered once, in order; a frame the shoe gave up on may instead be
    # reported lost (a frame delayed past the shoe's patience still arrives, late). A protocol
    # limit, not a simulator bug: a frame given up on just before a restart leaves no trace,
    # since HELLO restarts seq before any later frame could show the gap.
    drawn = [d for d in dealt if not isinstance(d, ShoeRanOut)]
    got = [item for event in pair.delivered for item in delivered_event(event)]
    restarts = [f.card for f in faults if isinstance(f, PowerCycle)]
    lost = match_deliveries(drawn, got, pair.abandoned, restarts)
    assert lost is not None, (drawn, got, pair.abandoned)
    hellos = [event for event in pair.delivered if isinstance(event, ReaderHello)]
    # A HELLO right behind the previous one (no frame between) is byte for byte the newest
    # frame again: the host rightly takes it for a resend. So at most one HELLO per restart.
    power_cycles = sum(isinstance(f, PowerCycle) for f in faults)
    assert 1 <= len(hellos) <= 1 + power_cycles
    # Only a frame kept off the line at every transmission is ever lost.
    assert lost <= dropped_for_good, (faults, lost)
