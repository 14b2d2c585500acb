# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The supervisor's holds (modified software, disputes, a second source), open alarms, calls."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from table_controller.contract.codes import AlarmCode, Phase
from table_controller.procedure.decisions import Decision, RaiseAlarm
from table_controller.procedure.errors import ProcedureBug
from table_controller.procedure.inputs import (
    Acknowledge,
    AcknowledgeAlarm,
    CallSupervisor,
    CardDrawn,
    ConfirmResult,
    Input,
    OpenDispute,
    ResolveDispute,
    RuntimeFailed,
    SoftwareModified,
)
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.records import input_from_record, input_to_record
from table_controller.procedure.states import ROUTES, Trigger
from table_controller.procedure.table import Out, Table
from table_controller.rules.cards import Card
from table_controller.rules.variants import VARIANTS
from tests.procedure.test_procedure_steps import Script, accepted, one, prompts, refusal
from tests.procedure.wire import published


class OverseenScript(Script):
    """The step tests' driver, with the oversight commands and, if asked, confirmed results."""

    def __init__(self, *, betting: bool = True, confirm_results: bool = False) -> None:
        super().__init__("commission", betting=betting)
        self.machine = TableProcedure(VARIANTS["commission"], table_id="T07",
                                      betting_phase=betting, confirm_results=confirm_results)
        #: Every input fed, in order (a replay's records).
        self.inputs: list[Input] = []

    def feed(self, event: Input) -> list[Decision]:
        self.inputs.append(event)
        return super().feed(event)

    def _supervised(self) -> dict[str, Any]:
        return self._common() | {"operator": "S-9", "supervisor": "S-9"}

    def dispute(self, *round_ids: str, reason: str = "patron says the banker had 7") -> list[
            Decision]:
        return self.feed(OpenDispute(**self._supervised(), reason=reason, round_ids=round_ids))

    def resolve(self, dispute_id: str, outcome: str = "video checked: result stands") -> list[
            Decision]:
        return self.feed(ResolveDispute(**self._supervised(), dispute_id=dispute_id,
                                        outcome=outcome))

    def acknowledge(self, alarm: str) -> list[Decision]:
        return self.feed(Acknowledge(**self._supervised(), alarm=alarm))

    def acknowledge_alarm(self, alarm_id: str, comment: str | None = None) -> list[Decision]:
        return self.feed(AcknowledgeAlarm(**self._supervised(), alarm_id=alarm_id,
                                          comment=comment))

    def call_supervisor(self) -> list[Decision]:
        return self.feed(CallSupervisor(**self._common()))

    def confirm(self, round_id: str, *, agrees: bool = True) -> list[Decision]:
        return self.feed(ConfirmResult(**self._common(), round_id=round_id, agrees=agrees))

    def software_modified(self) -> list[Decision]:
        return self.feed(SoftwareModified(at=self._at(), message="1 file changed",
                                          details={"changed": ["table_controller/cli/run.py"]}))


def types(decisions: list[Decision]) -> list[str]:
    return [event["type"] for event in published(decisions)]


# --- disputes ---------------------------------------------------------------------------------


def test_a_dispute_holds_the_table_and_queues_the_cards_until_it_is_resolved() -> None:
    table = OverseenScript()
    table.ready()
    table.play("9S 2D KC 4H")
    opened = table.dispute("S-1-1")
    assert accepted(opened)
    assert one(opened, "dispute_opened") == {
        "type": "dispute_opened", "dispute_id": "T07-D0001", "round_ids": ["S-1-1"],
        "reason": "patron says the banker had 7", "dealer": None, "supervisor": "S-9",
    }
    assert table.phase() == "held"
    assert table.state["holds"] == ["dispute"]
    assert table.state["dispute"] == {"dispute_id": "T07-D0001", "reason":
                                      "patron says the banker had 7", "round_ids": ["S-1-1"],
                                      "supervisor": "S-9"}
    assert refusal(table.open()).code.value == "table_held"
    assert refusal(table.dispute("S-1-1")).code.value == "dispute_open"
    queued = table.cards("5C")
    assert {"card", "alarm"}.isdisjoint(types(queued))  # queued behind the hold, not taken
    assert table.state["queued_inputs"] == 1
    assert refusal(table.resolve("T07-D0002")).code.value == "no_such_dispute"
    resolved = table.resolve("T07-D0001")
    assert one(resolved, "dispute_resolved")["outcome"] == "video checked: result stands"
    assert table.state["dispute"] is None
    assert table.state["queued_inputs"] == 0  # the queued card played: an unnecessary card
    assert table.phase() == "between_rounds"
    second = table.dispute("S-1-1", "S-1-2")  # the next dispute takes the next number
    assert one(second, "dispute_opened")["dispute_id"] == "T07-D0002"


