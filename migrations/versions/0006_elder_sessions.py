"""members.session_gen: an elder's sessions end at logout and at a password change

Revision ID: 0006_elder_sessions
Revises: 0005_club_seats
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0006_elder_sessions"
down_revision = "0005_club_seats"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("members") as batch:
        batch.add_column(sa.Column("session_gen", sa.Integer(), nullable=False, server_default="0"))


def downgrade() -> None:
    with op.batch_alter_table("members") as batch:
        batch.drop_column("session_gen")
