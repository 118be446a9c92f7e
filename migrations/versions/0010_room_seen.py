"""waiting rooms nobody comes back to: rooms.seen_at (None: never swept)

Revision ID: 0010_room_seen
Revises: 0009_table_phones
Create Date: 2026-12-04

A waiting room made before this revision counts as seen now, so it gets the whole idle time
before a sweep may delete it; club tables (their first event says `table`) and rooms that
started are never swept.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0010_room_seen"
down_revision = "0009_table_phones"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.add_column(sa.Column("seen_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_index("ix_rooms_seen_at", ["seen_at"])
    bind = op.get_bind()
    waiting = bind.execute(sa.text(
        "SELECT r.id, e.payload FROM rooms r JOIN room_events e ON e.room_id = r.id AND e.kind = 'create'"
        " WHERE r.status = 'lobby'"
    )).all()
    ids = [room_id for room_id, payload in waiting
           if not (json.loads(payload) if isinstance(payload, str) else payload or {}).get("table")]
    rooms = sa.table("rooms", sa.column("id", sa.Integer()), sa.column("seen_at", sa.DateTime(timezone=True)))
    for start in range(0, len(ids), 500):
        bind.execute(rooms.update().where(rooms.c.id.in_(ids[start:start + 500])).values(seen_at=datetime.now(UTC)))


def downgrade() -> None:
    with op.batch_alter_table("rooms") as batch:
        batch.drop_index("ix_rooms_seen_at")
        batch.drop_column("seen_at")