def test_a_dispute_names_only_rounds_of_this_tables_shoes() -> None:
    table = OverseenScript()
    table.ready()
    refused = refusal(table.dispute("S-9-1"))
    assert refused.code.value == "unknown_round"
    assert refusal(table.dispute("S-1-x")).code.value == "unknown_round"


def test_a_dispute_holds_a_table_with_no_shoe_and_a_faulted_one_too() -> None:
    table = OverseenScript()
    table.ready()
    table.play("9S 2D KC 4H")
    table.void_shoe()
    table.dispute("S-1-1")
    assert table.phase() == "held"
    assert refusal(table.new_shoe("S-2")).code.value == "table_held"
    table.resolve("T07-D0001")
    assert table.phase() == "shoe_over"
    table.feed(RuntimeFailed(at=99.0, message="the card source broke"))
    assert accepted(table.dispute("S-1-1"))  # taken while faulted: it deals no card
    assert table.phase() == "faulted"


# --- modified software -------------------------------------------------------------------------


def test_modified_software_holds_until_a_supervisor_acknowledges_it() -> None:
    table = OverseenScript()
    alarm = one(table.software_modified(), "alarm")
    assert alarm["code"] == "software_modified"
    assert alarm["changed"] == ["table_controller/cli/run.py"]
    assert table.phase() == "held"
    assert refusal(table.new_shoe()).code.value == "table_held"
    assert refusal(table.acknowledge("result_not_confirmed")).code.value == (
        "nothing_to_acknowledge")
    assert accepted(table.acknowledge("software_modified"))
    assert table.phase() == "no_shoe"
    assert accepted(table.new_shoe())


# --- open alarms -----------------------------------------------------------------------------


def open_ids(table: OverseenScript) -> list[str]:
    return [alarm["alarm_id"] for alarm in table.state["open_alarms"]]


def test_every_alarm_stays_open_until_a_supervisor_acknowledges_it() -> None:
    table = OverseenScript()
    table.ready()
    table.play("9S 2D KC 4H")
    unnecessary = one(table.cards("5C"), "alarm")
    assert (unnecessary["alarm_id"], unnecessary["code"]) == ("T07-A000001", "unnecessary_card")
    table.open()
    table.close()
    table.cards("8S")
    misread = one(table.misread(), "alarm")
    assert (misread["alarm_id"], misread["code"]) == ("T07-A000002", "misread")
    assert table.state["open_alarms"] == [  # newest first, whether it holds the table or not
        {"alarm_id": "T07-A000002", "code": "misread", "shoe_id": "S-1", "round_id": "S-1-2",
         "message": "a card came out unread: enter it by hand or void the round"},
        {"alarm_id": "T07-A000001", "code": "unnecessary_card", "shoe_id": "S-1",
         "round_id": "S-1-1", "message": unnecessary["message"]},
    ]
    assert table.state["open_alarm_count"] == 2
    assert "acknowledge_alarm" in table.machine.snapshot().commands

    acknowledged = table.acknowledge_alarm("T07-A000002", comment="card entered next")
    assert accepted(acknowledged)
    assert one(acknowledged, "alarm_acknowledged") == {
        "type": "alarm_acknowledged", "alarm_id": "T07-A000002", "code": "misread",
        "comment": "card entered next", "dealer": None, "supervisor": "S-9",
    }
    assert open_ids(table) == ["T07-A000001"]
    assert table.state["holds"] == ["misread"]  # the alarm is closed; its hold stands
    assert table.phase() == "held"
    again = refusal(table.acknowledge_alarm("T07-A000002"))
    assert (again.code.value, again.message) == (
        "already_acknowledged", "alarm T07-A000002 was acknowledged already")
    for unknown in ("T07-A000003", "T08-A000001", "T07-A0000002", "T07-A00000\u0662", "misread"):
        assert refusal(table.acknowledge_alarm(unknown)).code.value == "unknown_alarm"
    table.manual("3D")
    assert one(table.acknowledge_alarm("T07-A000001"), "alarm_acknowledged")["comment"] is None
    assert (table.state["open_alarms"], table.state["open_alarm_count"]) == ([], 0)
    assert "acknowledge_alarm" not in table.machine.snapshot().commands
    nothing = refusal(table.acknowledge_alarm("T07-A000001"))
    assert nothing.code.value == "already_acknowledged"


