# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Fuzzing ``input_from_record``: any JSON value gives an input or ``RecordRejected``.

Values are valid input records built from docs/journal-format.md ("Input rows") and the module's own
grammar, the same records with a key dropped, added or given another JSON value, and
arbitrary JSON values. Oracles:

* ``input_from_record`` never raises (known bugs aside, see ``fuzz_support.KNOWN_BUGS``);
* it accepts a record only if an independent checker does, and reads the same card from it
  (no invented card); the checker follows the module's documented leniency (a card's case and
  surrounding spaces, ``10`` for ``T``) but nothing more;
* an accepted input survives ``input_to_record`` and back unchanged.
"""

from __future__ import annotations

import math
import sys
from typing import Any, Final

import pytest
from hypothesis import given
from hypothesis import strategies as st

from table_controller.procedure.inputs import CardDrawn, CorrectResult, EnterCard, Input
from table_controller.procedure.records import (
    RecordRejected,
    input_from_record,
    input_to_record,
)
from tests.fuzz import fuzz_support as fuzz

_KINDS: Final = (
    "command", "card", "cut", "misread", "frames_lost", "reader", "assessed", "runtime_failed"
)  # fmt: skip
_ASSESSMENT_CODES: Final = {"edge_positive", "shuffle_pattern", "shoe_repeated", "impossible_count"}
_ARGS: Final[dict[str, tuple[frozenset[str], frozenset[str]]]] = {
    "new_shoe": (frozenset(), frozenset({"shoe_id"})),
    "open_betting": (frozenset(), frozenset()),
    "close_betting": (frozenset(), frozenset()),
    "deal": (frozenset(), frozenset()),
    "misdeal": (frozenset(), frozenset()),
    "void_round": (frozenset({"round_id"}), frozenset()),
    "void_shoe": (frozenset(), frozenset()),
    "manual_card": (frozenset({"card"}), frozenset()),
    "correct_result": (frozenset({"round_id", "player", "banker"}), frozenset()),
    "dropped_card": (frozenset({"read"}), frozenset()),
}


class Invalid(Exception):  # noqa: N818 - the checker's verdict, never leaves this module
    pass


def _card(value: object) -> str:
    """A card as the documentation writes it: exactly rank then suit, upper case (``QH``)."""
    if not isinstance(value, str) or len(value) != 2:
        raise Invalid
    if value[0] not in "A23456789TJQK" or value[1] not in "SHDC":
        raise Invalid
    return value


def _text(value: object) -> str:
    if not isinstance(value, str) or not value:
        raise Invalid
    return value


def _command_cards(record: dict[str, Any]) -> list[str]:
    name, args = record["command"], record.get("args", {})
    if not isinstance(name, str) or name not in _ARGS or not isinstance(args, dict):
        raise Invalid
    for key in ("id", "operator"):
        if key in record:
            _text(record[key])
    required, optional = _ARGS[name]
    if not required <= set(args) <= required | optional:
        raise Invalid
    cards = {key: _arg_cards(key, value) for key, value in args.items()}
    # An input holds the entered card, or the player's cards then the banker's.
    return [card for key in ("card", "player", "banker") for card in cards.get(key, [])]


def _arg_cards(key: str, value: object) -> list[str]:
    if key == "card":
        return [_card(value)]
    if key in {"player", "banker"}:
        if not isinstance(value, list):
            raise Invalid
        return [_card(item) for item in value]
    if key == "read" and not isinstance(value, bool):
        raise Invalid
    if key == "round_id" or (key == "shoe_id" and value is not None):
        _text(value)
    return []


def _plain_json(value: object, depth: int = 0) -> bool:
    """Publishable JSON: no NaN or infinity, string keys, at most 8 levels below the top."""
    if depth > 8:
        return False
    if isinstance(value, float):
        return math.isfinite(value)
    if value is None or isinstance(value, bool | int | str):
        return True
    if isinstance(value, list):
        return all(_plain_json(item, depth + 1) for item in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain_json(v, depth + 1) for k, v in value.items())
    return False


def _assessment_valid(value: object) -> bool:  # noqa: PLR0911 - one rule per line
    if not isinstance(value, dict):
        return False
    if not set(value) <= {"shoe_id", "round_no", "odds", "alarms", "offer", "suspended"}:
        return False
    shoe_id, round_no = value.get("shoe_id"), value.get("round_no")
    if not isinstance(shoe_id, str) or not shoe_id:
        return False
    if isinstance(round_no, bool) or not isinstance(round_no, int) or round_no < 1:
        return False
    odds = value.get("odds")
    if odds is not None and not _odds_valid(odds):
        return False
    alarms, offer = value.get("alarms", []), value.get("offer")
    suspended = value.get("suspended", [])
    if not isinstance(alarms, list) or not isinstance(suspended, list):
        return False
    if offer is not None and not (
        isinstance(offer, list) and all(isinstance(bet, str) and bet for bet in offer)
    ):
        return False
    return all(_alarm_valid(alarm) for alarm in alarms) and all(
        _suspended_valid(item) for item in suspended
    )


def _number_valid(value: object) -> bool:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return False
    try:
        return math.isfinite(float(value))
    except OverflowError:
        return False


def _whole(value: object, least: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= least


def _odds_valid(odds: object) -> bool:
    """An assessment's odds: the ``<root>/odds`` payload, every bet's figures numbers."""
    if not isinstance(odds, dict) or set(odds) != {"shoe_id", "round_no", "cards_left", "bets"}:
        return False
    shoe_id, bets = odds["shoe_id"], odds["bets"]
    if not (isinstance(shoe_id, str) and shoe_id and isinstance(bets, dict)):
        return False
    if not (_whole(odds["round_no"], 1) and _whole(odds["cards_left"], 0)):
        return False
    return all(isinstance(bet, str) and bet and _bet_odds_valid(item) for bet, item in bets.items())


def _bet_odds_valid(item: object) -> bool:
    needed = {"ev", "house_edge", "rtp", "probabilities"}
    if not isinstance(item, dict) or not needed <= set(item) <= needed | {"offered"}:
        return False
    chances = item["probabilities"]
    offered = item.get("offered", False)
    if not isinstance(chances, dict) or not isinstance(offered, bool):
        return False
    figures = [item["ev"], item["house_edge"], item["rtp"], *chances.values()]
    names_ok = all(isinstance(name, str) and name for name in chances)
    return names_ok and all(_number_valid(figure) for figure in figures)


def _alarm_valid(alarm: object) -> bool:
    if not isinstance(alarm, dict) or not set(alarm) <= {"code", "message", "details"}:
        return False
    details = alarm.get("details", {})
    message = alarm.get("message")
    return (
        alarm.get("code") in _ASSESSMENT_CODES
        and isinstance(message, str)
        and message != ""
        and isinstance(details, dict)
        and _plain_json(details)
    )


def _suspended_valid(item: object) -> bool:
    if not isinstance(item, dict) or set(item) != {"bet", "house_edge"}:
        return False
    bet, edge = item["bet"], item["house_edge"]
    if isinstance(edge, bool) or not isinstance(edge, int | float):
        return False
    finite = abs(edge) <= sys.float_info.max if isinstance(edge, int) else math.isfinite(edge)
    return isinstance(bet, str) and bet != "" and finite


def _shoe_input_cards(kind: str, value: object) -> list[str]:
    if kind == "card":
        return [_card(value)]
    if kind == "assessed":
        if not _assessment_valid(value):
            raise Invalid
        return []
    valid = {
        "cut": value is True,
        "misread": value is True,
        "frames_lost": isinstance(value, int) and not isinstance(value, bool) and value >= 1,
        "reader": isinstance(value, str) and value in {"offline", "online"},
        "runtime_failed": isinstance(value, str) and value != "",
    }[kind]
    if not valid:
        raise Invalid
    return []


def reference_cards(record: object) -> list[str]:
    """The cards a record names, in the order an input holds them; raises ``Invalid``."""
    if not isinstance(record, dict):
        raise Invalid
    kinds = [kind for kind in _KINDS if kind in record]
    if len(kinds) != 1:
        raise Invalid
    kind = kinds[0]
    allowed = {"at", "ts", "v"} | (
        {"command", "args", "id", "operator"} if kind == "command" else {kind}
    )
    if not set(record) <= allowed:
        raise Invalid
    # records.py compares the version with ==, so 1.0 and true also read as version 1.
    if record.get("v", 1) != 1:
        raise Invalid
    at = record.get("at", 0.0)
    if isinstance(at, bool) or not isinstance(at, int | float):
        raise Invalid
    if isinstance(at, int) and abs(at) > sys.float_info.max:  # no float holds it
        raise Invalid
    if isinstance(at, float) and not math.isfinite(at):
        raise Invalid
    if kind == "command":
        return _command_cards(record)
    return _shoe_input_cards(kind, record[kind])


def input_cards(event: Input) -> list[str]:
    if isinstance(event, CardDrawn | EnterCard):
        return [event.card.code]
    if isinstance(event, CorrectResult):
        return [card.code for card in (*event.player, *event.banker)]
    return []


# --- records --------------------------------------------------------------------------------

short_text = st.text(max_size=8)
near_cards = st.sampled_from(
    ["qh", " QH ", "10h", "10S", "\u2003KD", "Q", "QX", "1H", "QHH", "", "Q\u017f", "\u0131H"]
)
card_values = fuzz.rarely(fuzz.card_codes, near_cards)
json_scalars = (
    st.none()
    | st.booleans()
    | st.integers()
    | st.integers(min_value=10**308, max_value=10**320)
    | st.floats()
    | short_text
)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.sampled_from([*_KINDS, "at", "v", "args"]) | short_text, inner, max_size=4
        )
    ),
    max_leaves=10,
)
ats = st.floats(min_value=0, max_value=1e6) | st.integers(0, 10**6) | json_scalars


bet_odds_values = st.fixed_dictionaries(
    {
        "ev": fuzz.rarely(st.floats(-1, 1), json_scalars),
        "house_edge": st.floats(-1, 1),
        "rtp": st.floats(0, 2) | st.integers(0, 2),
        "probabilities": st.dictionaries(
            fuzz.rarely(st.sampled_from(["lose", "push", "1"]), short_text),
            fuzz.rarely(st.floats(0, 1), json_scalars),
            max_size=3,
        ),
    },
    optional={"offered": fuzz.rarely(st.booleans(), json_scalars)},
)
odds_values = st.fixed_dictionaries(
    {
        "shoe_id": fuzz.rarely(st.just("S-1"), json_scalars),
        "round_no": fuzz.rarely(st.integers(1, 80), json_scalars),
        "cards_left": fuzz.rarely(st.integers(0, 416), json_scalars),
        "bets": st.dictionaries(
            fuzz.rarely(st.just("tie"), short_text), bet_odds_values, max_size=2
        ),
    }
)
assessments = st.fixed_dictionaries(
    {
        "shoe_id": fuzz.rarely(st.just("S-1"), json_scalars),
        "round_no": fuzz.rarely(st.integers(1, 80), json_scalars),
    },
    optional={
        "odds": st.none() | st.dictionaries(short_text, json_values, max_size=3) | odds_values,
        "alarms": st.lists(
            st.fixed_dictionaries(
                {
                    "code": fuzz.rarely(st.sampled_from(sorted(_ASSESSMENT_CODES)), json_scalars),
                    "message": fuzz.rarely(st.just("an alarm"), json_scalars),
                },
                optional={"details": json_values},
            ),
            max_size=2,
        ),
        "offer": st.none() | st.lists(fuzz.rarely(st.sampled_from(["tie", "big"]), json_scalars)),
        "suspended": st.lists(
            st.fixed_dictionaries(
                {"bet": fuzz.rarely(st.just("big"), json_scalars), "house_edge": json_scalars}
            ),
            max_size=2,
        ),
    },
)


@st.composite
def records(draw: st.DrawFn) -> dict[str, Any]:
    kind = draw(st.sampled_from(_KINDS))
    record: dict[str, Any]
    if kind == "command":
        name = draw(st.sampled_from(sorted(_ARGS)))
        record = {"command": name}
        if draw(st.booleans()):
            record["args"] = draw(
                fuzz.command_args(name, text=short_text, card=card_values, hand_card=card_values)
            )
        for key in ("id", "operator"):
            if draw(st.booleans()):
                record[key] = draw(short_text)
    else:
        value = {
            "card": card_values,
            "cut": st.sampled_from([True, 1, "true"]),
            "misread": st.sampled_from([True, False]),
            "frames_lost": st.integers(-2, 100),
            "reader": st.sampled_from(["offline", "online", "gone"]),
            "runtime_failed": short_text,
            "assessed": assessments,
        }[kind]
        record = {kind: draw(value)}
    if draw(st.booleans()):
        record["at"] = draw(ats)
    if draw(fuzz.one_in(4)):
        record["v"] = draw(st.sampled_from([1, 2, 0, "1", None]))
    if draw(fuzz.one_in(4)):
        record["ts"] = draw(short_text)
    return record


@st.composite
def broken_records(draw: st.DrawFn) -> Any:
    record = draw(records())
    target = record.get("args") if isinstance(record.get("args"), dict) else record
    assert isinstance(target, dict)
    key = draw(st.sampled_from(sorted(target) or ["x"]))
    match draw(st.sampled_from(["drop", "add", "replace"])):
        case "drop":
            target.pop(key, None)
        case "add":
            target[draw(st.sampled_from([*_KINDS, "args", "extra"]) | short_text)] = draw(
                json_values
            )
        case _:
            target[key] = draw(json_values)
    return record


values = st.one_of(records(), records(), broken_records(), json_values)


def check_records(batch: list[object]) -> None:
    accepted = sum(check_record(record) for record in batch)
    fuzz.count_example("input_from_record", len(batch), accepted=accepted)


def check_record(record: object) -> bool:
    """Check one value against the oracles; returns whether it became an input."""
    result = input_from_record(
        record, default_at=0.0, default_command_id="c-0", default_operator="fuzz"
    )
    try:
        expected: list[str] | None = reference_cards(record)
    except Invalid:
        expected = None
    if isinstance(result, RecordRejected):
        assert expected is None, (record, result)
        assert result.reason
    else:
        assert expected is not None, (record, result)
        assert input_cards(result) == expected
        again = input_from_record(
            input_to_record(result), default_at=1.0, default_command_id="x", default_operator="y"
        )
        if not math.isnan(result.at):
            assert again == result
    return not isinstance(result, RecordRejected)


#: What each example of both profiles checks: a batch of records.
record_batches = st.lists(values, min_size=8, max_size=24)


@fuzz.fast_settings(1.5)
@given(record_batches)
def test_records_give_an_input_or_a_rejection(batch: list[object]) -> None:
    check_records(batch)


#: Long-profile weight (examples per unit of ``FUZZ_EXAMPLES``).
WEIGHT = 0.6


@pytest.mark.slow
@pytest.mark.parametrize("round_no", fuzz.long_rounds(WEIGHT))
def test_long_records(round_no: int) -> None:
    fuzz.run_long_round("input_from_record", check_records, record_batches, WEIGHT, round_no)
