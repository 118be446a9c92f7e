"""Rooms, their seats and their event log: tables and keyword-only queries.

A room's game is rebuilt from its events; the seats table holds who sits where and the
hash of each seat's secret token (never the token itself).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, Session, SQLModel, col, select

from app.store.room_writes import CommitJob, Event, VersionConflict, write_jobs


def _now() -> datetime:
    return datetime.now(UTC)


class Room(SQLModel, table=True):
    __tablename__ = "rooms"

    id: int | None = Field(default=None, primary_key=True)
    slug: str = Field(max_length=64, unique=True, index=True)
    preset: str = Field(max_length=32)
    options: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    seats: int = Field(default=3)
    status: str = Field(default="lobby", max_length=16)  # lobby | playing | over
    version: int = Field(default=0)
    host: int = Field(default=0)  # seat of the host
    created_at: datetime = Field(default_factory=_now)


class RoomSeat(SQLModel, table=True):
    __tablename__ = "room_seats"
    __table_args__ = (UniqueConstraint("room_id", "seat", name="uq_room_seats_room_seat"),)

    id: int | None = Field(default=None, primary_key=True)
    room_id: int = Field(foreign_key="rooms.id", index=True)
    seat: int
    name: str = Field(max_length=40)
    token_hash: str | None = Field(default=None, max_length=64, index=True)
    is_bot: bool = Field(default=False)  # a bot's own seat
    bot_controlled: bool = Field(default=False)  # a human's seat played by a bot for now
    code_hash: str | None = Field(default=None, max_length=64)  # hash of the seat's rejoin code
    joined_at: datetime = Field(default_factory=_now)


class RoomEvent(SQLModel, table=True):
    __tablename__ = "room_events"
    __table_args__ = (UniqueConstraint("room_id", "seq", name="uq_room_events_room_seq"),)

    id: int | None = Field(default=None, primary_key=True)
    room_id: int = Field(foreign_key="rooms.id", index=True)
    seq: int
    seat: int | None = None
    kind: str = Field(max_length=16)
    payload: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    at: datetime = Field(default_factory=_now)


# ---------------------------------------------------------------- queries


def create_room(
    session: Session, *, slug: str, preset: str, options: dict[str, Any], seats: int, host: int = 0
) -> Room:
    room = Room(slug=slug, preset=preset, options=options, seats=seats, host=host)
    session.add(room)
    session.flush()
    return room


def get_room(session: Session, *, slug: str) -> Room | None:
    return session.exec(select(Room).where(Room.slug == slug)).first()


def get_room_by_id(session: Session, *, room_id: int) -> Room | None:
    return session.get(Room, room_id)


def list_rooms(session: Session, *, statuses: tuple[str, ...] | None = None) -> list[Room]:
    query = select(Room).order_by(col(Room.id))
    if statuses:
        query = query.where(col(Room.status).in_(statuses))
    return list(session.exec(query))


def list_seats(session: Session, *, room_id: int) -> list[RoomSeat]:
    return list(
        session.exec(select(RoomSeat).where(RoomSeat.room_id == room_id).order_by(col(RoomSeat.seat)))
    )


def list_events(session: Session, *, room_id: int, after: int = 0) -> list[RoomEvent]:
    return list(
        session.exec(
            select(RoomEvent)
            .where(RoomEvent.room_id == room_id, RoomEvent.seq > after)
            .order_by(col(RoomEvent.seq))
        )
    )


def record_events(
    session: Session,
    *,
    room_id: int,
    seen_version: int,
    events: list[Event],
    status: str | None = None,
    seats: list[dict[str, Any]] | None = None,
) -> int:
    """Append `events` (seat, kind, payload) after `seen_version`, in the session's transaction,
    and set the status and seats if given; return the new version.

    The room row moves from `seen_version` to the new version in the same transaction, so a
    writer that raced us makes this raise VersionConflict instead of forking the log. Room
    objects already loaded in this session are not refreshed: callers use the returned version.
    """
    job = CommitJob(room_id, seen_version, events, seats=seats, status=status)
    [outcome] = write_jobs(session.connection(), [job])
    if isinstance(outcome, VersionConflict):
        raise outcome
    return outcome
