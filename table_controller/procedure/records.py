# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Input records: the procedure's inputs as versioned JSON-ready records, and back.

Pure: no I/O, no clock, no randomness. Bad records are values (:class:`RecordRejected`),
never exceptions.

**Input records** are what ``replay`` reads and what the journal stores (version
:data:`INPUT_RECORD_VERSION`), one JSON object per input, in the form of docs/operations.md::

    {"command": "new_shoe", "args": {"shoe_id": "S-1"}, "id": "c-1", "operator": "pit-12"}
    {"card": "KH"}   {"cut": true}   {"misread": true}   {"frames_lost": 2}
    {"reader": "offline"}   {"reader": "online"}
    {"runtime_failed": "the card source could not draw after journal row 41: ..."}
    {"software_modified": {"message": "2 files changed", "details": {"changed": [...]}}}
    {"assessed": {"shoe_id": "S-1", "round_no": 12, "odds": {...}, "alarms": [...],
                  "suspended": [{"bet": "player_pair", "house_edge": -0.0123}]}}
    {"limits_configured": {"currency": "MOP", "limits": {"banker": {"min": "100",
                                                                    "max": "10000"}}}}

with optional ``at`` (the adapter's monotonic seconds), ``ts`` (UTC wall time, carried for the
envelope and ignored by the core) and ``v`` (the record version). ``id`` and ``operator`` of a
command may be left out; the reader of the records supplies defaults. A supervisor command
carries ``supervisor``, who authorised it; a ``sign_in`` carries the staff member the edge
identified (``{"staff_id": "D-104", "name": "Mai Tran", "role": "dealer"}``), never a PIN.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Final, TypeAlias

from table_controller.procedure.board_payloads import BetOdds, Odds
from table_controller.procedure.codes import StaffRole
from table_controller.procedure.events import (
    COMMANDS,
    Acknowledge,
    AssessmentAlarm,
    CardDrawn,
    CardMisread,
    CloseBetting,
    Command,
    ConfirmResult,
    CorrectResult,
    CutCardDrawn,
    Deal,
    DroppedCard,
    EnterCard,
    FramesLost,
    Input,
    LimitsConfigured,
    Misdeal,
    OpenBetting,
    OpenDispute,
    ReaderCameBack,
    ReaderWentOffline,
    ResolveDispute,
    RoundAssessed,
    RuntimeFailed,
    SetLimits,
    SignIn,
    SignOut,
    SoftwareModified,
    StartNewShoe,
    VoidRound,
    VoidShoe,
)
from table_controller.procedure.limits import CURRENCY_PATTERN, limits_data, limits_from_data
from table_controller.procedure.payload_base import ABSENT
from table_controller.procedure.state_payloads import BetLimits
from table_controller.rules.cards import Card, CardError, parse_cards

INPUT_RECORD_VERSION: Final = 1
_KINDS: Final = (
    "command", "card", "cut", "misread", "frames_lost", "reader", "assessed", "runtime_failed",
    "software_modified", "limits_configured",
)  # fmt: skip
#: Alarm codes an assessment may raise (the runtime's analysis; procedure.errors.AlarmCode).
ASSESSMENT_ALARMS: Final = frozenset(
    {"edge_positive", "shuffle_pattern", "shoe_repeated", "impossible_count"}
)
_ASSESSED_KEYS: Final = frozenset({"shoe_id", "round_no", "odds", "alarms", "offer", "suspended"})
_COMMON: Final = frozenset({"at", "ts", "v"})
_COMMAND_KEYS: Final = frozenset({"command", "args", "id", "operator", "supervisor"})
#: The arguments each command takes (name -> required?).
_ARGS: Final[Mapping[str, Mapping[str, bool]]] = {
    "new_shoe": {"shoe_id": False},
    "open_betting": {},
    "close_betting": {},
    "deal": {},
    "misdeal": {},
    "void_round": {"round_id": True},
    "void_shoe": {},
    "manual_card": {"card": True},
    "correct_result": {"round_id": True, "player": True, "banker": True},
    "dropped_card": {"read": True},
    "sign_in": {"staff_id": True, "name": True, "role": True},
    "sign_out": {"staff_id": True},
    "dispute": {"reason": True, "rounds": True},
    "resolve_dispute": {"dispute_id": True, "outcome": True},
    "acknowledge": {"alarm": True},
    "confirm_result": {"round_id": True, "agrees": True},
    "set_limits": {"limits": True},
}

