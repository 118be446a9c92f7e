"""duplicate deals at an online night: nights.duplicate (the option) and night_decks (each
round's decks, drawn when the round opens; secret until the round is over at every table)

Revision ID: 0011_night_decks
Revises: 0010_room_seen
Create Date: 2026-12-04
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0011_night_decks"
down_revision = "0010_room_seen"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("nights") as batch:
        batch.add_column(sa.Column("duplicate", sa.Boolean(), nullable=False, server_default=sa.false()))
    op.create_table(
        "night_decks",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("night_id", sa.Integer(), sa.ForeignKey("nights.id"), nullable=False),
        sa.Column("stage", sa.String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("decks", sa.JSON(), nullable=False),
        sa.Column("drawn_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("night_id", "stage", "round", name="uq_night_decks_round"),
    )
    op.create_index("ix_night_decks_night_id", "night_decks", ["night_id"])


def downgrade() -> None:
    op.drop_index("ix_night_decks_night_id", table_name="night_decks")
    op.drop_table("night_decks")
    with op.batch_alter_table("nights") as batch:
        batch.drop_column("duplicate")