def test_an_alarm_is_acknowledged_before_any_shoe_and_while_faulted() -> None:
    table = OverseenScript()
    table.cards("KD")  # no shoe yet
    assert open_ids(table) == ["T07-A000001"]
    assert accepted(table.acknowledge_alarm("T07-A000001"))
    table.ready()
    table.feed(RuntimeFailed(at=99.0, message="the card source broke"))
    assert table.phase() == "faulted"
    fault = table.state["open_alarms"][0]
    assert (fault["alarm_id"], fault["code"]) == ("T07-A000002", "procedure_fault")
    assert accepted(table.acknowledge_alarm("T07-A000002", comment="logged for the vendor"))
    assert table.phase() == "faulted"  # only void_shoe leaves the fault
    assert refusal(table.acknowledge_alarm("T07-A000002")).code.value == "already_acknowledged"


def test_state_lists_the_newest_open_alarms_and_counts_them_all() -> None:
    table = OverseenScript()
    for _ in range(12):
        table.cards("KD")
    assert open_ids(table) == [f"T07-A{n:06d}" for n in range(12, 2, -1)]
    assert table.state["open_alarm_count"] == 12
    assert accepted(table.acknowledge_alarm("T07-A000001"))  # an old one, not listed
    assert table.state["open_alarm_count"] == 11
    assert len(table.state["open_alarms"]) == 10


def test_a_replay_of_the_records_gives_the_same_ids_and_open_alarms() -> None:
    table = OverseenScript()
    table.ready()
    table.cards("5C")
    table.lost(1)
    table.acknowledge_alarm("T07-A000001", comment="dealer reminded")
    table.acknowledge_alarm("T07-A000009")  # refused: no such alarm
    table.software_modified()
    replayed = TableProcedure(VARIANTS["commission"], table_id="T07")
    for given in table.inputs:
        again = input_from_record(input_to_record(given), default_at=0.0,
                                  default_command_id="", default_operator="")
        assert again == given
        replayed.handle(given)
    assert replayed.snapshot().state == table.machine.snapshot().state
    assert open_ids(table) == ["T07-A000003", "T07-A000002"]


def test_the_alarms_of_an_input_that_fails_are_withdrawn_and_their_ids_skipped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = OverseenScript()
    table.ready()
    table.open()
    table.close()

    def alarm_then_bug(table_: Table, out: Out, _drawn: object) -> Phase:
        out.alarm(table_.shoe, AlarmCode.UNNECESSARY_CARD, "raised, then the step fails")
        raise KeyError("7D")

    routes = ROUTES[Phase.DEALING]
    monkeypatch.setitem(routes, Trigger.CARD, replace(routes[Trigger.CARD], step=alarm_then_bug))
    with pytest.raises(ProcedureBug) as caught:
        table.machine.handle(CardDrawn(at=9.0, card=Card.parse("7D")))
    (fault,) = [d.alarm for d in caught.value.decisions if isinstance(d, RaiseAlarm)]
    assert (fault.alarm_id, fault.code.value) == ("T07-A000002", "procedure_fault")
    assert open_ids(table) == ["T07-A000002"]  # T07-A000001 never went out
    assert refusal(table.acknowledge_alarm("T07-A000001")).code.value == "unknown_alarm"


# --- calling a supervisor ---------------------------------------------------------------------


