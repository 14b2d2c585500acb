# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fuzzing ``parse_command``: it never raises and accepts exactly what the contract allows.

Payloads are valid commands built from docs/mqtt-api.md ("Commands"), the same commands with
a key dropped, added or given a wrong value, arbitrary JSON values, serialised in several
styles, then sometimes cut, flipped, padded past the size limit, or replaced by raw bytes.

The oracle is an independent checker written from the contract, over ``json.loads``: the
parser must accept a payload exactly when the checker does, read the same values from it,
and turn every accepted command into a procedure command without raising. A refused payload
must still carry the command's ``id`` when it has a usable one. Strings with lone surrogates
count as invalid for the checker: they are not UTF-8 text, and the parser refuses them.
"""

from __future__ import annotations

import json
import re
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.contract.commands.message import CommandMessage
from table_controller.ingress.parsing import (
    MAX_COMMAND_BYTES,
    CommandRejection,
    parse_command,
    to_procedure_command,
)
from tests.fuzz import fuzz_support as fuzz

_CARD: Final = re.compile(r"[A2-9TJQK][SHDC]")
_SIGNATURE: Final = re.compile(r"[0-9a-f]{64}")
#: C0 controls, DEL and C1 controls: never allowed in a command's id, operator or text args.
_CONTROL: Final = re.compile("[\x00-\x1f\x7f-\x9f]")
_NO_ARGS: Final = ("open_betting", "close_betting", "deal", "misdeal", "void_shoe")
_REQUIRED_KEYS: Final = frozenset({"id", "command", "operator"})
_ALL_COMMANDS: Final = (
    *_NO_ARGS,
    "new_shoe",
    "void_round",
    "manual_card",
    "correct_result",
    "dropped_card",
)


class Invalid(Exception):  # noqa: N818 - the checker's verdict, never leaves this module
    pass


def _text(value: object, longest: int) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= longest:
        raise Invalid
    return value


def _plain_text(value: object, longest: int) -> str:
    text = _text(value, longest)
    if _CONTROL.search(text) is not None:
        raise Invalid
    return text


def _card(value: object) -> str:
    if not isinstance(value, str) or _CARD.fullmatch(value) is None:
        raise Invalid
    return value


def _hand(value: object) -> list[str]:
    if not isinstance(value, list) or not 2 <= len(value) <= 3:
        raise Invalid
    return [_card(item) for item in value]


def _args(command: str, args: object) -> dict[str, Any]:
    """The arguments a command takes, as the contract's table lists them."""
    if not isinstance(args, dict):
        raise Invalid
    required, optional = {
        "new_shoe": (set(), {"shoe_id"}),
        "void_round": ({"round_id"}, set()),
        "manual_card": ({"card"}, set()),
        "correct_result": ({"round_id", "player", "banker"}, set()),
        "dropped_card": ({"read"}, set()),
    }.get(command, (set(), set()))
    if not required <= set(args) <= required | optional:
        raise Invalid
    checked: dict[str, Any] = {}
    for key, value in args.items():
        if key == "shoe_id":
            checked[key] = None if value is None else _plain_text(value, 64)
        elif key == "round_id":
            checked[key] = _plain_text(value, 96)
        elif key == "card":
            checked[key] = _card(value)
        elif key in {"player", "banker"}:
            checked[key] = _hand(value)
        elif not isinstance(value, bool):  # "read"
            raise Invalid
        else:
            checked[key] = value
    return checked


def _no_surrogates(value: object) -> None:
    texts = (
        [value]
        if isinstance(value, str)
        else [*value, *value.values()]
        if isinstance(value, dict)
        else value
        if isinstance(value, list)
        else []
    )
    for text in texts:
        if isinstance(text, str):
            if any(0xD800 <= ord(char) <= 0xDFFF for char in text):
                raise Invalid
        else:
            _no_surrogates(text)


def reference_command(raw: bytes) -> dict[str, Any] | None:
    """The command a payload carries by the contract, or None if it must be refused."""
    try:
        return _checked(raw)
    except (Invalid, ValueError, RecursionError):
        return None


def _checked(raw: bytes) -> dict[str, Any]:
    if len(raw) > MAX_COMMAND_BYTES:
        raise Invalid
    document = json.loads(raw.decode("utf-8"))
    _no_surrogates(document)
    if not isinstance(document, dict):
        raise Invalid
    if not _REQUIRED_KEYS <= set(document) <= _REQUIRED_KEYS | {"args", "signature"}:
        raise Invalid
    command = document["command"]
    if command not in _ALL_COMMANDS:
        raise Invalid
    signature = document.get("signature")
    if signature is not None and (
        not isinstance(signature, str) or _SIGNATURE.fullmatch(signature) is None
    ):
        raise Invalid
    return {
        "id": _plain_text(document["id"], 128),
        "command": command,
        "operator": _plain_text(document["operator"], 64),
        "args": _args(command, document.get("args", {})),
        "signature": signature,
    }


def usable_id(raw: bytes) -> str | None:
    try:
        document = json.loads(raw.decode("utf-8"))
        _no_surrogates(document)
    except (Invalid, ValueError, RecursionError):
        return None
    if not isinstance(document, dict):
        return None
    command_id = document.get("id")
    try:
        return _plain_text(command_id, 128)
    except Invalid:
        return None


