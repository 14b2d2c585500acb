# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Reading the records of the inputs that are not commands: what the shoe and the runtime report.

A card, the cut card, a misread, lost frames, the reader going and coming back, a runtime
failure, modified software, an assessment of the next round, the configured limits.

Pure: no I/O, no clock, no randomness. :data:`REPORT_READERS` reads each kind's value, by the
record's key; a value that makes no input raises
:class:`~table_controller.procedure.record_fields.BadRecord`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Final

from table_controller.contract import ABSENT, BetOdds, Odds
from table_controller.procedure.inputs import (
    AssessmentAlarm,
    CardDrawn,
    CardMisread,
    CutCardDrawn,
    FramesLost,
    Input,
    LimitsConfigured,
    ReaderCameBack,
    ReaderWentOffline,
    RoundAssessed,
    RuntimeFailed,
    SoftwareModified,
)
from table_controller.procedure.limits import CURRENCY_PATTERN
from table_controller.procedure.record_fields import (
    BadRecord,
    read_card,
    read_count,
    read_limits,
    read_number,
    read_text,
    require_json,
    require_true,
)

#: Alarm codes an assessment may raise (the runtime's analysis; procedure.errors.AlarmCode).
ASSESSMENT_ALARMS: Final = frozenset(
    {"edge_positive", "shuffle_pattern", "shoe_repeated", "impossible_count"}
)
_ASSESSED_KEYS: Final = frozenset({"shoe_id", "round_no", "odds", "alarms", "offer", "suspended"})


def _card_drawn(value: object, at: float) -> Input:
    return CardDrawn(at=at, card=read_card(value, "card"))


def _cut(value: object, at: float) -> Input:
    require_true(value, "cut")
    return CutCardDrawn(at=at)


def _misread(value: object, at: float) -> Input:
    require_true(value, "misread")
    return CardMisread(at=at)


def _frames_lost(value: object, at: float) -> Input:
    return FramesLost(at=at, count=read_count(value, "frames_lost", least=1))


def _reader(value: object, at: float) -> Input:
    if value == "offline":
        return ReaderWentOffline(at=at)
    if value == "online":
        return ReaderCameBack(at=at)
    raise BadRecord("'reader' must be 'offline' or 'online'")


def _runtime_failed(value: object, at: float) -> Input:
    return RuntimeFailed(at=at, message=read_text(value, "runtime_failed"))


def _software_modified(value: object, at: float) -> Input:
    if not isinstance(value, dict) or set(value) - {"message", "details"}:
        raise BadRecord("'software_modified' is an object with 'message' and 'details'")
    details = value.get("details", {})
    if not isinstance(details, dict):
        raise BadRecord("'software_modified.details' must be an object")
    require_json(details, "software_modified.details")
    return SoftwareModified(
        at=at, message=read_text(value.get("message"), "software_modified.message"), details=details
    )


def _assessed(value: object, at: float) -> Input:
    if not isinstance(value, dict):
        raise BadRecord("'assessed' must be a JSON object")
    unknown = sorted(set(value) - _ASSESSED_KEYS)
    if unknown:
        raise BadRecord(f"'assessed' has no field {unknown[0]!r}")
    round_no = read_count(value.get("round_no"), "assessed.round_no", least=1)
    odds = value.get("odds")
    return RoundAssessed(
        at=at,
        shoe_id=read_text(value.get("shoe_id"), "assessed.shoe_id"),
        round_no=round_no,
        odds=None if odds is None else _odds(odds),
        alarms=tuple(_assessment_alarm(item) for item in _list(value, "alarms")),
        offer=None if value.get("offer") is None else _bet_ids(_list(value, "offer")),
        suspended=tuple(_suspension(item) for item in _list(value, "suspended")),
    )


