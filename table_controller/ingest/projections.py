# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""From a table's messages to the rows a casino queries: parsing, checking, folding.

Pure: no I/O, no clock. Every function takes parsed JSON (numbers read as ``Decimal`` by
:func:`parse`, so a settlement is exact) and either returns rows or raises
:class:`BadMessage` with a reason a person can read; the store rejects such a message whole.

Rows are rebuilt from *all* the messages of a round (or a shoe) ordered by ``seq``, never
patched by the newest arrival, so the result does not depend on the order messages arrive in
(mqtt-api.md: "apply the one with the highest seq").
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from decimal import Decimal
from fractions import Fraction
from typing import Final, NoReturn

import msgspec

#: The largest payload the ingest reads; a table's largest (a dispute's recall) is far smaller.
MAX_PAYLOAD_BYTES: Final = 1_000_000
#: The largest ``seq`` a BIGINT column holds.
MAX_SEQ: Final = 2**63 - 1
#: Ids: printable, no blanks, at most 64 characters (the schema's ``ID_LENGTH``).
_ID: Final = re.compile(r"[!-~]{1,64}")
#: A card's code: its rank, then its suit.
_CARDS: Final = frozenset(rank + suit for rank in "23456789TJQKA" for suit in "SHDC")
#: A settlement's decimal text: at most this many digits either side of the point.
_MAX_DIGITS: Final = 18
_MAX_AMOUNT: Final = 10**_MAX_DIGITS
#: Round messages that set a round's row, and shoe messages that set a shoe's.
ROUND_TYPES: Final = frozenset({"round_result", "round_voided", "result_corrected"})
SHOE_TYPES: Final = frozenset({"shoe_started", "shoe_ended", "shoe_voided"})
NOT_OFFERED: Final = "not_offered"
#: The payload's readers (:func:`parse`): fractional numbers as ``Decimal``, or as floats.
_EXACT: Final = msgspec.json.Decoder(float_hook=Decimal)
_FLOATS: Final = msgspec.json.Decoder()


class BadMessage(ValueError):  # noqa: N818 - it names what was received, not a failure
    """A payload the ingest cannot store; the message says what is wrong with it."""


def _bad(reason: str) -> NoReturn:
    raise BadMessage(reason)


def _reject_constant(name: str) -> NoReturn:
    _bad(f"{name} is not a JSON number")


def parse(payload: bytes, *, exact: bool = True) -> dict[str, object]:
    """The payload as a JSON object, its fractional numbers as ``Decimal`` (exact).

    ``exact=False`` reads them as floats, as a signature is checked over them (only settlements
    and alarms need the exact figures). msgspec reads a payload in one C pass; what it refuses
    (not JSON, a lone surrogate escape, a float beyond a double) is read again by the standard
    library's ``json``, which gives the reason, or the same object for what both accept.
    """
    if len(payload) > MAX_PAYLOAD_BYTES:
        _bad(f"payload of {len(payload)} bytes (at most {MAX_PAYLOAD_BYTES})")
    if b"\\u0000" in payload:
        _bad("a NUL character (\\u0000), which a database text cannot hold")
    try:
        data = (_EXACT if exact else _FLOATS).decode(payload)
    except (msgspec.DecodeError, RecursionError):
        data = _parse_slowly(payload, exact=exact)
    if type(data) is not dict:
        _bad("not a JSON object")
    return data


def _parse_slowly(payload: bytes, *, exact: bool) -> object:
    """:func:`parse` by the standard library: its reason for a payload that is not JSON."""
    try:
        return json.loads(
            payload.decode("utf-8"),
            parse_float=Decimal if exact else float,
            parse_constant=_reject_constant,
        )
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        _bad(f"not UTF-8 JSON: {error}")


def text(data: Mapping[str, object], key: str, *, optional: bool = False) -> str | None:
    """``data[key]`` as text; null or absent only if ``optional``."""
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, str):
        _bad(f"{key}: expected text, got {type(value).__name__}")
    return value


def identifier(data: Mapping[str, object], key: str, *, optional: bool = False) -> str | None:
    """``data[key]`` as an id: 1-64 printable characters without blanks."""
    value = text(data, key, optional=optional)
    if value is not None and not _ID.fullmatch(value):
        _bad(f"{key}: {value[:80]!r} is not an id (1-64 printable characters, no blanks)")
    return value


