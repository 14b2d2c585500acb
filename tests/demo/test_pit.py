# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The automatic pit's decisions: pure, synthetic times, no loop."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from table_controller.contract.codes import Phase
from table_controller.demo.pit import (
    MIN_CARD_S,
    OPERATOR,
    PROBE_WITH_FRESH_CARDS,
    PROBE_WITH_USED_CARDS,
    RESEND_S,
    AutoPit,
    CardDealt,
    CommandAnswered,
    GiveCommand,
    LoadNewShoe,
    Pace,
    PhaseSeen,
    PitDecision,
    PitInput,
    RoundSettled,
    StatusSeen,
    pit_input,
)

PACE = Pace(card_s=1.0, betting_s=5.0, between_rounds_s=3.0, shoe_change_s=4.0)


def make_pit(**options: object) -> AutoPit:
    pit = AutoPit(pace=PACE, id_prefix="run", **options)  # type: ignore[arg-type]
    pit.handle(StatusSeen(online=True), 0.0)
    return pit


def commands(decisions: list[PitDecision]) -> list[str]:
    return [d.command if isinstance(d, GiveCommand) else "load" for d in decisions]


def answer(pit: AutoPit, decisions: list[PitDecision], now: float, *, ok: bool = True) -> None:
    give = decisions[-1]
    assert isinstance(give, GiveCommand)
    pit.handle(
        CommandAnswered(command_id=give.command_id, ok=ok, error=None if ok else "wrong_phase"),
        now,
    )


def test_pace_scales_every_pause_and_keeps_a_floor_for_cards() -> None:
    fast = Pace().at_speed(2)
    assert fast == Pace(
        card_s=Pace().card_s / 2,
        betting_s=Pace().betting_s / 2,
        between_rounds_s=Pace().between_rounds_s / 2,
        shoe_change_s=Pace().shoe_change_s / 2,
    )
    assert Pace().at_speed(1000).card_s == MIN_CARD_S
    assert Pace().at_speed(1000).betting_s == pytest.approx(Pace().betting_s / 1000)


@pytest.mark.parametrize("speed", [0.0, -1.0, float("inf"), float("nan")])
def test_a_speed_that_is_not_a_positive_number_is_refused(speed: float) -> None:
    with pytest.raises(ValueError, match="speed"):
        Pace().at_speed(speed)


@pytest.mark.parametrize(
    ("channel", "message", "expected"),
    [
        ("state", {"phase": "betting", "seq": 4}, PhaseSeen(phase="betting")),
        ("state", {"phase": None}, None),
        ("status", {"online": False, "session": 2}, StatusSeen(online=False)),
        ("status", {"online": "yes"}, None),
        ("events/round_result", {"round_id": "S-1-3"}, RoundSettled(round_id="S-1-3")),
        ("events/round_result", {}, None),
        (
            "commands/replies",
            {"id": "a-1", "ok": False, "error": "wrong_phase"},
            CommandAnswered(command_id="a-1", ok=False, error="wrong_phase"),
        ),
        ("commands/replies", {"id": "a-1", "ok": True}, CommandAnswered(command_id="a-1", ok=True)),
        ("commands/replies", {"id": None, "ok": False}, None),
        ("events/card", {"card": "QH"}, None),
        ("roads", {"shoe_id": "S-1"}, None),
    ],
)
def test_what_the_pit_reads_from_each_message(
    channel: str, message: dict[str, object], expected: PitInput | None
) -> None:
    assert pit_input(channel, message) == expected


def test_nothing_is_said_to_a_table_that_is_not_online() -> None:
    pit = AutoPit(pace=PACE, id_prefix="run")
    assert pit.due(100.0) == []
    assert pit.deadline() is None
    pit.handle(StatusSeen(online=True), 100.0)
    assert commands(pit.due(100.0)) == ["new_shoe"]


def test_a_fresh_table_is_given_a_new_shoe_at_once_and_the_untouched_cards_stay() -> None:
    pit = make_pit()
    decisions = pit.due(0.0)
    assert decisions == [GiveCommand(command_id="run-1", command="new_shoe")]
    assert decisions[0].payload() == {  # type: ignore[union-attr]
        "id": "run-1",
        "command": "new_shoe",
        "operator": OPERATOR,
        "args": {},
    }


