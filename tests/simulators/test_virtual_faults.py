# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The fault plan: its grammar, scenario files, what leaves the shoe, what reaches the line."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from drivers.srp.codec import FrameDecoder, FrameRejected, RejectReason
from drivers.srp.frames import Frame, FrameType, Talker
from simulators.virtual_shoe.beetek import BeeTekStyle
from simulators.virtual_shoe.deck import Shoe
from simulators.virtual_shoe.faults import (
    ALL_TRANSMISSIONS,
    CorruptFrame,
    DealtCard,
    DealtCutCard,
    DealtMisread,
    DelayFrame,
    DropFrame,
    Fault,
    FaultPlan,
    FaultSyntaxError,
    ForeignCard,
    MisreadCard,
    PowerCycle,
    ShoeRanOut,
    SplitFrame,
    StallHeartbeats,
    Unplug,
    WireChunk,
    apply_frame_faults,
    corrupt_bytes,
    parse_faults,
    resolve_draw,
)
from simulators.virtual_shoe.scenarios import ScenarioError, parse_scenario

CARD_FRAME = Frame(talker=Talker.SHOE, seq=17, type=FrameType.CARD, fields=("QH",)).encode()


def test_the_grammar_reads_every_kind_with_defaults_and_parameters() -> None:
    plan = parse_faults(
        "drop:card=5,corrupt:card=9:times=2,split:card=3:parts=4:gap=0.1,delay:card=8:seconds=0.6,"
        "misread:card=7,foreign:card=11:code=10h,stall:card=12,power-cycle:card=13,"
        "unplug:card=14:seconds=3.5,drop:card=20:times=all"
    )
    assert plan.faults == (
        DropFrame(card=5),
        CorruptFrame(card=9, times=2),
        SplitFrame(card=3, parts=4, gap=0.1),
        DelayFrame(card=8, seconds=0.6),
        MisreadCard(card=7),
        ForeignCard(card=11, code="TH"),
        StallHeartbeats(card=12, seconds=4.0),
        PowerCycle(card=13),
        Unplug(card=14, seconds=3.5),
        DropFrame(card=20, times=ALL_TRANSMISSIONS),
    )


def test_an_empty_fault_list_is_no_fault() -> None:
    assert parse_faults("") == FaultPlan()
    assert parse_faults(" , ") == FaultPlan()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("explode:card=1", "unknown fault kind 'explode'"),
        ("drop", "card=N"),
        ("drop:card=0", "card='0' must be 1 or more"),
        ("drop:card=x", "card='x'"),
        ("drop:card=1:parts=2", "unknown parameter 'parts'"),
        ("drop:card=1:times=10", "at most 9 times"),
        ("split:card=1:parts=1", "must be 2 or more"),
        ("delay:card=1:seconds=-1", "seconds='-1'"),
        ("delay:card=1:seconds=nan", "seconds='nan'"),
        ("foreign:card=1:code=ZZ", "is not a card"),
        ("drop:card", "is not NAME=VALUE"),
        ("drop:card=1:card=2", "card given twice"),
    ],
)
def test_a_bad_fault_is_refused_naming_the_offending_part(text: str, message: str) -> None:
    with pytest.raises(FaultSyntaxError, match=message):
        parse_faults(text)


_cards = st.integers(min_value=1, max_value=500)
_times = st.integers(min_value=1, max_value=ALL_TRANSMISSIONS)
_seconds = st.sampled_from([0.05, 0.5, 1.25, 2.0, 4.0])
_faults: st.SearchStrategy[Fault] = st.one_of(
    st.builds(DropFrame, card=_cards, times=_times),
    st.builds(CorruptFrame, card=_cards, times=_times),
    st.builds(SplitFrame, card=_cards, parts=st.integers(2, 9), gap=_seconds, times=_times),
    st.builds(DelayFrame, card=_cards, seconds=_seconds, times=_times),
    st.builds(MisreadCard, card=_cards),
    st.builds(ForeignCard, card=_cards, code=st.sampled_from(["AS", "TH", "KC"])),
    st.builds(StallHeartbeats, card=_cards, seconds=_seconds),
    st.builds(PowerCycle, card=_cards),
    st.builds(Unplug, card=_cards, seconds=_seconds),
)


@given(st.lists(_faults, max_size=8))
def test_a_plan_written_out_reads_back_the_same(faults: list[Fault]) -> None:
    plan = FaultPlan(faults=tuple(faults))
    assert parse_faults(plan.describe()) == plan


def test_the_plan_answers_what_strikes_each_draw() -> None:
    plan = parse_faults("drop:card=2,corrupt:card=2,unplug:card=2,stall:card=3,misread:card=4")
    assert plan.frame_faults(2) == (DropFrame(card=2), CorruptFrame(card=2))
    assert plan.link_faults(2) == (Unplug(card=2),)
    assert plan.link_faults(3) == (StallHeartbeats(card=3),)
    assert plan.is_misread(4)
    assert not plan.is_misread(2)
    assert plan.foreign_card(4) is None


def test_a_foreign_card_takes_the_draw_and_leaves_the_shoe_untouched() -> None:
    shoe = Shoe(cards=["2S", "3S", "4S"], cut_depth=1)
    plan = parse_faults("foreign:card=1:code=QH,misread:card=3")
    dealt = [resolve_draw(plan, shoe, number) for number in range(1, 7)]
    assert dealt == [
        DealtCard(number=1, card="QH", foreign=True),
        DealtCard(number=2, card="2S"),
        DealtCutCard(number=3),  # a misread aimed at the cut card does nothing
        DealtCard(number=4, card="3S"),
        DealtCard(number=5, card="4S"),
        ShoeRanOut(),
    ]


