# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest's database schema (SQLAlchemy 2 Core), one for PostgreSQL and SQLite.

Edge module: declarations only. ``messages`` holds every message exactly once, keyed by
``(table_id, seq)``; the other tables are projections rebuilt from it (docs/backend.md lists
every column), but ``quarantine`` (the messages that failed verification, kept apart) and
``table_keys`` (each table's pinned public key). Money is exact: a bet's net result per unit
is two integer columns, numerator and denominator, never a float. Times are UTC.

The migrations (``migrations/versions``) create the same schema; a test compares them.
"""

from __future__ import annotations

from typing import Final

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    DateTime,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
)

#: Constraint names written out, so that a migration can name them on every database.
metadata: Final = MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "pk": "pk_%(table_name)s",
    }
)

#: Longest table id, shoe id and round id the ingest takes (the table's ids are far shorter).
ID_LENGTH: Final = 64


def _table_id() -> Column[str]:
    return Column("table_id", String(ID_LENGTH), primary_key=True)


def _when(name: str, *, nullable: bool = True) -> Column[object]:
    return Column(name, DateTime(timezone=True), nullable=nullable)


messages: Final = Table(
    "messages",
    metadata,
    _table_id(),
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("topic", Text, nullable=False),
    Column("type", String(ID_LENGTH), nullable=False),
    _when("ts"),
    Column("shoe_id", String(ID_LENGTH)),
    Column("round_id", String(ID_LENGTH)),
    Column("payload", Text, nullable=False),
    _when("received_at", nullable=False),
    Column("verified", Boolean),
    Index(None, "table_id", "round_id"),
    Index(None, "table_id", "shoe_id"),
    Index(None, "type", "ts"),
)

#: The round's columns a result sets (round_result or result_corrected).
_RESULT_COLUMNS: Final = (
    ("player_cards", Text),
    ("player_total", Integer),
    ("banker_cards", Text),
    ("banker_total", Integer),
    ("winner", String(16)),
    ("natural", Boolean),
    ("cards_dealt", Integer),
    ("player_pair", Boolean),
    ("banker_pair", Boolean),
    ("last_round", Boolean),
)


def _result_columns() -> list[Column[object]]:
    return [Column(name, kind) for name, kind in _RESULT_COLUMNS]


def _void_columns() -> list[Column[object]]:
    return [
        Column("void_reason", String(32)),
        Column("voided_cards", Text),
        Column("was_settled", Boolean),
    ]


def _who_columns() -> list[Column[object]]:
    return [
        Column("dealer", String(ID_LENGTH)),
        Column("operator", String(ID_LENGTH)),
        Column("supervisor", String(ID_LENGTH)),
    ]


rounds: Final = Table(
    "rounds",
    metadata,
    _table_id(),
    Column("round_id", String(ID_LENGTH), primary_key=True),
    Column("shoe_id", String(ID_LENGTH), nullable=False),
    Column("round_no", Integer, nullable=False),
    Column("status", String(16), nullable=False),
    Column("correction_no", Integer, nullable=False),
    *_result_columns(),
    *_void_columns(),
    *_who_columns(),
    _when("result_ts"),
    _when("ts", nullable=False),
    Column("seq", BigInteger, nullable=False),
    Index(None, "table_id", "result_ts"),
    Index(None, "table_id", "shoe_id"),
)

round_settlements: Final = Table(
    "round_settlements",
    metadata,
    _table_id(),
    Column("round_id", String(ID_LENGTH), primary_key=True),
    Column("bet", String(ID_LENGTH), primary_key=True),
    Column("offered", Boolean, nullable=False),
    Column("numerator", BigInteger),
    Column("denominator", BigInteger),
)

round_history: Final = Table(
    "round_history",
    metadata,
    _table_id(),
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("round_id", String(ID_LENGTH), nullable=False),
    Column("kind", String(16), nullable=False),
    Column("correction_no", Integer, nullable=False),
    *_result_columns(),
    Column("settlement", Text),
    *_void_columns(),
    *_who_columns(),
    _when("ts", nullable=False),
    Index(None, "table_id", "round_id"),
)

shoes: Final = Table(
    "shoes",
    metadata,
    _table_id(),
    Column("shoe_id", String(ID_LENGTH), primary_key=True),
    Column("status", String(16), nullable=False),
    Column("variant", String(ID_LENGTH)),
    Column("decks", Integer),
    Column("operator", String(ID_LENGTH)),
    Column("dealer", String(ID_LENGTH)),
    _when("started_ts"),
    Column("started_seq", BigInteger),
    _when("ended_ts"),
    Column("ended_seq", BigInteger),
    Column("end_reason", String(32)),
    Column("rounds_reported", Integer),
    Column("cards_seen", Integer),
    Column("rounds", Integer, nullable=False),
    Column("rounds_settled", Integer, nullable=False),
    Column("rounds_voided", Integer, nullable=False),
    Column("rounds_corrected", Integer, nullable=False),
)

alarms: Final = Table(
    "alarms",
    metadata,
    _table_id(),
    Column("seq", BigInteger, primary_key=True, autoincrement=False),
    Column("code", String(ID_LENGTH), nullable=False),
    Column("message", Text, nullable=False),
    Column("details", Text, nullable=False),
    Column("shoe_id", String(ID_LENGTH)),
    Column("round_id", String(ID_LENGTH)),
    Column("dealer", String(ID_LENGTH)),
    _when("ts", nullable=False),
    Index(None, "code", "ts"),
)

table_status: Final = Table(
    "table_status",
    metadata,
    _table_id(),
    Column("online", Boolean, nullable=False),
    Column("session", BigInteger, nullable=False),
    Column("last_seq", BigInteger, nullable=False),
    Column("reader", String(16)),
    Column("version", String(ID_LENGTH)),
    Column("software_sha256", String(ID_LENGTH)),
    Column("public_key", String(128)),
    Column("verified", Boolean),
    _when("ts"),
    _when("received_at", nullable=False),
)

permanent_gaps: Final = Table(
    "permanent_gaps",
    metadata,
    _table_id(),
    Column("first_seq", BigInteger, primary_key=True, autoincrement=False),
    Column("last_seq", BigInteger, nullable=False),
    Column("reason", Text, nullable=False),
    _when("recorded_at", nullable=False),
)

#: Gap repair: which ingest worker asks a table for its missing messages now (until
#: ``expires_at``, renewed while it runs), so several workers never ask for the same gap.
gap_leases: Final = Table(
    "gap_leases",
    metadata,
    _table_id(),
    Column("worker", String(128), nullable=False),
    _when("expires_at", nullable=False),
)

#: Gap repair: every ``resend`` asked, and its reply once a worker stored it.
gap_requests: Final = Table(
    "gap_requests",
    metadata,
    Column("command_id", String(128), primary_key=True),
    Column("table_id", String(ID_LENGTH), nullable=False),
    Column("first_seq", BigInteger, nullable=False),
    Column("last_seq", BigInteger, nullable=False),
    Column("worker", String(128), nullable=False),
    _when("asked_at", nullable=False),
    _when("answered_at"),
    Column("outcome", String(64)),
    Column("resent", Integer),
    Column("gone", Integer),
    Index(None, "table_id", "asked_at"),
)

#: The messages that failed verification, kept apart: never a row of ``messages`` nor of a
#: projection. Keyed by the payload's SHA-256, so a copy received twice is one row.
quarantine: Final = Table(
    "quarantine",
    metadata,
    _table_id(),
    Column("sha256", String(64), primary_key=True),
    Column("seq", BigInteger),
    Column("type", String(ID_LENGTH), nullable=False),
    Column("topic", Text, nullable=False),
    Column("reason", Text, nullable=False),
    Column("payload", Text, nullable=False),
    _when("received_at", nullable=False),
    Index(None, "table_id", "received_at"),
)

#: Each table's public key, pinned from its first status whose signature verifies with the key
#: it names (trust on first use; unused with a keys file): never replaced by the ingest.
table_keys: Final = Table(
    "table_keys",
    metadata,
    _table_id(),
    Column("public_key", String(128), nullable=False),
    Column("session", BigInteger),
    _when("pinned_at", nullable=False),
)
