"""Which member's device took a room's seat, and from when: a row each time a seat is taken
(made, joined), with the member the device is remembered as (None: not a known member). A game
is a member's when its seat's latest row before the game began names them (`app.ratings`)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Column, DateTime
from sqlmodel import Field, Session, SQLModel, col, select


def _now() -> datetime:
    return datetime.now(UTC)


class SeatMember(SQLModel, table=True):
    __tablename__ = "seat_members"

    id: int | None = Field(default=None, primary_key=True)
    room_id: int = Field(foreign_key="rooms.id", index=True)
    seat: int
    member_id: int | None = Field(default=None, foreign_key="members.id")
    at: datetime = Field(default_factory=_now, sa_column=Column(DateTime(timezone=True), nullable=False))


def seat_taken(session: Session, *, room_id: int, seat: int, member_id: int | None) -> None:
    session.add(SeatMember(room_id=room_id, seat=seat, member_id=member_id))


def rooms_with_members(session: Session) -> dict[int, list[SeatMember]]:
    """Room id -> its seat rows, oldest first, for every room a member's device sat in."""
    rows = session.exec(select(SeatMember).order_by(col(SeatMember.room_id), col(SeatMember.id)))
    out: dict[int, list[SeatMember]] = {}
    for row in rows:
        out.setdefault(row.room_id, []).append(row)
    return {k: v for k, v in out.items() if any(r.member_id is not None for r in v)}