def integer(data: Mapping[str, object], key: str, *, optional: bool = False) -> int | None:
    """``data[key]`` as a whole number that a BIGINT holds, 0 or more (not a boolean)."""
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value <= MAX_SEQ:
        _bad(f"{key}: expected a whole number from 0 to 2**63-1, got {str(value)[:40]}")
    return value


def flag(data: Mapping[str, object], key: str, *, optional: bool = False) -> bool | None:
    """``data[key]`` as true or false."""
    value = data.get(key)
    if value is None and optional:
        return None
    if not isinstance(value, bool):
        _bad(f"{key}: expected true or false, got {type(value).__name__}")
    return value


def timestamp(data: Mapping[str, object], key: str = "ts") -> datetime | None:
    """An RFC 3339 time as an aware UTC datetime (null or absent: None)."""
    value = text(data, key, optional=True)
    if value is None:
        return None
    try:
        parsed = datetime.fromisoformat(value)
    except ValueError:
        _bad(f"{key}: {value[:40]!r} is not an RFC 3339 time")
    if parsed.tzinfo is None:
        _bad(f"{key}: {value[:40]!r} has no time zone")
    return parsed.astimezone(UTC)


def cards(data: Mapping[str, object], key: str) -> str:
    """A list of cards (null: unread) as text, ``QH 4S ?`` (``?`` for an unread card)."""
    value = data.get(key)
    if not isinstance(value, list) or len(value) > 1000:
        _bad(f"{key}: expected a list of cards")
    codes = []
    for card in value:
        if card is not None and not (isinstance(card, str) and card in _CARDS):
            _bad(f"{key}: {str(card)[:20]!r} is not a card")
        codes.append("?" if card is None else card)
    return " ".join(codes)


def amount(value: object, where: str) -> Fraction:
    """A settlement's JSON number, exactly: ``0.95`` is 19/20 (its decimal text, not a float)."""
    if type(value) is int and -_MAX_AMOUNT <= value <= _MAX_AMOUNT:  # most bets: 1, -1, 0
        return Fraction(value)
    if isinstance(value, bool) or not isinstance(value, int | Decimal):
        _bad(f"{where}: expected a number or {NOT_OFFERED!r}, got {str(value)[:40]!r}")
    if isinstance(value, Decimal):
        _sign, digits, exponent = value.as_tuple()
        if (
            not isinstance(exponent, int)
            or abs(exponent) > _MAX_DIGITS
            or len(digits) > 2 * _MAX_DIGITS
        ):
            _bad(f"{where}: {str(value)[:40]} is not a settlement")
        numerator, denominator = value.as_integer_ratio()
    else:
        numerator, denominator = int(value), 1
    if abs(numerator) > _MAX_AMOUNT * denominator:
        _bad(f"{where}: {str(value)[:40]} is not a settlement")
    # Two ints in lowest terms: Fraction's quick path, not its checks of numbers' types.
    return Fraction(numerator, denominator)


class Envelope(msgspec.Struct, frozen=True, kw_only=True, gc=False):
    """What every stored message has: who, which, when, and the round or shoe it is about.

    A msgspec struct: made for every message, at a tenth of a frozen dataclass's cost, and
    left out of the garbage collector's rounds (it holds no containers).
    """

    table_id: str
    seq: int | None
    type: str
    ts: datetime | None
    shoe_id: str | None
    round_id: str | None


def envelope(data: Mapping[str, object], topic: str) -> Envelope:
    """The envelope, checked: an id, a ``seq`` (but on ``status``), a topic of that table."""
    fast = _plain_envelope(data, topic)
    if fast is not None:
        return fast
    table_id = identifier(data, "table_id")
    assert table_id is not None
    kind = identifier(data, "type")
    assert kind is not None
    if f"/{table_id}/" not in f"/{topic}":
        _bad(f"topic {topic[:120]!r} is not table {table_id}'s")
    seq = integer(data, "seq", optional=kind == "status")
    if seq is not None and seq < 1:
        _bad("seq: must be 1 or more")
    return Envelope(
        table_id=table_id, seq=seq, type=kind, ts=timestamp(data),
        shoe_id=identifier(data, "shoe_id", optional=True),
        round_id=identifier(data, "round_id", optional=True),
    )  # fmt: skip


