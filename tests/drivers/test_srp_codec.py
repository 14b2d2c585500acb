# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""SRP/1 decoder: hand-written golden frames, and properties over any byte stream."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from drivers.srp.codec import (
    MAX_REJECTED_RAW,
    Decoded,
    FrameDecoder,
    FrameRejected,
    RejectReason,
    parse_frame,
)
from drivers.srp.constants import MAX_FRAME_BYTES, RANKS, SUITS, Lamp
from drivers.srp.frames import Frame, FrameType, Talker
from tests.drivers.driver_test_support import Vector, load_vectors

SRP_VECTORS = load_vectors("srp_frames.txt")
PROPERTY = settings(
    derandomize=True, max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)


def expected_items(vector: Vector) -> list[Decoded]:
    items: list[Decoded] = []
    for kind, *rest in vector.expected:
        if kind == "frame":
            talker, seq, frame_type, *fields = rest
            items.append(
                Frame(
                    talker=Talker(talker),
                    seq=int(seq),
                    type=FrameType(frame_type),
                    fields=tuple(fields),
                )
            )
        else:
            assert kind == "reject", vector
            items.append(FrameRejected(reason=RejectReason(rest[0]), raw=b"<any>"))
    return items


def same_outcome(decoded: list[Decoded], expected: list[Decoded]) -> bool:
    """Frames compare exactly; rejections by reason (their raw bytes are checked elsewhere)."""
    if len(decoded) != len(expected):
        return False
    for got, want in zip(decoded, expected, strict=True):
        if isinstance(want, FrameRejected):
            if not isinstance(got, FrameRejected) or got.reason is not want.reason:
                return False
        elif got != want:
            return False
    return True


@pytest.mark.parametrize("vector", SRP_VECTORS, ids=lambda v: f"line{v.line_number}")
def test_golden_frame_decodes_as_written(vector: Vector) -> None:
    decoded = FrameDecoder().feed(vector.wire)
    assert same_outcome(decoded, expected_items(vector)), decoded


@pytest.mark.parametrize("vector", SRP_VECTORS, ids=lambda v: f"line{v.line_number}")
def test_golden_frame_decodes_the_same_byte_by_byte(vector: Vector) -> None:
    decoder = FrameDecoder()
    decoded = [item for byte in vector.wire for item in decoder.feed(bytes([byte]))]
    assert decoded == FrameDecoder().feed(vector.wire)


@pytest.mark.parametrize(
    "vector",
    # One frame each; "007" is accepted on input but an encoder writes "7".
    [
        v
        for v in SRP_VECTORS
        if len(v.expected) == 1 and v.expected[0][0] == "frame" and b",007," not in v.wire
    ],
    ids=lambda v: f"line{v.line_number}",
)
def test_golden_frame_is_what_the_encoder_writes(vector: Vector) -> None:
    (frame,) = expected_items(vector)
    assert isinstance(frame, Frame)
    assert frame.encode() == vector.wire


def test_rejections_are_counted_by_reason() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"$SH,17,CARD,QH*3D\r\n$SH,17,CARD,QH*3D\r\nxx\n$XX,9,HB*33\r\n")
    assert decoder.rejected == {
        RejectReason.BAD_CHECKSUM: 2,
        RejectReason.GARBAGE: 1,
        RejectReason.BAD_TALKER: 1,
    }
    assert decoder.frames == 0


def test_too_long_keeps_the_first_82_bytes_and_reports_once() -> None:
    decoder = FrameDecoder()
    items = decoder.feed(b"$" + b"9" * 500 + b"\r\n")
    assert items == [FrameRejected(reason=RejectReason.TOO_LONG, raw=b"$" + b"9" * 81)]


def test_garbage_sample_is_capped() -> None:
    decoder = FrameDecoder()
    assert decoder.feed(b"z" * 10_000) == []
    assert decoder.buffered() <= MAX_REJECTED_RAW
    (item,) = decoder.feed(b"\n")
    assert item == FrameRejected(reason=RejectReason.GARBAGE, raw=b"z" * MAX_REJECTED_RAW)


def test_reset_reports_a_partial_frame_as_truncated() -> None:
    decoder = FrameDecoder()
    decoder.feed(b"$SH,3,CA")
    assert decoder.reset() == [FrameRejected(reason=RejectReason.TRUNCATED, raw=b"$SH,3,CA")]
    assert decoder.buffered() == 0
    assert decoder.reset() == []


def test_parse_frame_checks_length_first() -> None:
    assert parse_frame(b"$" + b"A" * 90 + b"\r\n") == FrameRejected(
        reason=RejectReason.TOO_LONG, raw=(b"$" + b"A" * 90)[:MAX_REJECTED_RAW]
    )


