"""Web push: each device's subscription (the push service's URL and the keys its messages are
encrypted to), what it wants to hear about, the seats it plays, and the messages already sent
(so that several processes, or a restart, send each one once). Tables and keyword-only queries.

A device is known by a random secret in an HttpOnly cookie; only its hash is stored.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Column, Text, UniqueConstraint, delete
from sqlalchemy.dialects.postgresql import insert as postgres_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError
from sqlmodel import Field, Session, SQLModel, col, select

TOPICS = ("turn", "night", "dates")  # your turn; a Gurka Night's rounds; date polls and results


def _now() -> datetime:
    return datetime.now(UTC)


class PushSubscription(SQLModel, table=True):
    __tablename__ = "push_subscriptions"

    id: int | None = Field(default=None, primary_key=True)
    device_hash: str = Field(max_length=64, unique=True, index=True)
    endpoint: str = Field(sa_column=Column(Text, nullable=False))
    p256dh: str = Field(max_length=100)
    auth: str = Field(max_length=40)
    topics: str = Field(default="turn,night,dates", max_length=64)
    lang: str = Field(default="en", max_length=8)
    member_id: int | None = Field(default=None, foreign_key="members.id", index=True)
    created_at: datetime = Field(default_factory=_now)

    @property
    def topic_set(self) -> set[str]:
        return {t for t in self.topics.split(",") if t}


class PushSeat(SQLModel, table=True):
    """A seat this device plays (the room and the hash of the seat's token): "your turn" there."""

    __tablename__ = "push_seats"
    __table_args__ = (UniqueConstraint("subscription_id", "room_id", name="uq_push_seats_room"),)

    id: int | None = Field(default=None, primary_key=True)
    subscription_id: int = Field(foreign_key="push_subscriptions.id", index=True)
    room_id: int = Field(index=True)
    token_hash: str = Field(max_length=64)
    at: datetime = Field(default_factory=_now)


class PushSent(SQLModel, table=True):
    """A message sent once (its key names what it is about): the first process to claim it sends."""

    __tablename__ = "push_sent"

    key: str = Field(primary_key=True, max_length=200)
    at: datetime = Field(default_factory=_now)


def save_subscription(session: Session, *, device_hash: str, endpoint: str, p256dh: str, auth: str,
                      lang: str, member_id: int | None) -> PushSubscription:
    """This device's subscription, new or renewed (a browser may hand out a new endpoint)."""
    row = get_subscription(session, device_hash=device_hash)
    if row is None:
        # the same endpoint from another device cookie (cookies cleared): one row per endpoint
        session.exec(delete(PushSeat).where(col(PushSeat.subscription_id).in_(
            select(PushSubscription.id).where(PushSubscription.endpoint == endpoint))))
        session.exec(delete(PushSubscription).where(col(PushSubscription.endpoint) == endpoint))
        row = PushSubscription(device_hash=device_hash, endpoint=endpoint, p256dh=p256dh, auth=auth)
    row.endpoint, row.p256dh, row.auth, row.lang = endpoint, p256dh, auth, lang
    if member_id is not None:
        row.member_id = member_id
    session.add(row)
    session.flush()
    return row


def get_subscription(session: Session, *, device_hash: str) -> PushSubscription | None:
    return session.exec(select(PushSubscription).where(PushSubscription.device_hash == device_hash)).first()


def set_topics(session: Session, *, device_hash: str, topics: set[str], lang: str,
               member_id: int | None) -> PushSubscription | None:
    row = get_subscription(session, device_hash=device_hash)
    if row is None:
        return None
    row.topics = ",".join(t for t in TOPICS if t in topics)
    row.lang = lang
    if member_id is not None:
        row.member_id = member_id
    session.add(row)
    return row


def delete_subscription(session: Session, *, subscription_id: int) -> None:
    session.exec(delete(PushSeat).where(col(PushSeat.subscription_id) == subscription_id))
    session.exec(delete(PushSubscription).where(col(PushSubscription.id) == subscription_id))


def link_seat(session: Session, *, subscription_id: int, room_id: int, token_hash: str) -> None:
    """This device plays the seat with `token_hash` in room `room_id` (kept up to date)."""
    row = session.exec(select(PushSeat).where(PushSeat.subscription_id == subscription_id,
                                              PushSeat.room_id == room_id)).first()
    if row is None:
        row = PushSeat(subscription_id=subscription_id, room_id=room_id, token_hash=token_hash)
    elif row.token_hash == token_hash:
        return
    row.token_hash, row.at = token_hash, _now()
    session.add(row)


def for_seat(session: Session, *, room_id: int, token_hash: str, topic: str) -> list[PushSubscription]:
    """The devices that play this seat and want to hear about `topic`."""
    rows = session.exec(select(PushSubscription).join(PushSeat, col(PushSeat.subscription_id) == PushSubscription.id)
                        .where(PushSeat.room_id == room_id, PushSeat.token_hash == token_hash)).all()
    return [r for r in rows if topic in r.topic_set]


def for_seats(session: Session, *, seats: list[tuple[int, str]], topic: str) -> dict[tuple[int, str], list[PushSubscription]]:
    """`for_seat` for many seats (room id, token hash) in one query."""
    wanted = set(seats)
    if not wanted:
        return {}
    found: dict[tuple[int, str], list[PushSubscription]] = {}
    rooms = sorted({room for room, _ in wanted})
    for start in range(0, len(rooms), 500):
        rows = session.exec(select(PushSeat, PushSubscription)
                            .join(PushSubscription, col(PushSeat.subscription_id) == PushSubscription.id)
                            .where(col(PushSeat.room_id).in_(rooms[start:start + 500]))).all()
        for seat, sub in rows:
            key = (seat.room_id, seat.token_hash)
            if key in wanted and topic in sub.topic_set:
                found.setdefault(key, []).append(sub)
    return found


def for_members(session: Session, *, member_ids: list[int], topic: str) -> list[PushSubscription]:
    """The devices of these club members that want to hear about `topic`."""
    if not member_ids:
        return []
    rows = session.exec(select(PushSubscription).where(col(PushSubscription.member_id).in_(member_ids))).all()
    return [r for r in rows if topic in r.topic_set]


def claim(session: Session, *, key: str) -> bool:
    """True for the first caller that claims `key` (in any process), False ever after."""
    try:
        with session.begin_nested():
            session.add(PushSent(key=key[:200]))
            session.flush()
    except IntegrityError:
        return False
    return True


def claim_many(session: Session, *, keys: list[str]) -> set[str]:
    """The keys of `keys` that this caller claims first (one statement; the others were claimed)."""
    if not keys:
        return set()
    dialect = session.get_bind().dialect.name
    insert = postgres_insert if dialect == "postgresql" else sqlite_insert
    statement = (insert(PushSent).values([{"key": k[:200], "at": _now()} for k in keys])
                 .on_conflict_do_nothing(index_elements=["key"]).returning(col(PushSent.key)))
    return {row[0] for row in session.execute(statement)}


def prune_sent(session: Session, *, before: datetime) -> None:
    session.exec(delete(PushSent).where(col(PushSent.at) < before))