#: Most rounds one dispute may name (the recall's own limit).
MAX_DISPUTED_ROUNDS: Final = 50


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordRejected:
    """A record that is not an input, and why (a sentence naming the offending part)."""

    reason: str


class _Bad(Exception):  # noqa: N818 - private control flow inside this module, never escapes
    pass


def input_from_record(
    record: object, *, default_at: float, default_command_id: str, default_operator: str
) -> Input | RecordRejected:
    """The input a record describes, or why it describes none."""
    try:
        return _parse(record, default_at, default_command_id, default_operator)
    except _Bad as bad:
        return RecordRejected(reason=str(bad))


def _parse(record: object, default_at: float, command_id: str, operator: str) -> Input:
    if not isinstance(record, dict):
        raise _Bad("an input is a JSON object")
    kinds = [kind for kind in _KINDS if kind in record]
    if len(kinds) != 1:
        raise _Bad(f"an input has exactly one of {', '.join(_KINDS)}")
    kind = kinds[0]
    allowed = _COMMON | (_COMMAND_KEYS if kind == "command" else {kind})
    unknown = sorted(set(record) - allowed)
    if unknown:
        raise _Bad(f"unknown field {unknown[0]!r}")
    version = record.get("v", INPUT_RECORD_VERSION)
    if version != INPUT_RECORD_VERSION:
        raise _Bad(f"record version {version!r} is not {INPUT_RECORD_VERSION}")
    at = record.get("at", default_at)
    if isinstance(at, bool) or not isinstance(at, int | float):
        raise _Bad("'at' must be a number of seconds")
    try:
        finite = math.isfinite(float(at))
    except OverflowError:  # an integer beyond any float
        finite = False
    if not finite:
        raise _Bad("'at' must be a finite number of seconds")
    if kind != "command":
        return _SHOE_INPUTS[kind](record[kind], float(at))
    identity = _text(record.get("id", command_id), "id")
    who = _text(record.get("operator", operator), "operator")
    command = _command(record["command"], record.get("args", {}), float(at), identity, who)
    supervisor = record.get("supervisor")
    if supervisor is None:
        return command
    return replace(command, supervisor=_text(supervisor, "supervisor"))


def _card_drawn(value: object, at: float) -> Input:
    return CardDrawn(at=at, card=_card(value, "card"))


def _cut(value: object, at: float) -> Input:
    _require_true(value, "cut")
    return CutCardDrawn(at=at)


def _misread(value: object, at: float) -> Input:
    _require_true(value, "misread")
    return CardMisread(at=at)


def _frames_lost(value: object, at: float) -> Input:
    return FramesLost(at=at, count=_count(value, "frames_lost", least=1))


def _reader(value: object, at: float) -> Input:
    if value == "offline":
        return ReaderWentOffline(at=at)
    if value == "online":
        return ReaderCameBack(at=at)
    raise _Bad("'reader' must be 'offline' or 'online'")


def _runtime_failed(value: object, at: float) -> Input:
    return RuntimeFailed(at=at, message=_text(value, "runtime_failed"))


def _software_modified(value: object, at: float) -> Input:
    if not isinstance(value, dict) or set(value) - {"message", "details"}:
        raise _Bad("'software_modified' is an object with 'message' and 'details'")
    details = value.get("details", {})
    if not isinstance(details, dict):
        raise _Bad("'software_modified.details' must be an object")
    _json_ready(details, "software_modified.details")
    return SoftwareModified(at=at, message=_text(value.get("message"), "software_modified.message"),
                            details=details)