def test_a_call_raises_an_alarm_and_the_dealing_goes_on_until_a_supervisor_acknowledges_it(
) -> None:
    table = OverseenScript()
    table.ready()
    table.open()
    table.close()
    table.cards("9S 2D")
    assert "call_supervisor" in table.machine.snapshot().commands
    called = table.call_supervisor()
    assert accepted(called)
    assert one(called, "alarm") == {
        "type": "alarm", "alarm_id": "T07-A000001", "code": "supervisor_called",
        "message": "a supervisor is called to the table (by pit-12): open until a supervisor "
                   "acknowledges it",
        "shoe_id": "S-1", "round_no": 1, "round_id": "S-1-1", "dealer": None,
    }
    assert "prompt" not in types(called)  # no hold: the dealer deals on
    assert (table.phase(), table.state["holds"]) == ("dealing", [])
    assert open_ids(table) == ["T07-A000001"]
    assert "call_supervisor" not in table.machine.snapshot().commands
    again = refusal(table.call_supervisor())
    assert (again.code.value, again.message) == (
        "already_called", "a supervisor is called already: T07-A000001 is open until acknowledged")
    assert one(table.cards("KC 4H"), "round_result")["round_id"] == "S-1-1"
    unnecessary = one(table.cards("5C"), "alarm")["alarm_id"]

    assert accepted(table.acknowledge_alarm("T07-A000001", comment="on my way"))
    assert open_ids(table) == [unnecessary]  # another alarm open does not stop a call
    assert "call_supervisor" in table.machine.snapshot().commands
    second = one(table.call_supervisor(), "alarm")
    assert (second["alarm_id"], second["code"]) == ("T07-A000003", "supervisor_called")
    assert (second["shoe_id"], "round_id" in second) == ("S-1", False)  # between rounds


def test_a_call_is_taken_before_any_shoe_while_held_and_while_faulted() -> None:
    table = OverseenScript()
    first = one(table.call_supervisor(), "alarm")
    assert ("shoe_id" in first, table.phase()) == (False, "no_shoe")
    table.acknowledge_alarm(first["alarm_id"])
    table.ready()
    table.play("9S 2D")
    table.misread()
    assert table.phase() == "held"
    assert accepted(table.call_supervisor())
    assert (table.phase(), table.state["holds"]) == ("held", ["misread"])
    table.acknowledge_alarm(open_ids(table)[0])
    table.feed(RuntimeFailed(at=99.0, message="the card source broke"))
    assert one(table.call_supervisor(), "alarm")["round_id"] == "S-1-1"
    assert table.phase() == "faulted"
    assert [alarm["code"] for alarm in table.state["open_alarms"]] == [
        "supervisor_called", "procedure_fault", "misread"]
    assert refusal(table.call_supervisor()).code.value == "already_called"


def test_a_call_goes_out_at_once_while_a_result_waits_for_its_confirmation() -> None:
    table = OverseenScript(confirm_results=True)
    table.ready()
    table.play("9S 2D KC 4H")
    called = table.call_supervisor()
    assert types(called)[0] == "alarm"  # not held back with the result
    assert "round_result" not in types(called)
    assert one(called, "alarm")["code"] == "supervisor_called"
    assert table.state["unconfirmed_round_id"] == "S-1-1"


def test_a_replay_of_the_records_gives_the_same_calls() -> None:
    table = OverseenScript()
    table.ready()
    table.call_supervisor()
    table.call_supervisor()  # refused: the first is open
    table.play("9S 2D KC 4H")
    table.acknowledge_alarm("T07-A000001")
    table.call_supervisor()
    replayed = TableProcedure(VARIANTS["commission"], table_id="T07")
    decisions = []
    for given in table.inputs:
        again = input_from_record(input_to_record(given), default_at=0.0,
                                  default_command_id="", default_operator="")
        assert again == given
        decisions.extend(replayed.handle(given))
    assert replayed.snapshot() == table.machine.snapshot()
    assert published(decisions) == published(table.all)
    assert open_ids(table) == ["T07-A000002"]
    assert "call_supervisor" not in replayed.snapshot().commands


# --- the second source -----------------------------------------------------------------------


def test_a_result_is_published_only_once_the_second_source_confirms_it() -> None:
    table = OverseenScript(confirm_results=True)
    table.ready()
    dealt = table.play("9S 2D KC 4H")
    assert "round_result" not in types(dealt)
    assert "roads" not in types(dealt)
    assert prompts(dealt)[-1] == "confirm_result"
    assert table.state["unconfirmed_round_id"] == "S-1-1"
    assert refusal(table.open()).code.value == "result_unconfirmed"
    assert refusal(table.confirm("S-1-2")).code.value == "nothing_to_confirm"
    confirmed = table.confirm("S-1-1")
    assert accepted(confirmed)
    assert types(confirmed)[:2] == ["round_result", "roads"]
    assert table.state["unconfirmed_round_id"] is None
    assert prompts(confirmed) == ["result"]  # shown until the next round opens
    assert accepted(table.open())


def test_the_shoes_end_waits_with_the_last_result() -> None:
    table = OverseenScript(confirm_results=True)
    table.ready()
    table.open()
    table.close()
    table.cards("9S 2D")
    table.cut()
    ended = table.cards("KC 4H")
    assert "shoe_ended" not in types(ended)
    assert types(table.confirm("S-1-1"))[:3] == ["round_result", "roads", "shoe_ended"]


