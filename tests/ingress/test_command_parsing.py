# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Incoming commands: parse_command takes what mqtt-api.md allows and refuses everything else.

Pure tests: no loop, no broker. A hand-written oracle of the contract decides independently
what must be accepted; hypothesis throws bytes, JSON and near-miss commands at both.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction
from pathlib import Path
from typing import Any, Final

import jsonschema  # no stubs installed
import pytest
from hypothesis import HealthCheck, assume, event, example, given, settings
from hypothesis import strategies as st

from table_controller.contract.commands.message import MAX_COMMAND_ID_LENGTH, CommandMessage
from table_controller.contract.commands.table import ARGS_MODELS, COMMAND_TABLE, Giver
from table_controller.contract.errors import CommandErrorCode
from table_controller.ingress.parsing import (
    MAX_COMMAND_BYTES,
    CommandRejection,
    parse_command,
    readable_id,
    to_procedure_command,
    validate_command,
)
from table_controller.procedure.inputs import (
    COMMANDS,
    CorrectResult,
    DroppedCard,
    EnterCard,
    SetLimits,
    StartNewShoe,
    VoidRound,
)
from table_controller.rules.cards import Card

#: The commands the edge answers, and those only a supervisor gives, as the table says.
EDGE_COMMANDS = {spec.name for spec in COMMAND_TABLE if spec.at_the_edge}
SUPERVISOR_COMMANDS = {spec.name for spec in COMMAND_TABLE if spec.giver is Giver.SUPERVISOR}
COMMAND_SCHEMA = json.loads(
    (Path(__file__).resolve().parents[2] / "docs/api/schemas/command.json").read_text("utf-8")
)
COMMAND_SCHEMA_VALIDATOR = jsonschema.Draft202012Validator(COMMAND_SCHEMA)

# --- an independent oracle of mqtt-api.md "Commands" -----------------------------------------

CARD = re.compile(r"[A2-9TJQK][SHDC]")
HEX_SIGNATURE = re.compile(r"[0-9a-f]{64}")
STAFF_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,31}")
PIN = re.compile(r"[0-9]{4,12}")
DECIMAL = re.compile(r"[0-9]{1,13}(\.[0-9]{1,24})?")
#: The minor unit of the currency ``parse_command`` checks amounts in by default (USD: cents).
CENTS = 100


def _text(value: object, longest: int) -> bool:
    return isinstance(value, str) and 1 <= len(value) <= longest


def _plain_text(value: object, longest: int) -> bool:
    """Text without a C0 or C1 control character or DEL (ids, ``operator``, free text)."""
    return _text(value, longest) and not any(
        ord(char) < 0x20 or 0x7F <= ord(char) <= 0x9F for char in str(value)
    )


def _hand(value: object) -> bool:
    return (
        isinstance(value, list)
        and 2 <= len(value) <= 3
        and all(isinstance(card, str) and CARD.fullmatch(card) for card in value)
    )


