"""the strong bot's analysis of a finished game, stored once per game (game_analyses: its progress
while it runs, its judgement once done)

Revision ID: 0015_game_analyses
Revises: 0014_push
Create Date: 2026-12-08
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0015_game_analyses"
down_revision = "0014_push"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "game_analyses",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("game_key", sa.String(length=80), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("done", sa.Integer(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("visitor", sa.String(length=64), nullable=True),
        sa.Column("result", sa.JSON(), nullable=True),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_game_analyses_game_key", "game_analyses", ["game_key"], unique=True)
    op.create_index("ix_game_analyses_visitor", "game_analyses", ["visitor"])


def downgrade() -> None:
    op.drop_index("ix_game_analyses_visitor", table_name="game_analyses")
    op.drop_index("ix_game_analyses_game_key", table_name="game_analyses")
    op.drop_table("game_analyses")
