"""table phones at a night on real cards: each table's link generation (night_table_links), the
results phones sent under their own entry ids (table_entries), and where a corrected result
came from (corrections.source, filled from the result it corrected)

Revision ID: 0009_table_phones
Revises: 0008_night_absences
Create Date: 2026-12-03
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0009_table_phones"
down_revision = "0008_night_absences"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "night_table_links",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("night_id", sa.Integer(), sa.ForeignKey("nights.id"), nullable=False),
        sa.Column("table", sa.String(length=16), nullable=False),
        sa.Column("generation", sa.Integer(), nullable=False),
        sa.Column("made_by", sa.String(length=40), nullable=False),
        sa.Column("made_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("night_id", "table", name="uq_night_table_links_table"),
    )
    op.create_index("ix_night_table_links_night_id", "night_table_links", ["night_id"])
    op.create_table(
        "table_entries",
        sa.Column("id", sa.Integer(), primary_key=True),
        sa.Column("night_id", sa.Integer(), sa.ForeignKey("nights.id"), nullable=False),
        sa.Column("entry_id", sa.String(length=64), nullable=False),
        sa.Column("table", sa.String(length=16), nullable=False),
        sa.Column("phase", sa.String(length=16), nullable=False),
        sa.Column("round", sa.Integer(), nullable=False),
        sa.Column("result", sa.JSON(), nullable=False),
        sa.Column("result_id", sa.Integer(), sa.ForeignKey("night_results.id"), nullable=True),
        sa.Column("undone_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("night_id", "entry_id", name="uq_table_entries_entry"),
    )
    op.create_index("ix_table_entries_night_id", "table_entries", ["night_id"])
    with op.batch_alter_table("corrections") as batch:
        batch.add_column(sa.Column("source", sa.String(length=8), nullable=False, server_default="hand"))
    corrections = sa.table("corrections", sa.column("result_id", sa.Integer()), sa.column("source", sa.String()))
    results = sa.table("night_results", sa.column("id", sa.Integer()), sa.column("source", sa.String()))
    op.get_bind().execute(corrections.update().values(source=sa.select(results.c.source).where(
        results.c.id == corrections.c.result_id).scalar_subquery()).where(corrections.c.result_id.is_not(None)))


def downgrade() -> None:
    with op.batch_alter_table("corrections") as batch:
        batch.drop_column("source")
    op.drop_index("ix_table_entries_night_id", table_name="table_entries")
    op.drop_table("table_entries")
    op.drop_index("ix_night_table_links_night_id", table_name="night_table_links")
    op.drop_table("night_table_links")
