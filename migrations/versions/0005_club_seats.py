"""personal club seats: a member's link (hashed) and device epoch; a night's turn timer

Revision ID: 0005_club_seats
Revises: 0004_rejoin_codes
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005_club_seats"
down_revision = "0004_rejoin_codes"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("members") as batch:
        batch.add_column(sa.Column("link_hash", sa.String(length=64), nullable=True))
        batch.add_column(sa.Column("device_epoch", sa.Integer(), nullable=False, server_default="0"))
    with op.batch_alter_table("nights") as batch:
        batch.add_column(sa.Column("turn_seconds", sa.Integer(), nullable=False, server_default="60"))


def downgrade() -> None:
    with op.batch_alter_table("nights") as batch:
        batch.drop_column("turn_seconds")
    with op.batch_alter_table("members") as batch:
        batch.drop_column("device_epoch")
        batch.drop_column("link_hash")
