# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Command ids over a real broker: whose an id is, what a repeat gets, and what ids may hold.

``table-controller run`` runs a virtual table against a real mosquitto (``running_table``);
the tests publish commands as the backend (anyone the broker lets publish, an attacker with a
stolen login included) and as the pit's supervisor login, and read the replies as a backend
does. A second ``running_table`` on the same ``tmp_path`` is the same table restarted from its
journal, so every rule is checked across a restart too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest

from table_controller.contract.commands.message import CommandMessage
from table_controller.contract.errors import CommandErrorCode
from table_controller.ingress.authorisation import sign
from tests.mosquitto import Mosquitto
from tests.support.command_table import SUPERVISOR, running_table
from tests.support.staff import STAFF, write_register

pytestmark = pytest.mark.broker

SECRET: Final = "table-T07-command-secret-0123456789"
#: Signed mode: supervisor commands carry an HMAC signature.
SIGNED: Final = {"TABLE_CONTROLLER_COMMAND_SECRET": SECRET}
#: Signed mode for every command.
SIGN_ALL: Final = {**SIGNED, "TABLE_CONTROLLER_SIGN_ALL_COMMANDS": "true"}
#: The envelope's fields, new for every message: a reply given again differs only in these.
ENVELOPE_PER_MESSAGE: Final = ("seq", "ts")


def cmd(command_id: str, name: str, operator: str = "pit-1", **args: object) -> dict[str, Any]:
    return {"id": command_id, "command": name, "operator": operator, "args": args}


def signed(command: dict[str, Any]) -> dict[str, Any]:
    """The command with the signature the supervisor's system puts on it."""
    message = CommandMessage.model_validate(command)
    signed_message = sign(message, SECRET.encode())
    document: dict[str, Any] = json.loads(signed_message.model_dump_json(exclude_none=True))
    return document


def answer(reply: dict[str, Any]) -> dict[str, Any]:
    """A reply without the fields every message has of its own."""
    return {name: value for name, value in reply.items() if name not in ENVELOPE_PER_MESSAGE}


def refused(reply: dict[str, Any], command_id: str | None, error: str) -> bool:
    return (reply["id"], reply["ok"], reply.get("error")) == (command_id, False, error)


async def test_a_guessed_id_answered_first_does_not_give_its_reply_to_the_signed_command(
    broker: Mosquitto, tmp_path: Path
) -> None:
    """An unsigned ``recall`` sent as ``s1`` takes the id; the supervisor's ``s1`` is told."""
    async with running_table(broker, tmp_path, env=SIGNED) as table:
        assert (await table.over_mqtt(cmd("n1", "new_shoe")))["ok"]
        recall = await table.over_mqtt(cmd("s1", "recall", operator="intruder-9"))
        assert (recall["ok"], recall["command"]) == (True, "recall")
        void = signed(cmd("s1", "void_shoe", operator=SUPERVISOR))
        reply = await table.over_mqtt(void, user="pit")
        assert refused(reply, "s1", CommandErrorCode.ID_REUSED), reply
        assert reply["command"] == "void_shoe"
        assert "rounds" not in reply  # never the recall's answer
        assert await table.phase() != "shoe_over"  # nothing was voided
        again = await table.over_mqtt(
            signed(cmd("s2", "void_shoe", operator=SUPERVISOR)), user="pit"
        )
        assert (again["ok"], again["supervisor"]) == (True, SUPERVISOR)
        assert await table.phase() == "shoe_over"
    async with running_table(broker, tmp_path, env=SIGNED) as table:  # the same, restarted
        reply = await table.over_mqtt(
            signed(cmd("s1", "void_shoe", operator=SUPERVISOR)), user="pit"
        )
        assert refused(reply, "s1", CommandErrorCode.ID_REUSED), reply
        recall_again = await table.over_mqtt(cmd("s1", "recall", operator="intruder-9"))
        assert answer(recall_again) == answer(recall)  # the recall's own id, answered again


async def test_a_refused_command_keeps_no_id_so_the_signed_one_is_carried_out(
    broker: Mosquitto, tmp_path: Path
) -> None:
    """``sign_all_commands``: an unsigned command with a guessed id is refused and forgotten."""
    async with running_table(broker, tmp_path, env=SIGN_ALL) as table:
        forged = await table.over_mqtt(cmd("g1", "new_shoe", shoe_id="FAKE"))
        assert refused(forged, "g1", CommandErrorCode.BAD_SIGNATURE), forged
        forged = await table.over_mqtt(cmd("g2", "new_shoe", shoe_id="FAKE"))
        assert refused(forged, "g2", CommandErrorCode.BAD_SIGNATURE), forged
        genuine = await table.over_mqtt(signed(cmd("g1", "new_shoe", shoe_id="S-1")))
        assert (genuine["id"], genuine["ok"], genuine.get("error")) == ("g1", True, None)
        assert await table.phase() != "no_shoe"
    async with running_table(broker, tmp_path, env=SIGN_ALL) as table:  # refusals stay forgotten
        void = signed(cmd("g2", "void_shoe", operator=SUPERVISOR))
        genuine = await table.over_mqtt(void, user="pit")
        assert (genuine["id"], genuine["ok"]) == ("g2", True), genuine
        assert await table.phase() == "shoe_over"


