# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Game pace from a timeline written out by hand, its figures worked out here by hand too."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from table_controller.contract.codes import AlarmCode, HoldReason, PromptAction, VoidReason
from table_controller.contract.payloads.base import Payload
from table_controller.contract.payloads.board import Stats
from table_controller.contract.payloads.pit import AlarmRaised, StaffChanged
from table_controller.contract.payloads.round import (
    BettingClosed,
    BettingOpened,
    PromptShown,
    RoundVoided,
)
from table_controller.contract.payloads.shoe import ShoeStarted
from table_controller.contract.payloads.state import TableState
from table_controller.history.pace import Pace, seconds_of
from table_controller.procedure.decisions import Publish
from table_controller.procedure.machine import TableProcedure
from table_controller.rules.tableau import Winner
from table_controller.rules.variants import VARIANTS
from table_controller.runtime.interpreter import DecisionInterpreter
from tests.support.snapshots import settled_round

START = datetime(2026, 11, 29, 20, 0, tzinfo=UTC)


def at(seconds: float) -> str:
    return (START + timedelta(seconds=seconds)).isoformat(timespec="milliseconds").replace(
        "+00:00", "Z"
    )


def shoe(shoe_id: str) -> ShoeStarted:
    variant = VARIANTS["commission"]
    return ShoeStarted(shoe_id=shoe_id, variant=variant.name, decks=8, burn=True,
                       reshuffle=variant.reshuffle, betting_phase=True, operator="pit",
                       dealer=None)  # fmt: skip


def staff(dealer: str | None, previous: str | None) -> StaffChanged:
    return StaffChanged(dealer=dealer, previous_dealer=previous, supervisor=None,
                        staff_id=dealer or previous or "", action="sign_in")  # fmt: skip


def opened(no: int) -> BettingOpened:
    return BettingOpened(shoe_id="S-1", round_no=no, round_id=f"S-1-{no}", dealer=None,
                         bets_offered=("player",))  # fmt: skip


def closed(no: int) -> BettingClosed:
    return BettingClosed(shoe_id="S-1", round_no=no, round_id=f"S-1-{no}", dealer=None)


def won(no: int) -> Payload:
    return settled_round(no, Winner.BANKER, player=["2S", "3D"], banker=["9C", "KH"])


def voided(no: int, reason: VoidReason) -> RoundVoided:
    return RoundVoided(shoe_id="S-1", round_no=no, round_id=f"S-1-{no}", reason=reason,
                       cards=(), was_settled=False, operator=None, dealer=None,
                       supervisor=None)  # fmt: skip


def alarm(code: AlarmCode) -> AlarmRaised:
    return AlarmRaised(dealer=None, alarm_id="T07-A000001", code=code, message=code.value)


def prompt(action: PromptAction) -> PromptShown:
    reason = HoldReason.READER_OFFLINE if action is PromptAction.HOLD else None
    if reason is None:
        return PromptShown(dealer=None, action=action)
    return PromptShown(dealer=None, action=action, reason=reason)


#: A shoe by the second: two rounds and a misdeal for D-1, a hold of 20 s, alarms, then D-2.
TIMELINE: list[tuple[float, list[Payload]]] = [
    (0, [shoe("S-1"), staff("D-1", None)]),
    (10, [opened(1)]),
    (40, [closed(1)]),
    (55, [alarm(AlarmCode.MISREAD)]),
    (70, [won(1)]),  # round 30 s
    (100, [opened(2)]),  # 30 s between
    (120, [closed(2)]),
    (130, [prompt(PromptAction.HOLD)]),
    (150, [prompt(PromptAction.PLAYER_DRAWS)]),  # held 20 s
    (160, [won(2)]),  # round 40 s
    (200, [opened(3), alarm(AlarmCode.EXPOSED_CARD)]),  # 40 s between
    (210, [closed(3)]),
    (220, [voided(3, VoidReason.MISDEAL)]),
    (250, [alarm(AlarmCode.UNNECESSARY_CARD)]),
    (300, [staff("D-2", "D-1")]),
    (310, [opened(4)]),  # 90 s between
    (320, [closed(4)]),
    (350, [won(4)]),  # round 30 s
]


def played(timeline: list[tuple[float, list[Payload]]]) -> tuple[Pace, list[Stats]]:
    pace = Pace()
    published = []
    for second, payloads in timeline:
        stats = pace.observe(at(second), payloads)
        if stats is not None:
            published.append(stats)
    return pace, published


