# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fuzzing the SRP/1 decoder and host session: no crash, bounded buffer, zero invented cards.

Streams mix frames built by hand (own checksum, see ``srp_reference``), the same frames
mutated (a byte flipped, dropped, inserted, cut short; a field made wrong under a correct
checksum), resends and garbage, split at arbitrary boundaries. Oracles:

* ``FrameDecoder.feed`` never raises, holds at most two frames' worth of bytes after any
  call, gives the same output however the stream is split, and decodes exactly the frames an
  independent reading of the spec finds (no frame invented, none missed);
* ``HostSession.receive_data`` never raises, and the cards it delivers are, in order, cards
  of valid shoe CARD frames that were in the stream (zero invented cards); what it sends back
  is valid host frames;
* for a shoe that follows the protocol (sequential ``seq``, resends, lost frames, garbage
  between frames), the session delivers every received card exactly once, in order.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from drivers.events import CardSeen, Delivery, FramesLost, ReaderEvent
from drivers.srp.codec import Decoded, FrameDecoder
from drivers.srp.frames import Frame
from drivers.srp.host import HostSession
from tests.fuzz import fuzz_support as fuzz
from tests.fuzz.srp_reference import (
    ACKNOWLEDGED,
    LAMPS,
    MAX_FRAME,
    RANKS,
    SUITS,
    RefFrame,
    build_frame,
    reference_frames,
)

#: After any ``feed`` the decoder holds at most one frame plus a sample of garbage.
MAX_BUFFERED = 2 * MAX_FRAME

field_text = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="$*,"),
    min_size=1,
    max_size=14,
)
seq_numbers = st.integers(0, 65535)
seq_texts = seq_numbers.map(str) | seq_numbers.map(lambda seq: f"{seq:05d}")
cards = st.builds(lambda rank, suit: rank + suit, st.sampled_from(RANKS), st.sampled_from(SUITS))


def shoe(seq: str, frame_type: str, *fields: str) -> bytes:
    return build_frame("SH", seq, frame_type, fields)


def host(seq: str, frame_type: str, *fields: str) -> bytes:
    return build_frame("HO", seq, frame_type, fields)


statuses = st.sampled_from([("READY",), ("EMPTY",)]) | field_text.map(lambda c: ("FAULT", c))
shoe_frames = st.one_of(
    st.builds(lambda s, c: shoe(s, "CARD", c), seq_texts, cards),
    st.builds(lambda s, f: shoe(s, "HELLO", *f), seq_texts, st.tuples(*[field_text] * 3)),
    st.builds(shoe, seq_texts, st.sampled_from(["CUT", "MISREAD", "HB"])),
    st.builds(lambda s, f: shoe(s, "STATUS", *f), seq_texts, statuses),
)
host_frames = st.one_of(
    st.builds(lambda s, a: host(s, "ACK", a), seq_texts, seq_texts),
    st.builds(lambda s, lamp: host(s, "LAMP", lamp), seq_texts, st.sampled_from(LAMPS)),
)
bad_cards = st.sampled_from(["Q", "QHH", "1H", "qh", "10H", "QX", "XH", "", " QH", "QH "])
bad_seqs = st.sampled_from(["", "65536", "-1", "1a", "123456", " 1", "+1"])
bad_talkers = st.sampled_from(["HO", "sh", "SHH", "", "S"])
bad_types = st.sampled_from(["card", "CARDS", "ACK", "LAMP", "", "HELLO"])
bad_status = st.lists(st.sampled_from(["FAULT", "READY", "BUSY", ""]), max_size=3)
#: Frames whose checksum is right but whose content is not: the codec must still drop them.
wrong_but_checksummed = st.one_of(
    st.builds(lambda s, c: shoe(s, "CARD", c), seq_texts, bad_cards | field_text),
    st.builds(lambda s, c, x: shoe(s, "CARD", c, x), seq_texts, cards, field_text),
    st.builds(lambda s, c: shoe(s, "CARD", c), bad_seqs, cards),
    st.builds(lambda t, s, c: build_frame(t, s, "CARD", (c,)), bad_talkers, seq_texts, cards),
    st.builds(shoe, seq_texts, bad_types, cards),
    st.builds(lambda s, f: shoe(s, "HELLO", *f), seq_texts, st.lists(field_text | st.just(""))),
    st.builds(lambda s, f: shoe(s, "CUT", f), seq_texts, field_text),
    st.builds(lambda s, f: shoe(s, "STATUS", *f), seq_texts, bad_status),
)
garbage = st.binary(max_size=40) | st.lists(
    st.sampled_from([b"$", b"*", b",", b"\r", b"\n", b"\r\n", b"SH", b"CARD", b"QH", b"7", b"A0"]),
    max_size=12,
).map(b"".join)


