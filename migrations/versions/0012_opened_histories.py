"""history files opened on /replay (opened_histories: the file's text under its hash)

Revision ID: 0012_opened_histories
Revises: 0011_night_decks
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0012_opened_histories"
down_revision = "0011_night_decks"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "opened_histories",
        sa.Column("key", sa.String(length=32), primary_key=True),
        sa.Column("text", sa.Text(), nullable=False),
        sa.Column("opened_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("opened_histories")
