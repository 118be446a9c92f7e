"""web push: push_subscriptions (a device's push service URL, keys and choices), push_seats (the
seats a device plays) and push_sent (messages sent once)

Revision ID: 0014_push
Revises: 0013_seat_members
Create Date: 2026-12-07
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0014_push"
down_revision = "0013_seat_members"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "push_subscriptions",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("device_hash", sa.String(length=64), nullable=False),
        sa.Column("endpoint", sa.Text(), nullable=False),
        sa.Column("p256dh", sa.String(length=100), nullable=False),
        sa.Column("auth", sa.String(length=40), nullable=False),
        sa.Column("topics", sa.String(length=64), nullable=False),
        sa.Column("lang", sa.String(length=8), nullable=False),
        sa.Column("member_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_push_subscriptions_device_hash", "push_subscriptions", ["device_hash"], unique=True)
    op.create_index("ix_push_subscriptions_member_id", "push_subscriptions", ["member_id"])
    op.create_table(
        "push_seats",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("subscription_id", sa.Integer(), sa.ForeignKey("push_subscriptions.id"), nullable=False),
        sa.Column("room_id", sa.Integer(), nullable=False),
        sa.Column("token_hash", sa.String(length=64), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("subscription_id", "room_id", name="uq_push_seats_room"),
    )
    op.create_index("ix_push_seats_subscription_id", "push_seats", ["subscription_id"])
    op.create_index("ix_push_seats_room_id", "push_seats", ["room_id"])
    op.create_table(
        "push_sent",
        sa.Column("key", sa.String(length=200), primary_key=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("push_sent")
    op.drop_index("ix_push_seats_room_id", table_name="push_seats")
    op.drop_index("ix_push_seats_subscription_id", table_name="push_seats")
    op.drop_table("push_seats")
    op.drop_index("ix_push_subscriptions_member_id", table_name="push_subscriptions")
    op.drop_index("ix_push_subscriptions_device_hash", table_name="push_subscriptions")
    op.drop_table("push_subscriptions")
