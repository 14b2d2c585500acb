# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Input records: the procedure's inputs as versioned JSON-ready records, and back.

Pure: no I/O, no clock, no randomness. Bad records are values (:class:`RecordRejected`),
never exceptions. The reading of a command is :mod:`.command_records`, of every other kind
:mod:`.report_records`, with the checks they share in :mod:`.record_fields`.

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
from dataclasses import dataclass, replace
from typing import Final

from table_controller.contract import ABSENT, Odds
from table_controller.procedure import inputs
from table_controller.procedure.command_records import command_args, command_from_record
from table_controller.procedure.inputs import Input
from table_controller.procedure.limits import limits_data
from table_controller.procedure.record_fields import BadRecord, read_text
from table_controller.procedure.report_records import REPORT_READERS

INPUT_RECORD_VERSION: Final = 1
_KINDS: Final = (
    "command", "card", "cut", "misread", "frames_lost", "reader", "assessed", "runtime_failed",
    "software_modified", "limits_configured",
)  # fmt: skip
_COMMON: Final = frozenset({"at", "ts", "v"})
_COMMAND_KEYS: Final = frozenset({"command", "args", "id", "operator", "supervisor"})


@dataclass(frozen=True, slots=True, kw_only=True)
class RecordRejected:
    """A record that is not an input, and why (a sentence naming the offending part)."""

    reason: str


def input_from_record(
    record: object, *, default_at: float, default_command_id: str, default_operator: str
) -> Input | RecordRejected:
    """The input a record describes, or why it describes none."""
    try:
        return _parse(record, default_at, default_command_id, default_operator)
    except BadRecord as bad:
        return RecordRejected(reason=str(bad))


def _parse(record: object, default_at: float, command_id: str, operator: str) -> Input:
    if not isinstance(record, dict):
        raise BadRecord("an input is a JSON object")
    kinds = [kind for kind in _KINDS if kind in record]
    if len(kinds) != 1:
        raise BadRecord(f"an input has exactly one of {', '.join(_KINDS)}")
    kind = kinds[0]
    allowed = _COMMON | (_COMMAND_KEYS if kind == "command" else {kind})
    unknown = sorted(set(record) - allowed)
    if unknown:
        raise BadRecord(f"unknown field {unknown[0]!r}")
    version = record.get("v", INPUT_RECORD_VERSION)
    if version != INPUT_RECORD_VERSION:
        raise BadRecord(f"record version {version!r} is not {INPUT_RECORD_VERSION}")
    at = record.get("at", default_at)
    if isinstance(at, bool) or not isinstance(at, int | float):
        raise BadRecord("'at' must be a number of seconds")
    try:
        finite = math.isfinite(float(at))
    except OverflowError:  # an integer beyond any float
        finite = False
    if not finite:
        raise BadRecord("'at' must be a finite number of seconds")
    if kind != "command":
        return REPORT_READERS[kind](record[kind], float(at))
    identity = read_text(record.get("id", command_id), "id")
    who = read_text(record.get("operator", operator), "operator")
    command = command_from_record(
        record["command"], record.get("args", {}), float(at), identity, who
    )
    supervisor = record.get("supervisor")
    if supervisor is None:
        return command
    return replace(command, supervisor=read_text(supervisor, "supervisor"))


def input_to_record(event: Input) -> dict[str, object]:  # noqa: C901 - a case per kind
    """The record of an input; :func:`input_from_record` reads it back to an equal input."""
    record: dict[str, object] = {"v": INPUT_RECORD_VERSION, "at": event.at}
    match event:
        case inputs.CardDrawn(card=card):
            record["card"] = card.code
        case inputs.CutCardDrawn():
            record["cut"] = True
        case inputs.CardMisread():
            record["misread"] = True
        case inputs.FramesLost(count=count):
            record["frames_lost"] = count
        case inputs.ReaderWentOffline():
            record["reader"] = "offline"
        case inputs.ReaderCameBack():
            record["reader"] = "online"
        case inputs.RuntimeFailed(message=message):
            record["runtime_failed"] = message
        case inputs.SoftwareModified(message=message, details=details):
            record["software_modified"] = {"message": message, "details": dict(details)}
        case inputs.LimitsConfigured(currency=currency, limits=limits):
            record["limits_configured"] = {"currency": currency, "limits": limits_data(limits)}
        case inputs.RoundAssessed():
            record["assessed"] = {
                "shoe_id": event.shoe_id,
                "round_no": event.round_no,
                "odds": None if event.odds is None else odds_record(event.odds),
                "alarms": [
                    {"code": alarm.code, "message": alarm.message, "details": dict(alarm.details)}
                    for alarm in event.alarms
                ],
                "offer": None if event.offer is None else list(event.offer),
                "suspended": [{"bet": bet, "house_edge": edge} for bet, edge in event.suspended],
            }
        case _:
            record.update(
                command=event.COMMAND,
                id=event.command_id,
                operator=event.operator,
                args=command_args(event),
            )
            if event.supervisor is not None:
                record["supervisor"] = event.supervisor
    return record


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