def test_a_whole_round_with_its_pauses() -> None:
    pit = make_pit()
    answer(pit, pit.due(0.0), 0.1)
    assert pit.due(0.2) == []  # an accepted command: wait for the state it leads to
    pit.handle(PhaseSeen(phase="burn_card"), 0.2)
    pit.handle(CardDealt(), 0.5)
    pit.handle(PhaseSeen(phase="burning"), 0.5)
    assert pit.deadline() is None  # the dealer deals the burn; the pit waits
    pit.handle(PhaseSeen(phase="between_rounds"), 10.0)
    assert pit.deadline() == 10.0 + PACE.between_rounds_s
    assert pit.due(12.9) == []
    opened = pit.due(13.0)
    assert commands(opened) == ["open_betting"]
    answer(pit, opened, 13.1)
    pit.handle(PhaseSeen(phase="betting"), 13.1)
    assert pit.deadline() == pytest.approx(13.1 + PACE.betting_s)
    closed = pit.due(18.1)
    assert commands(closed) == ["close_betting"]
    answer(pit, closed, 18.2)
    pit.handle(PhaseSeen(phase="dealing"), 18.2)
    pit.handle(PhaseSeen(phase="dealing"), 19.0)
    assert pit.due(30.0) == []
    pit.handle(RoundSettled(round_id="S-1-1"), 22.0)
    pit.handle(PhaseSeen(phase="between_rounds"), 22.0)
    assert commands(pit.due(25.0)) == ["open_betting"]
    assert pit.settled == 1


def test_the_next_shoe_comes_with_fresh_cards() -> None:
    pit = make_pit()
    answer(pit, pit.due(0.0), 0.0)
    pit.handle(PhaseSeen(phase="burn_card"), 0.0)
    pit.handle(CardDealt(), 1.0)
    pit.handle(PhaseSeen(phase="shoe_over"), 100.0)
    assert pit.due(103.9) == []
    decisions = pit.due(104.0)
    assert commands(decisions) == ["load", "new_shoe"]
    assert isinstance(decisions[0], LoadNewShoe)


def test_a_variant_that_reshuffles_every_round_gets_fresh_cards_before_each_round() -> None:
    pit = make_pit(reshuffle_every_round=True)
    answer(pit, pit.due(0.0), 0.0)
    pit.handle(PhaseSeen(phase="between_rounds"), 0.0)
    opened = pit.due(3.0)
    assert commands(opened) == ["open_betting"]  # nothing dealt yet: the cards are fresh
    answer(pit, opened, 3.1)
    pit.handle(PhaseSeen(phase="betting"), 3.1)
    closed = pit.due(8.1)
    assert commands(closed) == ["close_betting"]
    answer(pit, closed, 8.2)
    pit.handle(PhaseSeen(phase="dealing"), 11.0)
    pit.handle(CardDealt(), 12.0)
    pit.handle(PhaseSeen(phase="between_rounds"), 15.0)
    assert commands(pit.due(18.0)) == ["load", "open_betting"]


def test_a_command_without_a_reply_is_sent_again_with_the_same_id() -> None:
    pit = make_pit()
    first = pit.due(0.0)
    assert pit.deadline() == RESEND_S
    assert pit.due(RESEND_S - 0.01) == []
    again = pit.due(RESEND_S)
    assert again == first
    pit.handle(CommandAnswered(command_id="someone-else-1", ok=True), 2.5)
    assert pit.due(2 * RESEND_S) == first  # an answer to another command changes nothing
    answer(pit, first, 4.1)
    assert pit.due(4.2) == []


def test_a_refused_command_makes_the_pit_probe_without_touching_a_shoe_in_play() -> None:
    pit = make_pit()
    answer(pit, pit.due(0.0), 0.0)
    pit.handle(PhaseSeen(phase="between_rounds"), 0.0)
    pit.handle(CardDealt(), 0.0)
    opened = pit.due(3.0)
    answer(pit, opened, 3.1, ok=False)  # e.g. the table was held meanwhile
    assert pit.phase is None
    probes: list[str] = []
    now = 3.1
    for _ in PROBE_WITH_USED_CARDS:
        now = pit.deadline() or now
        decisions = pit.due(now)
        probes += commands(decisions)
        answer(pit, decisions, now, ok=False)
    assert probes == ["open_betting", "close_betting", "load", "new_shoe"]
    assert pit.deadline() == now + RESEND_S  # a whole round refused: wait, then again
    assert pit.due(now + 0.5) == []
    assert commands(pit.due(now + RESEND_S)) == [PROBE_WITH_FRESH_CARDS[0]]


def test_new_shoe_is_probed_only_well_after_the_other_commands_with_used_cards() -> None:
    pit = make_pit()
    pit.handle(CardDealt(), 0.0)
    answer(pit, pit.due(0.0), 0.0, ok=False)  # open_betting
    answer(pit, pit.due(0.0), 0.0, ok=False)  # close_betting
    assert pit.due(RESEND_S - 0.1) == []
    pit.handle(PhaseSeen(phase="dealing"), 1.0)  # the dealer was mid-coup
    assert pit.due(5.0) == []
    assert pit.phase == "dealing"


def test_a_lost_state_after_an_accepted_command_is_found_by_probing() -> None:
    pit = make_pit()
    answer(pit, pit.due(0.0), 0.0)
    assert pit.deadline() == RESEND_S
    assert commands(pit.due(RESEND_S)) == list(PROBE_WITH_FRESH_CARDS[:1])


