# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""docs/mqtt-api.md against the code and the generated contract in docs/api.

The page is what an integrator reads; the code and ``docs/api`` (which ``table-controller
schema`` generates from the core's payload types, and ``tests/contract/test_contract.py`` keeps up
to date) are what the table does. Every topic, payload, field, command and code of the one
must be in the other, both ways, and every JSON example on the page must validate against its
schema.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import jsonschema  # no stubs installed
import pytest

from table_controller.contract.codes import (
    AlarmCode,
    HoldReason,
    Phase,
    PromptAction,
    RefusalCode,
    VoidReason,
)
from table_controller.contract.commands.message import CommandMessage
from table_controller.contract.commands.table import (
    ARGS_MODELS,
    COMMAND_NAMES,
    COMMAND_TABLE,
    COMMANDS_BY_NAME,
    CommandName,
    Giver,
)
from table_controller.contract.errors import CommandErrorCode
from table_controller.contract.schema.asyncapi import CHANNELS
from table_controller.ingress.authorisation import AuthorisationPolicy, Authorised, authorise
from table_controller.ingress.parsing import parse_command
from tests.docs.markdown import code_blocks, code_spans, sections, table_with

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs/mqtt-api.md"
SCHEMAS = ROOT / "docs/api/schemas"
#: The fields every published message carries, documented once in "The envelope" (the
#: signature, ``kid`` and ``sig``, only with a device key).
ENVELOPE = frozenset({"schema", "type", "table_id", "seq", "ts", "kid", "sig"})


def _text() -> str:
    return DOC.read_text(encoding="utf-8")


def _schema(name: str) -> dict[str, Any]:
    schema: dict[str, Any] = json.loads((SCHEMAS / f"{name}.json").read_text(encoding="utf-8"))
    return schema


def _spans(cells: list[str]) -> set[str]:
    return {span for cell in cells for span in code_spans(cell)}


def _section(level: int, title: str) -> str:
    found = sections(_text(), level)
    assert title in found, f"docs/mqtt-api.md has no heading {title!r}"
    return found[title]


def _first_column(level: int, title: str, header: str) -> set[str]:
    return _spans(table_with(_section(level, title), header).column(0))


def error_codes_in_code() -> set[str]:
    """Every ``error`` a command reply can carry: refused as read, or by the procedure."""
    return {code.value for code in CommandErrorCode} | {code.value for code in RefusalCode}


def test_the_topics_are_those_of_the_generated_contract() -> None:
    documented = _first_column(2, "Topics", "topic")
    assert documented == {f"<root>/{channel.topic}" for channel in CHANNELS}


def test_the_topics_table_says_which_are_retained() -> None:
    table = table_with(_section(2, "Topics"), "topic")
    retained = {code_spans(row[0])[0] for row in table.rows if row[2].startswith("yes")}
    assert retained == {f"<root>/{channel.topic}" for channel in CHANNELS if channel.retain}


def test_the_envelope_is_the_one_every_message_starts_with() -> None:
    assert _first_column(2, "The envelope", "field") == ENVELOPE
    for channel in CHANNELS:
        fields = set(_schema(channel.name)["properties"])
        if channel.action == "send" and channel.name != "status":
            assert fields >= ENVELOPE, channel.name


@pytest.mark.parametrize("channel", CHANNELS, ids=lambda channel: channel.name)
def test_each_payload_lists_exactly_the_fields_of_its_schema(channel: Any) -> None:
    schema = _schema(channel.name)
    section = _section(3, f"`{channel.name}`")
    documented = _spans(table_with(section, "field").column(0))
    assert documented == set(schema["properties"]) - ENVELOPE
    nested = {
        name for definition in schema.get("$defs", {}).values()
        for name in definition.get("properties", {})
    }  # fmt: skip
    named = set(code_spans(section))
    assert nested <= named, f"{channel.name}: {sorted(nested - named)} not described"


def test_every_payload_has_a_section_and_no_other() -> None:
    titles = {title for title in sections(_text(), 3) if title.startswith("`")}
    payloads = {f"`{channel.name}`" for channel in CHANNELS}
    assert payloads <= titles
    assert {title for title in titles if title.strip("`") in _schema_names()} == payloads


def _schema_names() -> set[str]:
    return {path.stem for path in SCHEMAS.glob("*.json")}


#: The commands only a supervisor gives, as the table of commands says.
SUPERVISOR_COMMANDS = {spec.name for spec in COMMAND_TABLE if spec.giver is Giver.SUPERVISOR}
#: The setting naming the operators of a command given only by those it lists.
ALLOW_LISTS = {Giver.CONFIRMER: "result_confirmers", Giver.RESENDER: "resenders"}


def _command_rows() -> dict[str, tuple[str, ...]]:
    """The page's table of commands, each row by its command."""
    table = table_with(_section(2, "Commands"), "command")
    return {code_spans(row[0])[0]: row for row in table.rows}


