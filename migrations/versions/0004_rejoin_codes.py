"""rejoin codes: each room seat stores the hash of its rejoin code

Revision ID: 0004_rejoin_codes
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004_rejoin_codes"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("room_seats") as batch:
        batch.add_column(sa.Column("code_hash", sa.String(length=64), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("room_seats") as batch:
        batch.drop_column("code_hash")
