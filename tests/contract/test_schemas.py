# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""How the generated models read the core's payload types (``contract/schema/models.py``)."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from table_controller.contract.schema.models import MESSAGE_MODELS

ENVELOPE = {"schema": "baccarat-table/1", "table_id": "T07", "seq": 3, "ts": "2026-11-29T12:00:00Z"}


def schema(name: str) -> dict[str, Any]:
    return MESSAGE_MODELS[name].model_json_schema(mode="serialization")


def test_a_field_that_may_be_absent_is_not_required_and_never_null() -> None:
    prompt = {**ENVELOPE, "type": "prompt", "dealer": None, "action": "burn"}
    MESSAGE_MODELS["prompt"].model_validate(prompt)
    assert "count" not in schema("prompt")["required"]
    with pytest.raises(ValidationError):
        MESSAGE_MODELS["prompt"].model_validate({**prompt, "count": None})
    with pytest.raises(ValidationError):
        MESSAGE_MODELS["prompt"].model_validate({**prompt, "count": 11})  # a burn takes 1 to 10


def test_flattened_fields_are_spliced_into_the_parent() -> None:
    properties = schema("round_result")["properties"]
    assert {"player", "banker", "winner", "settlement"} <= set(properties)
    assert "result" not in properties
    alarm = schema("alarm")
    assert {"bet", "house_edge"} <= set(alarm["properties"]) - set(alarm["required"])
    assert "details" not in alarm["properties"]


def test_one_of_becomes_an_enumeration_and_cards_their_pattern() -> None:
    settlement = schema("round_result")["properties"]["settlement"]
    assert "banker" in settlement["propertyNames"]["enum"]
    assert {"const": "not_offered", "type": "string"} in settlement["additionalProperties"]["anyOf"]
    card = schema("card")["properties"]["card"]
    assert card["pattern"] == "^[A2-9TJQK][SHDC]$"


def test_the_comment_above_a_field_is_its_description() -> None:
    properties = schema("card")["properties"]
    assert properties["manual"]["description"] == "Entered by a supervisor, not read."


def test_only_status_and_an_unrecorded_reply_go_without_a_seq() -> None:
    """A reply the table could not record (its journal refused writes) has no ``seq``."""
    status = {
        **{key: value for key, value in ENVELOPE.items() if key != "seq"},
        "type": "status", "last_seq": 0, "online": True, "session": 1, "version": "1",
    }  # fmt: skip
    MESSAGE_MODELS["status"].model_validate(status)
    with pytest.raises(ValidationError, match="no seq of its own"):
        MESSAGE_MODELS["status"].model_validate({**status, "seq": 1})
    for name, model in MESSAGE_MODELS.items():
        required = model.model_json_schema()["required"]
        assert ("seq" in required) is (name not in {"status", "command_reply"}), name
    assert "seq" in MESSAGE_MODELS["command_reply"].model_json_schema()["properties"]
