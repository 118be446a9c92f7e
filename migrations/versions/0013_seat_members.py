"""which member's device took a room's seat, and from when (seat_members): the ratings count an
online game when every seat was a member's

Revision ID: 0013_seat_members
Revises: 0012_opened_histories
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0013_seat_members"
down_revision = "0012_opened_histories"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "seat_members",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("member_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_seat_members_room_id", "seat_members", ["room_id"])


def downgrade() -> None:
    op.drop_index("ix_seat_members_room_id", table_name="seat_members")
    op.drop_table("seat_members")
