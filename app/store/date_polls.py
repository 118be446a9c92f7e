"""The date poll after a night (`date_polls`) and the members' answers (`date_votes`)."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import UniqueConstraint
from sqlalchemy import false as sa_false
from sqlmodel import Field, Session, SQLModel, col, select

from app.store.db import saved, stored, utc_now


class DatePoll(SQLModel, table=True):
    __tablename__ = "date_polls"

    id: int | None = Field(default=None, primary_key=True)
    night_id: int = Field(foreign_key="nights.id", unique=True, index=True)
    proposed_by: str = Field(max_length=40)
    option_a: date
    option_b: date
    answer_by: date  # members answer within a week
    chosen: date | None = None
    late: bool = Field(default=False, sa_column_kwargs={"server_default": sa_false()})  # proposed after the week
    created_at: datetime = Field(default_factory=utc_now)


class DateVote(SQLModel, table=True):
    __tablename__ = "date_votes"
    __table_args__ = (UniqueConstraint("poll_id", "member_id", name="uq_date_votes_member"),)

    id: int | None = Field(default=None, primary_key=True)
    poll_id: int = Field(foreign_key="date_polls.id", index=True)
    member_id: int = Field(foreign_key="members.id")
    choice: str = Field(max_length=8)  # a | b | both | neither
    late: bool = Field(default=False, sa_column_kwargs={"server_default": sa_false()})  # after the week
    entered_by: str | None = Field(default=None, max_length=40)  # the elder who answered for the member
    at: datetime = Field(default_factory=utc_now)


def create_poll(
    session: Session, *, night_id: int, proposed_by: str, option_a: date, option_b: date,
    answer_by: date, late: bool = False,
) -> DatePoll:
    poll = DatePoll(
        night_id=night_id, proposed_by=proposed_by, option_a=option_a, option_b=option_b,
        answer_by=answer_by, late=late,
    )
    return saved(session, poll)


def get_poll(session: Session, *, night_id: int) -> DatePoll | None:
    return session.exec(select(DatePoll).where(DatePoll.night_id == night_id)).first()


def list_polls(session: Session) -> list[DatePoll]:
    return list(session.exec(select(DatePoll).order_by(col(DatePoll.created_at).desc())))


def set_vote(session: Session, *, poll_id: int, member_id: int, choice: str,
             late: bool = False, entered_by: str | None = None) -> DateVote:
    """A member's answer (`entered_by`: the elder who gave it for them, or None: the member
    themself); answering again replaces the earlier answer."""
    vote = session.exec(
        select(DateVote).where(DateVote.poll_id == poll_id, DateVote.member_id == member_id)
    ).first()
    if vote is None:
        vote = DateVote(poll_id=poll_id, member_id=member_id, choice=choice, late=late, entered_by=entered_by)
    else:
        vote.choice = choice
        vote.late = late
        vote.entered_by = entered_by
        vote.at = utc_now()
    return saved(session, vote)


def list_votes(session: Session, *, poll_id: int) -> list[DateVote]:
    return list(session.exec(select(DateVote).where(DateVote.poll_id == poll_id).order_by(col(DateVote.id))))


def choose_date(session: Session, *, poll_id: int, chosen: date | None) -> DatePoll:
    poll = stored(session, DatePoll, poll_id)
    poll.chosen = chosen
    return saved(session, poll)

