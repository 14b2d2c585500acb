# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fuzzing the Bee-Tek text-line profile: no crash, bounded buffer, zero invented cards.

Lines are built from the profile's grammar (cards in both orders, ``10`` or ``T``, burn mode,
padding), then mutated, mixed with alarms, warnings, random text, random bytes and overlong
lines, joined with LF or CR LF and split at arbitrary boundaries. Oracles:

* ``parse_line`` never raises, and returns a card exactly when an independent regular
  expression written from docs/shoe-protocol.md ("The text-line profile") reads one, with the
  same card and mode;
* ``TextLineSession.receive_data`` never raises, holds at most one line's worth of bytes,
  gives the same events however the stream is split, and its cards and misreads are exactly
  those of the complete lines of the stream (none invented, none missed).
"""

from __future__ import annotations

import re
from typing import Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.events import CardMisread, CardSeen, ReaderEvent
from drivers.textline import MAX_LINE_BYTES, TextLineSession, parse_line
from tests.fuzz import fuzz_support as fuzz

_PAD: Final = "[ \t\r]*"
_RANK: Final = "(?:[A2-9TJQK]|10)"
_SUIT: Final = "[SHDC]"
#: A card line, written from the spec: the mode tag, then the card in either order.
_REFERENCE_CARD: Final = re.compile(
    rf"{_PAD}\[(?P<tag>Game|Manual Burn Cards)\]{_PAD}"
    rf"<Card:(?:(?P<rank>{_RANK})(?P<suit>{_SUIT})|(?P<suit2>{_SUIT})(?P<rank2>{_RANK}))>{_PAD}"
)
_REFERENCE_MISREAD: Final = re.compile(rf"{_PAD}\[(?:Game|Manual Burn Cards)\]{_PAD}<Game>{_PAD}")

Reading = tuple[str, str, bool]  # ("card", "TS", burn) or ("misread", "", False)


def reference_reading(line: bytes) -> Reading | None:
    """What the spec says a line (without its LF) reports, if it is a card or a misread."""
    if len(line) > MAX_LINE_BYTES or not line.isascii():
        return None
    text = line.decode("ascii")
    if _REFERENCE_MISREAD.fullmatch(text):
        return ("misread", "", False)
    card = _REFERENCE_CARD.fullmatch(text)
    if card is None:
        return None
    rank = card["rank"] or card["rank2"]
    suit = card["suit"] or card["suit2"]
    return ("card", ("T" if rank == "10" else rank) + suit, card["tag"] != "Game")


def event_reading(event: ReaderEvent | None) -> Reading | None:
    if isinstance(event, CardSeen):
        assert event.delivery is None
        return ("card", event.card, event.burn_mode)
    if isinstance(event, CardMisread):
        return ("misread", "", False)
    return None


pads = st.sampled_from(["", " ", "  ", "\t", " \r"])
ranks = st.sampled_from([*"A23456789TJQK", "10"])
suits = st.sampled_from("SHDC")
tags = st.sampled_from(["[Game]", "[Manual Burn Cards]", "[GameAlarm]", "[game]", "", "[]"])


@st.composite
def card_lines(draw: st.DrawFn) -> bytes:
    rank, suit = draw(ranks), draw(suits)
    value = rank + suit if draw(st.booleans()) else suit + rank
    text = f"{draw(pads)}{draw(tags)}{draw(pads)}<Card:{value}>{draw(pads)}"
    return text.encode("ascii")


other_lines = st.sampled_from(
    [
        b" [Game]<Game> ",
        b"[Manual Burn Cards]<Game>",
        b"<Game>",
        b" <Alarm:E3 Card Not Read> ",
        b"[GameAlarm]<Alarm:E3 Card Not Read>",
        b"<W0x01>",
        b" [Game]<W0x02> ",
        b"",
        b"   ",
        b"[Game]<Card:>",
        b"[Game]<Card:QHH>",
        b"[Game]<Card:1H>",
        b"[Game]<Card:qh>",
        b"[Game]<Card:Q H>",
        b"[Game]<Card:QH><Card:KH>",
        b"[Game][Game]<Card:QH>",
    ]
)
text_noise = st.text(alphabet="[]<>:GameCardBurnW0x1 TQKSH10\t\r", max_size=40).map(str.encode)


@st.composite
def mutated_lines(draw: st.DrawFn) -> bytes:
    line = bytearray(draw(card_lines() | other_lines))
    if not line:
        return b""
    at = draw(st.integers(0, len(line) - 1))
    byte = draw(st.integers(0, 255).filter(lambda b: b != 0x0A))
    match draw(st.sampled_from(["flip", "drop", "insert"])):
        case "flip":
            line[at] = byte
        case "drop":
            del line[at]
        case _:
            line.insert(at, byte)
    return bytes(line)


lines = st.one_of(
    card_lines(),
    card_lines(),
    other_lines,
    mutated_lines(),
    text_noise,
    st.binary(max_size=30).map(lambda b: b.replace(b"\n", b"")),
    st.builds(lambda line, n: line * n, card_lines(), st.integers(8, 12)),
)


@st.composite
def line_streams(draw: st.DrawFn) -> fuzz.Stream:
    chosen = draw(st.lists(lines, min_size=4, max_size=32))
    endings = draw(st.lists(st.sampled_from([b"\r\n", b"\n"]), min_size=len(chosen)))
    data = b"".join(line + end for line, end in zip(chosen, endings, strict=False))
    data += draw(st.binary(max_size=6))  # a tail that may never be finished
    reads = fuzz.split_into_reads(draw, data, max_read=300)
    return fuzz.Stream(data=data, inputs=len(chosen), reads=reads)


def session_readings(reads: tuple[bytes, ...]) -> list[Reading]:
    session = TextLineSession()
    session.connection_made(0.0)
    readings = []
    for index, chunk in enumerate(reads):
        for event in session.receive_data(chunk, 0.01 * index):
            reading = event_reading(event)
            if reading is not None:
                readings.append(reading)
        # The one place a private is read: the buffer bound has no public measure.
        assert len(session._line) <= MAX_LINE_BYTES
    return readings


def check_parse_lines(batch: list[bytes]) -> None:
    for line in batch:
        assert event_reading(parse_line(line)) == reference_reading(line), line
    fuzz.count_example("textline_parse_line", len(batch), bytes=sum(map(len, batch)))


def check_session(stream: fuzz.Stream) -> None:
    readings = session_readings(stream.reads)
    assert session_readings((stream.data,)) == readings
    complete_lines = stream.data.split(b"\n")[:-1]
    expected = [reading for line in complete_lines if (reading := reference_reading(line))]
    assert readings == expected
    cards = sum(1 for reading in readings if reading[0] == "card")
    fuzz.count_example("textline_session", stream.inputs, bytes=len(stream.data), cards=cards)


#: What each example of both profiles gives ``parse_line``: a batch of lines.
line_batches = st.lists(lines, min_size=8, max_size=32)


@fuzz.fast_settings(2)
@given(line_batches)
def test_parse_line_reads_a_card_only_where_the_spec_does(batch: list[bytes]) -> None:
    check_parse_lines(batch)


@fuzz.fast_settings(2)
@given(line_streams())
def test_session_cards_are_exactly_the_card_lines(stream: fuzz.Stream) -> None:
    check_session(stream)


#: Long-profile weights (examples per unit of ``FUZZ_EXAMPLES``).
PARSE_LINE_WEIGHT, SESSION_WEIGHT = 0.6, 0.6


@pytest.mark.slow
@pytest.mark.parametrize("round_no", fuzz.long_rounds(PARSE_LINE_WEIGHT))
def test_long_parse_line(round_no: int) -> None:
    fuzz.run_long_round(
        "textline_parse_line", check_parse_lines, line_batches, PARSE_LINE_WEIGHT, round_no
    )


@pytest.mark.slow
@pytest.mark.parametrize("round_no", fuzz.long_rounds(SESSION_WEIGHT))
def test_long_textline_session(round_no: int) -> None:
    fuzz.run_long_round("textline_session", check_session, line_streams(), SESSION_WEIGHT, round_no)
