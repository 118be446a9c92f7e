"""late date-poll proposals and answers; waived beer crates

Revision ID: 0003
Revises: 0002
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("date_polls") as batch:
        batch.add_column(sa.Column("late", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("date_votes") as batch:
        batch.add_column(sa.Column("late", sa.Boolean(), nullable=False, server_default=sa.false()))
    with op.batch_alter_table("beer_ledger") as batch:
        batch.add_column(sa.Column("waived_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("waived_by", sa.String(length=40), nullable=True))
        batch.add_column(sa.Column("waive_reason", sa.String(length=200), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("beer_ledger") as batch:
        batch.drop_column("waive_reason")
        batch.drop_column("waived_by")
        batch.drop_column("waived_at")
    with op.batch_alter_table("date_votes") as batch:
        batch.drop_column("late")
    with op.batch_alter_table("date_polls") as batch:
        batch.drop_column("late")
