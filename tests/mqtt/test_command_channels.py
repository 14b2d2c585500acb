# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""One fault, one answer, on every channel: ``table-controller run`` with a broker and a display.

A virtual table runs as its own process against a real mosquitto; the test gives it the same
bad commands over MQTT (as a backend) and on the display's HTTP endpoint (as the dealer's
page) and compares the replies. The codes come from ``CommandErrorCode``.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from table_controller.contract.commands.message import MAX_COMMAND_ID_LENGTH
from table_controller.contract.errors import CommandErrorCode
from table_controller.ingress.parsing import CommandRejection, parse_command
from tests.mosquitto import Mosquitto
from tests.support.command_table import PIN, running_table

pytestmark = pytest.mark.broker


#: Arguments the contract refuses, dealer and supervisor commands alike.
BAD_ARGS: list[tuple[str, object]] = [
    ("new_shoe", {"shoe_id": ""}),
    ("new_shoe", ["S-1"]),
    ("deal", {"now": True}),
    ("dropped_card", {"read": "true"}),
    ("void_round", {}),
    ("manual_card", {"card": "ZZ"}),
    ("correct_result", {"round_id": "S-1-1", "player": ["QH", "4S"]}),
]


async def test_the_same_bad_arguments_get_the_same_code_over_mqtt_and_on_the_display(
    broker: Mosquitto, tmp_path: Path
) -> None:
    async with running_table(broker, tmp_path) as table:
        for number, (command, args) in enumerate(BAD_ARGS):
            command_id = f"m-{number}"
            mqtt = await table.over_mqtt(
                {"id": command_id, "command": command, "operator": "sup-1", "args": args}
            )
            status, display = await table.on_display({"command": command, "args": args, "pin": PIN})
            assert (mqtt["id"], mqtt["ok"]) == (command_id, False)
            assert (status, display["ok"]) == (400, False)
            assert mqtt["error"] == display["error"] == CommandErrorCode.INVALID_ARGS, command
            assert mqtt["message"] == display["message"], command
        assert await table.phase() == "no_shoe"  # nothing was carried out


#: Ids a command may not have, with how the refusal describes each.
BAD_IDS: list[tuple[object, str]] = [
    (7, "the number 7"),
    (None, "null"),
    ({"n": 7}, "an object"),
    (True, "true"),
    (["c-1"], "a list"),
    ("x" * 1000, "a string of 1000 characters"),
]


async def test_a_command_whose_id_is_not_a_string_is_refused_saying_so(
    broker: Mosquitto, tmp_path: Path
) -> None:
    async with running_table(broker, tmp_path) as table:
        for command_id, described in BAD_IDS:
            command = {"id": command_id, "command": "new_shoe", "operator": "pit-1"}
            reply = await table.over_mqtt(command)
            parsed = parse_command(json.dumps(command).encode())
            assert isinstance(parsed, CommandRejection)
            assert reply == {
                **reply,
                "id": None,  # nothing the sender could match: the message says why
                "ok": False,
                "error": CommandErrorCode.INVALID_MESSAGE,
                "message": f"field id: must be a string of 1 to {MAX_COMMAND_ID_LENGTH} "
                f"characters; got {described}",
            }
            assert reply["message"] == parsed.message
        assert await table.phase() == "no_shoe"  # no new_shoe was carried out
        echoed = await table.over_mqtt({"id": "m-1", "command": "new_shoe", "operator": "pit-1"})
        assert (echoed["id"], echoed["ok"]) == ("m-1", True)  # a string id is echoed
        assert await table.phase() != "no_shoe"