@st.composite
def mutated(draw: st.DrawFn, frames: st.SearchStrategy[bytes]) -> bytes:
    """A frame with one byte flipped, dropped or inserted, cut short, or a checksum changed."""
    frame = bytearray(draw(frames))
    at = draw(st.integers(0, len(frame) - 1))
    byte = draw(st.integers(0, 255))
    match draw(st.sampled_from(["flip", "drop", "insert", "cut", "checksum", "bare_lf"])):
        case "flip":
            frame[at] = byte
        case "drop":
            del frame[at]
        case "insert":
            frame.insert(at, byte)
        case "cut":
            del frame[at:]
        case "checksum":
            star = frame.rindex(b"*")
            frame[star + 1 : star + 3] = draw(st.sampled_from([b"ZZ", b"0", b"000", b"ab"]))
        case _:
            frame[-2:] = b"\n"
    return bytes(frame)


@st.composite
def streams(draw: st.DrawFn) -> fuzz.Stream:
    pieces: list[bytes] = []
    for kind in draw(st.lists(st.integers(0, 9), min_size=4, max_size=40)):
        if kind <= 3:
            pieces.append(draw(shoe_frames))
        elif kind == 4 and pieces:
            pieces.append(draw(st.sampled_from(pieces)))  # a resend, or any earlier piece
        elif kind == 5:
            pieces.append(draw(host_frames))
        elif kind == 6:
            pieces.append(draw(wrong_but_checksummed))
        elif kind == 7:
            pieces.append(draw(mutated(shoe_frames)))
        else:
            pieces.append(draw(garbage))
    data = b"".join(pieces)
    reads = fuzz.split_into_reads(draw, data, max_read=120)
    return fuzz.Stream(data=data, inputs=len(pieces), reads=reads)


FrameKey = tuple[str, int, str, tuple[str, ...]]


def frame_key(frame: Frame) -> FrameKey:
    return (frame.talker.value, frame.seq, frame.type.value, frame.fields)


def reference_key(frame: RefFrame) -> FrameKey:
    return (frame.talker, frame.seq, frame.type, frame.fields)


def decode_in_reads(reads: tuple[bytes, ...]) -> list[Decoded]:
    decoder = FrameDecoder()
    out: list[Decoded] = []
    for chunk in reads:
        out.extend(decoder.feed(chunk))
        assert decoder.buffered() <= MAX_BUFFERED, decoder.buffered()
    return out


def check_decoder(stream: fuzz.Stream) -> None:
    in_reads = decode_in_reads(stream.reads)
    assert decode_in_reads((stream.data,)) == in_reads
    assert decode_in_reads(tuple(bytes([b]) for b in stream.data)) == in_reads
    decoded = [item for item in in_reads if isinstance(item, Frame)]
    expected = reference_frames(stream.data)
    assert [frame_key(f) for f in decoded] == [reference_key(r) for r in expected]
    fuzz.count_example("srp_decoder", stream.inputs, bytes=len(stream.data), frames=len(decoded))


def run_host(reads: tuple[bytes, ...], confirm: bool) -> tuple[list[ReaderEvent], bytes]:
    """Feed a session read by read (20 ms apart), confirming deliveries if asked."""
    session = HostSession()
    session.connection_made(0.0)
    events: list[ReaderEvent] = []
    sent = b""
    for index, chunk in enumerate(reads):
        now = 0.02 * (index + 1)
        new = session.receive_data(chunk, now)
        events.extend(new)
        events.extend(session.on_deadline(now))
        for event in new:
            delivery: Delivery | None = getattr(event, "delivery", None)
            if confirm and delivery is not None:
                session.confirm(delivery)
        sent += session.data_to_send()
    return events, sent


def invented_cards(delivered: list[str], frames: list[RefFrame]) -> list[str]:
    """Delivered cards not matched, in order, by a shoe CARD frame of the stream."""
    available = iter([f.fields[0] for f in frames if f.talker == "SH" and f.type == "CARD"])
    return [card for card in delivered if not any(card == other for other in available)]


def check_host(stream: fuzz.Stream, confirm: bool) -> None:
    events, sent = run_host(stream.reads, confirm)
    delivered = [event.card for event in events if isinstance(event, CardSeen)]
    assert invented_cards(delivered, reference_frames(stream.data)) == []
    replies = reference_frames(sent)
    assert len(replies) == sent.count(b"$"), sent
    assert all(reply.talker == "HO" for reply in replies)
    fuzz.count_example("srp_host", stream.inputs, bytes=len(stream.data), cards=len(delivered))


