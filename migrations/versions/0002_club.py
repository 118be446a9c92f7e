"""club: members, nights, night_results, corrections, date_polls, date_votes, beer_ledger

Revision ID: 0002
Revises: 0001
Create Date: 2025-11-29
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "members",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("name", sa.String(length=40), nullable=False),
        sa.Column("is_elder", sa.Boolean(), nullable=False),
        sa.Column("password_hash", sa.String(length=255), nullable=True),
        sa.Column("active", sa.Boolean(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("members") as batch:
        batch.create_index("ix_members_name", ["name"], unique=True)

    op.create_table(
        "nights",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("date", sa.Date(), nullable=False),
        sa.Column("host", sa.String(length=40), nullable=False),
        sa.Column("status", sa.String(length=16), nullable=False),
        sa.Column("mode", sa.String(length=8), nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("players", sa.JSON(), nullable=False),
        sa.Column("start", sa.JSON(), nullable=False),
        sa.Column("state", sa.JSON(), nullable=False),
        sa.Column("winner", sa.String(length=40), nullable=True),
        sa.Column("created_by", sa.String(length=40), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )

    op.create_table(
        "night_results",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("night_id", sa.Integer(), sa.ForeignKey("nights.id"), nullable=False),
        sa.Column("seq", sa.Integer(), nullable=False),
        sa.Column("phase", sa.String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table", sa.String(length=16), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("source", sa.String(length=8), nullable=False),
        sa.Column("recorded_by", sa.String(length=40), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("night_id", "phase", "round", "table", name="uq_night_results_slot"),
    )
    with op.batch_alter_table("night_results") as batch:
        batch.create_index("ix_night_results_night_id", ["night_id"])

    op.create_table(
        "corrections",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("night_id", sa.Integer(), sa.ForeignKey("nights.id"), nullable=False),
        sa.Column("result_id", sa.Integer(), sa.ForeignKey("night_results.id"), nullable=True),
        sa.Column("who", sa.String(length=40), nullable=False),
        sa.Column("phase", sa.String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("table", sa.String(length=16), nullable=False),
        sa.Column("before", sa.JSON(), nullable=False),
        sa.Column("after", sa.JSON(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("corrections") as batch:
        batch.create_index("ix_corrections_night_id", ["night_id"])

    op.create_table(
        "date_polls",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("night_id", sa.Integer(), sa.ForeignKey("nights.id"), nullable=False),
        sa.Column("proposed_by", sa.String(length=40), nullable=False),
        sa.Column("option_a", sa.Date(), nullable=False),
        sa.Column("option_b", sa.Date(), nullable=False),
        sa.Column("answer_by", sa.Date(), nullable=False),
        sa.Column("chosen", sa.Date(), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    with op.batch_alter_table("date_polls") as batch:
        batch.create_index("ix_date_polls_night_id", ["night_id"], unique=True)

    op.create_table(
        "date_votes",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("poll_id", sa.Integer(), sa.ForeignKey("date_polls.id"), nullable=False),
        sa.Column("member_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
        sa.Column("choice", sa.String(length=8), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("poll_id", "member_id", name="uq_date_votes_member"),
    )
    with op.batch_alter_table("date_votes") as batch:
        batch.create_index("ix_date_votes_poll_id", ["poll_id"])

    op.create_table(
        "beer_ledger",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("member_id", sa.Integer(), sa.ForeignKey("members.id"), nullable=False),
        sa.Column("crates", sa.Integer(), nullable=False),
        sa.Column("reason", sa.String(length=200), nullable=False),
        sa.Column("night_id", sa.Integer(), sa.ForeignKey("nights.id"), nullable=True),
        sa.Column("recorded_by", sa.String(length=40), nullable=False),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("settled_at", sa.DateTime(timezone=True), nullable=True),
    )
    with op.batch_alter_table("beer_ledger") as batch:
        batch.create_index("ix_beer_ledger_member_id", ["member_id"])


def downgrade() -> None:
    with op.batch_alter_table("beer_ledger") as batch:
        batch.drop_index("ix_beer_ledger_member_id")
    op.drop_table("beer_ledger")
    with op.batch_alter_table("date_votes") as batch:
        batch.drop_index("ix_date_votes_poll_id")
    op.drop_table("date_votes")
    with op.batch_alter_table("date_polls") as batch:
        batch.drop_index("ix_date_polls_night_id")
    op.drop_table("date_polls")
    with op.batch_alter_table("corrections") as batch:
        batch.drop_index("ix_corrections_night_id")
    op.drop_table("corrections")
    with op.batch_alter_table("night_results") as batch:
        batch.drop_index("ix_night_results_night_id")
    op.drop_table("night_results")
    op.drop_table("nights")
    with op.batch_alter_table("members") as batch:
        batch.drop_index("ix_members_name")
    op.drop_table("members")
