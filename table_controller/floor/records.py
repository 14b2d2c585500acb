# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""What the floor reads from the ingest's database: a table's history and the open alarms.

Adapter (SQLAlchemy 2 Core, async; PostgreSQL through asyncpg, SQLite through aiosqlite). It
only reads, with the SQL of the tables docs/backend.md documents (``rounds``,
``round_settlements``, ``round_history``, ``alarms``, ``messages``, ``table_status``): the
ingest writes them and owns their schema. Acknowledgements are the ``alarm_acknowledged``
messages themselves; a dealer's stints come from the ``staff_changed`` messages.

Every read has a time limit; a database that cannot answer (down, refused, not migrated yet,
too slow) raises :class:`DatabaseUnavailable` with one line a person can read, never a
driver's exception.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from fractions import Fraction
from typing import Any, Final

from sqlalchemy import Boolean, DateTime, Executable, Integer, String, bindparam, text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from table_controller.floor.model import OpenAlarm
from table_controller.ingest import engine_url

#: Seconds one read may take before the database is called unavailable.
READ_TIMEOUT_S: Final = 5.0
#: Rounds a table's page shows.
PAGE_ROUNDS: Final = 30
#: Alarms a table's page shows.
PAGE_ALARMS: Final = 50
#: Staff changes a table's page reads for its stints.
PAGE_STAFF_CHANGES: Final = 60
#: How far back the floor looks for alarms still open, in days.
OPEN_ALARM_DAYS: Final = 30
_TS = DateTime(timezone=True)


class DatabaseUnavailable(RuntimeError):  # noqa: N818 - names the state, as the log says it
    """The database did not answer; the message says why, in one line."""


def iso(value: object) -> str | None:
    """A database time as the contract writes times: UTC, milliseconds, ``Z``."""
    if not isinstance(value, datetime):
        return None
    when = value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}Z"


def amount_text(numerator: object, denominator: object) -> str | None:
    """A net result per unit as exact decimal text (``0.95``, ``-1``), or ``a/b`` if none is."""
    if not isinstance(numerator, int) or not isinstance(denominator, int) or denominator == 0:
        return None
    return fraction_text(Fraction(numerator, denominator))


def fraction_text(value: Fraction) -> str:
    """``value`` as the shortest exact decimal text, or ``a/b`` when its decimals never end."""
    rest = value.denominator
    for prime in (2, 5):
        while rest % prime == 0:
            rest //= prime
    if rest != 1:
        return f"{value.numerator}/{value.denominator}"
    places = 0
    while (value * 10**places).denominator != 1:
        places += 1
    scaled = value * 10**places
    sign = "-" if scaled < 0 else ""
    digits = str(abs(scaled.numerator)).rjust(places + 1, "0")
    if places == 0:
        return sign + digits
    return f"{sign}{digits[:-places]}.{digits[-places:]}"


def _history_amount(value: object) -> str | None:
    """A settlement of ``round_history`` (``19/20``, ``-1/1``, ``not_offered``) as text."""
    if not isinstance(value, str) or value == "not_offered":
        return None
    try:
        return fraction_text(Fraction(value))
    except (ValueError, ZeroDivisionError):
        return None


def _problem(error: BaseException) -> str:
    """One line for a database's refusal: the driver's first line, without the SQL."""
    if isinstance(error, TimeoutError):
        return f"no answer within {READ_TIMEOUT_S:g} s"
    original = getattr(error, "orig", None)
    cause = original if isinstance(original, BaseException) else error
    first = str(cause).strip().splitlines()[0] if str(cause).strip() else ""
    if "no such table" in first or "does not exist" in first:
        return f"the ingest's tables are not there yet ({first[:120]})"
    return f"{type(cause).__name__}: {first[:200]}"


@dataclass(frozen=True, slots=True)
class Stint:
    """A dealer's time at a table: from a sign-in to the next change (None: still there)."""

    dealer: str
    since: str | None
    until: str | None
    rounds: int