def _plain_envelope(data: Mapping[str, object], topic: str) -> Envelope | None:
    """The envelope of a message that passes every check of :func:`envelope`; else None.

    The same checks in one pass, for the common case (a ``seq``, a ``Z`` or offset time);
    anything else goes the long way, which says what is wrong.
    """
    table_id, kind, seq = data.get("table_id"), data.get("type"), data.get("seq")
    shoe_id, round_id, ts = data.get("shoe_id"), data.get("round_id"), data.get("ts")
    if not (
        type(table_id) is str
        and type(kind) is str
        and type(seq) is int
        and 1 <= seq <= MAX_SEQ
        and type(ts) is str
        and _ID.fullmatch(table_id)
        and _ID.fullmatch(kind)
        and (shoe_id is None or (type(shoe_id) is str and _ID.fullmatch(shoe_id)))
        and (round_id is None or (type(round_id) is str and _ID.fullmatch(round_id)))
        and f"/{table_id}/" in f"/{topic}"
    ):
        return None
    try:
        moment = datetime.fromisoformat(ts)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return None
    if moment.tzinfo is not UTC:
        moment = moment.astimezone(UTC)
    return Envelope(
        table_id=table_id, seq=seq, type=kind, ts=moment, shoe_id=shoe_id, round_id=round_id
    )


def fraction_text(value: Fraction | None) -> str:
    """A settlement as history keeps it: ``19/20``, ``-1/1`` or ``not_offered``."""
    return NOT_OFFERED if value is None else f"{value.numerator}/{value.denominator}"


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundVersion:
    """One message that set a round: its result, void or correction, parsed and checked."""

    seq: int
    kind: str
    shoe_id: str
    round_no: int
    ts: datetime
    columns: dict[str, object]
    #: Bet id -> net result per unit; None: not offered. Empty for a void.
    settlement: dict[str, Fraction | None]

    @property
    def history_row(self) -> dict[str, object]:
        kind = {"round_result": "result", "round_voided": "voided"}.get(self.kind, "corrected")
        settlement = (
            json.dumps({bet: fraction_text(v) for bet, v in sorted(self.settlement.items())})
            if self.kind != "round_voided"
            else None
        )
        return {"kind": kind, "ts": self.ts, "settlement": settlement, **self.columns}


def _hand(data: Mapping[str, object], hand: str) -> tuple[str, int]:
    value = data.get(hand)
    if not isinstance(value, dict):
        _bad(f"{hand}: expected an object with cards and total")
    total = integer(value, "total")
    assert total is not None
    if total > 9:
        _bad(f"{hand}.total: {total} is not a baccarat total")
    return cards(value, "cards"), total


def _result(data: Mapping[str, object]) -> tuple[dict[str, object], dict[str, Fraction | None]]:
    player_cards, player_total = _hand(data, "player")
    banker_cards, banker_total = _hand(data, "banker")
    winner = text(data, "winner")
    if winner not in {"player", "banker", "tie"}:
        _bad(f"winner: {str(winner)[:20]!r} is not player, banker or tie")
    raw = data.get("settlement")
    if not isinstance(raw, dict) or not raw or len(raw) > 100:
        _bad("settlement: expected an object of bets")
    settlement: dict[str, Fraction | None] = {}
    for bet, value in raw.items():
        if not _ID.fullmatch(bet):
            _bad(f"settlement: {bet[:40]!r} is not a bet id")
        settlement[bet] = None if value == NOT_OFFERED else amount(value, f"settlement.{bet}")
    columns: dict[str, object] = {
        "player_cards": player_cards, "player_total": player_total,
        "banker_cards": banker_cards, "banker_total": banker_total, "winner": winner,
        "natural": flag(data, "natural"), "cards_dealt": integer(data, "cards_dealt"),
        "player_pair": flag(data, "player_pair"), "banker_pair": flag(data, "banker_pair"),
        "last_round": flag(data, "last_round", optional=True),
    }  # fmt: skip
    return columns, settlement


