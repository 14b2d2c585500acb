# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Who is at the table: sign-in and sign-out, the dealer on every event, ``require_dealer``."""

from __future__ import annotations

from typing import Any

from table_controller.contract.codes import StaffRole
from table_controller.procedure.decisions import CommandAccepted, Decision, Publish
from table_controller.procedure.inputs import CardDrawn, RuntimeFailed, SignIn, SignOut
from table_controller.procedure.machine import TableProcedure
from table_controller.procedure.records import input_from_record, input_to_record
from table_controller.rules.cards import Card
from table_controller.rules.variants import VARIANTS
from tests.procedure.test_procedure_steps import Script, accepted, one, prompts, refusal
from tests.procedure.wire import published, wire


class StaffScript(Script):
    """The step tests' driver, with staff and, if asked, a dealer required."""

    def __init__(self, variant: str = "commission", *, betting: bool = True,
                 require_dealer: bool = False) -> None:
        super().__init__(variant, betting=betting)
        self.machine = TableProcedure(VARIANTS[variant], table_id="T07", betting_phase=betting,
                                      require_dealer=require_dealer)

    def sign_in(self, staff_id: str, role: StaffRole = StaffRole.DEALER) -> list[Decision]:
        return self.feed(SignIn(**self._common(), staff_id=staff_id, name=staff_id.lower(),
                                role=role))

    def sign_out(self, staff_id: str) -> list[Decision]:
        return self.feed(SignOut(**self._common(), staff_id=staff_id))


def every_event(decisions: list[Decision]) -> list[dict[str, Any]]:
    return [wire(d.payload) for d in decisions if isinstance(d, Publish)
            and d.payload.TYPE.value not in ("roads", "odds")]


def test_every_event_carries_the_dealer_signed_in_when_it_happened() -> None:
    table = StaffScript()
    assert one(table.sign_in("D-1"), "staff_changed") == {
        "type": "staff_changed", "dealer": "D-1", "previous_dealer": None, "supervisor": None,
        "staff_id": "D-1", "action": "sign_in",
    }
    table.ready()
    table.play("9S 2D KC 4H")
    events = every_event(table.all)
    assert {"shoe_started", "burn", "betting_opened", "betting_closed", "card",
            "round_result"} <= {event["type"] for event in events}
    for event in events:
        assert event["dealer"] == "D-1", event
    assert table.state["dealer"] == "D-1"
    changed = one(table.sign_in("D-2"), "staff_changed")  # a new dealer ends the last stint
    assert (changed["dealer"], changed["previous_dealer"]) == ("D-2", "D-1")
    assert one(table.play("9S 2D KC 4H"), "round_result")["dealer"] == "D-2"


def test_a_supervisor_signs_in_beside_the_dealer_and_each_signs_out() -> None:
    table = StaffScript()
    table.sign_in("D-1")
    changed = one(table.sign_in("S-9", StaffRole.SUPERVISOR), "staff_changed")
    assert (changed["dealer"], changed["previous_dealer"], changed["supervisor"]) == (
        "D-1", "D-1", "S-9")
    assert (table.state["dealer"], table.state["supervisor"]) == ("D-1", "S-9")
    out = one(table.sign_out("S-9"), "staff_changed")
    assert (out["dealer"], out["supervisor"], out["action"]) == ("D-1", None, "sign_out")
    out = one(table.sign_out("D-1"), "staff_changed")
    assert (out["dealer"], out["previous_dealer"]) == (None, "D-1")
    refused = refusal(table.sign_out("D-1"))
    assert (refused.code.value, refused.message) == ("not_signed_in",
                                                      "D-1 is not signed in at this table")