def _amount(value: object) -> bool:
    """A stake: a number up to 10**12 or decimal text, a whole number of cents (never 1/2)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        exact = math.isfinite(value) and abs(value) <= 10**12 and Fraction(repr(value))
    elif isinstance(value, str) and len(value) <= 32 and DECIMAL.fullmatch(value) is not None:
        exact = Fraction(value)
    else:
        return False
    return exact is not False and (exact * CENTS).denominator == 1


def _limits(value: object) -> bool:
    return (
        isinstance(value, dict) and 1 <= len(value) <= 64
        and all(_plain_text(bet, 32) for bet in value)
        and all(isinstance(pair, dict) and set(pair) == {"min", "max"}
                and _amount(pair["min"]) and _amount(pair["max"]) for pair in value.values())
    )


#: Each command's arguments: name -> (required, check).
ARGUMENTS: dict[str, dict[str, tuple[bool, Any]]] = {
    "new_shoe": {"shoe_id": (False, lambda v: v is None or _plain_text(v, 64))},
    "open_betting": {},
    "close_betting": {},
    "deal": {},
    "misdeal": {},
    "void_round": {"round_id": (True, lambda v: _plain_text(v, 96))},
    "void_shoe": {},
    "manual_card": {"card": (True, lambda v: isinstance(v, str) and CARD.fullmatch(v))},
    "correct_result": {
        "round_id": (True, lambda v: _plain_text(v, 96)),
        "player": (True, _hand),
        "banker": (True, _hand),
    },
    "dropped_card": {"read": (True, lambda v: isinstance(v, bool))},
    "sign_in": {
        "staff_id": (True, lambda v: isinstance(v, str) and STAFF_ID.fullmatch(v)),
        "pin": (True, lambda v: isinstance(v, str) and PIN.fullmatch(v)),
    },
    "sign_out": {"staff_id": (True, lambda v: isinstance(v, str) and STAFF_ID.fullmatch(v))},
    "recall": {
        "rounds": (False, lambda v: type(v) is int and 1 <= v <= 50),
    },
    "resend": {  # whole numbers; whether the range is taken is checked at the edge
        "from_seq": (True, lambda v: type(v) is int),
        "to_seq": (True, lambda v: type(v) is int),
    },
    "dispute": {
        "reason": (True, lambda v: _plain_text(v, 500)),
        "rounds": (
            True,
            lambda v: isinstance(v, list)
            and 1 <= len(v) <= 50
            and all(_plain_text(r, 96) for r in v)
            and len(set(v)) == len(v),
        ),
    },
    "resolve_dispute": {
        "dispute_id": (True, lambda v: _plain_text(v, 96)),
        "outcome": (True, lambda v: _plain_text(v, 500)),
    },
    "acknowledge": {
        "alarm": (True, lambda v: v in ("software_modified", "result_not_confirmed")),
    },
    "acknowledge_alarm": {
        "alarm_id": (True, lambda v: _plain_text(v, 96)),
        "comment": (False, lambda v: v is None or _plain_text(v, 500)),
    },
    "call_supervisor": {},
    "confirm_result": {
        "round_id": (True, lambda v: _plain_text(v, 96)),
        "agrees": (True, lambda v: isinstance(v, bool)),
    },
    "set_limits": {"limits": (True, _limits)},
}


def contract_accepts(message: object) -> bool:
    """Whether mqtt-api.md allows this JSON value as a command (written apart from the models)."""
    if not isinstance(message, dict) or not _envelope_allowed(message):
        return False
    command = message["command"]
    arguments = ARGUMENTS.get(command) if isinstance(command, str) else None
    return arguments is not None and _args_allowed(message.get("args", {}), arguments)


def _envelope_allowed(message: dict[str, object]) -> bool:
    keys = set(message)
    if (
        not {"id", "command", "operator"}
        <= keys
        <= {"id", "command", "operator", "args", "signature"}
    ):
        return False
    signature = message.get("signature")
    signature_ok = signature is None or (
        isinstance(signature, str) and HEX_SIGNATURE.fullmatch(signature) is not None
    )
    return (
        signature_ok and _plain_text(message["id"], 128) and _plain_text(message["operator"], 64)
    )


def _args_allowed(args: object, arguments: dict[str, tuple[bool, Any]]) -> bool:
    if not isinstance(args, dict) or not set(args) <= set(arguments):
        return False
    return all(
        bool(check(args[name])) if name in args else not required
        for name, (required, check) in arguments.items()
    )


def test_the_oracle_and_the_models_know_the_same_commands() -> None:
    assert set(ARGUMENTS) == set(ARGS_MODELS) == set(COMMANDS) | EDGE_COMMANDS
    for name, model in ARGS_MODELS.items():
        assert set(model.model_fields) == set(ARGUMENTS[name]), name
    assert {
        "void_round", "void_shoe", "manual_card", "correct_result", "dispute", "resolve_dispute",
        "acknowledge", "acknowledge_alarm", "set_limits",
    } == SUPERVISOR_COMMANDS  # fmt: skip


# --- what is accepted, and what it becomes -------------------------------------------------


def command_bytes(command: str, args: object = None, **fields: object) -> bytes:
    message: dict[str, object] = {"id": "c-1", "command": command, "operator": "pit-12"}
    if args is not None:
        message["args"] = args
    message.update(fields)
    return json.dumps(message).encode()


def test_every_command_of_the_spec_is_accepted_and_becomes_its_procedure_input() -> None:
    examples: dict[str, object] = {
        "new_shoe": {"shoe_id": "S-0042"},
        "open_betting": {},
        "close_betting": {},
        "deal": {},
        "misdeal": {},
        "void_round": {"round_id": "S-0042-45"},
        "void_shoe": {},
        "manual_card": {"card": "TD"},
        "correct_result": {
            "round_id": "S-0042-45",
            "player": ["QH", "4S", "9D"],
            "banker": ["6C", "KD"],
        },
        "dropped_card": {"read": False},
        "sign_in": {"staff_id": "D-104", "pin": "4321"},
        "sign_out": {"staff_id": "D-104"},
        "dispute": {"reason": "patron: banker had 7", "rounds": ["S-0042-45"]},
        "resolve_dispute": {"dispute_id": "T07-D0001", "outcome": "video: it stands"},
        "acknowledge": {"alarm": "software_modified"},
        "acknowledge_alarm": {"alarm_id": "T07-A000003", "comment": "camera checked"},
        "call_supervisor": {},
        "confirm_result": {"round_id": "S-0042-45", "agrees": True},
        "set_limits": {"limits": {"banker": {"min": 100, "max": "10000.50"}}},
    }
    assert set(examples) == set(COMMANDS)
    for name, args in examples.items():
        parsed = parse_command(command_bytes(name, args))
        assert isinstance(parsed, CommandMessage), (name, parsed)
        if name == "sign_in":  # only the staff desk, which checks the PIN, makes its input
            with pytest.raises(ValueError, match="staff desk"):
                to_procedure_command(parsed, at=2.5)
            continue
        event = to_procedure_command(parsed, at=2.5)
        assert type(event) is COMMANDS[name]
        assert (event.at, event.command_id, event.operator) == (2.5, "c-1", "pit-12")
        assert parsed.is_supervisor_command is (name in SUPERVISOR_COMMANDS)
    new_shoe = parse_command(command_bytes("new_shoe", {"shoe_id": "S-0042"}))
    assert isinstance(new_shoe, CommandMessage)
    assert to_procedure_command(new_shoe, at=0) == StartNewShoe(
        at=0, command_id="c-1", operator="pit-12", shoe_id="S-0042"
    )
    correct = parse_command(command_bytes("correct_result", examples["correct_result"]))
    assert isinstance(correct, CommandMessage)
    event = to_procedure_command(correct, at=1.0)
    assert isinstance(event, CorrectResult)
    assert event.player == (Card("Q", "H"), Card("4", "S"), Card("9", "D"))
    assert event.banker == (Card("6", "C"), Card("K", "D"))
    manual = parse_command(command_bytes("manual_card", {"card": "TD"}))
    assert isinstance(manual, CommandMessage)
    assert to_procedure_command(manual, at=1.0) == EnterCard(
        at=1.0, command_id="c-1", operator="pit-12", supervisor="pit-12", card=Card("T", "D")
    )
    dropped = parse_command(command_bytes("dropped_card", {"read": True}))
    assert isinstance(dropped, CommandMessage)
    assert to_procedure_command(dropped, at=1.0) == DroppedCard(
        at=1.0, command_id="c-1", operator="pit-12", read=True
    )
    void = parse_command(command_bytes("void_round", {"round_id": "S-1-2"}))
    assert isinstance(void, CommandMessage)
    assert to_procedure_command(void, at=1.0) == VoidRound(
        at=1.0, command_id="c-1", operator="pit-12", supervisor="pit-12", round_id="S-1-2"
    )


def test_args_may_be_left_out_by_commands_that_take_none() -> None:
    parsed = parse_command(command_bytes("close_betting"))
    assert isinstance(parsed, CommandMessage)
    shoe = parse_command(command_bytes("new_shoe"))
    assert isinstance(shoe, CommandMessage)
    assert to_procedure_command(shoe, at=0).shoe_id is None  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("currency", "given", "refusal"),
    [
        ("USD", "1/3", "'1/3' is a fraction: write the amount as a decimal ('0.50')"),
        ("USD", "1/2", "'1/2' is a fraction"),
        ("USD", "1/1000", "'1/1000' is a fraction"),
        ("USD", "0.001", "0.001 is finer than its minor unit: USD amounts have at most 2 decimals"),
        ("USD", 0.001, "0.001 is finer than its minor unit: USD amounts have at most 2 decimals"),
        ("USD", 0.3333333333333333, "0.3333333333333333 is finer than its minor unit"),
        ("MOP", "10.505", "10.505 is finer than its minor unit: MOP amounts have at most 2"),
        ("JPY", "0.5", "0.5 is finer than its minor unit: JPY amounts have no decimals"),
        ("JPY", 100.5, "100.5 is finer than its minor unit: JPY amounts have no decimals"),
        ("KWD", "0.0005", "0.0005 is finer than its minor unit: KWD amounts have at most 3"),
        ("USD", "1e5", "'1e5' is not an amount"),
        ("USD", 0.5, None),
        ("USD", "0.50", None),
        ("USD", "10000.99", None),
        ("JPY", 500, None),
        ("JPY", "500", None),
        ("KWD", "0.125", None),
        ("KWD", 0.125, None),
        ("CLF", "0.0001", None),
    ],
)
def test_set_limits_amounts_are_decimals_in_the_table_currency_s_minor_unit(
    currency: str, given: object, refusal: str | None
) -> None:
    raw = command_bytes("set_limits", {"limits": {"tie": {"min": given, "max": 1000}}})
    for parsed in (
        parse_command(raw, currency=currency),
        validate_command(json.loads(raw), currency=currency),  # the display's channel
    ):
        if refusal is None:
            assert isinstance(parsed, CommandMessage), parsed
            command = to_procedure_command(parsed, at=0.0)
            assert isinstance(command, SetLimits)
            assert command.limits["tie"].min == Fraction(str(given))  # exact
            continue
        assert isinstance(parsed, CommandRejection)
        assert parsed.code is CommandErrorCode.INVALID_ARGS
        assert parsed.message.startswith("field args.limits.tie.min: ")
        assert refusal in parsed.message


def test_canonical_bytes_are_what_a_signature_covers() -> None:
    signature = "0123456789abcdef" * 4
    raw = b'{"operator":"pit-12","args":{"round_id":"S-1-2"},"command":"void_round",' + (
        b'"signature":"' + signature.encode() + b'","id":"c-9"}'
    )
    parsed = parse_command(raw)
    assert isinstance(parsed, CommandMessage)
    assert parsed.signature == signature
    assert parsed.canonical_bytes() == (
        b'{"args":{"round_id":"S-1-2"},"command":"void_round","id":"c-9","operator":"pit-12"}'
    )
    # the same command, written otherwise, has the same canonical bytes
    again = parse_command(command_bytes("void_round", {"round_id": "S-1-2"}, id="c-9"))
    assert isinstance(again, CommandMessage)
    assert again.canonical_bytes() == parsed.canonical_bytes()
    bare = parse_command(command_bytes("deal", id="c-9"))
    assert isinstance(bare, CommandMessage)
    assert bare.canonical_bytes() == b'{"args":{},"command":"deal","id":"c-9","operator":"pit-12"}'


# --- hostile payloads ----------------------------------------------------------------------

DEEP_ARRAY = b"[" * 3000 + b"]" * 3000
DEEP_ARGS = command_bytes("deal", {}).replace(
    b'"args": {}', b'"args": ' + b'{"x":' * 600 + b"1" + b"}" * 600
)

HOSTILE: list[tuple[str, bytes, str, str]] = [
    # name, payload, code, a word the message must contain
    ("huge", b'{"id":"' + b"a" * 5000 + b'"}', "oversized", "4096"),
    ("empty", b"", "malformed_json", "JSON"),
    ("not json", b"close_betting", "malformed_json", "JSON"),
    ("truncated", command_bytes("deal")[:-1], "malformed_json", "JSON"),
    ("non-utf-8", b'{"id":"\xff\xfe","command":"deal","operator":"p"}', "malformed_json", "UTF-8"),
    ("utf-16", command_bytes("deal").decode().encode("utf-16"), "malformed_json", "JSON"),
    ("nul byte", b"\x00" + command_bytes("deal"), "malformed_json", "JSON"),
    ("deep array", DEEP_ARRAY[:4000], "malformed_json", "JSON"),
    ("deep args", DEEP_ARGS, "malformed_json", "JSON"),
    ("array", b'[{"id":"c-1","command":"deal","operator":"p"}]', "malformed_json", "object"),
    ("string", b'"deal"', "malformed_json", "object"),
    ("null", b"null", "malformed_json", "object"),
    ("unknown command", command_bytes("fly_away", {}), "unknown_command", "fly_away"),
    ("command not text", command_bytes(7, {}), "unknown_command", "expected one of"),  # type: ignore[arg-type]
    ("command case", command_bytes("DEAL", {}), "unknown_command", "DEAL"),
    ("no command", b'{"id":"c-1","operator":"p"}', "invalid_message", "command"),
    ("no id", b'{"command":"deal","operator":"p"}', "invalid_message", "id"),
    ("empty id", command_bytes("deal", id=""), "invalid_message", "id"),
    ("id not text", command_bytes("deal", id=17), "invalid_message", "id"),
    ("id too long", command_bytes("deal", id="x" * 129), "invalid_message", "id"),
    ("no operator", b'{"id":"c-1","command":"deal"}', "invalid_message", "operator"),
    ("operator list", command_bytes("deal", operator=["pit"]), "invalid_message", "operator"),
    ("extra key", command_bytes("deal", {}, priority=1), "invalid_message", "priority"),
    ("signature case", command_bytes("deal", signature="AB" * 32), "invalid_message", "signature"),
    ("signature short", command_bytes("deal", signature="ab"), "invalid_message", "signature"),
    ("args list", command_bytes("deal", []), "invalid_args", "args"),
    ("args for none", command_bytes("deal", {"now": True}), "invalid_args", "args.now"),
    ("missing round", command_bytes("void_round", {}), "invalid_args", "args.round_id"),
    ("missing args", command_bytes("void_round"), "invalid_args", "args.round_id"),
    (
        "round id number",
        command_bytes("void_round", {"round_id": 45}),
        "invalid_args",
        "args.round_id",
    ),
    ("lower-case card", command_bytes("manual_card", {"card": "qh"}), "invalid_args", "args.card"),
    ("ten written 10", command_bytes("manual_card", {"card": "10H"}), "invalid_args", "args.card"),
    ("card number", command_bytes("manual_card", {"card": 12}), "invalid_args", "args.card"),
    (
        "hand as text",
        command_bytes(
            "correct_result", {"round_id": "S-1-1", "player": "QH 4S", "banker": ["6C", "KD"]}
        ),
        "invalid_args",
        "args.player",
    ),
    (
        "four cards",
        command_bytes(
            "correct_result",
            {"round_id": "S-1-1", "player": ["QH", "4S", "9D", "2C"], "banker": ["6C", "KD"]},
        ),
        "invalid_args",
        "args.player",
    ),
    (
        "no banker",
        command_bytes("correct_result", {"round_id": "S-1-1", "player": ["QH", "4S"]}),
        "invalid_args",
        "args.banker",
    ),
    ("read as text", command_bytes("dropped_card", {"read": "true"}), "invalid_args", "args.read"),
    ("read as 1", command_bytes("dropped_card", {"read": 1}), "invalid_args", "args.read"),
    (
        "args of another",
        command_bytes("void_shoe", {"round_id": "S-1-2"}),
        "invalid_args",
        "args.round_id",
    ),
    ("shoe id empty", command_bytes("new_shoe", {"shoe_id": ""}), "invalid_args", "args.shoe_id"),
    (
        "a round disputed twice",
        command_bytes("dispute", {"reason": "patron", "rounds": ["S-1-2", "S-1-3", "S-1-2"]}),
        "invalid_args",
        "different round ids",
    ),
]


@pytest.mark.parametrize(
    ("payload", "code", "word"), [c[1:] for c in HOSTILE], ids=[c[0] for c in HOSTILE]
)
def test_hostile_payloads_are_refused_with_a_code_and_a_message_naming_the_trouble(
    payload: bytes, code: str, word: str
) -> None:
    result = parse_command(payload)
    assert isinstance(result, CommandRejection), result
    assert result.code == code, result
    assert word in result.message, result
    assert not contract_accepts(_loads(payload))


def test_a_command_given_as_data_is_refused_with_the_same_code_and_message() -> None:
    """The display hands over a record, not bytes: the same fault gives the same answer."""
    compared = 0
    for name, payload, code, _ in HOSTILE:
        data = _loads(payload)
        if not isinstance(data, dict):
            continue  # a fault of the bytes, which a record cannot have
        from_bytes = parse_command(payload)
        from_data = validate_command(data)
        assert isinstance(from_bytes, CommandRejection), name
        assert isinstance(from_data, CommandRejection), name
        assert (from_data.code, from_data.id) == (from_bytes.code, from_bytes.id), name
        assert from_data.code is CommandErrorCode(code)
        if code != "malformed_json":  # that message names a column of the text
            assert from_data.message == from_bytes.message, name
        compared += 1
    assert compared == 31


def test_a_valid_command_given_as_data_is_the_same_command() -> None:
    record = {"id": "c-1", "command": "manual_card", "operator": "pit-12", "args": {"card": "TD"}}
    assert validate_command(record) == parse_command(json.dumps(record).encode())


#: Ids that are not strings of 1-128 characters, and what the refusal says they were.
BAD_IDS: list[tuple[object, str]] = [
    (7, "the number 7"),
    (2.5, "the number 2.5"),
    (None, "null"),
    ({"n": 7}, "an object"),
    (["c-1"], "a list"),
    (True, "true"),
    (False, "false"),
    ("", "an empty string"),
    ("x" * 1000, "a string of 1000 characters"),
]


@pytest.mark.parametrize(("command_id", "described"), BAD_IDS, ids=repr)
def test_an_id_that_is_not_a_short_string_is_refused_saying_so(
    command_id: object, described: str
) -> None:
    refused = parse_command(command_bytes("deal", id=command_id))
    assert isinstance(refused, CommandRejection)
    assert refused.code is CommandErrorCode.INVALID_MESSAGE
    assert refused.id is None  # no id the sender could match: the message says why
    assert refused.message == (
        f"field id: must be a string of 1 to {MAX_COMMAND_ID_LENGTH} characters; got {described}"
    )


def test_a_missing_id_is_refused_saying_so() -> None:
    refused = parse_command(b'{"command":"deal","operator":"p"}')
    assert isinstance(refused, CommandRejection)
    assert (refused.code, refused.message) == (
        CommandErrorCode.INVALID_MESSAGE,
        (
            f"field id: missing; a command needs a string id of 1 to {MAX_COMMAND_ID_LENGTH} "
            "characters"
        ),
    )


def test_args_null_is_refused_as_arguments() -> None:
    result = parse_command(b'{"id":"c-1","command":"deal","operator":"p","args":null}')
    assert isinstance(result, CommandRejection)
    assert (result.code, result.id) == ("invalid_args", "c-1")


def test_a_refusal_names_the_command_id_when_it_can_be_read() -> None:
    refused = parse_command(command_bytes("void_round", {}, id="c-77"))
    assert isinstance(refused, CommandRejection)
    assert refused.id == "c-77"
    for payload in (b"\xff", b"[1]", command_bytes("deal", id=5), b'{"id":"' + b"x" * 5000 + b'"}'):
        rejection = parse_command(payload)
        assert isinstance(rejection, CommandRejection)
        assert rejection.id is None


#: One of each kind of control character: C0 (NUL, TAB, LF, US), DEL, C1 (NEL, APC).
CONTROL_CHARACTERS = ["\x00", "\t", "\n", "\x1f", "\x7f", "\x85", "\x9f"]
CONTROL_MESSAGE = "must not contain control characters (U+0000 to U+001F, U+007F to U+009F)"


@pytest.mark.parametrize("control", CONTROL_CHARACTERS, ids=repr)
def test_an_id_with_a_control_character_is_refused_and_never_echoed(control: str) -> None:
    bad_id = f"s1{control}x"
    refused = parse_command(command_bytes("void_shoe", id=bad_id))
    assert isinstance(refused, CommandRejection)
    assert (refused.code, refused.id) == (CommandErrorCode.INVALID_MESSAGE, None)
    assert refused.message == f"field id: {CONTROL_MESSAGE}"
    assert not COMMAND_SCHEMA_VALIDATOR.is_valid(json.loads(command_bytes("deal", id=bad_id)))
    assert readable_id(command_bytes("deal", id=bad_id)) is None


@pytest.mark.parametrize("control", CONTROL_CHARACTERS, ids=repr)
def test_an_operator_with_a_control_character_is_refused_saying_so(control: str) -> None:
    payload = command_bytes("deal", operator=f"pit{control}12")
    refused = parse_command(payload)
    assert isinstance(refused, CommandRejection)
    assert (refused.code, refused.id) == (CommandErrorCode.INVALID_MESSAGE, "c-1")
    assert refused.message == f"field operator: {CONTROL_MESSAGE}"
    assert not COMMAND_SCHEMA_VALIDATOR.is_valid(json.loads(payload))


#: Each text argument the table keeps or publishes, with the path a refusal names it by.
TEXT_ARGUMENTS = [
    ("new_shoe", {"shoe_id": "S{}"}, "args.shoe_id"),
    ("void_round", {"round_id": "S-1-{}"}, "args.round_id"),
    ("dispute", {"reason": "banker had {}7", "rounds": ["S-1-1"]}, "args.reason"),
    ("dispute", {"reason": "r", "rounds": ["S-1-{}"]}, "args.rounds.0"),
    ("resolve_dispute", {"dispute_id": "T07-D{}", "outcome": "o"}, "args.dispute_id"),
    ("resolve_dispute", {"dispute_id": "T07-D1", "outcome": "video{}"}, "args.outcome"),
    ("acknowledge_alarm", {"alarm_id": "T07-A1", "comment": "{}"}, "args.comment"),
    ("confirm_result", {"round_id": "S-1-{}", "agrees": True}, "args.round_id"),
]


@pytest.mark.parametrize("control", CONTROL_CHARACTERS, ids=repr)
@pytest.mark.parametrize(("command", "args", "path"), TEXT_ARGUMENTS, ids=lambda v: str(v)[:24])
def test_a_text_argument_with_a_control_character_is_refused_naming_the_field(
    control: str, command: str, args: dict[str, object], path: str
) -> None:
    # mid-text: Python's jsonschema reads ``$`` as ECMA-262 does not, before a final newline
    spoiled = json.loads(json.dumps(args).replace("{}", json.dumps(f"{control}x")[1:-1]))
    refused = parse_command(command_bytes(command, spoiled))
    assert isinstance(refused, CommandRejection)
    assert (refused.code, refused.id) == (CommandErrorCode.INVALID_ARGS, "c-1")
    assert refused.message == f"field {path}: {CONTROL_MESSAGE}"
    assert not COMMAND_SCHEMA_VALIDATOR.is_valid(json.loads(command_bytes(command, spoiled)))
    clean = json.loads(json.dumps(args).replace("{}", "x"))
    assert isinstance(parse_command(command_bytes(command, clean)), CommandMessage)


def test_a_key_the_sender_wrote_with_a_control_character_is_escaped_in_the_reply() -> None:
    limits = {"tie\x00": {"min": 1, "max": 2}}
    refused = parse_command(command_bytes("set_limits", {"limits": limits}))
    assert isinstance(refused, CommandRejection)
    assert refused.message == f"field args.limits.'tie\\x00'.[key]: {CONTROL_MESSAGE}"
    refused = parse_command(command_bytes("deal", {}, **{"x\x85": 1}))
    assert isinstance(refused, CommandRejection)
    assert refused.message == "field 'x\\x85': Extra inputs are not permitted"


@pytest.mark.parametrize("text", ["Zoë", "pit\u00a012", "卓-7", "\U0001f0a1", "a'\"b"], ids=repr)
def test_printable_text_of_any_script_is_a_valid_id_and_operator(text: str) -> None:
    payload = command_bytes("deal", id=text, operator=text)
    parsed = parse_command(payload)
    assert isinstance(parsed, CommandMessage)
    assert (parsed.id, parsed.operator) == (text, text)
    assert COMMAND_SCHEMA_VALIDATOR.is_valid(json.loads(payload))
    assert readable_id(payload) == text


def test_readable_id_reads_only_a_usable_id_of_a_payload_a_command_may_be() -> None:
    assert readable_id(command_bytes("no such command", id="c-9", pad="x")) == "c-9"
    for payload in (
        b"\xff",
        b"[1]",
        b'{"id": 7}',
        b'{"id": ""}',
        b'{"id":"' + b"x" * 129 + b'"}',
        b'{"id":"c-1","pad":"' + b"x" * MAX_COMMAND_BYTES + b'"}',
    ):
        assert readable_id(payload) is None, payload


def test_the_size_limit_is_a_parameter() -> None:
    payload = command_bytes("deal", {})
    assert isinstance(parse_command(payload, max_bytes=len(payload)), CommandMessage)
    refused = parse_command(payload, max_bytes=len(payload) - 1)
    assert isinstance(refused, CommandRejection)
    assert refused.code == "oversized"
    assert MAX_COMMAND_BYTES == 4096


def _loads(payload: bytes) -> object:
    """The JSON value of UTF-8 text (json.loads alone would also guess UTF-16 and UTF-32)."""
    try:
        return json.loads(payload.decode("utf-8"))
    except (ValueError, RecursionError):
        return None


# --- properties -----------------------------------------------------------------------------

NAMES = sorted(ARGS_MODELS)
CARDS = st.sampled_from(["QH", "TD", "AS", "9C", "2D", "qh", "10H", "1H", "QX", "Q", "QHS", ""])
#: Text without line ends: the Python regex engine of jsonschema lets "$" match before a final
#: newline, unlike ECMA 262 and pydantic; payloads with one are covered by the table above.
TEXT = st.text(st.characters(exclude_categories=["Cs"], exclude_characters="\n"), max_size=6)
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-2, 2),
    st.floats(allow_nan=False, allow_infinity=False),
    TEXT,
    CARDS,
    st.sampled_from([*NAMES, "fly", "x" * 129, "ab" * 32, "AB" * 32, "S-1-2"]),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(st.sampled_from(["x", "read", "card", "round_id"]), inner, max_size=3)
    ),
    max_leaves=8,
)
GOOD_ARGS = {
    "shoe_id": st.one_of(
        st.none(),
        st.text(st.characters(codec="ascii", exclude_characters="\n"), min_size=1, max_size=64),
    ),
    "round_id": st.sampled_from(["S-0042-45", "T07-S0001-1", "r"]),
    "card": st.sampled_from(["QH", "TD", "AS", "9C", "2D"]),
    "player": st.lists(st.sampled_from(["QH", "TD", "AS"]), min_size=2, max_size=3),
    "banker": st.lists(st.sampled_from(["9C", "2D", "KS"]), min_size=2, max_size=3),
    "read": st.booleans(),
    "staff_id": st.sampled_from(["D-104", "S1", "a.b_c"]),
    "pin": st.sampled_from(["0000", "4321", "123456789012"]),
    "rounds": st.integers(1, 50),
    "from_seq": st.integers(-(2**70), 2**70),
    "to_seq": st.integers(-(2**70), 2**70),
    "reason": st.sampled_from(["patron: banker had 7", "x"]),
    "outcome": st.sampled_from(["video: it stands", "o"]),
    "dispute_id": st.sampled_from(["T07-D0001", "d"]),
    "alarm": st.sampled_from(["software_modified", "result_not_confirmed"]),
    "alarm_id": st.sampled_from(["T07-A000001", "a"]),
    "comment": st.one_of(st.none(), st.sampled_from(["camera checked: it stands", "c", "好"])),
    "agrees": st.booleans(),
    "limits": st.dictionaries(
        st.sampled_from(["banker", "player", "tie", "dragon"]),
        st.fixed_dictionaries({
            "min": st.one_of(st.integers(1, 10**6), st.sampled_from(["0.50", "100", "12.5"])),
            "max": st.one_of(  # numbers of whole cents, as JSON writes them
                st.integers(100, 10**11).map(lambda cents: cents / CENTS),
                st.sampled_from(["10000", "12.5"]),
            ),
        }),
        min_size=1, max_size=3,
    ),
}
#: Arguments whose good values depend on the command (``rounds``: a count or round ids).
GOOD_ARGS_OF: dict[tuple[str, str], Any] = {
    ("dispute", "rounds"): st.lists(st.sampled_from(["S-0042-45", "T07-S0001-1"]), min_size=1,
                                    max_size=3),
}
BAD_ARGS = {
    "shoe_id": st.one_of(st.sampled_from(["", "y" * 65, "S\u0000"]), VALUES),
    "round_id": st.one_of(st.sampled_from(["", "r" * 97, "S-1-\u0000"]), VALUES),
    "card": st.one_of(CARDS, VALUES),
    "player": st.one_of(st.lists(CARDS, max_size=4), VALUES),
    "banker": st.one_of(st.lists(CARDS, max_size=4), VALUES),
    "read": VALUES,
    "staff_id": st.one_of(st.sampled_from(["", "-x", "a b", "x" * 33, "D/1"]), VALUES),
    "pin": st.one_of(st.sampled_from(["", "123", "12a4", "1" * 13, "١٢٣٤"]), VALUES),
    "rounds": st.one_of(st.sampled_from([0, 51, -1, "10", 10.0, True, [], [""]]), VALUES),
    "from_seq": st.sampled_from(["3", 3.0, 1.5, True, None, [], {}]),
    "to_seq": st.sampled_from(["9", 9.0, False, None, [1]]),
    "reason": st.one_of(st.sampled_from(["", "r" * 501, "banker\u0000had 7", "\u009b2J"]), VALUES),
    "outcome": st.one_of(st.sampled_from(["", "o" * 501, "two\nlines", "\u007f"]), VALUES),
    "dispute_id": st.one_of(st.sampled_from(["", "d" * 97, "T07-D\u001b"]), VALUES),
    "alarm": st.one_of(st.sampled_from(["", "misread", "software_modified "]), VALUES),
    "alarm_id": st.one_of(st.sampled_from(["", "a" * 97, "T07-A\u0007"]), VALUES),
    "comment": st.one_of(st.sampled_from(["", "c" * 501, "two\nlines", "\u0085"]), VALUES),
    "agrees": VALUES,
    "limits": st.one_of(
        st.sampled_from([{}, {"": {"min": 1, "max": 2}}, {"tie": {"min": 1}},
                         {"tie": {"min": "1e5", "max": 2}}, {"tie": {"min": "1/0", "max": 2}},
                         {"tie": {"min": 10**13, "max": 2}}, {"tie": {"min": True, "max": 2}},
                         {"tie": {"min": " 1", "max": 2}}, {"tie": {"min": "\u0661", "max": 2}},
                         {"tie": {"min": "1/3", "max": 2}}, {"tie": {"min": "1/2", "max": 2}},
                         {"tie": {"min": 1, "max": "0.33333"}},
                         {"tie": {"min": 1, "max": 2, "x": 3}},
                         {"tie\u0000": {"min": 1, "max": 2}}]),
        VALUES,
    ),
}


@st.composite
def near_commands(draw: st.DrawFn) -> object:
    """A valid command, then zero to three edits of the kinds the contract forbids."""
    command = draw(st.sampled_from(NAMES))
    args: dict[str, object] = {}
    for name, (required, _) in ARGUMENTS[command].items():
        if required or draw(st.booleans()):
            args[name] = draw(GOOD_ARGS_OF.get((command, name), GOOD_ARGS[name]))
    message: dict[str, object] = {"id": "c-1", "command": command, "operator": "pit-12"}
    if draw(st.booleans()) or args:
        message["args"] = args
    if draw(st.booleans()):
        message["signature"] = draw(st.sampled_from(["ab" * 32, None]))
    for _ in range(draw(st.integers(0, 3))):
        edited = _edit(draw, message)
        if not isinstance(edited, dict):
            return edited
        message = edited
    return message


def _edit(draw: st.DrawFn, message: dict[str, object]) -> object:
    """One edit: drop a key, add one, spoil a field or an argument, or replace the whole."""
    edit = draw(st.sampled_from(["drop", "extra", "field", "arg", "bad arg", "whole"]))
    message = dict(message)
    args = message.get("args")
    if edit == "drop" and message:
        message.pop(draw(st.sampled_from(sorted(message))))
    elif edit == "extra":
        message[draw(st.sampled_from(["x", "Id", "args2", "x\u0000", "\u009b"]))] = draw(VALUES)
    elif edit == "field":
        field = draw(st.sampled_from(["id", "command", "operator", "args", "signature"]))
        message[field] = draw(VALUES)
    elif edit == "arg" and isinstance(args, dict):
        name = draw(st.sampled_from([*GOOD_ARGS, "x", "x\n"]))
        message["args"] = {**args, name: draw(GOOD_ARGS.get(name, VALUES))}
    elif edit == "bad arg" and isinstance(args, dict):
        name = draw(st.sampled_from(sorted(BAD_ARGS)))
        message["args"] = {**args, name: draw(BAD_ARGS[name])}
    elif edit == "whole":
        return draw(VALUES)
    return message


@settings(max_examples=600, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(near_commands())
def test_parse_command_accepts_exactly_what_the_contract_allows(candidate: object) -> None:
    payload = json.dumps(candidate, ensure_ascii=False).encode()
    assume(len(payload) <= MAX_COMMAND_BYTES)
    result = parse_command(payload)
    assert isinstance(result, CommandMessage | CommandRejection)
    assert isinstance(result, CommandMessage) == bool(contract_accepts(candidate)), result
    event("accepted" if isinstance(result, CommandMessage) else f"refused: {result.code}")
    if isinstance(result, CommandMessage):
        # accepted: it reads back the same, and becomes a procedure input
        assert parse_command(result.model_dump_json().encode()) == result
        if result.command == "sign_in":
            with pytest.raises(ValueError, match="staff desk"):
                to_procedure_command(result, at=0.0)
        elif result.command in EDGE_COMMANDS:
            with pytest.raises(ValueError, match="at the edge"):
                to_procedure_command(result, at=0.0)
        else:
            assert type(to_procedure_command(result, at=0.0)) is COMMANDS[result.command]
    else:
        # the reply is published and stored: it never carries the sender's control characters
        assert _plain_text(result.message, MAX_COMMAND_BYTES * 4), result.message


#: JSON Schema's ``integer`` takes a number with no fraction, as a sender's JSON library may
#: write one: the parser takes it too.
FRACTION_FREE: Final = {"id": "c-1", "operator": "pit-12"}


@settings(max_examples=600, deadline=None)
@given(near_commands())
@example({**FRACTION_FREE, "command": "recall", "args": {"rounds": 10.0}})
@example({**FRACTION_FREE, "command": "recall", "args": {"rounds": 10.5}})
@example({**FRACTION_FREE, "command": "resend", "args": {"from_seq": 3.0, "to_seq": 9}})
def test_the_published_command_schema_agrees_with_parse_command(candidate: object) -> None:
    payload = json.dumps(candidate, ensure_ascii=False).encode()
    assume(len(payload) <= MAX_COMMAND_BYTES)
    schema_says = COMMAND_SCHEMA_VALIDATOR.is_valid(candidate)
    assert schema_says == isinstance(parse_command(payload), CommandMessage)


@settings(max_examples=1000, deadline=None)
@given(st.binary(max_size=600))
def test_any_bytes_give_a_command_or_a_rejection_never_an_exception(raw: bytes) -> None:
    result = parse_command(raw)
    if isinstance(result, CommandMessage):
        assert contract_accepts(_loads(raw))
    else:
        assert isinstance(result, CommandRejection)
        assert _plain_text(result.message, MAX_COMMAND_BYTES * 4), result.message
        assert result.code in {
            CommandErrorCode.MALFORMED_JSON,
            CommandErrorCode.INVALID_MESSAGE,
            CommandErrorCode.UNKNOWN_COMMAND,
            CommandErrorCode.INVALID_ARGS,
        }


@settings(max_examples=500, deadline=None)
@given(
    st.sampled_from(
        [
            command_bytes("void_round", {"round_id": "S-1-2"}),
            command_bytes(
                "correct_result",
                {"round_id": "S-1-1", "player": ["QH", "4S"], "banker": ["6C", "KD"]},
            ),
        ]
    ),
    st.lists(
        st.tuples(st.integers(0, 200), st.binary(max_size=3), st.integers(0, 3)),
        min_size=1,
        max_size=4,
    ),
)
def test_mangled_commands_are_refused_or_still_fit_the_contract(
    valid: bytes, edits: list[tuple[int, bytes, int]]
) -> None:
    raw = bytearray(valid)
    for position, insert, delete in edits:
        at = position % (len(raw) + 1)
        raw[at : at + delete] = insert
    result = parse_command(bytes(raw))
    if isinstance(result, CommandMessage):
        assert contract_accepts(_loads(bytes(raw)))
    else:
        assert isinstance(result, CommandRejection)


@settings(max_examples=200, deadline=None)
@given(
    st.binary(min_size=1, max_size=64), st.integers(MAX_COMMAND_BYTES + 1, 3 * MAX_COMMAND_BYTES)
)
def test_anything_over_the_limit_is_refused_unread(chunk: bytes, size: int) -> None:
    raw = (chunk * (size // len(chunk) + 1))[:size]
    result = parse_command(raw)
    assert isinstance(result, CommandRejection)
    assert (result.code, result.id) == ("oversized", None)