def round_version(data: Mapping[str, object], seq: int, kind: str) -> RoundVersion:
    """A ``round_result``, ``round_voided`` or ``result_corrected``, checked."""
    shoe_id = identifier(data, "shoe_id")
    round_no = integer(data, "round_no")
    ts = timestamp(data)
    assert shoe_id is not None
    assert round_no is not None
    if ts is None:
        _bad("ts: a round's message needs its time")
    if data.get("round_id") != f"{shoe_id}-{round_no}":
        _bad(f"round_id: {str(data.get('round_id'))[:80]!r} is not <shoe_id>-<round_no>")
    who = {
        key: identifier(data, key, optional=True) for key in ("dealer", "operator", "supervisor")
    }
    columns: dict[str, object] = {"correction_no": 0, **who}
    settlement: dict[str, Fraction | None] = {}
    if kind == "round_voided":
        columns |= {
            "void_reason": identifier(data, "reason"),
            "voided_cards": cards(data, "cards"),
            "was_settled": flag(data, "was_settled"),
        }
    else:
        result, settlement = _result(data)
        columns |= result
        if kind == "result_corrected":
            columns["correction_no"] = integer(data, "correction_no")
    return RoundVersion(
        seq=seq, kind=kind, shoe_id=shoe_id, round_no=round_no, ts=ts, columns=columns,
        settlement=settlement,
    )  # fmt: skip


@dataclass(frozen=True, slots=True, kw_only=True)
class RoundRow:
    """A round as it stands: its ``rounds`` row and its settlement (empty once voided)."""

    row: dict[str, object]
    settlement: dict[str, Fraction | None]


#: Columns a result sets, and those a void sets, on ``rounds`` and ``round_history``.
RESULT_KEYS: Final = (
    "player_cards", "player_total", "banker_cards", "banker_total", "winner", "natural",
    "cards_dealt", "player_pair", "banker_pair", "last_round",
)  # fmt: skip
VOID_KEYS: Final = ("void_reason", "voided_cards", "was_settled")
WHO_KEYS: Final = ("dealer", "operator", "supervisor")


def fold_round(versions: Sequence[RoundVersion]) -> RoundRow:
    """The round as its messages leave it: the one with the highest ``seq`` decides its status.

    The result columns are those of the newest result or correction; a void keeps them (the
    cards that were settled) and adds its reason, but its bets are returned: no settlement.
    Every column is given, so that the row replaces whatever an earlier fold wrote.
    """
    ordered = sorted(versions, key=lambda version: version.seq)
    latest = ordered[-1]
    results = [version for version in ordered if version.kind != "round_voided"]
    row: dict[str, object] = dict.fromkeys((*RESULT_KEYS, *VOID_KEYS), None)
    row |= {
        "shoe_id": latest.shoe_id,
        "round_no": latest.round_no,
        "status": {"round_voided": "voided", "result_corrected": "corrected"}.get(
            latest.kind, "settled"
        ),
        "correction_no": 0,
        "result_ts": results[0].ts if results else None,
        "ts": latest.ts,
        "seq": latest.seq,
    }
    settlement: dict[str, Fraction | None] = {}
    if results:
        row |= results[-1].columns
        settlement = results[-1].settlement
    row |= {key: latest.columns.get(key) for key in WHO_KEYS}
    if latest.kind == "round_voided":
        row |= {key: latest.columns[key] for key in VOID_KEYS}
        settlement = {}
    return RoundRow(row=row, settlement=settlement)


def shoe_fields(data: Mapping[str, object], kind: str) -> dict[str, object]:
    """The columns one shoe message sets, checked."""
    if kind == "shoe_started":
        return {
            "variant": identifier(data, "variant", optional=True),
            "decks": integer(data, "decks", optional=True),
            "operator": identifier(data, "operator", optional=True),
            "dealer": identifier(data, "dealer", optional=True),
        }
    if kind == "shoe_ended":
        return {
            "end_reason": identifier(data, "reason", optional=True),
            "rounds_reported": integer(data, "rounds", optional=True),
            "cards_seen": integer(data, "cards_seen", optional=True),
        }
    return {"end_reason": "voided", "voided_by": identifier(data, "operator", optional=True)}


