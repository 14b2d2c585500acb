# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""The ingest schema: messages and their projections (rounds, shoes, alarms, status, gaps).

Revision ID: 0001
Revises: none, the first revision
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create every table and index of ``schema.py`` as first released."""
    op.create_table(
        "alarms",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("code", sa.String(length=64), nullable=False),
        sa.Column("message", sa.Text(), nullable=False),
        sa.Column("details", sa.Text(), nullable=False),
        sa.Column("shoe_id", sa.String(length=64), nullable=True),
        sa.Column("round_id", sa.String(length=64), nullable=True),
        sa.Column("dealer", sa.String(length=64), nullable=True),
        sa.Column("ts", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seq", name=op.f("pk_alarms")),
    )
    op.create_index(op.f("ix_alarms_code_ts"), "alarms", ["code", "ts"])

    op.create_table(
        "messages",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("topic", sa.Text(), nullable=False),
        sa.Column("type", sa.String(length=64), nullable=False),
        sa.Column("ts", sa.DateTime(timezone=True), nullable=True),
        sa.Column("shoe_id", sa.String(length=64), nullable=True),
        sa.Column("round_id", sa.String(length=64), nullable=True),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("verified", sa.Boolean(), nullable=True),
        sa.PrimaryKeyConstraint("table_id", "seq", name=op.f("pk_messages")),
    )
    op.create_index(op.f("ix_messages_table_id_round_id"), "messages", ["table_id", "round_id"])
    op.create_index(op.f("ix_messages_table_id_shoe_id"), "messages", ["table_id", "shoe_id"])
    op.create_index(op.f("ix_messages_type_ts"), "messages", ["type", "ts"])

    op.create_table(
        "permanent_gaps",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("first_seq", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("last_seq", sa.BigInteger(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("recorded_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "first_seq", name=op.f("pk_permanent_gaps")),
    )
    op.create_table(
        "round_history",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.BigInteger(), autoincrement=False, nullable=False),
        sa.Column("round_id", sa.String(length=64), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("correction_no", sa.Integer(), nullable=False),
        sa.Column("player_cards", sa.Text(), nullable=True),
        sa.Column("player_total", sa.Integer(), nullable=True),
        sa.Column("banker_cards", sa.Text(), nullable=True),
        sa.Column("banker_total", sa.Integer(), nullable=True),
        sa.Column("winner", sa.String(length=16), nullable=True),
        sa.Column("natural", sa.Boolean(), nullable=True),
        sa.Column("cards_dealt", sa.Integer(), nullable=True),
        sa.Column("player_pair", sa.Boolean(), nullable=True),
        sa.Column("banker_pair", sa.Boolean(), nullable=True),
        sa.Column("last_round", sa.Boolean(), nullable=True),
        sa.Column("settlement", sa.Text(), nullable=True),
        sa.Column("void_reason", sa.String(length=32), nullable=True),
        sa.Column("voided_cards", sa.Text(), nullable=True),
        sa.Column("was_settled", sa.Boolean(), nullable=True),
        sa.Column("dealer", sa.String(length=64), nullable=True),
        sa.Column("operator", sa.String(length=64), nullable=True),
        sa.Column("supervisor", sa.String(length=64), nullable=True),
        sa.Column("ts", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "seq", name=op.f("pk_round_history")),
    )
    op.create_index(
        op.f("ix_round_history_table_id_round_id"), "round_history", ["table_id", "round_id"]
    )

    op.create_table(
        "round_settlements",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("round_id", sa.String(length=64), nullable=False),
        sa.Column("bet", sa.String(length=64), nullable=False),
        sa.Column("offered", sa.Boolean(), nullable=False),
        sa.Column("numerator", sa.BigInteger(), nullable=True),
        sa.Column("denominator", sa.BigInteger(), nullable=True),
        sa.PrimaryKeyConstraint("table_id", "round_id", "bet", name=op.f("pk_round_settlements")),
    )
    op.create_table(
        "rounds",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("round_id", sa.String(length=64), nullable=False),
        sa.Column("shoe_id", sa.String(length=64), nullable=False),
        sa.Column("round_no", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("correction_no", sa.Integer(), nullable=False),
        sa.Column("player_cards", sa.Text(), nullable=True),
        sa.Column("player_total", sa.Integer(), nullable=True),
        sa.Column("banker_cards", sa.Text(), nullable=True),
        sa.Column("banker_total", sa.Integer(), nullable=True),
        sa.Column("winner", sa.String(length=16), nullable=True),
        sa.Column("natural", sa.Boolean(), nullable=True),
        sa.Column("cards_dealt", sa.Integer(), nullable=True),
        sa.Column("player_pair", sa.Boolean(), nullable=True),
        sa.Column("banker_pair", sa.Boolean(), nullable=True),
        sa.Column("last_round", sa.Boolean(), nullable=True),
        sa.Column("void_reason", sa.String(length=32), nullable=True),
        sa.Column("voided_cards", sa.Text(), nullable=True),
        sa.Column("was_settled", sa.Boolean(), nullable=True),
        sa.Column("dealer", sa.String(length=64), nullable=True),
        sa.Column("operator", sa.String(length=64), nullable=True),
        sa.Column("supervisor", sa.String(length=64), nullable=True),
        sa.Column("result_ts", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ts", sa.DateTime(timezone=True), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "round_id", name=op.f("pk_rounds")),
    )
    op.create_index(op.f("ix_rounds_table_id_result_ts"), "rounds", ["table_id", "result_ts"])
    op.create_index(op.f("ix_rounds_table_id_shoe_id"), "rounds", ["table_id", "shoe_id"])

    op.create_table(
        "shoes",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("shoe_id", sa.String(length=64), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("variant", sa.String(length=64), nullable=True),
        sa.Column("decks", sa.Integer(), nullable=True),
        sa.Column("operator", sa.String(length=64), nullable=True),
        sa.Column("dealer", sa.String(length=64), nullable=True),
        sa.Column("started_ts", sa.DateTime(timezone=True), nullable=True),
        sa.Column("started_seq", sa.BigInteger(), nullable=True),
        sa.Column("ended_ts", sa.DateTime(timezone=True), nullable=True),
        sa.Column("ended_seq", sa.BigInteger(), nullable=True),
        sa.Column("end_reason", sa.String(length=32), nullable=True),
        sa.Column("rounds_reported", sa.Integer(), nullable=True),
        sa.Column("cards_seen", sa.Integer(), nullable=True),
        sa.Column("rounds", sa.Integer(), nullable=False),
        sa.Column("rounds_settled", sa.Integer(), nullable=False),
        sa.Column("rounds_voided", sa.Integer(), nullable=False),
        sa.Column("rounds_corrected", sa.Integer(), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "shoe_id", name=op.f("pk_shoes")),
    )
    op.create_table(
        "table_status",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("online", sa.Boolean(), nullable=False),
        sa.Column("session", sa.BigInteger(), nullable=False),
        sa.Column("last_seq", sa.BigInteger(), nullable=False),
        sa.Column("reader", sa.String(length=16), nullable=True),
        sa.Column("version", sa.String(length=64), nullable=True),
        sa.Column("software_sha256", sa.String(length=64), nullable=True),
        sa.Column("public_key", sa.String(length=128), nullable=True),
        sa.Column("verified", sa.Boolean(), nullable=True),
        sa.Column("ts", sa.DateTime(timezone=True), nullable=True),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_status")),
    )


def downgrade() -> None:
    """Drop them all."""
    op.drop_table("table_status")
    op.drop_table("shoes")
    op.drop_table("rounds")
    op.drop_table("round_settlements")
    op.drop_table("round_history")
    op.drop_table("permanent_gaps")
    op.drop_table("messages")
    op.drop_table("alarms")