def test_the_shoe_the_stint_and_the_hour_have_the_figures_worked_out_by_hand() -> None:
    _, published = played(TIMELINE)
    # After: shoe start, each result, the misdeal, the dealer change.
    assert len(published) == 6
    last = published[-1]
    assert (last.shoe_id, last.dealer) == ("S-1", "D-2")
    shoe_figures = last.shoe
    assert shoe_figures is not None
    assert shoe_figures.since == at(0)
    assert shoe_figures.rounds == 3
    assert shoe_figures.rounds_per_hour == round(3 * 3600 / 350, 1)
    assert shoe_figures.median_round_seconds == 30.0  # 30, 40, 30
    assert shoe_figures.median_between_rounds_seconds == 40.0  # 30, 40, 90
    assert (shoe_figures.voids, shoe_figures.misdeals) == (1, 1)
    assert (shoe_figures.exposed_cards, shoe_figures.misreads) == (1, 1)
    assert shoe_figures.unnecessary_cards == 1
    assert shoe_figures.hold_seconds == 20.0
    stint = last.stint
    assert stint is not None
    assert stint.since == at(300)
    assert (stint.rounds, stint.rounds_per_hour) == (1, round(3600 / 50, 1))
    assert (stint.median_round_seconds, stint.median_between_rounds_seconds) == (30.0, 90.0)
    assert (stint.voids, stint.hold_seconds) == (0, 0.0)
    assert last.last_hour == shoe_figures  # the table has run for less than an hour


def test_the_last_hour_forgets_what_is_older_and_a_new_shoe_starts_afresh() -> None:
    later: list[tuple[float, list[Payload]]] = [
        *TIMELINE, (3700, [opened(5)]), (3710, [closed(5)]), (3730, [won(5)])
    ]
    pace, published = played(later)
    hour = published[-1].last_hour
    assert hour.since == at(3730 - 3600)
    assert hour.rounds == 3  # rounds 2 (at 160), 4 and 5; round 1 ended before the hour
    assert hour.rounds_per_hour == 3.0
    assert (hour.voids, hour.misreads, hour.exposed_cards) == (1, 0, 1)  # the misread at 55 not
    assert hour.hold_seconds == 20.0  # 130 to 150 is inside the hour
    stats = pace.observe(at(3800), [shoe("S-2")])
    assert stats is not None
    assert stats.shoe is not None
    assert (stats.shoe_id, stats.shoe.rounds, stats.shoe.since) == ("S-2", 0, at(3800))
    assert stats.shoe.rounds_per_hour is None  # the shoe has only just started
    assert stats.stint is not None
    assert stats.stint.rounds == 2  # rounds 4 and 5: the stint goes on across shoes


def test_no_dealer_no_stint_and_inputs_between_rounds_publish_nothing() -> None:
    pace = Pace()
    first = pace.observe(at(0), [shoe("S-1")])
    assert first is not None
    assert (first.dealer, first.stint) == (None, None)
    assert first.shoe is not None
    assert first.shoe.rounds_per_hour is None  # no time has passed yet
    assert pace.observe(at(5), [opened(1)]) is None
    assert pace.observe(at(6), [staff("D-1", None)]) is not None
    assert pace.observe(at(7), [staff("D-1", "D-1")]) is None  # the same dealer: no new stint
    signed_out = pace.observe(at(8), [staff(None, "D-1")])
    assert signed_out is not None
    assert signed_out.stint is None


def test_a_clock_stepped_back_never_gives_a_negative_time_and_bad_stamps_are_skipped() -> None:
    pace = Pace()
    pace.observe(at(100), [shoe("S-1")])
    pace.observe(at(110), [opened(1)])
    pace.observe(at(120), [closed(1)])
    stats = pace.observe(at(60), [won(1)])  # the wall clock went back 60 s
    assert stats is not None
    assert stats.shoe is not None
    assert stats.shoe.median_round_seconds == 0.0
    assert pace.observe("not a time", [shoe("S-2")]) is None
    assert seconds_of("2026-11-29T20:00:00") == seconds_of("2026-11-29T20:00:00.000Z")


def test_the_interpreter_publishes_what_its_pace_adds_as_the_inputs_last_message() -> None:
    snapshot = TableProcedure(VARIANTS["commission"], table_id="T07").snapshot()
    decisions = [Publish(payload=shoe("S-1"))]
    paced = DecisionInterpreter(pace=Pace()).interpret(decisions, snapshot, key="9", ts=at(0))
    assert [(m.key, type(m.payload)) for m in paced.messages] == [
        ("9.0", ShoeStarted), ("9.1", TableState), ("9.2", Stats),
    ]  # fmt: skip
    bare = DecisionInterpreter().interpret(decisions, snapshot, key="9", ts=at(0))
    assert [m.payload for m in bare.messages] == [m.payload for m in paced.messages[:2]]
    untimed = DecisionInterpreter(pace=Pace()).interpret(decisions, snapshot, key="9", ts=None)
    assert [type(m.payload) for m in untimed.messages] == [ShoeStarted, TableState]
