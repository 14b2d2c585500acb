# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Bee-Tek text-line profile: hand-written golden lines and properties."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from drivers.events import (
    CardMisread,
    CardSeen,
    LineRejected,
    ReaderAlarm,
    ReaderEvent,
    ReaderOffline,
    ReaderOnline,
    ReaderWarning,
)
from drivers.srp.constants import RANKS, SUITS, Lamp
from drivers.textline import MAX_LINE_BYTES, TextLineSession, parse_line
from tests.drivers.driver_test_support import Vector, load_vectors

BEETEK_VECTORS = load_vectors("beetek_lines.txt")
PROPERTY = settings(derandomize=True, max_examples=300, deadline=None)


def expected_events(vector: Vector) -> list[ReaderEvent]:
    events: list[ReaderEvent] = []
    for kind, *rest in vector.expected:
        match kind:
            case "card":
                events.append(CardSeen(card=rest[0], burn_mode=rest[1] == "burn"))
            case "misread":
                events.append(CardMisread())
            case "alarm":
                events.append(ReaderAlarm(code=rest[0], text=" ".join(rest[1:])))
            case "warning":
                events.append(ReaderWarning(code=rest[0]))
            case "reject":
                events.append(LineRejected(reason=rest[0], raw=b"<any>"))
            case "none":
                pass
            case _:
                pytest.fail(f"unknown expectation {kind!r} in {vector}")
    return events


def comparable(events: list[ReaderEvent]) -> list[object]:
    return [(e.reason if isinstance(e, LineRejected) else e) for e in events]


@pytest.mark.parametrize("vector", BEETEK_VECTORS, ids=lambda v: f"line{v.line_number}")
def test_golden_line(vector: Vector) -> None:
    events = TextLineSession().receive_data(vector.wire, now=0.0)
    assert comparable(events) == comparable(expected_events(vector))


@pytest.mark.parametrize("vector", BEETEK_VECTORS, ids=lambda v: f"line{v.line_number}")
def test_golden_line_byte_by_byte(vector: Vector) -> None:
    session = TextLineSession()
    events = [e for byte in vector.wire for e in session.receive_data(bytes([byte]), now=0.0)]
    assert events == TextLineSession().receive_data(vector.wire, now=0.0)


def test_rejected_line_keeps_its_bytes_and_is_counted() -> None:
    session = TextLineSession()
    events = session.receive_data(b"[Game]<Card:4X>\r\nhello\r\n", now=0.0)
    assert events == [
        LineRejected(reason="bad_card", raw=b"[Game]<Card:4X>\r"),
        LineRejected(reason="unparseable", raw=b"hello\r"),
    ]
    assert session.rejected == {"bad_card": 1, "unparseable": 1}


def test_overlong_line_is_rejected_once_and_the_next_line_parses() -> None:
    session = TextLineSession()
    events = session.receive_data(b"x" * 1000 + b"\r\n [Game]<Card:4S> \r\n", now=0.0)
    assert comparable(events) == ["too_long", CardSeen(card="4S")]
    assert isinstance(events[0], LineRejected)
    assert len(events[0].raw) == MAX_LINE_BYTES


def test_online_while_the_port_is_open_and_a_cut_line_is_reported() -> None:
    session = TextLineSession()
    assert session.connection_made(0.0) == [ReaderOnline()]
    session.receive_data(b" [Game]<Car", now=0.1)
    assert session.connection_lost(0.2, "unplugged") == [
        LineRejected(reason="truncated", raw=b" [Game]<Car"),
        ReaderOffline(reason="unplugged"),
    ]
    # the partial line is not glued to the next connection's bytes
    session.connection_made(1.0)
    assert session.receive_data(b"d:4S>\r\n", now=1.1) == [
        LineRejected(reason="unparseable", raw=b"d:4S>\r")
    ]


def test_no_acknowledgement_lamp_or_deadline() -> None:
    session = TextLineSession()
    session.connection_made(0.0)
    session.receive_data(b"[Game]<Card:4S>\r\n", now=0.0)
    session.set_lamp(Lamp.PLAYER)
    session.confirm(None)
    assert session.data_to_send() == b""
    assert session.deadline() is None
    assert session.on_deadline(1e9) == []


# --- properties ------------------------------------------------------------------------------

cards = st.builds(lambda r, s: r + s, st.sampled_from(RANKS), st.sampled_from(SUITS))


def written(card: str, suit_first: bool, ten_as_10: bool) -> str:
    rank, suit = card[0], card[1]
    rank = "10" if rank == "T" and ten_as_10 else rank
    return suit + rank if suit_first else rank + suit


@PROPERTY
@given(
    dealt=st.lists(st.tuples(cards, st.booleans(), st.booleans(), st.booleans()), max_size=20),
    noise=st.lists(st.binary(max_size=40).filter(lambda b: b"<" not in b), max_size=20),
    cuts=st.lists(st.integers(0, 3000), max_size=40),
)
def test_cards_between_noise_lines_come_out_exactly_and_nothing_else(
    dealt: list[tuple[str, bool, bool, bool]], noise: list[bytes], cuts: list[int]
) -> None:
    lines = []
    for index, (card, burn, suit_first, ten_as_10) in enumerate(dealt):
        tag = "Manual Burn Cards" if burn else "Game"
        lines.append(f" [{tag}]<Card:{written(card, suit_first, ten_as_10)}> \r\n".encode())
        if index < len(noise):
            lines.append(noise[index].replace(b"\n", b"") + b"\r\n")
    stream = b"".join(lines)
    points = sorted({cut % (len(stream) + 1) for cut in cuts})
    edges = [0, *points, len(stream)]
    session = TextLineSession()
    events = [
        e for a, b in itertools.pairwise(edges) for e in session.receive_data(stream[a:b], 0.0)
    ]
    seen = [(e.card, e.burn_mode) for e in events if isinstance(e, CardSeen)]
    assert seen == [(card, burn) for card, burn, _, _ in dealt]


@PROPERTY
@given(line=st.binary(max_size=300))
def test_any_line_is_parsed_or_rejected_never_raises(line: bytes) -> None:
    event = parse_line(line)
    if isinstance(event, CardSeen):
        assert b"<Card:" in line
        assert line.strip().startswith((b"[Game]", b"[Manual Burn Cards]"))
