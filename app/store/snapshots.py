"""One room read as one consistent snapshot: its row, seats, events (and chat) agree.

On Postgres the reads share one REPEATABLE READ, read-only transaction, so a commit made by
another process in between cannot put the row at one version and the events at another. On
every database the snapshot is also checked (the row's version is the last event's number)
and read again if a writer slipped in between. Blocking: call it off the event loop.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import Engine
from sqlmodel import Session

from app.store import chat as chat_store
from app.store import rooms as store

ATTEMPTS = 5


@dataclass
class RoomSnapshot:
    row: store.Room
    seats: list[store.RoomSeat]
    events: list[store.RoomEvent]
    chat: list[chat_store.RoomChat] = field(default_factory=list)

    @property
    def consistent(self) -> bool:
        last = self.events[-1].seq if self.events else 0
        return last == self.row.version


def read_session(db: Engine) -> Session:
    """A session whose reads all see one snapshot (on Postgres: REPEATABLE READ, read only)."""
    if db.dialect.name == "postgresql":
        db = db.execution_options(isolation_level="REPEATABLE READ", postgresql_readonly=True)  # not shown
    return Session(db, expire_on_commit=False)


def read_room(
    db: Engine, *, room_id: int | None = None, slug: str | None = None, after: int = 0,
    with_chat: bool = True,
) -> RoomSnapshot | None:
    """The room (by id or slug) with its seats and its events above `after`; None if unknown."""
    for _attempt in range(ATTEMPTS):
        with read_session(db) as session:
            row = (store.get_room_by_id(session, room_id=room_id) if room_id is not None
                   else store.get_room(session, slug=slug or ""))
            if row is None or row.id is None:
                return None
            snap = RoomSnapshot(
                row,
                store.list_seats(session, room_id=row.id),
                store.list_events(session, room_id=row.id, after=after),
                chat_store.list_chat(session, room_id=row.id) if with_chat else [],
            )
        if snap.consistent or row.version <= after:
            return snap
    raise RuntimeError(f"room {room_id or slug}: no consistent snapshot after {ATTEMPTS} reads")