def test_a_supervisor_command_names_its_supervisor_in_the_reply_and_the_events() -> None:
    table = StaffScript()
    table.sign_in("D-1")
    table.ready()
    table.play("9S 2D KC 4H")
    table.feed(input_from_record(  # type: ignore[arg-type]
        {"command": "void_round", "args": {"round_id": "S-1-1"}, "id": "v-1",
         "operator": "display", "supervisor": "S-9"},
        default_at=9.0, default_command_id="", default_operator=""))
    voided = one(table.last, "round_voided")
    assert (voided["supervisor"], voided["dealer"], voided["operator"]) == ("S-9", "D-1",
                                                                            "display")
    reply = next(d for d in table.last if isinstance(d, CommandAccepted))
    assert reply.supervisor == "S-9"
    table.open()
    table.close()
    table.cards("9S")
    table.misread()
    entered = input_from_record(
        {"command": "manual_card", "args": {"card": "KD"}, "id": "m-1", "operator": "display",
         "supervisor": "S-9"}, default_at=10.0, default_command_id="", default_operator="")
    table.feed(entered)  # type: ignore[arg-type]
    card = one(table.last, "card")
    assert (card["card"], card["manual"], card["supervisor"]) == ("KD", True, "S-9")
    read = one(table.cards("3C"), "card")
    assert (read["manual"], read["supervisor"]) == (False, None)


def test_a_sign_in_is_journaled_without_a_pin_and_reads_back_the_same() -> None:
    event = SignIn(at=1.0, command_id="c-1", operator="display", staff_id="D-1", name="Ann",
                   role=StaffRole.DEALER)
    record = input_to_record(event)
    assert record["args"] == {"staff_id": "D-1", "name": "Ann", "role": "dealer"}
    assert input_from_record(record, default_at=0, default_command_id="",
                             default_operator="") == event
    for args in ({"staff_id": "D-1", "name": "Ann"},
                 {"staff_id": "D-1", "name": "Ann", "role": "boss"},
                 {"staff_id": "D-1", "name": "Ann", "role": "dealer", "pin": "1234"}):
        bad = input_from_record({"command": "sign_in", "args": args, "id": "c", "operator": "o"},
                                default_at=0, default_command_id="", default_operator="")
        assert not isinstance(bad, SignIn), args


def test_a_required_dealer_is_prompted_for_and_nothing_is_dealt_without_one() -> None:
    table = StaffScript(require_dealer=True)
    assert refusal(table.new_shoe()).code.value == "no_dealer"
    assert table.state["prompt"] == {"action": "sign_in"}
    table.sign_in("D-1")
    table.ready()
    assert table.phase() == "between_rounds"
    assert table.state["prompt"]["action"] == "open_betting"
    table.play("9S 2D KC 4H")
    assert accepted(table.sign_out("D-1"))
    assert prompts(table.last) == ["sign_in"]
    assert refusal(table.open()).code.value == "no_dealer"
    alarm = one(table.cards("5C"), "alarm")  # a card out of turn: it changes nothing
    assert alarm["code"] == "unnecessary_card"
    assert table.phase() == "between_rounds"


def test_without_a_betting_phase_a_card_starts_no_round_while_no_dealer_is_there() -> None:
    table = StaffScript(betting=False, require_dealer=True)
    table.sign_in("D-1")
    table.ready()
    table.sign_out("D-1")
    assert refusal(table.deal()).code.value == "no_dealer"
    assert one(table.cards("5C"), "alarm")["code"] == "unnecessary_card"
    assert table.phase() == "between_rounds"
    table.sign_in("D-2")
    assert one(table.cards("9S 2D KC 4H"), "round_result")["dealer"] == "D-2"


def test_a_required_dealer_cannot_leave_in_mid_round_but_can_be_replaced() -> None:
    table = StaffScript(require_dealer=True)
    table.sign_in("D-1")
    table.ready()
    table.open()
    table.close()
    table.cards("9S 2D")
    assert refusal(table.sign_out("D-1")).code.value == "round_in_play"
    table.sign_in("D-2")
    assert one(table.cards("KC 4H"), "round_result")["dealer"] == "D-2"


def test_staff_commands_are_taken_while_held_and_while_faulted() -> None:
    table = StaffScript()
    table.sign_in("D-1")
    table.ready()
    table.open()
    table.close()
    table.offline()
    assert table.phase() == "held"
    assert accepted(table.sign_in("D-2"))
    table.feed(RuntimeFailed(at=50.0, message="boom"))
    assert table.phase() == "faulted"
    assert accepted(table.sign_in("D-3"))
    assert accepted(table.sign_out("D-3"))
    assert table.feed(CardDrawn(at=51.0, card=Card.parse("5C"))) == []  # a fault takes no card
    assert published(table.last, "staff_changed") == []