def _assessed(value: object, at: float) -> Input:
    if not isinstance(value, dict):
        raise _Bad("'assessed' must be a JSON object")
    unknown = sorted(set(value) - _ASSESSED_KEYS)
    if unknown:
        raise _Bad(f"'assessed' has no field {unknown[0]!r}")
    round_no = _count(value.get("round_no"), "assessed.round_no", least=1)
    odds = value.get("odds")
    return RoundAssessed(
        at=at,
        shoe_id=_text(value.get("shoe_id"), "assessed.shoe_id"),
        round_no=round_no,
        odds=None if odds is None else _odds(odds),
        alarms=tuple(_assessment_alarm(item) for item in _list(value, "alarms")),
        offer=None if value.get("offer") is None else _bet_ids(_list(value, "offer")),
        suspended=tuple(_suspension(item) for item in _list(value, "suspended")),
    )


def _limits_configured(value: object, at: float) -> Input:
    if not isinstance(value, dict) or set(value) != {"currency", "limits"}:
        raise _Bad("'limits_configured' is an object with 'currency' and 'limits'")
    currency = value["currency"]
    if not isinstance(currency, str) or not re.fullmatch(CURRENCY_PATTERN, currency):
        raise _Bad("'limits_configured.currency' must be three upper-case letters (ISO 4217)")
    return LimitsConfigured(at=at, currency=currency,
                            limits=_limits(value["limits"], "limits_configured.limits"))


def _limits(value: object, key: str) -> dict[str, BetLimits]:
    try:
        return limits_from_data(value, key)
    except ValueError as error:
        raise _Bad(str(error)) from None


_ODDS_KEYS: Final = frozenset({"shoe_id", "round_no", "cards_left", "bets"})
_BET_ODDS_NEEDED: Final = frozenset({"ev", "house_edge", "rtp", "probabilities"})
_BET_ODDS_KEYS: Final = _BET_ODDS_NEEDED | {"offered"}


def _odds(value: object) -> Odds:
    """The ``<root>/odds`` payload of an assessment, as its record holds it."""
    if not isinstance(value, dict) or set(value) != _ODDS_KEYS:
        raise _Bad(f"'assessed.odds' must be null or an object of {sorted(_ODDS_KEYS)}")
    bets = value["bets"]
    if not isinstance(bets, dict):
        raise _Bad("'assessed.odds.bets' must be a JSON object")
    return Odds(
        shoe_id=_text(value["shoe_id"], "assessed.odds.shoe_id"),
        round_no=_count(value["round_no"], "assessed.odds.round_no", least=1),
        cards_left=_count(value["cards_left"], "assessed.odds.cards_left", least=0),
        bets={_text(bet, "assessed.odds.bets"): _bet_odds(odds) for bet, odds in bets.items()},
    )


def _bet_odds(value: object) -> BetOdds:
    if not isinstance(value, dict) or not _BET_ODDS_NEEDED <= set(value) <= _BET_ODDS_KEYS:
        raise _Bad(f"a bet's odds are an object of {sorted(_BET_ODDS_KEYS)} (offered optional)")
    chances = value["probabilities"]
    if not isinstance(chances, dict):
        raise _Bad("a bet's probabilities must be a JSON object")
    offered = value.get("offered", ABSENT)
    if offered is not ABSENT and not isinstance(offered, bool):
        raise _Bad("a bet's 'offered' must be true or false")
    return BetOdds(
        ev=_number(value["ev"], "'ev'"),
        house_edge=_number(value["house_edge"], "'house_edge'"),
        rtp=_number(value["rtp"], "'rtp'"),
        probabilities={
            _text(name, "probabilities"): _number(chance, "'probabilities'")
            for name, chance in chances.items()
        },
        offered=offered,
    )


