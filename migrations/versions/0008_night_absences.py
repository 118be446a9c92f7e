"""bots for the absent for a whole night (nights.bots_for_absent_*, night_absences); a date
answer an elder gave for a member (date_votes.entered_by)

An open night whose elders had asked for bots at some table (the old per-table wish, kept in
`nights.state["bots"]`) gets the night-long switch on.

Revision ID: 0008_night_absences
Revises: 0007_chat
Create Date: 2026-12-02
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0008_night_absences"
down_revision = "0007_chat"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("nights") as batch:
        batch.add_column(sa.Column("bots_for_absent_by", sa.String(length=40), nullable=True))
        batch.add_column(sa.Column("bots_for_absent_since", sa.DateTime(timezone=True), nullable=True))
    op.create_table(
        "night_absences",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("night_id", sa.Integer(), sa.ForeignKey("nights.id"), nullable=False),
        sa.Column("player", sa.String(length=40), nullable=False),
        sa.Column("since", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("night_id", "player", name="uq_night_absences_player"),
    )
    op.create_index("ix_night_absences_night_id", "night_absences", ["night_id"])
    with op.batch_alter_table("date_votes") as batch:
        batch.add_column(sa.Column("entered_by", sa.String(length=40), nullable=True))

    nights = sa.table("nights", sa.column("id", sa.Integer()), sa.column("status", sa.String()),
                      sa.column("state", sa.JSON()), sa.column("bots_for_absent_by", sa.String()),
                      sa.column("bots_for_absent_since", sa.DateTime(timezone=True)))
    conn = op.get_bind()
    for night_id, state in conn.execute(sa.select(nights.c.id, nights.c.state).where(nights.c.status == "open")):
        loaded = json.loads(state) if isinstance(state, str) else state
        if isinstance(loaded, dict) and loaded.get("bots"):
            conn.execute(nights.update().where(nights.c.id == night_id).values(
                bots_for_absent_by="", bots_for_absent_since=datetime.now(UTC)))


def downgrade() -> None:
    with op.batch_alter_table("date_votes") as batch:
        batch.drop_column("entered_by")
    op.drop_index("ix_night_absences_night_id", table_name="night_absences")
    op.drop_table("night_absences")
    with op.batch_alter_table("nights") as batch:
        batch.drop_column("bots_for_absent_since")
        batch.drop_column("bots_for_absent_by")
