"""A room's table talk: chat messages, reactions and the host's chat settings, kept with the room.

Chat rows are not game events: they never move a room's version.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlmodel import Field, Session, SQLModel, col, select


def _now() -> datetime:
    return datetime.now(UTC)


class RoomChat(SQLModel, table=True):
    __tablename__ = "room_chat"

    id: int | None = Field(default=None, primary_key=True)
    room_id: int = Field(foreign_key="rooms.id", index=True)
    seat: int | None = None  # None: a spectator
    name: str = Field(max_length=40)
    kind: str = Field(max_length=16)  # say | react | mute | unmute | spectators
    text: str = Field(max_length=400)
    at: datetime = Field(default_factory=_now)


def add_chat(session: Session, *, room_id: int, seat: int | None, name: str, kind: str, text: str,
             at: datetime) -> None:
    session.add(RoomChat(room_id=room_id, seat=seat, name=name, kind=kind, text=text, at=at))


def list_chat(session: Session, *, room_id: int) -> list[RoomChat]:
    """Every chat row of a room, oldest first."""
    query = select(RoomChat).where(RoomChat.room_id == room_id).order_by(col(RoomChat.id))
    return list(session.exec(query))