@dataclass(frozen=True, slots=True)
class ShoeScript:
    """What a protocol-following shoe sent and which of its frames the line lost."""

    stream: fuzz.Stream
    #: Cards of the frames that arrived, in the order first sent.
    cards_received: tuple[str, ...]
    lost: int


@st.composite
def shoe_scripts(draw: st.DrawFn) -> ShoeScript:
    """Sequential frames (wrapping ``seq``), resent at random, some lost, garbage between."""
    seq = draw(seq_numbers)
    pieces: list[bytes] = []
    received: list[str] = []
    lost = 0
    delivered_any = False
    for _ in range(draw(st.integers(1, 30))):
        kind = draw(st.sampled_from(["CARD", "CARD", "CARD", "CUT", "MISREAD", "HB", "STATUS"]))
        card = draw(cards)
        fields = (card,) if kind == "CARD" else ("READY",) if kind == "STATUS" else ()
        frame = build_frame("SH", str(seq), kind, fields)
        seq = (seq + 1) % 65536
        if delivered_any and draw(fuzz.one_in(10)):
            lost += 1
            continue
        delivered_any = True
        junk = draw(garbage)
        assume(not reference_frames(junk))
        pieces.append(junk)
        pieces.extend([frame] * draw(st.integers(1, 3)))
        if kind == "CARD":
            received.append(card)
    data = b"".join(pieces)
    cut_points = sorted(draw(st.sets(st.integers(0, len(data)), max_size=12)))
    bounds = [0, *cut_points, len(data)]
    reads = tuple(data[a:b] for a, b in itertools.pairwise(bounds))
    return ShoeScript(
        stream=fuzz.Stream(data=data, inputs=len(pieces), reads=reads),
        cards_received=tuple(received),
        lost=lost,
    )


def check_protocol_shoe(script: ShoeScript) -> None:
    events, sent = run_host(script.stream.reads, confirm=True)
    delivered = tuple(event.card for event in events if isinstance(event, CardSeen))
    assert delivered == script.cards_received
    assert sum(event.count for event in events if isinstance(event, FramesLost)) <= script.lost
    acks = [r for r in reference_frames(sent) if r.type == "ACK"]
    acknowledged = {(f.seq) for f in reference_frames(script.stream.data) if f.type in ACKNOWLEDGED}
    assert {int(ack.fields[0]) for ack in acks} == acknowledged
    fuzz.count_example(
        "srp_host_protocol_shoe",
        script.stream.inputs,
        bytes=len(script.stream.data),
        cards=len(delivered),
    )


@fuzz.fast_settings(2)
@given(streams())
def test_decoder_reads_exactly_the_spec_frames(stream: fuzz.Stream) -> None:
    check_decoder(stream)


@fuzz.fast_settings(2)
@given(streams(), st.booleans())
def test_host_session_never_invents_a_card(stream: fuzz.Stream, confirm: bool) -> None:
    check_host(stream, confirm)


@fuzz.fast_settings(1)
@given(shoe_scripts())
def test_host_session_delivers_each_received_card_once(script: ShoeScript) -> None:
    check_protocol_shoe(script)


#: Long-profile weights (examples per unit of ``FUZZ_EXAMPLES``).
DECODER_WEIGHT, HOST_WEIGHT, PROTOCOL_SHOE_WEIGHT = 1.0, 0.6, 0.2


def _check_host_case(case: tuple[fuzz.Stream, bool]) -> None:
    check_host(*case)


@pytest.mark.slow
@pytest.mark.parametrize("round_no", fuzz.long_rounds(DECODER_WEIGHT))
def test_long_decoder(round_no: int) -> None:
    fuzz.run_long_round("srp_decoder", check_decoder, streams(), DECODER_WEIGHT, round_no)


@pytest.mark.slow
@pytest.mark.parametrize("round_no", fuzz.long_rounds(HOST_WEIGHT))
def test_long_host_session(round_no: int) -> None:
    cases = st.tuples(streams(), st.booleans())
    fuzz.run_long_round("srp_host", _check_host_case, cases, HOST_WEIGHT, round_no)


@pytest.mark.slow
@pytest.mark.parametrize("round_no", fuzz.long_rounds(PROTOCOL_SHOE_WEIGHT))
def test_long_protocol_shoe(round_no: int) -> None:
    fuzz.run_long_round(
        "srp_protocol_shoe", check_protocol_shoe, shoe_scripts(), PROTOCOL_SHOE_WEIGHT, round_no
    )
