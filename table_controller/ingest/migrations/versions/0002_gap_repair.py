# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Gap repair's bookkeeping: which worker repairs a table (leases) and the resends asked.

Revision ID: 0002
Revises: 0001
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``gap_leases`` and ``gap_requests`` as ``schema.py`` declares them."""
    op.create_table(
        "gap_leases",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("worker", sa.String(length=128), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_gap_leases")),
    )
    op.create_table(
        "gap_requests",
        sa.Column("command_id", sa.String(length=128), nullable=False),
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("first_seq", sa.BigInteger(), nullable=False),
        sa.Column("last_seq", sa.BigInteger(), nullable=False),
        sa.Column("worker", sa.String(length=128), nullable=False),
        sa.Column("asked_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("answered_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("outcome", sa.String(length=64), nullable=True),
        sa.Column("resent", sa.Integer(), nullable=True),
        sa.Column("gone", sa.Integer(), nullable=True),
        sa.PrimaryKeyConstraint("command_id", name=op.f("pk_gap_requests")),
    )
    op.create_index(
        op.f("ix_gap_requests_table_id_asked_at"), "gap_requests", ["table_id", "asked_at"]
    )


def downgrade() -> None:
    """Drop them."""
    op.drop_index(op.f("ix_gap_requests_table_id_asked_at"), table_name="gap_requests")
    op.drop_table("gap_requests")
    op.drop_table("gap_leases")
