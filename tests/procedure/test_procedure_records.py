# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Input records round-trip, bad records are values; the envelope and money on the wire."""

from __future__ import annotations

import json
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.contract.codes import EventType
from table_controller.contract.envelope import SCHEMA, dumps, envelope, to_wire
from table_controller.procedure import inputs
from table_controller.procedure.inputs import Input
from table_controller.procedure.records import (
    RecordRejected,
    input_from_record,
    input_to_record,
)
from table_controller.rules.cards import Card, all_cards

cards = st.sampled_from(list(all_cards()))
times = st.floats(min_value=0, max_value=1e9, allow_nan=False)
texts = st.text(min_size=1, max_size=12)


def _command(cls: Any, **fields: Any) -> st.SearchStrategy[Input]:
    return st.builds(cls, at=times, command_id=texts, operator=texts, **fields)


any_input: st.SearchStrategy[Input] = st.one_of(
    st.builds(inputs.CardDrawn, at=times, card=cards),
    st.builds(inputs.CutCardDrawn, at=times),
    st.builds(inputs.CardMisread, at=times),
    st.builds(inputs.FramesLost, at=times, count=st.integers(1, 50)),
    st.builds(inputs.ReaderWentOffline, at=times),
    st.builds(inputs.ReaderCameBack, at=times),
    _command(inputs.StartNewShoe, shoe_id=st.none() | texts),
    _command(inputs.OpenBetting),
    _command(inputs.CloseBetting),
    _command(inputs.Deal),
    _command(inputs.Misdeal),
    _command(inputs.VoidRound, round_id=texts),
    _command(inputs.VoidShoe),
    _command(inputs.EnterCard, card=cards),
    _command(inputs.CorrectResult, round_id=texts, player=st.tuples(cards, cards),
             banker=st.tuples(cards, cards, cards)),
    _command(inputs.DroppedCard, read=st.booleans()),
)


def read(record: object) -> Input | RecordRejected:
    return input_from_record(record, default_at=7.0, default_command_id="line-7",
                             default_operator="replay")


@given(any_input)
def test_every_input_round_trips_through_its_json_record(event: Input) -> None:
    record = json.loads(json.dumps(input_to_record(event)))
    assert read(record) == event


def test_the_records_of_the_cli_spec_are_read_with_defaults() -> None:
    assert read({"card": "KH"}) == inputs.CardDrawn(at=7.0, card=Card("K", "H"))
    assert read({"card": "TH", "at": 3}) == inputs.CardDrawn(at=3.0, card=Card("T", "H"))
    assert isinstance(read({"card": "10h"}), RecordRejected)  # one card rule: as the shoe writes it
    assert read({"cut": True}) == inputs.CutCardDrawn(at=7.0)
    assert read({"misread": True}) == inputs.CardMisread(at=7.0)
    assert read({"reader": "offline"}) == inputs.ReaderWentOffline(at=7.0)
    assert read({"frames_lost": 2}) == inputs.FramesLost(at=7.0, count=2)
    assert read({"command": "new_shoe", "args": {"shoe_id": "S-1"}}) == inputs.StartNewShoe(
        at=7.0, command_id="line-7", operator="replay", shoe_id="S-1")
    assert read({"command": "close_betting", "id": "x", "operator": "pit-1",
                 "ts": "2026-11-29T12:00:00Z"}) == inputs.CloseBetting(at=7.0, command_id="x",
                                                                       operator="pit-1")


@pytest.mark.parametrize(("record", "words"), [
    ([], "JSON object"),
    ({}, "exactly one"),
    ({"card": "KH", "cut": True}, "exactly one"),
    ({"card": "1X"}, "not a card"),
    ({"card": 5}, "not a card"),
    ({"cut": False}, "must be true"),
    ({"frames_lost": 0}, ">= 1"),
    ({"frames_lost": True}, ">= 1"),
    ({"reader": "asleep"}, "'offline' or 'online'"),
    ({"card": "KH", "colour": "red"}, "unknown field 'colour'"),
    ({"card": "KH", "v": 2}, "version"),
    ({"card": "KH", "at": "soon"}, "'at'"),
    ({"command": "shuffle"}, "unknown command"),
    ({"command": "void_round"}, "needs argument 'round_id'"),
    ({"command": "deal", "args": {"now": True}}, "no argument 'now'"),
    ({"command": "dropped_card", "args": {"read": "yes"}}, "'read'"),
    ({"command": "correct_result", "args": {"round_id": "S-1", "player": "KH",
                                            "banker": []}}, "list of cards"),
    ({"command": "new_shoe", "args": {"shoe_id": ""}}, "non-empty"),
])
def test_bad_records_are_rejected_with_a_reason(record: object, words: str) -> None:
    rejected = read(record)
    assert isinstance(rejected, RecordRejected)
    assert words in rejected.reason


def test_the_envelope_comes_first_and_money_becomes_numbers() -> None:
    payload = {"type": "roads", "shoe_id": "S-1", "settlement": {
        "banker": Fraction(19, 20), "player": Fraction(-1), "big": "not_offered",
        "tie": Fraction(8)}, "event": EventType.CARD, "cards": ("QH", None)}
    message = envelope("round_result", payload, table_id="T07", seq=12, ts=None)
    assert list(message)[:5] == ["schema", "type", "table_id", "seq", "ts"]
    assert (message["schema"], message["type"], message["seq"]) == (SCHEMA, "round_result", 12)
    assert message["settlement"] == {"banker": 0.95, "player": -1, "big": "not_offered",
                                     "tie": 8}
    assert isinstance(message["settlement"], dict)
    assert isinstance(message["settlement"]["player"], int)
    assert message["event"] == "card"
    assert message["cards"] == ["QH", None]
    text = dumps(message)
    assert '"banker":0.95' in text
    assert json.loads(text) == message


def test_to_wire_refuses_what_json_cannot_carry() -> None:
    with pytest.raises(TypeError, match="cannot publish a set"):
        to_wire({"bad": {1, 2}})
