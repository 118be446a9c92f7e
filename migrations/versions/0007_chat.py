"""table talk: a room's chat messages, reactions and chat settings

Revision ID: 0007_chat
Revises: 0006_elder_sessions
Create Date: 2026-12-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0007_chat"
down_revision = "0006_elder_sessions"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "room_chat",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("text", sa.String(length=400), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_room_chat_room_id", "room_chat", ["room_id"])


def downgrade() -> None:
    op.drop_index("ix_room_chat_room_id", table_name="room_chat")
    op.drop_table("room_chat")