def test_a_retained_state_is_acted_on_from_the_start() -> None:
    pit = make_pit()
    pit.handle(PhaseSeen(phase="betting"), 0.0)
    assert commands(pit.due(PACE.betting_s)) == ["close_betting"]


def test_the_pit_stops_after_the_rounds_asked_for_counting_each_round_once() -> None:
    pit = make_pit(rounds=2)
    answer(pit, pit.due(0.0), 0.0)
    pit.handle(RoundSettled(round_id="S-1-1"), 1.0)
    pit.handle(RoundSettled(round_id="S-1-1"), 1.0)  # a duplicate
    assert not pit.finished
    pit.handle(RoundSettled(round_id="S-1-2"), 2.0)
    assert pit.finished
    pit.handle(PhaseSeen(phase="between_rounds"), 2.0)
    assert pit.due(100.0) == []
    assert pit.deadline() is None


#: Every phase the table publishes, as the pit reads it off the wire.
PHASES = [phase.value for phase in Phase]
INPUTS = st.one_of(
    st.builds(PhaseSeen, phase=st.sampled_from(PHASES)),
    st.builds(StatusSeen, online=st.booleans()),
    st.builds(RoundSettled, round_id=st.sampled_from(["S-1", "S-2", "S-3"])),
    st.builds(CardDealt),
    st.builds(lambda ok: ("answer", ok), st.booleans()),
)


@settings(max_examples=300, deadline=None)
@given(steps=st.lists(st.tuples(INPUTS, st.floats(0.0, 10.0)), max_size=60))
def test_one_command_at_a_time_and_fresh_cards_only_before_a_new_shoe_or_round(
    steps: list[tuple[object, float]],
) -> None:
    pit = AutoPit(pace=PACE, id_prefix="p", rounds=3, reshuffle_every_round=False)
    now = 0.0
    outstanding: GiveCommand | None = None
    online = False
    for item, pause in steps:
        now += pause
        if isinstance(item, tuple):
            if outstanding is not None:
                pit.handle(CommandAnswered(command_id=outstanding.command_id, ok=item[1]), now)
                outstanding = None
        else:
            assert isinstance(item, PhaseSeen | StatusSeen | RoundSettled | CardDealt)
            pit.handle(item, now)
            online = item.online if isinstance(item, StatusSeen) else online
        deadline = pit.deadline()
        assert deadline is None or deadline >= 0.0
        decisions = pit.due(now)
        gives = [d for d in decisions if isinstance(d, GiveCommand)]
        assert len(gives) <= 1
        if decisions and isinstance(decisions[0], LoadNewShoe):
            assert gives[0].command == "new_shoe"
        if gives:
            assert online
            assert not pit.finished
            if outstanding is not None:  # only the same command again, never a second one
                assert gives[0] == outstanding
            outstanding = gives[0]


def test_staff_sign_in_first_one_at_a_time_with_their_pins() -> None:
    pit = make_pit(sign_ins=(("D-01", "1111"), ("S-01", "9999")))
    first = pit.due(0.0)
    assert [(d.command, dict(d.args)) for d in first if isinstance(d, GiveCommand)] == [
        ("sign_in", {"staff_id": "D-01", "pin": "1111"})
    ]
    assert first[-1].payload()["operator"] == OPERATOR  # type: ignore[union-attr]
    assert pit.due(0.5) == []  # one command in flight
    answer(pit, first, 0.5)
    pit.handle(PhaseSeen(phase=Phase.NO_SHOE.value), 0.6)
    second = pit.due(0.6)
    assert [(d.command, d.args["staff_id"]) for d in second if isinstance(d, GiveCommand)] == [
        ("sign_in", "S-01")
    ]
    answer(pit, second, 0.7, ok=False)  # even refused, a sign-in is not tried again
    assert commands(pit.due(0.7 + RESEND_S)) == ["new_shoe"]


def test_after_a_sign_in_the_pit_goes_on_without_waiting_for_a_state() -> None:
    """A sign-in leaves the phase as it was.

    For staff signed in already (the demo on a journal it resumes) no ``state`` follows it.
    """
    pit = make_pit(sign_ins=(("D-01", "1111"), ("S-01", "9999")))
    pit.handle(PhaseSeen(phase="between_rounds"), 0.0)
    dealer = pit.due(0.0)
    answer(pit, dealer, 0.2)
    supervisor = pit.due(0.2)
    assert [(d.command, d.args["staff_id"]) for d in supervisor if isinstance(d, GiveCommand)] == [
        ("sign_in", "S-01")
    ]
    answer(pit, supervisor, 0.4)
    assert pit.phase == "between_rounds"
    assert pit.deadline() == 0.4 + PACE.between_rounds_s
    assert commands(pit.due(0.4 + PACE.between_rounds_s)) == ["open_betting"]
