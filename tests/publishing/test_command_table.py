# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The table of commands against what it names: the procedure's inputs, the argument models."""

from __future__ import annotations

import dataclasses
from typing import get_args

import pytest

from table_controller.contract.commands.args import CommandArgs, NoArgs
from table_controller.contract.commands.table import (
    COMMAND_TABLE,
    PROCEDURE_INPUTS,
    CommandSpec,
    Giver,
)
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


def test_a_row_whose_input_is_another_commands_is_refused() -> None:
    with pytest.raises(ValueError, match="another command"):
        CommandSpec(name="deal", args=NoArgs, input=inputs.Misdeal, giver=Giver.ANYONE)