def fold_shoe(
    messages: Sequence[tuple[int, str, datetime | None, dict[str, object]]],
) -> dict[str, object]:
    """A shoe's row from its start, end and void messages, each (seq, type, ts, fields).

    Started: the ``shoe_started``'s fields; over: the first ``shoe_ended`` or ``shoe_voided``
    (a voided shoe is ``voided`` even if it ended first, which a table does not do).
    """
    row: dict[str, object] = {
        "status": "open", "variant": None, "decks": None, "operator": None, "dealer": None,
        "started_ts": None, "started_seq": None, "ended_ts": None, "ended_seq": None,
        "end_reason": None, "rounds_reported": None, "cards_seen": None,
    }  # fmt: skip
    for seq, kind, ts, fields in sorted(messages, key=lambda message: message[0]):
        if kind == "shoe_started":
            row |= fields | {"started_ts": ts, "started_seq": seq}
        elif row["status"] != "voided":
            row |= {key: value for key, value in fields.items() if key != "voided_by"}
            row |= {"ended_ts": ts, "ended_seq": seq}
            row["status"] = "voided" if kind == "shoe_voided" else "ended"
    return row


#: Alarm fields that have their own column; the others go to ``details`` as JSON.
_ALARM_COLUMNS: Final = frozenset(
    {"schema", "type", "table_id", "seq", "ts", "code", "message", "shoe_id", "round_id",
     "dealer", "kid", "sig"}
)  # fmt: skip


def _plain(value: object) -> object:
    """JSON data with its ``Decimal`` numbers written back as the text they came as."""
    if isinstance(value, Decimal):
        return float(value) if value == value.to_integral_value() else str(value)
    if isinstance(value, dict):
        return {key: _plain(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_plain(item) for item in value]
    return value


def alarm_row(data: Mapping[str, object]) -> dict[str, object]:
    """An alarm's columns; its fields beyond the common ones go to ``details`` (JSON)."""
    details = {key: _plain(value) for key, value in data.items() if key not in _ALARM_COLUMNS}
    ts = timestamp(data)
    if ts is None:
        _bad("ts: an alarm needs its time")
    return {
        "code": identifier(data, "code"),
        "message": text(data, "message"),
        "details": json.dumps(details, sort_keys=True, ensure_ascii=False),
        "dealer": identifier(data, "dealer", optional=True),
        "ts": ts,
    }


def status_row(data: Mapping[str, object]) -> dict[str, object]:
    """A ``status`` payload's columns, checked."""
    software = data.get("software")
    sha = software.get("sha256") if isinstance(software, dict) else None
    reader = text(data, "reader", optional=True)
    if reader is not None and reader not in {"connected", "offline", "fault"}:
        _bad(f"reader: {reader[:20]!r} is not connected, offline or fault")
    return {
        "online": flag(data, "online"),
        "session": integer(data, "session"),
        "last_seq": integer(data, "last_seq"),
        "reader": reader,
        "version": text(data, "version", optional=True),
        "software_sha256": sha if isinstance(sha, str) and _ID.fullmatch(sha) else None,
        "public_key": text(data, "public_key", optional=True),
        "ts": timestamp(data),
    }


def status_rank(row: Mapping[str, object]) -> tuple[int, int, int]:
    """Orders a table's statuses: the newest session, then offline over online, then last_seq.

    A will (offline) of an older session is stale (mqtt-api.md); within one session the table
    is online until its offline status or will, and its reader updates raise ``last_seq``.
    """
    return (int(str(row["session"])), 0 if row["online"] else 1, int(str(row["last_seq"])))


def without(
    ranges: Sequence[tuple[int, int]], removed: Sequence[tuple[int, int]]
) -> list[tuple[int, int]]:
    """Inclusive ranges with every number of ``removed`` taken out, in order."""
    result: list[tuple[int, int]] = []
    for first, last in sorted(ranges):
        pieces = [(first, last)]
        for gone_first, gone_last in removed:
            cut: list[tuple[int, int]] = []
            for low, high in pieces:
                if gone_last < low or gone_first > high:
                    cut.append((low, high))
                    continue
                if low < gone_first:
                    cut.append((low, gone_first - 1))
                if gone_last < high:
                    cut.append((gone_last + 1, high))
            pieces = cut
        result.extend(pieces)
    return result


def ranges_of(seqs: Sequence[int]) -> list[tuple[int, int]]:
    """Whole numbers gathered into inclusive runs: [1, 2, 3, 7] -> [(1, 3), (7, 7)]."""
    runs: list[tuple[int, int]] = []
    for seq in sorted(set(seqs)):
        if runs and seq == runs[-1][1] + 1:
            runs[-1] = (runs[-1][0], seq)
        else:
            runs.append((seq, seq))
    return runs
