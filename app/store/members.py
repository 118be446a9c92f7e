"""Members of the club and its elders (`members`): who may log in, their personal links and
the generations that end their sessions and devices."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import func
from sqlmodel import Field, Session, SQLModel, select

from app.store.db import row_id, saved, stored, utc_now


class MemberBase(SQLModel):
    """What the club's pages may show of a member."""

    name: str = Field(max_length=40, unique=True, index=True)
    is_elder: bool = Field(default=False)
    active: bool = Field(default=True)


class Member(MemberBase, table=True):
    """A member as stored, with what no page shows: the password's and the link's hashes and
    the generations of their sessions and devices."""

    __tablename__ = "members"

    id: int | None = Field(default=None, primary_key=True)
    password_hash: str | None = Field(default=None, max_length=255)
    created_at: datetime = Field(default_factory=utc_now)
    # The member's personal link (sha256 of its secret; the secret itself is never stored) and
    # the epoch of the devices that remember them: a new link or "forget devices" bumps it.
    link_hash: str | None = Field(default=None, max_length=64)
    device_epoch: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # Signed session cookies carry this number; raising it ends every session of this elder.
    session_gen: int = Field(default=0)


class MemberPublic(MemberBase):
    """A member as a page reads it: no hash, no generation; whether they have a personal link."""

    id: int
    has_link: bool = False


def public(member: Member) -> MemberPublic:
    return MemberPublic(id=row_id(member), name=member.name, is_elder=member.is_elder, active=member.active,
                        has_link=member.link_hash is not None)


def count_elders(session: Session) -> int:
    query = select(func.count()).select_from(Member).where(Member.is_elder, Member.active)
    return int(session.exec(query).one())


def add_member(
    session: Session, *, name: str, is_elder: bool = False, password_hash: str | None = None
) -> Member:
    member = Member(name=name, is_elder=is_elder, password_hash=password_hash)
    return saved(session, member)


def get_member(session: Session, *, member_id: int) -> Member | None:
    return session.get(Member, member_id)


def get_member_by_name(session: Session, *, name: str) -> Member | None:
    """Exact name first, then case-insensitive (names are typed at the door)."""
    found = session.exec(select(Member).where(Member.name == name)).first()
    if found is None:
        found = session.exec(
            select(Member).where(func.lower(Member.name) == name.lower())
        ).first()
    return found


def get_member_by_link(session: Session, *, link_hash: str) -> Member | None:
    return session.exec(select(Member).where(Member.link_hash == link_hash)).first()


def set_member_link(session: Session, *, member_id: int, link_hash: str | None) -> Member:
    """A new personal link (or none) for a member; every device that remembered them forgets."""
    member = stored(session, Member, member_id)
    member.link_hash = link_hash
    member.device_epoch += 1
    return saved(session, member)


def list_members(session: Session, *, active_only: bool = False) -> list[Member]:
    query = select(Member).order_by(func.lower(Member.name))
    if active_only:
        query = query.where(Member.active)
    return list(session.exec(query))


def list_public(session: Session, *, active_only: bool = False) -> list[MemberPublic]:
    """The members as pages show them (`list_members` without what no page may read)."""
    return [public(m) for m in list_members(session, active_only=active_only)]


def update_member(
    session: Session,
    *,
    member_id: int,
    name: str | None = None,
    is_elder: bool | None = None,
    active: bool | None = None,
    password_hash: str | None = None,
) -> Member:
    member = stored(session, Member, member_id)
    if name is not None:
        member.name = name
    if is_elder is not None:
        member.is_elder = is_elder
    if active is not None:
        member.active = active
    if password_hash is not None:
        member.password_hash = password_hash
    return saved(session, member)


def end_sessions(session: Session, *, member_id: int) -> int:
    """End every session of this member (logout, new password); returns the new generation."""
    member = stored(session, Member, member_id)
    member.session_gen = (member.session_gen or 0) + 1
    session.add(member)
    session.flush()
    return member.session_gen

