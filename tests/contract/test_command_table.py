# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table of commands against what it names: inputs, argument models, kinds of reply."""

from __future__ import annotations

import dataclasses
import json
from typing import get_args

import pytest

from table_controller.contract.codes import RefusalCode
from table_controller.contract.commands.args import CommandArgs, NoArgs
from table_controller.contract.commands.replies import reply_data, reply_from_data
from table_controller.contract.commands.table import (
    COMMAND_TABLE,
    PROCEDURE_INPUTS,
    CommandSpec,
    Giver,
)
from table_controller.contract.payloads.controller import CommandReply
from table_controller.contract.payloads.replies import EdgeReply, RecallReply
from table_controller.procedure import inputs

#: Command fields whose argument in the record has another name: field -> argument.
_ARG_NAMES = {"round_ids": "rounds"}


def test_every_procedure_command_has_one_row_and_every_model_is_used() -> None:
    assert sorted(cls.__name__ for cls in PROCEDURE_INPUTS) == sorted(
        cls.__name__ for cls in get_args(inputs.Command)
    )
    assert {spec.args for spec in COMMAND_TABLE} == set(get_args(CommandArgs))


@pytest.mark.parametrize(
    "spec", [spec for spec in COMMAND_TABLE if spec.input is not None], ids=lambda s: s.name
)
def test_a_command_takes_over_the_wire_what_its_record_keeps(spec: CommandSpec) -> None:
    """But for the staff desk's ``sign_in``, whose PIN becomes the staff member it names."""
    assert spec.input is not None
    kept = {
        _ARG_NAMES.get(field.name, field.name) for field in dataclasses.fields(spec.input)
    } - inputs.COMMAND_FIELDS
    wire = set(spec.args.model_fields)
    if spec.staff_desk:
        assert wire - kept == {"pin"}, spec.name
        assert wire & kept == {"staff_id"}, spec.name
    else:
        assert wire == kept, spec.name


@pytest.mark.parametrize(
    "reply",
    [
        CommandReply(id="c-1", ok=True, command="new_shoe", supervisor="S-1"),
        CommandReply(id=None, ok=False, error="malformed_json", message="not JSON"),
        CommandReply(id="c-2", ok=False, command="deal", error=RefusalCode.WRONG_PHASE,
                     message="deal is not taken in dealing"),
        CommandReply(id="r-1", ok=False, command="recall", error="rate_limited", message="slow"),
        RecallReply(id="r-2", ok=True, command="recall", rounds=[], between_rounds=[]),
        EdgeReply(id="g-1", ok=True, command="resend", resent=3, gone=[7], last_seq=9),
    ],
    ids=repr,
)
def test_a_journaled_answer_reads_back_as_the_kind_its_commands_row_says(
    reply: CommandReply,
) -> None:
    data = json.loads(json.dumps(reply_data(reply)))
    again = reply_from_data(data)
    assert type(again) is type(reply)
    assert again == reply


@pytest.mark.parametrize("data", [{}, {"id": 7, "ok": True}, {"id": "c", "ok": True, "error": 5}])
def test_data_that_is_no_reply_is_refused(data: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="command reply"):
        reply_from_data(data)


def test_a_row_whose_input_is_another_commands_is_refused() -> None:
    with pytest.raises(ValueError, match="another command"):
        CommandSpec(name="deal", args=NoArgs, input=inputs.Misdeal, giver=Giver.ANYONE)