def test_the_commands_are_the_ones_the_table_takes() -> None:
    table = table_with(_section(2, "Commands"), "command")
    names = [code_spans(cell)[0] for cell in table.column(0)]
    assert sorted(names) == sorted(get_args(CommandName)) == sorted(COMMAND_NAMES)
    supervisor = {name for name, row in zip(names, table.rows, strict=True) if row[2] == "yes"}
    assert supervisor == SUPERVISOR_COMMANDS
    assert set(names) == set(ARGS_MODELS)


def test_each_command_says_who_gives_it_and_where_it_is_answered_as_the_table_does() -> None:
    """The table of commands' rows in the page's words: supervisor, allow-list, MQTT only, edge."""
    for name, row in _command_rows().items():
        spec = COMMANDS_BY_NAME[name]
        who, does, taken_in = row[2], row[3], row[4]
        assert (who == "yes") is (spec.giver is Giver.SUPERVISOR), name
        assert spec.signed is (spec.giver is Giver.SUPERVISOR), f"{name}: signed mode's rule"
        allow_list = ALLOW_LISTS.get(spec.giver)
        if allow_list is not None:
            assert f"`{allow_list}`" in who, name
        assert ("over MQTT only" in taken_in) is (not spec.giver.on_the_display), name
        assert ("changes nothing" in does) is spec.at_the_edge, name


def test_each_command_documents_its_arguments() -> None:
    table = table_with(_section(2, "Commands"), "command")
    for row in table.rows:
        name = code_spans(row[0])[0]
        arguments = set(ARGS_MODELS[name].model_fields)
        assert arguments <= set(code_spans(row[1])), name
        if not arguments:
            assert row[1] == "none", name


def test_every_error_code_is_documented_and_no_other() -> None:
    assert _first_column(3, "Error codes", "error") == error_codes_in_code()


def test_every_alarm_code_is_documented_and_no_other() -> None:
    documented = _first_column(3, "Alarm codes", "code")
    assert documented == {code.value for code in AlarmCode}


def test_every_alarm_that_holds_names_its_hold() -> None:
    table = table_with(_section(3, "Alarm codes"), "code")
    holds = {span for cell in table.column(2) for span in code_spans(cell)}
    assert holds <= {reason.value for reason in HoldReason}


def test_every_hold_reason_is_documented_and_no_other() -> None:
    documented = _first_column(3, "Hold reasons", "reason")
    assert documented == {reason.value for reason in HoldReason}


def test_every_void_reason_is_documented_and_no_other() -> None:
    documented = _first_column(3, "Void reasons", "reason")
    assert documented == {reason.value for reason in VoidReason}


def test_every_phase_and_prompt_action_is_documented_and_no_other() -> None:
    assert _first_column(3, "`state`", "phase") == {phase.value for phase in Phase}
    assert _first_column(3, "`prompt`", "action") == {action.value for action in PromptAction}


def _json_examples() -> list[tuple[int, dict[str, Any]]]:
    examples = []
    for block in code_blocks(_text()):
        if block.language == "json":
            value = json.loads(block.text)
            assert isinstance(value, dict), f"line {block.line}: an example is a JSON object"
            examples.append((block.line, value))
    return examples


def test_every_json_example_validates_against_its_schema() -> None:
    checked: set[str] = set()
    for line, example in _json_examples():
        name = example.get("type", "command" if "command" in example else None)
        assert name in _schema_names(), f"line {line}: no schema for this example"
        validator = jsonschema.Draft202012Validator(
            _schema(name), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
        )
        errors = [error.message for error in validator.iter_errors(example)]
        assert not errors, f"line {line} ({name}): {errors}"
        checked.add(name)
    main_events = {"status", "state", "burn", "card", "round_result", "round_voided", "alarm"}
    assert checked >= main_events | {"roads", "command", "command_reply", "result_corrected"}


def test_the_command_examples_are_commands_the_table_accepts() -> None:
    commands = [example for _, example in _json_examples() if "type" not in example]
    assert len(commands) >= 5
    for example in commands:
        parsed = parse_command(json.dumps(example).encode())
        assert isinstance(parsed, CommandMessage), parsed


def test_the_signing_example_signs_as_the_table_checks() -> None:
    (snippet,) = [block.text for block in code_blocks(_text()) if block.language == "python"]
    namespace: dict[str, Any] = {}
    exec(snippet, namespace)  # the page's own example, run as a reader would run it
    signed = json.dumps(namespace["command"]).encode()
    parsed = parse_command(signed)
    assert isinstance(parsed, CommandMessage), parsed
    policy = AuthorisationPolicy(
        supervisors={parsed.operator: frozenset({"pit"})},
        shared_secret=b"the table's command secret",
    )
    assert isinstance(authorise(parsed, policy), Authorised)
    forged = parsed.model_copy(update={"signature": "0" * 64})
    assert not isinstance(authorise(forged, policy), Authorised)


def test_the_page_stands_alone() -> None:
    text = _text()
    assert "spec/" not in text
    assert "STACK.md" not in text
