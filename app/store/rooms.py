"""Rooms, their seats and their event log: tables and keyword-only queries.

A room's game is rebuilt from its events; the seats table holds who sits where and the
hash of each seat's secret token (never the token itself). A waiting room's `seen_at` says when
someone last had it open (`app.rooms.lobby_sweep`); a club table's is None: never swept.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, Column, DateTime, UniqueConstraint, delete, update
from sqlmodel import Field, Session, SQLModel, col, select

from app.store.chat import RoomChat
from app.store.room_writes import CommitJob, Event, VersionConflict, write_jobs
from app.store.seat_members import SeatMember


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
    # a waiting room's last sign of life: made, or someone had its page open (None: never swept)
    seen_at: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), index=True))


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
    session: Session, *, slug: str, preset: str, options: dict[str, Any], seats: int, host: int = 0,
    seen_at: datetime | None = None,
) -> Room:
    room = Room(slug=slug, preset=preset, options=options, seats=seats, host=host, seen_at=seen_at)
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


# ---------------------------------------------------------------- waiting rooms nobody comes back to


def touch_rooms(session: Session, *, room_ids: list[int], at: datetime) -> None:
    """Someone has these waiting rooms open now (rooms never swept stay so)."""
    if room_ids:
        session.execute(update(Room).where(col(Room.id).in_(room_ids), col(Room.seen_at).is_not(None))
                        .values(seen_at=at))


def delete_idle_lobbies(session: Session, *, before: datetime, limit: int = 500) -> list[int]:
    """Delete the rooms that never started and that nobody has had open since `before` (club
    tables never: their `seen_at` is None), with their seats, events and talk; their ids.

    The first statement claims the rooms (a write: on Postgres it locks their rows, on SQLite
    the database), so a change committed to one of them meanwhile waits, then finds it gone."""
    idle = (col(Room.status) == "lobby", col(Room.seen_at) < before)
    oldest = select(Room.id).where(*idle).order_by(col(Room.id)).limit(limit)
    claimed = session.execute(update(Room).where(col(Room.id).in_(oldest), *idle).values(status="closing")
                              .returning(col(Room.id)))
    ids = sorted(int(i) for i in claimed.scalars())
    if ids:
        for table in (RoomChat, RoomEvent, RoomSeat, SeatMember):
            session.execute(delete(table).where(col(table.room_id).in_(ids)))
        session.execute(delete(Room).where(col(Room.id).in_(ids)))
    return ids


def stored_room_ids(session: Session, *, room_ids: list[int]) -> set[int]:
    """Which of these rooms are still stored."""
    if not room_ids:
        return set()
    return {i for i in session.exec(select(col(Room.id)).where(col(Room.id).in_(room_ids))) if i is not None}