# --- properties ------------------------------------------------------------------------------

shoe_frames = st.builds(
    Frame,
    talker=st.just(Talker.SHOE),
    seq=st.integers(0, 65535),
    type=st.just(FrameType.CARD),
    fields=st.tuples(st.builds(lambda r, s: r + s, st.sampled_from(RANKS), st.sampled_from(SUITS))),
) | st.sampled_from(
    [
        Frame(talker=Talker.SHOE, seq=1, type=FrameType.HB),
        Frame(talker=Talker.SHOE, seq=2, type=FrameType.CUT),
        Frame(talker=Talker.SHOE, seq=3, type=FrameType.STATUS, fields=("FAULT", "E7")),
        Frame(talker=Talker.SHOE, seq=4, type=FrameType.HELLO, fields=("M", "1.0", "SN1")),
        Frame(talker=Talker.HOST, seq=5, type=FrameType.ACK, fields=("4",)),
        Frame(talker=Talker.HOST, seq=6, type=FrameType.LAMP, fields=(Lamp.BANKER.value,)),
    ]
)


@st.composite
def corrupted_frame(draw: st.DrawFn) -> bytes:
    """A valid frame with one byte changed, inserted or deleted."""
    raw = bytearray(draw(shoe_frames).encode())
    position = draw(st.integers(0, len(raw) - 1))
    match draw(st.sampled_from(["flip", "insert", "delete"])):
        case "flip":
            raw[position] ^= draw(st.integers(1, 255))
        case "insert":
            raw.insert(position, draw(st.integers(0, 255)))
        case _:
            del raw[position]
    return bytes(raw)


garbage = st.one_of(
    st.binary(max_size=120),
    st.lists(
        st.sampled_from(
            [b"$", b"*", b",", b"\r", b"\n", b"SH", b"HO", b"CARD", b"QH", b"3C", b"17"]
        ),
        max_size=30,
    ).map(b"".join),
    corrupted_frame(),
    st.builds(lambda frame, cut: frame.encode()[:cut], shoe_frames, st.integers(0, 20)),
)


def chunked(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({cut % (len(data) + 1) for cut in cuts})
    edges = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(edges)]


def decode_in_chunks(chunks: list[bytes]) -> list[Decoded]:
    decoder = FrameDecoder()
    items = [item for chunk in chunks for item in decoder.feed(chunk)]
    assert decoder.buffered() <= 2 * MAX_FRAME_BYTES
    return items


@PROPERTY
@given(data=st.binary(max_size=600), cuts=st.lists(st.integers(0, 600), max_size=40))
def test_any_bytes_split_anywhere_decode_the_same(data: bytes, cuts: list[int]) -> None:
    whole = decode_in_chunks([data])
    assert decode_in_chunks(chunked(data, cuts)) == whole
    assert decode_in_chunks([bytes([b]) for b in data]) == whole


@PROPERTY
@given(
    pieces=st.lists(st.tuples(garbage, shoe_frames), max_size=12),
    tail=garbage,
    cuts=st.lists(st.integers(0, 2000), max_size=60),
)
def test_frames_between_garbage_come_out_exactly_and_nothing_else(
    pieces: list[tuple[bytes, Frame]], tail: bytes, cuts: list[int]
) -> None:
    junk = [noise for noise, _ in pieces] + [tail]
    # Garbage that happens to hold a valid frame was, in effect, sent: leave such draws out.
    assume(not any(isinstance(i, Frame) for noise in junk for i in FrameDecoder().feed(noise)))
    stream = b"".join(noise + frame.encode() for noise, frame in pieces) + tail
    sent = [frame for _, frame in pieces]

    decoded = decode_in_chunks(chunked(stream, cuts))

    assert [item for item in decoded if isinstance(item, Frame)] == sent
    assert decoded == decode_in_chunks([stream])


@PROPERTY
@given(data=st.binary(max_size=400))
def test_every_rejection_is_counted_and_bounded(data: bytes) -> None:
    decoder = FrameDecoder()
    items = decoder.feed(data) + decoder.reset()
    rejected = [item for item in items if isinstance(item, FrameRejected)]
    assert sum(decoder.rejected.values()) == len(rejected)
    assert all(0 < len(item.raw) <= MAX_REJECTED_RAW for item in rejected)


@PROPERTY
@given(frame=shoe_frames)
def test_every_encoded_frame_decodes_to_itself(frame: Frame) -> None:
    assert FrameDecoder().feed(frame.encode()) == [frame]