def stints_from(
    changes: Sequence[Mapping[str, Any]], rounds: Sequence[tuple[str | None, str | None]]
) -> list[dict[str, Any]]:
    """The dealers' stints, newest first, from ``staff_changed`` messages in ``seq`` order.

    ``rounds``: the dealer and result time of each settled round, for the count per stint.
    """
    stints: list[Stint] = []
    current: tuple[str, str | None] | None = None
    for change in changes:
        dealer = change.get("dealer")
        previous = change.get("previous_dealer")
        ts = change.get("ts") if isinstance(change.get("ts"), str) else None
        if dealer == previous:
            if current is None and isinstance(dealer, str):
                current = (dealer, None)  # seen already signed in: since before the window
            continue
        if current is not None:
            stints.append(Stint(current[0], current[1], ts, 0))
        elif isinstance(previous, str):
            stints.append(Stint(previous, None, ts, 0))
        current = (dealer, ts) if isinstance(dealer, str) else None
    if current is not None:
        stints.append(Stint(current[0], current[1], None, 0))
    counted = []
    for stint in stints:
        number = sum(
            1
            for dealer, when in rounds
            if dealer == stint.dealer
            and when is not None
            and (stint.since is None or when >= stint.since)
            and (stint.until is None or when < stint.until)
        )
        counted.append(
            {"dealer": stint.dealer, "since": stint.since, "until": stint.until, "rounds": number}
        )
    counted.reverse()
    return counted


