# Copyright 2026 The table-controller authors. SPDX-License-Identifier: Apache-2.0
"""Trust: the messages kept apart (``quarantine``) and the tables' pinned keys (``table_keys``).

Revision ID: 0003
Revises: 0002
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    """Create ``quarantine`` and ``table_keys`` as ``schema.py`` declares them."""
    op.create_table(
        "quarantine",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("sha256", sa.String(length=64), nullable=False),
        sa.Column("seq", sa.BigInteger(), nullable=True),
        sa.Column("type", sa.String(length=64), nullable=False),
        sa.Column("topic", sa.Text(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("payload", sa.Text(), nullable=False),
        sa.Column("received_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "sha256", name=op.f("pk_quarantine")),
    )
    op.create_index(
        op.f("ix_quarantine_table_id_received_at"), "quarantine", ["table_id", "received_at"]
    )
    op.create_table(
        "table_keys",
        sa.Column("table_id", sa.String(length=64), nullable=False),
        sa.Column("public_key", sa.String(length=128), nullable=False),
        sa.Column("session", sa.BigInteger(), nullable=True),
        sa.Column("pinned_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("table_id", name=op.f("pk_table_keys")),
    )


def downgrade() -> None:
    """Drop them: the quarantined messages and the pins go with them."""
    op.drop_table("table_keys")
    op.drop_index(op.f("ix_quarantine_table_id_received_at"), table_name="quarantine")
    op.drop_table("quarantine")