def _number(value: object, name: str) -> float:
    """A finite JSON number, as the float it was published as; ``name`` says whose."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _Bad(f"{name} must be a number")
    try:
        number = float(value)
    except OverflowError:  # an integer beyond any float
        number = math.inf
    if not math.isfinite(number):
        raise _Bad(f"{name} must be a finite number")
    return number


def _count(value: object, key: str, *, least: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < least:
        raise _Bad(f"{key!r} must be a whole number >= {least}")
    return value


def _bet_ids(items: list[object]) -> tuple[str, ...]:
    return tuple(_text(item, "assessed.offer") for item in items)


#: How deep an assessment alarm's details may nest.
_MAX_JSON_DEPTH: Final = 8


def _json_ready(value: object, key: str, depth: int = 0) -> None:
    """Refuse what could not be published as JSON: NaN, infinities, odd types, deep nesting."""
    if depth > _MAX_JSON_DEPTH:
        raise _Bad(f"{key!r} nests too deep")
    if value is None or isinstance(value, bool | int | str):
        return
    if isinstance(value, float):
        if not math.isfinite(value):
            raise _Bad(f"{key!r} holds a number that is not finite")
        return
    if isinstance(value, list):
        for item in value:
            _json_ready(item, key, depth + 1)
        return
    if isinstance(value, dict) and all(isinstance(name, str) for name in value):
        for item in value.values():
            _json_ready(item, key, depth + 1)
        return
    raise _Bad(f"{key!r} holds a value that is not JSON")


def _list(value: Mapping[str, object], key: str) -> list[object]:
    items = value.get(key, [])
    if not isinstance(items, list):
        raise _Bad(f"'assessed.{key}' must be a list")
    return items


def _assessment_alarm(item: object) -> AssessmentAlarm:
    if not isinstance(item, dict) or set(item) - {"code", "message", "details"}:
        raise _Bad("an assessment alarm is {code, message, details}")
    code = item.get("code")
    if not isinstance(code, str) or code not in ASSESSMENT_ALARMS:
        raise _Bad(f"an assessment alarm's code must be one of {sorted(ASSESSMENT_ALARMS)}")
    details = item.get("details", {})
    if not isinstance(details, dict):
        raise _Bad("an assessment alarm's details must be a JSON object")
    _json_ready(details, "assessed.alarms.details")
    return AssessmentAlarm(
        code=code, message=_text(item.get("message"), "assessed.alarms.message"), details=details
    )


def _suspension(item: object) -> tuple[str, float]:
    if not isinstance(item, dict) or set(item) != {"bet", "house_edge"}:
        raise _Bad("a suspended bet is {bet, house_edge}")
    edge = _number(item["house_edge"], "a suspended bet's house_edge")
    return _text(item["bet"], "assessed.suspended.bet"), edge


_SHOE_INPUTS: Final[Mapping[str, Callable[[object, float], Input]]] = {
    "card": _card_drawn,
    "cut": _cut,
    "misread": _misread,
    "frames_lost": _frames_lost,
    "reader": _reader,
    "assessed": _assessed,
    "runtime_failed": _runtime_failed,
    "software_modified": _software_modified,
    "limits_configured": _limits_configured,
}
_PlainCommand: TypeAlias = OpenBetting | CloseBetting | Deal | Misdeal | VoidShoe
_PLAIN_COMMANDS: Final[Mapping[str, type[_PlainCommand]]] = {
    cls.COMMAND: cls for cls in (OpenBetting, CloseBetting, Deal, Misdeal, VoidShoe)
}


def _check_args(name: object, args: object) -> tuple[str, dict[str, object]]:
    if not isinstance(name, str) or name not in COMMANDS:
        raise _Bad(f"unknown command {name!r} (expected one of {', '.join(COMMANDS)})")
    if not isinstance(args, dict):
        raise _Bad("'args' must be a JSON object")
    spec = _ARGS[name]
    unknown = sorted(set(args) - set(spec))
    if unknown:
        raise _Bad(f"command {name!r} takes no argument {unknown[0]!r}")
    missing = [arg for arg, required in spec.items() if required and arg not in args]
    if missing:
        raise _Bad(f"command {name!r} needs argument {missing[0]!r}")
    return name, args


def _command(  # noqa: C901, PLR0911 - a case per command
    name: object, args: object, at: float, command_id: str, operator: str
) -> Command:
    name, args = _check_args(name, args)
    plain = _PLAIN_COMMANDS.get(name)
    if plain is not None:
        return plain(at=at, command_id=command_id, operator=operator)
    match name:
        case "new_shoe":
            shoe_id = args.get("shoe_id")
            return StartNewShoe(at=at, command_id=command_id, operator=operator,
                                shoe_id=None if shoe_id is None else _text(shoe_id, "shoe_id"))
        case "void_round":
            return VoidRound(at=at, command_id=command_id, operator=operator,
                             round_id=_text(args["round_id"], "round_id"))
        case "manual_card":
            return EnterCard(at=at, command_id=command_id, operator=operator,
                             card=_card(args["card"], "card"))
        case "correct_result":
            return CorrectResult(
                at=at, command_id=command_id, operator=operator,
                round_id=_text(args["round_id"], "round_id"),
                player=_cards(args["player"], "player"),
                banker=_cards(args["banker"], "banker"),
            )
        case "sign_in":
            role = args["role"]
            if not isinstance(role, str) or role not in frozenset(StaffRole):
                raise _Bad(f"'role' must be one of {', '.join(StaffRole)}")
            return SignIn(at=at, command_id=command_id, operator=operator,
                          staff_id=_text(args["staff_id"], "staff_id"),
                          name=_text(args["name"], "name"), role=StaffRole(role))
        case "sign_out":
            return SignOut(at=at, command_id=command_id, operator=operator,
                           staff_id=_text(args["staff_id"], "staff_id"))
        case "dispute" | "resolve_dispute" | "acknowledge" | "confirm_result":
            return _oversight_command(name, args, at, command_id, operator)
        case "set_limits":
            return SetLimits(at=at, command_id=command_id, operator=operator,
                             limits=_limits(args["limits"], "limits"))
        case _:
            read = args["read"]
            if not isinstance(read, bool):
                raise _Bad("'read' must be true or false")
            return DroppedCard(at=at, command_id=command_id, operator=operator, read=read)


def _oversight_command(name: str, args: Mapping[str, object], at: float, command_id: str,
                       operator: str) -> Command:
    """Disputes, acknowledgements and confirmations (the integrity commands)."""
    match name:
        case "dispute":
            rounds = args["rounds"]
            if (not isinstance(rounds, list) or not 1 <= len(rounds) <= MAX_DISPUTED_ROUNDS
                    or len(set(map(str, rounds))) != len(rounds)):
                raise _Bad(f"'rounds' must list 1 to {MAX_DISPUTED_ROUNDS} different round ids")
            return OpenDispute(at=at, command_id=command_id, operator=operator,
                               reason=_text(args["reason"], "reason"),
                               round_ids=tuple(_text(item, "rounds") for item in rounds))
        case "resolve_dispute":
            return ResolveDispute(at=at, command_id=command_id, operator=operator,
                                  dispute_id=_text(args["dispute_id"], "dispute_id"),
                                  outcome=_text(args["outcome"], "outcome"))
        case "acknowledge":
            return Acknowledge(at=at, command_id=command_id, operator=operator,
                               alarm=_text(args["alarm"], "alarm"))
        case _:
            agrees = args["agrees"]
            if not isinstance(agrees, bool):
                raise _Bad("'agrees' must be true or false")
            return ConfirmResult(at=at, command_id=command_id, operator=operator,
                                 round_id=_text(args["round_id"], "round_id"), agrees=agrees)


def _require_true(value: object, key: str) -> None:
    if value is not True:
        raise _Bad(f"{key!r} must be true")


def _text(value: object, key: str) -> str:
    if not isinstance(value, str) or not value:
        raise _Bad(f"{key!r} must be a non-empty string")
    return value


def _card(value: object, key: str) -> Card:
    try:
        return Card.parse(value)  # type: ignore[arg-type]  # parse checks the type itself
    except CardError as error:
        raise _Bad(f"{key!r}: {error}") from None


def _cards(value: object, key: str) -> tuple[Card, ...]:
    if not isinstance(value, list):
        raise _Bad(f"{key!r} must be a list of cards")
    try:
        return parse_cards(value)
    except CardError as error:
        raise _Bad(f"{key!r} {error}") from None


def input_to_record(event: Input) -> dict[str, object]:  # noqa: C901 - a case per kind
    """The record of an input; :func:`input_from_record` reads it back to an equal input."""
    record: dict[str, object] = {"v": INPUT_RECORD_VERSION, "at": event.at}
    match event:
        case CardDrawn(card=card):
            record["card"] = card.code
        case CutCardDrawn():
            record["cut"] = True
        case CardMisread():
            record["misread"] = True
        case FramesLost(count=count):
            record["frames_lost"] = count
        case ReaderWentOffline():
            record["reader"] = "offline"
        case ReaderCameBack():
            record["reader"] = "online"
        case RuntimeFailed(message=message):
            record["runtime_failed"] = message
        case SoftwareModified(message=message, details=details):
            record["software_modified"] = {"message": message, "details": dict(details)}
        case LimitsConfigured(currency=currency, limits=limits):
            record["limits_configured"] = {"currency": currency,
                                           "limits": limits_data(limits)}
        case RoundAssessed():
            record["assessed"] = {
                "shoe_id": event.shoe_id,
                "round_no": event.round_no,
                "odds": None if event.odds is None else odds_record(event.odds),
                "alarms": [
                    {"code": alarm.code, "message": alarm.message, "details": dict(alarm.details)}
                    for alarm in event.alarms
                ],
                "offer": None if event.offer is None else list(event.offer),
                "suspended": [
                    {"bet": bet, "house_edge": edge} for bet, edge in event.suspended
                ],
            }
        case _:
            record.update(
                command=event.COMMAND,
                id=event.command_id,
                operator=event.operator,
                args=_command_args(event),
            )
            if event.supervisor is not None:
                record["supervisor"] = event.supervisor
    return record


def _command_args(command: Command) -> dict[str, object]:  # noqa: C901, PLR0911, PLR0912
    match command:
        case StartNewShoe(shoe_id=shoe_id):
            return {} if shoe_id is None else {"shoe_id": shoe_id}
        case VoidRound(round_id=round_id):
            return {"round_id": round_id}
        case EnterCard(card=card):
            return {"card": card.code}
        case CorrectResult(round_id=round_id, player=player, banker=banker):
            return {"round_id": round_id, "player": card_codes(player),
                    "banker": card_codes(banker)}
        case DroppedCard(read=read):
            return {"read": read}
        case SignIn(staff_id=staff_id, name=name, role=role):
            return {"staff_id": staff_id, "name": name, "role": role.value}
        case SignOut(staff_id=staff_id):
            return {"staff_id": staff_id}
        case OpenDispute(reason=reason, round_ids=round_ids):
            return {"reason": reason, "rounds": list(round_ids)}
        case ResolveDispute(dispute_id=dispute_id, outcome=outcome):
            return {"dispute_id": dispute_id, "outcome": outcome}
        case Acknowledge(alarm=alarm):
            return {"alarm": alarm}
        case ConfirmResult(round_id=round_id, agrees=agrees):
            return {"round_id": round_id, "agrees": agrees}
        case SetLimits(limits=limits):
            return {"limits": limits_data(limits)}
        case _:
            return {}


# --- parts of records ------------------------------------------------------------------------


def odds_record(odds: Odds) -> dict[str, object]:
    """An odds payload as JSON data, for the assessment's record."""
    return {
        "shoe_id": odds.shoe_id,
        "round_no": odds.round_no,
        "cards_left": odds.cards_left,
        "bets": {
            bet: {
                "ev": value.ev,
                "house_edge": value.house_edge,
                "rtp": value.rtp,
                "probabilities": dict(value.probabilities),
                **({} if value.offered is ABSENT else {"offered": value.offered}),
            }
            for bet, value in odds.bets.items()
        },
    }


def card_codes(cards: Iterable[Card | None]) -> list[str | None]:
    """Cards as the shoe writes them (``QH``); ``None`` for a card nobody could read."""
    return [None if card is None else card.code for card in cards]