def test_without_a_betting_phase_a_card_does_not_start_a_round_while_a_result_waits() -> None:
    table = OverseenScript(betting=False, confirm_results=True)
    table.ready()
    table.deal()
    table.cards("9S 2D KC 4H")
    stray = table.cards("5C")
    assert one(stray, "alarm")["code"] == "unnecessary_card"
    assert table.phase() == "between_rounds"


def test_a_disagreement_holds_until_the_supervisor_corrects_the_round() -> None:
    table = OverseenScript(confirm_results=True)
    table.ready()
    table.play("9S 2D KC 4H")
    rejected = table.confirm("S-1-1", agrees=False)
    assert one(rejected, "alarm")["code"] == "result_not_confirmed"
    assert "round_result" not in types(rejected)
    assert table.state["holds"] == ["result_not_confirmed"]
    assert refusal(table.confirm("S-1-1")).code.value == "nothing_to_confirm"
    corrected = table.correct("S-1-1", "KC 8D", "2D 4H")
    assert accepted(corrected)
    assert types(corrected)[:3] == ["round_result", "roads", "result_corrected"]
    assert one(corrected, "result_corrected")["round_id"] == "S-1-1"
    assert table.phase() == "between_rounds"
    assert table.state["holds"] == []


def test_a_disagreement_may_end_in_a_void_or_the_result_as_read() -> None:
    table = OverseenScript(confirm_results=True)
    table.ready()
    table.play("9S 2D KC 4H")
    table.confirm("S-1-1", agrees=False)
    assert refusal(table.void_round("S-1-0")).code.value in {"unknown_round", "result_unconfirmed"}
    voided = table.void_round("S-1-1")
    assert types(voided)[:3] == ["round_result", "roads", "round_voided"]
    table.play("9S 2D KC 4H")
    table.confirm("S-1-2", agrees=False)
    acknowledged = table.acknowledge("result_not_confirmed")
    assert types(acknowledged)[:2] == ["round_result", "roads"]
    assert table.phase() == "between_rounds"


# --- records -------------------------------------------------------------------------------------


@pytest.mark.parametrize("event", [
    OpenDispute(at=1.0, command_id="c-1", operator="S-9", supervisor="S-9", reason="why",
                round_ids=("S-1-1", "S-1-2")),
    ResolveDispute(at=1.0, command_id="c-2", operator="S-9", supervisor="S-9",
                   dispute_id="T07-D0001", outcome="stands"),
    Acknowledge(at=1.0, command_id="c-3", operator="S-9", supervisor="S-9",
                alarm="software_modified"),
    ConfirmResult(at=1.0, command_id="c-4", operator="camera-1", round_id="S-1-1",
                  agrees=False),
    AcknowledgeAlarm(at=1.0, command_id="c-5", operator="S-9", supervisor="S-9",
                     alarm_id="T07-A000001", comment="seen: dealer reminded"),
    AcknowledgeAlarm(at=1.0, command_id="c-6", operator="pit-1", supervisor="pit-1",
                     alarm_id="T07-A000002"),
    SoftwareModified(at=1.0, message="2 files changed", details={"changed": ["a", "b"]}),
    CallSupervisor(at=1.0, command_id="c-7", operator="display"),
])
def test_the_inputs_go_to_records_and_back(event: object) -> None:
    record = input_to_record(event)  # type: ignore[arg-type]
    assert input_from_record(record, default_at=0.0, default_command_id="",
                             default_operator="") == event


@pytest.mark.parametrize(("args", "why"), [
    ({"reason": "x", "rounds": []}, "'rounds' must list 1 to 50 different round ids"),
    ({"reason": "x", "rounds": ["S-1-1", "S-1-1"]}, "'rounds' must list 1 to 50"),
    ({"reason": "x", "rounds": [f"S-1-{n}" for n in range(51)]}, "'rounds' must list 1 to 50"),
    ({"reason": "", "rounds": ["S-1-1"]}, "'reason' must be a non-empty string"),
])
def test_a_bad_dispute_record_is_refused_with_why(args: dict[str, object], why: str) -> None:
    rejected = input_from_record({"command": "dispute", "args": args}, default_at=0.0,
                                 default_command_id="c", default_operator="o")
    assert why in getattr(rejected, "reason", "")
