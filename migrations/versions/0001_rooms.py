"""rooms, room_seats, room_events

Revision ID: 0001
Revises:
Create Date: 2025-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0001"
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "rooms",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("slug", sa.String(length=64), nullable=False),
        sa.Column("preset", sa.String(length=32), nullable=False),
        sa.Column("options", sa.JSON(), nullable=False),
        sa.Column("seats", sa.Integer(), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("host", sa.Integer(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("rooms") as batch:
        batch.create_index("ix_rooms_slug", ["slug"], unique=True)

    op.create_table(
        "room_seats",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=False),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=True),
        sa.Column("is_bot", sa.Boolean(), nullable=False),
        sa.Column("bot_controlled", sa.Boolean(), nullable=False),
        sa.Column("joined_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("room_id", "seat", name="uq_room_seats_room_seat"),
    )
    with op.batch_alter_table("room_seats") as batch:
        batch.create_index("ix_room_seats_room_id", ["room_id"])
        batch.create_index("ix_room_seats_token_hash", ["token_hash"])

    op.create_table(
        "room_events",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("room_id", sa.Integer(), sa.ForeignKey("rooms.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("seat", sa.Integer(), nullable=True),
        sa.Column("kind", sa.String(length=16), nullable=False),
        sa.Column("payload", sa.JSON(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("room_id", "seq", name="uq_room_events_room_seq"),
    )
    with op.batch_alter_table("room_events") as batch:
        batch.create_index("ix_room_events_room_id", ["room_id"])


def downgrade() -> None:
    with op.batch_alter_table("room_events") as batch:
        batch.drop_index("ix_room_events_room_id")
    op.drop_table("room_events")
    with op.batch_alter_table("room_seats") as batch:
        batch.drop_index("ix_room_seats_token_hash")
        batch.drop_index("ix_room_seats_room_id")
    op.drop_table("room_seats")
    with op.batch_alter_table("rooms") as batch:
        batch.drop_index("ix_rooms_slug")
    op.drop_table("rooms")