def _limits_configured(value: object, at: float) -> Input:
    if not isinstance(value, dict) or set(value) != {"currency", "limits"}:
        raise BadRecord("'limits_configured' is an object with 'currency' and 'limits'")
    currency = value["currency"]
    if not isinstance(currency, str) or not re.fullmatch(CURRENCY_PATTERN, currency):
        raise BadRecord("'limits_configured.currency' must be three upper-case letters (ISO 4217)")
    return LimitsConfigured(
        at=at, currency=currency, limits=read_limits(value["limits"], "limits_configured.limits")
    )


_ODDS_KEYS: Final = frozenset({"shoe_id", "round_no", "cards_left", "bets"})
_BET_ODDS_NEEDED: Final = frozenset({"ev", "house_edge", "rtp", "probabilities"})
_BET_ODDS_KEYS: Final = _BET_ODDS_NEEDED | {"offered"}


def _odds(value: object) -> Odds:
    """The ``<root>/odds`` payload of an assessment, as its record holds it."""
    if not isinstance(value, dict) or set(value) != _ODDS_KEYS:
        raise BadRecord(f"'assessed.odds' must be null or an object of {sorted(_ODDS_KEYS)}")
    bets = value["bets"]
    if not isinstance(bets, dict):
        raise BadRecord("'assessed.odds.bets' must be a JSON object")
    return Odds(
        shoe_id=read_text(value["shoe_id"], "assessed.odds.shoe_id"),
        round_no=read_count(value["round_no"], "assessed.odds.round_no", least=1),
        cards_left=read_count(value["cards_left"], "assessed.odds.cards_left", least=0),
        bets={read_text(bet, "assessed.odds.bets"): _bet_odds(odds) for bet, odds in bets.items()},
    )


def _bet_odds(value: object) -> BetOdds:
    if not isinstance(value, dict) or not _BET_ODDS_NEEDED <= set(value) <= _BET_ODDS_KEYS:
        raise BadRecord(
            f"a bet's odds are an object of {sorted(_BET_ODDS_KEYS)} (offered optional)"
        )
    chances = value["probabilities"]
    if not isinstance(chances, dict):
        raise BadRecord("a bet's probabilities must be a JSON object")
    offered = value.get("offered", ABSENT)
    if offered is not ABSENT and not isinstance(offered, bool):
        raise BadRecord("a bet's 'offered' must be true or false")
    return BetOdds(
        ev=read_number(value["ev"], "'ev'"),
        house_edge=read_number(value["house_edge"], "'house_edge'"),
        rtp=read_number(value["rtp"], "'rtp'"),
        probabilities={
            read_text(name, "probabilities"): read_number(chance, "'probabilities'")
            for name, chance in chances.items()
        },
        offered=offered,
    )


def _bet_ids(items: list[object]) -> tuple[str, ...]:
    return tuple(read_text(item, "assessed.offer") for item in items)


def _list(value: Mapping[str, object], key: str) -> list[object]:
    items = value.get(key, [])
    if not isinstance(items, list):
        raise BadRecord(f"'assessed.{key}' must be a list")
    return items


def _assessment_alarm(item: object) -> AssessmentAlarm:
    if not isinstance(item, dict) or set(item) - {"code", "message", "details"}:
        raise BadRecord("an assessment alarm is {code, message, details}")
    code = item.get("code")
    if not isinstance(code, str) or code not in ASSESSMENT_ALARMS:
        raise BadRecord(f"an assessment alarm's code must be one of {sorted(ASSESSMENT_ALARMS)}")
    details = item.get("details", {})
    if not isinstance(details, dict):
        raise BadRecord("an assessment alarm's details must be a JSON object")
    require_json(details, "assessed.alarms.details")
    return AssessmentAlarm(
        code=code,
        message=read_text(item.get("message"), "assessed.alarms.message"),
        details=details,
    )


def _suspension(item: object) -> tuple[str, float]:
    if not isinstance(item, dict) or set(item) != {"bet", "house_edge"}:
        raise BadRecord("a suspended bet is {bet, house_edge}")
    edge = read_number(item["house_edge"], "a suspended bet's house_edge")
    return read_text(item["bet"], "assessed.suspended.bet"), edge


REPORT_READERS: Final[Mapping[str, Callable[[object, float], Input]]] = {
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