# --- payloads -------------------------------------------------------------------------------

short_text = st.text(max_size=10)
near_cards = st.sampled_from(["qh", "QH ", "10H", "1H", "Q", "QX", "QH\n", "\uff31H", ""])
json_scalars = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | short_text
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from(["id", "command", "args", "card", "read", "player"]) | short_text,
            inner,
            max_size=4,
        )
    ),
    max_leaves=10,
)


@st.composite
def commands(draw: st.DrawFn) -> dict[str, Any]:
    """A command much as a backend sends it; values may still break the contract."""
    command = draw(st.sampled_from(_ALL_COMMANDS))
    message: dict[str, Any] = {
        "id": draw(fuzz.rarely(st.text(min_size=1, max_size=12), st.sampled_from(["", "x" * 129]))),
        "command": command,
        "operator": draw(fuzz.rarely(st.text(min_size=1, max_size=8), st.just("o" * 65))),
    }
    if draw(st.booleans()):
        message["args"] = draw(
            fuzz.command_args(
                command,
                text=short_text,
                card=fuzz.rarely(fuzz.card_codes, near_cards),
                hand_card=fuzz.card_codes,
            )
        )
    if draw(fuzz.one_in(4)):
        hex_text = st.text(alphabet="0123456789abcdef", min_size=64, max_size=64)
        near_hex = st.text(alphabet="0123456789abcdefA", min_size=63, max_size=65)
        message["signature"] = draw(fuzz.rarely(st.none() | hex_text, near_hex))
    return message


@st.composite
def broken_commands(draw: st.DrawFn) -> Any:
    message = draw(commands())
    target = message.get("args") if draw(st.booleans()) else message
    if not isinstance(target, dict):
        target = message
    match draw(st.sampled_from(["drop", "add", "replace"])):
        case "drop" if target:
            del target[draw(st.sampled_from(sorted(target)))]
        case "add":
            target[draw(st.sampled_from(["extra", "card", "args", "read"]) | short_text)] = draw(
                json_values
            )
        case _ if target:
            target[draw(st.sampled_from(sorted(target)))] = draw(json_values)
    return message


@st.composite
def payloads(draw: st.DrawFn) -> bytes:
    document = draw(fuzz.rarely(commands(), broken_commands() | json_values, n=3))
    style = draw(st.sampled_from(["compact", "spaced", "ascii", "indented"]))
    text = json.dumps(
        document,
        ensure_ascii=style == "ascii",
        separators=(",", ":") if style == "compact" else None,
        indent=2 if style == "indented" else None,
    )
    raw = text.encode("utf-8", "surrogatepass")
    damage = st.sampled_from(["cut", "insert", "pad", "bytes"])
    match draw(fuzz.rarely(st.just("none"), damage, n=3)):
        case "cut":
            raw = raw[: draw(st.integers(0, len(raw)))]
        case "insert":
            at = draw(st.integers(0, len(raw)))
            raw = raw[:at] + draw(st.binary(min_size=1, max_size=3)) + raw[at:]
        case "pad":
            raw += b" " * draw(st.integers(MAX_COMMAND_BYTES - len(raw) - 2, MAX_COMMAND_BYTES))
        case "bytes":
            raw = draw(st.binary(max_size=60))
        case _:
            pass
    return raw


def check_parse_commands(batch: list[bytes]) -> None:
    accepted = sum(check_parse_command(raw) for raw in batch)
    fuzz.count_example("parse_command", len(batch), bytes=sum(map(len, batch)), accepted=accepted)


def check_parse_command(raw: bytes) -> bool:
    """Check one payload against the oracle; returns whether it was accepted."""
    result = parse_command(raw)
    expected = reference_command(raw)
    if expected is None:
        assert isinstance(result, CommandRejection), (raw, result)
        if result.code != "oversized":
            assert result.id == usable_id(raw)
    else:
        assert isinstance(result, CommandMessage), (raw, result)
        args = result.args.model_dump(exclude_none=True)
        expected_args = {k: v for k, v in expected["args"].items() if v is not None}
        assert (result.id, result.command, result.operator, args, result.signature) == (
            expected["id"],
            expected["command"],
            expected["operator"],
            expected_args,
            expected["signature"],
        )
        procedure_command = to_procedure_command(result, at=0.0)
        assert result.command == procedure_command.COMMAND
        assert json.loads(result.canonical_bytes())["command"] == result.command
    return expected is not None


#: What each example of both profiles checks: a batch of command payloads.
payload_batches = st.lists(payloads(), min_size=8, max_size=24)


@fuzz.fast_settings(1)
@given(payload_batches)
def test_parse_command_accepts_exactly_the_contract(batch: list[bytes]) -> None:
    check_parse_commands(batch)


#: Long-profile weight (examples per unit of ``FUZZ_EXAMPLES``).
WEIGHT = 0.6


@pytest.mark.slow
@pytest.mark.parametrize("round_no", fuzz.long_rounds(WEIGHT))
def test_long_parse_command(round_no: int) -> None:
    fuzz.run_long_round("parse_command", check_parse_commands, payload_batches, WEIGHT, round_no)
