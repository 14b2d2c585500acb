# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Stake limits: configured at start, changed by a supervisor between rounds, replayed."""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import pytest

from table_controller.contract.payloads.state import BetLimits, TableLimits
from table_controller.procedure.decisions import Decision
from table_controller.procedure.inputs import Input, LimitsConfigured, SetLimits
from table_controller.procedure.limits import amount, amount_text
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.records import (
    RecordRejected,
    input_from_record,
    input_to_record,
)
from table_controller.rules.variants import VARIANTS
from tests.procedure.test_procedure_steps import Script, accepted, one, refusal
from tests.procedure.wire import published


def bet(low: int | str, high: int | str) -> BetLimits:
    return BetLimits(min=amount(low), max=amount(high))


CONFIGURED = {"banker": bet(100, 10_000), "player": bet(100, 10_000), "tie": bet(10, 1_000)}


class LimitedScript(Script):
    """The step tests' driver, on a table configured with limits, with ``set_limits``."""

    def __init__(self, configured: dict[str, BetLimits] | None = None) -> None:
        super().__init__("commission")
        self.machine = TableProcedure(
            VARIANTS["commission"], table_id="T07",
            limits=TableLimits(currency="MOP", limits=CONFIGURED),
        )
        self.inputs: list[Input] = []
        self.configure(CONFIGURED if configured is None else configured)

    def feed(self, event: Input) -> list[Decision]:
        self.inputs.append(event)
        return super().feed(event)

    def configure(self, limits: dict[str, BetLimits], currency: str = "MOP") -> list[Decision]:
        return self.feed(LimitsConfigured(at=self._at(), currency=currency, limits=limits))

    def set_limits(self, limits: dict[str, BetLimits], *, supervisor: str | None = "S-9",
                   ) -> list[Decision]:
        common = self._common() | {"operator": "S-9", "supervisor": supervisor}
        return self.feed(SetLimits(**common, limits=limits))

    @property
    def published_limits(self) -> dict[str, Any]:
        """The ``limits`` payload the snapshot holds, as published."""
        return published([*self.all], "limits")[-1]


def test_the_configured_limits_are_published_and_in_the_snapshot() -> None:
    table = LimitedScript()
    [limits] = published(table.last, "limits")
    assert limits == {
        "type": "limits", "currency": "MOP",
        "limits": {"banker": {"min": 100, "max": 10000}, "player": {"min": 100, "max": 10000},
                   "tie": {"min": 10, "max": 1000}},
        "operator": None, "supervisor": None,
    }
    snapshot = table.machine.snapshot()
    assert snapshot.limits.currency == "MOP"
    assert snapshot.limits.limits["tie"] == bet(10, 1000)


def test_a_supervisor_changes_the_named_bets_between_rounds_and_the_others_stay() -> None:
    table = LimitedScript()
    table.ready()
    table.play("9S 2D KC 4H")
    assert table.phase() == "between_rounds"
    changed = table.set_limits({"banker": bet(200, "20000"), "player_pair": bet("0.50", 50)})
    assert accepted(changed)
    assert one(changed, "limits") == {
        "type": "limits", "currency": "MOP",
        "limits": {"banker": {"min": 200, "max": 20000}, "player": {"min": 100, "max": 10000},
                   "tie": {"min": 10, "max": 1000}, "player_pair": {"min": 0.5, "max": 50}},
        "operator": "S-9", "supervisor": "S-9",
    }
    assert table.machine.snapshot().limits.limits["player_pair"].min == Fraction(1, 2)
    assert table.phase() == "between_rounds"


@pytest.mark.parametrize("when", ["no_shoe", "shoe_over"])
def test_limits_change_with_no_shoe_in_play(when: str) -> None:
    table = LimitedScript()
    if when == "shoe_over":
        table.ready()
        table.void_shoe()
    assert table.phase() == when
    assert accepted(table.set_limits({"tie": bet(5, 500)}))
    assert table.machine.snapshot().limits.limits["tie"] == bet(5, 500)


@pytest.mark.parametrize("where", ["betting", "dealing"])
def test_a_round_in_play_refuses_a_change_with_wrong_phase(where: str) -> None:
    table = LimitedScript()
    table.ready()
    table.open()
    if where == "dealing":
        table.close()
        table.cards("9S")
    assert table.phase() == where
    refused = refusal(table.set_limits({"banker": bet(1, 2)}))
    assert refused.code.value == "wrong_phase"
    assert refused.supervisor == "S-9"
    assert not published(table.last, "limits")
    assert table.machine.snapshot().limits.limits["banker"] == bet(100, 10000)


def test_the_burn_refuses_a_change() -> None:
    table = LimitedScript()
    table.new_shoe()
    assert refusal(table.set_limits({"banker": bet(1, 2)})).code.value == "wrong_phase"