async def test_the_same_command_again_gets_its_first_reply_field_for_field(
    broker: Mosquitto, tmp_path: Path
) -> None:
    """Idempotence, ``supervisor`` included, live and after a restart; other content refused."""
    void = cmd("v1", "void_shoe", operator=SUPERVISOR)
    async with running_table(broker, tmp_path) as table:
        assert (await table.over_mqtt(cmd("n1", "new_shoe")))["ok"]
        wrong_phase = await table.over_mqtt(cmd("o1", "close_betting"))
        assert refused(wrong_phase, "o1", "wrong_phase"), wrong_phase
        first = await table.over_mqtt(void, user="pit")
        assert (first["ok"], first["supervisor"]) == (True, SUPERVISOR)
        again = await table.over_mqtt(void, user="pit")
        assert again["seq"] > first["seq"]  # a message of its own
        assert answer(again) == answer(first)
        assert answer(await table.over_mqtt(cmd("o1", "close_betting"))) == answer(wrong_phase)
        other = await table.over_mqtt(cmd("v1", "new_shoe"))  # another command, the same id
        assert refused(other, "v1", CommandErrorCode.ID_REUSED), other
        assert await table.phase() == "shoe_over"  # no new shoe
    async with running_table(broker, tmp_path) as table:
        assert answer(await table.over_mqtt(void, user="pit")) == answer(first)
        assert answer(await table.over_mqtt(cmd("o1", "close_betting"))) == answer(wrong_phase)
        for reused in (
            cmd("v1", "new_shoe"),  # another command
            cmd("o1", "close_betting", operator="pit-2"),  # another operator
            cmd("n1", "new_shoe", shoe_id="S-9"),  # other arguments
        ):
            reply = await table.over_mqtt(reused)
            assert refused(reply, reused["id"], CommandErrorCode.ID_REUSED), reply
        assert await table.phase() == "shoe_over"


#: Ids and operators a command may not have: C0 controls, DEL, C1 controls.
CONTROLLED: Final = ["s1\x00", "\x00", "s\x1b[2J", "s1\x7f", "s1\x85", "s1\x9f", "s1\n"]


def holds_no_control_character(value: object) -> bool:
    """Whether no string in a JSON value holds a C0 or C1 control character or DEL."""
    if isinstance(value, str):
        return not any(ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F for char in value)
    if isinstance(value, dict):
        return all(holds_no_control_character(item) for item in [*value, *value.values()])
    if isinstance(value, list):
        return all(holds_no_control_character(item) for item in value)
    return True


async def test_control_characters_in_an_id_or_operator_are_refused_and_never_echoed(
    broker: Mosquitto, tmp_path: Path
) -> None:
    async with running_table(broker, tmp_path) as table:
        for bad in CONTROLLED:
            reply = await table.over_mqtt(cmd(bad, "new_shoe"))
            assert refused(reply, None, CommandErrorCode.INVALID_MESSAGE), reply
            assert reply["message"].startswith("field id: must not contain control characters")
            assert holds_no_control_character(reply), reply
            reply = await table.over_mqtt(cmd("c-op", "new_shoe", operator=f"pit{bad}"))
            assert refused(reply, "c-op", CommandErrorCode.INVALID_MESSAGE), reply
            assert reply["message"].startswith("field operator: must not contain")
            assert holds_no_control_character(reply), reply
        assert await table.phase() == "no_shoe"  # nothing was carried out
        taken = await table.over_mqtt(cmd("c-op", "new_shoe", operator="pit-1"))
        assert (taken["id"], taken["ok"]) == ("c-op", True)  # the refusals kept no id


async def test_a_sign_in_is_known_by_its_staff_id_never_by_its_pin(
    broker: Mosquitto, tmp_path: Path
) -> None:
    """A wrong PIN keeps no id; the sign-in taken keeps it, across a restart, without the PIN."""
    staffed = {"TABLE_CONTROLLER_STAFF_REGISTER": str(write_register(tmp_path / "staff.json"))}
    dealer, pin = "D-104", STAFF["D-104"][2]
    sign_in = cmd("d1", "sign_in", staff_id=dealer, pin=pin)
    async with running_table(broker, tmp_path, env=staffed) as table:
        wrong = await table.over_mqtt(cmd("d1", "sign_in", staff_id=dealer, pin="0000"))
        assert refused(wrong, "d1", CommandErrorCode.WRONG_PIN), wrong
        first = await table.over_mqtt(sign_in)
        assert (first["id"], first["ok"]) == ("d1", True), first
        assert answer(await table.over_mqtt(sign_in)) == answer(first)
    async with running_table(broker, tmp_path, env=staffed) as table:
        assert answer(await table.over_mqtt(sign_in)) == answer(first)
        other = await table.over_mqtt(cmd("d1", "sign_in", staff_id="D-207", pin=STAFF["D-207"][2]))
        assert refused(other, "d1", CommandErrorCode.ID_REUSED), other