class FloorRecords:
    """Reads of the ingest's database for the floor.

    Args:
        url: ``postgresql://...`` or ``sqlite:///FILE``, as the ingest takes it.

    Raises:
        StoreUrlError: the URL is not one the ingest takes (``ingest``'s face).
    """

    def __init__(self, url: str) -> None:
        driver_url = engine_url(url)
        self.shown = make_url(url).render_as_string(hide_password=True)
        sqlite = driver_url.startswith("sqlite")
        self._engine: AsyncEngine = create_async_engine(
            driver_url,
            pool_pre_ping=True,
            **({"connect_args": {"timeout": READ_TIMEOUT_S}} if sqlite else {"pool_size": 4}),
        )

    async def close(self) -> None:
        await self._engine.dispose()

    async def _rows(self, sql: Executable, **params: object) -> list[dict[str, Any]]:
        try:
            async with asyncio.timeout(READ_TIMEOUT_S), self._engine.connect() as connection:
                result = await connection.execute(sql, params)
                return [dict(row._mapping) for row in result]  # noqa: SLF001 - public, as documented
        except Exception as error:  # noqa: BLE001 - every driver's refusal is one line
            raise DatabaseUnavailable(_problem(error)) from None

    async def check(self) -> None:
        """Raise :class:`DatabaseUnavailable` unless the ingest's tables answer."""
        await self._rows(text("SELECT count(*) AS n FROM table_status"))

    async def known(self, table_id: str) -> bool:
        """Whether the database holds anything of ``table_id``."""
        sql = text(
            "SELECT table_id FROM table_status WHERE table_id = :t"
            " UNION SELECT table_id FROM messages WHERE table_id = :t"
        )
        return bool(await self._rows(sql.columns(table_id=String), t=table_id))

    async def open_alarms(self, *, since: datetime) -> dict[str, list[OpenAlarm]]:
        """Every alarm raised since ``since`` that no ``alarm_acknowledged`` names, by table."""
        alarms = (
            text(
                "SELECT table_id, seq, code, message, details, shoe_id, round_id, ts FROM alarms"
                " WHERE ts >= :since ORDER BY ts, table_id, seq"
            )
            .bindparams(bindparam("since", type_=_TS))
            .columns(ts=_TS)
        )
        acks = text(
            "SELECT table_id, payload FROM messages"
            " WHERE type = 'alarm_acknowledged' AND ts >= :since"
        ).bindparams(bindparam("since", type_=_TS))
        acknowledged = {
            (row["table_id"], _payload(row["payload"]).get("alarm_id"))
            for row in await self._rows(acks, since=since)
        }
        found: dict[str, list[OpenAlarm]] = {}
        for row in await self._rows(alarms, since=since):
            alarm_id = _payload(row["details"]).get("alarm_id")
            if not isinstance(alarm_id, str) or (row["table_id"], alarm_id) in acknowledged:
                continue
            found.setdefault(row["table_id"], []).append(
                OpenAlarm(
                    table_id=row["table_id"],
                    alarm_id=alarm_id,
                    code=row["code"],
                    message=row["message"],
                    shoe_id=row["shoe_id"],
                    round_id=row["round_id"],
                    ts=iso(row["ts"]),
                )
            )
        return found

    async def table_page(self, table_id: str) -> dict[str, Any]:
        """A table's history: its last rounds, its alarms and acknowledgements, its stints."""
        rounds = await self._rounds(table_id)
        alarms = await self._alarms(table_id)
        stints = await self._stints(table_id)
        status = await self._rows(
            text(
                "SELECT online, session, last_seq, reader, version, ts, received_at"
                " FROM table_status WHERE table_id = :t"
            ).columns(ts=_TS, received_at=_TS, online=Boolean),
            t=table_id,
        )
        stored = None
        if status:
            row = status[0]
            stored = {
                "online": row["online"],
                "reader": row["reader"],
                "version": row["version"],
                "ts": iso(row["ts"]),
                "received_at": iso(row["received_at"]),
            }
        return {
            "table_id": table_id,
            "status": stored,
            "rounds": rounds,
            "alarms": alarms,
            "stints": stints,
        }

    async def _rounds(self, table_id: str) -> list[dict[str, Any]]:
        sql = text(
            "SELECT r.round_id, r.shoe_id, r.round_no, r.status, r.correction_no,"
            " r.player_cards, r.banker_cards, r.player_total, r.banker_total, r.winner,"
            " r.natural, r.player_pair, r.banker_pair, r.void_reason, r.voided_cards,"
            " r.was_settled, r.dealer, r.operator, r.supervisor, r.result_ts, r.ts"
            " FROM rounds r LEFT JOIN shoes s ON s.table_id = r.table_id AND s.shoe_id = r.shoe_id"
            " WHERE r.table_id = :t"
            " ORDER BY coalesce(s.started_seq, 0) DESC, r.round_no DESC LIMIT :n"
        ).columns(
            result_ts=_TS,
            ts=_TS,
            natural=Boolean,
            player_pair=Boolean,
            banker_pair=Boolean,
            was_settled=Boolean,
            round_no=Integer,
        )
        rows = await self._rows(sql, t=table_id, n=PAGE_ROUNDS)
        if not rows:
            return []
        ids = [row["round_id"] for row in rows]
        bets = await self._rows(
            text(
                "SELECT round_id, bet, offered, numerator, denominator FROM round_settlements"
                " WHERE table_id = :t AND round_id IN :ids ORDER BY round_id, bet"
            )
            .bindparams(bindparam("ids", expanding=True))
            .columns(offered=Boolean),
            t=table_id,
            ids=ids,
        )
        history = await self._rows(
            text(
                "SELECT round_id, seq, kind, correction_no, winner, player_cards, banker_cards,"
                " player_total, banker_total, void_reason, voided_cards, was_settled, dealer,"
                " operator, supervisor, settlement, ts FROM round_history"
                " WHERE table_id = :t AND round_id IN :ids ORDER BY seq"
            )
            .bindparams(bindparam("ids", expanding=True))
            .columns(ts=_TS, was_settled=Boolean),
            t=table_id,
            ids=ids,
        )
        settlement: dict[str, dict[str, str | None]] = {}
        for bet in bets:
            settlement.setdefault(bet["round_id"], {})[bet["bet"]] = (
                amount_text(bet["numerator"], bet["denominator"]) if bet["offered"] else None
            )
        versions: dict[str, list[dict[str, Any]]] = {}
        for version in history:
            raw = _payload(version["settlement"])
            versions.setdefault(version["round_id"], []).append(
                {
                    "seq": version["seq"],
                    "kind": version["kind"],
                    "correction_no": version["correction_no"],
                    "winner": version["winner"],
                    "player_cards": version["player_cards"],
                    "banker_cards": version["banker_cards"],
                    "player_total": version["player_total"],
                    "banker_total": version["banker_total"],
                    "void_reason": version["void_reason"],
                    "voided_cards": version["voided_cards"],
                    "was_settled": version["was_settled"],
                    "dealer": version["dealer"],
                    "operator": version["operator"],
                    "supervisor": version["supervisor"],
                    "settlement": {bet: _history_amount(v) for bet, v in sorted(raw.items())},
                    "ts": iso(version["ts"]),
                }
            )
        return [
            {
                "round_id": row["round_id"],
                "shoe_id": row["shoe_id"],
                "round_no": row["round_no"],
                "status": row["status"],
                "correction_no": row["correction_no"],
                "winner": row["winner"],
                "player_cards": row["player_cards"],
                "banker_cards": row["banker_cards"],
                "player_total": row["player_total"],
                "banker_total": row["banker_total"],
                "natural": row["natural"],
                "player_pair": row["player_pair"],
                "banker_pair": row["banker_pair"],
                "void_reason": row["void_reason"],
                "voided_cards": row["voided_cards"],
                "dealer": row["dealer"],
                "operator": row["operator"],
                "supervisor": row["supervisor"],
                "result_ts": iso(row["result_ts"]),
                "ts": iso(row["ts"]),
                "settlement": settlement.get(row["round_id"], {}),
                "versions": versions.get(row["round_id"], []),
            }
            for row in rows
        ]

    async def _alarms(self, table_id: str) -> list[dict[str, Any]]:
        rows = await self._rows(
            text(
                "SELECT seq, code, message, details, shoe_id, round_id, dealer, ts FROM alarms"
                " WHERE table_id = :t ORDER BY seq DESC LIMIT :n"
            ).columns(ts=_TS),
            t=table_id,
            n=PAGE_ALARMS,
        )
        if not rows:
            return []
        oldest = min(row["seq"] for row in rows)
        acks = await self._rows(
            text(
                "SELECT payload, ts FROM messages WHERE table_id = :t AND seq > :oldest"
                " AND type = 'alarm_acknowledged'"
            ).columns(ts=_TS),
            t=table_id,
            oldest=oldest,
        )
        by_alarm: dict[str, dict[str, Any]] = {}
        for ack in acks:
            body = _payload(ack["payload"])
            if isinstance(body.get("alarm_id"), str):
                by_alarm[body["alarm_id"]] = {
                    "supervisor": body.get("supervisor"),
                    "comment": body.get("comment"),
                    "ts": iso(ack["ts"]),
                }
        alarms = []
        for row in rows:
            details = _payload(row["details"])
            alarm_id = details.get("alarm_id")
            alarms.append(
                {
                    "alarm_id": alarm_id,
                    "code": row["code"],
                    "message": row["message"],
                    "shoe_id": row["shoe_id"],
                    "round_id": row["round_id"],
                    "dealer": row["dealer"],
                    "ts": iso(row["ts"]),
                    "acknowledged": by_alarm.get(alarm_id) if isinstance(alarm_id, str) else None,
                }
            )
        return alarms

    async def _stints(self, table_id: str) -> list[dict[str, Any]]:
        rows = await self._rows(
            text(
                "SELECT payload FROM messages WHERE table_id = :t AND type = 'staff_changed'"
                " ORDER BY seq DESC LIMIT :n"
            ),
            t=table_id,
            n=PAGE_STAFF_CHANGES,
        )
        changes = [_payload(row["payload"]) for row in reversed(rows)]
        if not changes:
            return []
        earliest = next((c["ts"] for c in changes if isinstance(c.get("ts"), str)), None)
        since = _parse_ts(earliest) or datetime(1970, 1, 1, tzinfo=UTC)
        settled = await self._rows(
            text(
                "SELECT dealer, result_ts FROM rounds WHERE table_id = :t"
                " AND status <> 'voided' AND result_ts >= :since"
            )
            .bindparams(bindparam("since", type_=_TS))
            .columns(result_ts=_TS),
            t=table_id,
            since=since,
        )
        rounds = [(row["dealer"], iso(row["result_ts"])) for row in settled]
        return stints_from(changes, rounds)


def _payload(value: object) -> dict[str, Any]:
    if not isinstance(value, str):
        return {}
    try:
        data = json.loads(value)
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _parse_ts(value: object) -> datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return datetime.fromisoformat(value)
    except ValueError:
        return None