@pytest.mark.parametrize(("limits", "says"), [
    ({"dragon": bet(1, 2)}, "no bet 'dragon'"),
    ({"super_six": bet(1, 2)}, "no bet 'super_six'"),
    ({"banker": bet(500, 100)}, "banker: min 500 is above max 100"),
    ({"tie": BetLimits(min=Fraction(0), max=Fraction(10))}, "tie: min 0 must be above 0"),
    ({"tie": BetLimits(min=Fraction(-5), max=Fraction(10))}, "tie: min -5 must be above 0"),
    ({}, "names no bet"),
])
def test_invalid_limits_are_refused_and_change_nothing(limits: dict[str, BetLimits],
                                                       says: str) -> None:
    table = LimitedScript()
    refused = refusal(table.set_limits(limits))
    assert refused.code.value == "invalid_limits"
    assert says in refused.message
    assert table.machine.snapshot().limits.limits == CONFIGURED


def test_one_invalid_bet_refuses_the_whole_change() -> None:
    table = LimitedScript()
    refusal(table.set_limits({"banker": bet(1, 2), "tie": bet(9, 3)}))
    assert table.machine.snapshot().limits.limits["banker"] == bet(100, 10000)


def test_a_faulted_table_refuses_a_change() -> None:
    table = LimitedScript()
    table.machine.fault(None, origin=None, error="test")
    assert refusal(table.set_limits({"banker": bet(1, 2)})).code.value == "faulted"


def test_a_held_table_refuses_a_change() -> None:
    table = LimitedScript()
    table.ready()
    table.offline()
    assert refusal(table.set_limits({"banker": bet(1, 2)})).code.value == "table_held"


def test_a_new_configuration_changes_only_the_bets_whose_configured_limits_changed() -> None:
    table = LimitedScript()
    table.set_limits({"banker": bet(300, 3000), "tie": bet(20, 2000)})
    # banker's configured limits are the same: the supervisor's stay; tie's changed; player's
    # configured limits are gone; a new bet is configured.
    table.configure({"banker": bet(100, 10000), "tie": bet(25, 2500),
                     "banker_pair": bet(5, 500)}, currency="HKD")
    assert table.published_limits == {
        "type": "limits", "currency": "HKD",
        "limits": {"banker": {"min": 300, "max": 3000}, "tie": {"min": 25, "max": 2500},
                   "banker_pair": {"min": 5, "max": 500}},
        "operator": None, "supervisor": None,
    }
    assert table.machine.configured_limits == TableLimits(
        currency="HKD", limits={"banker": bet(100, 10000), "tie": bet(25, 2500),
                                "banker_pair": bet(5, 500)})


def test_a_replayed_journal_gives_the_same_limits() -> None:
    table = LimitedScript()
    table.ready()
    table.play("9S 2D KC 4H")
    table.set_limits({"banker": bet("150.50", 15000)})
    table.open()
    table.set_limits({"banker": bet(1, 2)})  # refused: a round is open for bets
    records = [input_to_record(event) for event in table.inputs]
    # A restart: the configuration built in is another one; the journal's rows rule.
    replayed = TableProcedure(VARIANTS["commission"], table_id="T07",
                              limits=TableLimits(currency="EUR", limits={"tie": bet(1, 9)}))
    replay_decisions: list[Decision] = []
    for record in records:
        event = input_from_record(record, default_at=0.0, default_command_id="x",
                                  default_operator="journal")
        assert not isinstance(event, RecordRejected), event
        replay_decisions += replayed.handle(event)
    assert replayed.snapshot().limits == table.machine.snapshot().limits
    assert replayed.snapshot().limits.limits["banker"] == bet("150.5", 15000)
    assert published(replay_decisions) == published(table.all)


def test_limits_records_keep_amounts_exact() -> None:
    command = SetLimits(at=1.0, command_id="c-1", operator="S-9", supervisor="S-9",
                        limits={"tie": BetLimits(min=Fraction(1, 3), max=Fraction(25, 2))})
    record = input_to_record(command)
    assert record["args"] == {"limits": {"tie": {"min": "1/3", "max": "12.5"}}}
    assert input_from_record(record, default_at=0, default_command_id="",
                             default_operator="") == command


@pytest.mark.parametrize("record", [
    {"command": "set_limits", "args": {"limits": {"tie": {"min": "ten", "max": 100}}}},
    {"command": "set_limits", "args": {"limits": {"tie": {"min": 1}}}},
    {"command": "set_limits", "args": {"limits": {"tie": {"min": True, "max": 2}}}},
    {"command": "set_limits", "args": {"limits": ["tie"]}},
    {"command": "set_limits", "args": {}},
    {"limits_configured": {"currency": "usd", "limits": {}}},
    {"limits_configured": {"currency": "USD"}},
])
def test_bad_limits_records_are_rejected(record: dict[str, object]) -> None:
    rejected = input_from_record(record, default_at=0, default_command_id="c",
                                 default_operator="o")
    assert isinstance(rejected, RecordRejected)


@pytest.mark.parametrize(("value", "exact"), [
    (100, Fraction(100)), ("0.50", Fraction(1, 2)), (0.95, Fraction(19, 20)),
    ("1/3", Fraction(1, 3)), ("12.5", Fraction(25, 2)),
])
def test_amounts_are_read_exactly_and_written_back(value: object, exact: Fraction) -> None:
    assert amount(value) == exact
    assert amount(amount_text(exact)) == exact


@pytest.mark.parametrize("value", ["ten", "", "1e5", "-5", float("nan"), True, None, 10**13])
def test_non_amounts_are_refused(value: object) -> None:
    with pytest.raises(ValueError, match=r"amount|larger"):
        amount(value)