def test_a_misread_card_leaves_the_shoe_unrecognised() -> None:
    shoe = Shoe(cards=["2S", "3S"], cut_depth=None)
    plan = parse_faults("misread:card=2")
    assert resolve_draw(plan, shoe, 1) == DealtCard(number=1, card="2S")
    assert resolve_draw(plan, shoe, 2) == DealtMisread(number=2, actual="3S")
    assert shoe.remaining == 0


def test_without_faults_a_frame_reaches_the_line_whole_at_once() -> None:
    assert apply_frame_faults(CARD_FRAME, (), transmission=0, now=3.0) == (
        WireChunk(at=3.0, data=CARD_FRAME),
    )


def test_a_drop_loses_only_the_first_transmissions() -> None:
    faults = (DropFrame(card=1, times=2),)
    assert apply_frame_faults(CARD_FRAME, faults, transmission=0, now=0.0) == ()
    assert apply_frame_faults(CARD_FRAME, faults, transmission=1, now=0.25) == ()
    assert apply_frame_faults(CARD_FRAME, faults, transmission=2, now=0.5) == (
        WireChunk(at=0.5, data=CARD_FRAME),
    )


def test_a_corrupted_frame_is_rejected_for_its_checksum() -> None:
    (chunk,) = apply_frame_faults(CARD_FRAME, (CorruptFrame(card=1),), transmission=0, now=0.0)
    assert chunk.data != CARD_FRAME
    assert len(chunk.data) == len(CARD_FRAME)
    (rejected,) = FrameDecoder().feed(chunk.data)
    assert isinstance(rejected, FrameRejected)
    assert rejected.reason is RejectReason.BAD_CHECKSUM


@given(
    frame=st.builds(
        Frame,
        talker=st.just(Talker.SHOE),
        seq=st.integers(0, 65535),
        type=st.sampled_from([FrameType.CARD]),
        fields=st.tuples(st.sampled_from(["AS", "TD", "QH", "9C"])),
    )
)
def test_every_corrupted_frame_is_rejected(frame: Frame) -> None:
    decoded = FrameDecoder().feed(corrupt_bytes(frame.encode()))
    assert [type(item) for item in decoded] == [FrameRejected]


def test_a_corrupted_text_line_loses_its_tag_not_its_card() -> None:
    assert corrupt_bytes(b" [Game]<Card:4S> \r\n") == b" [Game]<Bard:4S> \r\n"


def test_a_split_frame_arrives_in_pieces_that_join_to_the_frame() -> None:
    chunks = apply_frame_faults(
        CARD_FRAME, (SplitFrame(card=1, parts=3, gap=0.1),), transmission=0, now=1.0
    )
    assert [chunk.at for chunk in chunks] == pytest.approx([1.0, 1.1, 1.2])
    assert b"".join(chunk.data for chunk in chunks) == CARD_FRAME
    assert all(chunk.data for chunk in chunks)


def test_a_delayed_frame_reaches_the_line_late_and_only_as_often_as_asked() -> None:
    faults = (DelayFrame(card=1, seconds=0.6),)
    assert apply_frame_faults(CARD_FRAME, faults, transmission=0, now=1.0) == (
        WireChunk(at=1.6, data=CARD_FRAME),
    )
    assert apply_frame_faults(CARD_FRAME, faults, transmission=1, now=1.25)[0].at == 1.25


def test_a_scenario_file_gives_faults_and_the_bee_tek_style() -> None:
    scenario = parse_scenario(
        """
        [[fault]]
        kind = "unplug"
        card = 7
        seconds = 2.5

        [[fault]]
        kind = "drop"
        card = 12
        times = "all"

        [beetek]
        ten = "10"
        suit_first = true
        """
    )
    assert scenario.faults == FaultPlan(
        faults=(Unplug(card=7, seconds=2.5), DropFrame(card=12, times=ALL_TRANSMISSIONS))
    )
    assert scenario.beetek == BeeTekStyle(ten="10", suit_first=True, padded=True)


def test_an_empty_scenario_is_no_fault_and_the_usual_style() -> None:
    scenario = parse_scenario("# nothing\n")
    assert scenario.faults == FaultPlan()
    assert scenario.beetek == BeeTekStyle()


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("[[fault]\n", "not TOML"),
        ("[other]\n", "unknown key 'other'"),
        ("[[fault]]\ncard = 1\n", "fault 1: needs kind"),
        ('[[fault]]\nkind = "drop"\ncard = 1\n[[fault]]\nkind = "drop"\n', "fault 2: drop: says"),
        ('[[fault]]\nkind = "drop"\ncard = true\n', "is not a number"),
        ('fault = "drop"\n', "array of tables"),
        ('[beetek]\nten = "X"\n', "ten = 'X'"),
        ("[beetek]\nsuit_first = 1\n", "expected true or false"),
        ("[beetek]\ncolour = 1\n", "unknown key 'colour'"),
    ],
)
def test_a_bad_scenario_is_refused_naming_the_entry(text: str, message: str) -> None:
    with pytest.raises(ScenarioError, match=message):
        parse_scenario(text)
