"""The date poll after a night (`date_polls`) and the members' answers (`date_votes`).

Both tables are layered as ARCHITECTURE describes: `DatePollBase`/`DateVoteBase` hold what the
pages show, the table classes add the keys and the stored-only columns, and `DatePollCreate`/
`DateVoteCreate` are what the proposal and answer forms hand the store. There is no `Public`
class: nothing in a poll or an answer is hidden from a page (the pages turn them into names and
tallies, `app.web.club.poll_view`)."""

from __future__ import annotations

from datetime import date, datetime

from sqlalchemy import UniqueConstraint
from sqlalchemy import false as sa_false
from sqlmodel import Field, Session, SQLModel, col, select

from app.store.db import saved, stored, utc_now


class DatePollBase(SQLModel):
    """What the winner's proposal sets, as the night page and the dates page show it."""

    proposed_by: str = Field(max_length=40)
    option_a: date
    option_b: date
    answer_by: date  # members answer within a week
    late: bool = Field(default=False, sa_column_kwargs={"server_default": sa_false()})  # proposed after the week


class DatePoll(DatePollBase, table=True):
    """A poll as stored: its night, the date it settled on (later: by the answers or the week's
    end) and when it was proposed."""

    __tablename__ = "date_polls"

    id: int | None = Field(default=None, primary_key=True)
    night_id: int = Field(foreign_key="nights.id", unique=True, index=True)
    chosen: date | None = None
    created_at: datetime = Field(default_factory=utc_now)


class DatePollCreate(DatePollBase):
    """The proposal form's validated input: the winner, the two dates and the answer week's end
    (checked by the club core's `DatePoll.propose`)."""


class DateVoteBase(SQLModel):
    """A member's answer as the poll's page reads it."""

    member_id: int = Field(foreign_key="members.id")
    choice: str = Field(max_length=8)  # a | b | both | neither
    late: bool = Field(default=False, sa_column_kwargs={"server_default": sa_false()})  # after the week
    entered_by: str | None = Field(default=None, max_length=40)  # the elder who answered for the member


class DateVote(DateVoteBase, table=True):
    """An answer as stored: its poll and when it was (last) given."""

    __tablename__ = "date_votes"
    __table_args__ = (UniqueConstraint("poll_id", "member_id", name="uq_date_votes_member"),)

    id: int | None = Field(default=None, primary_key=True)
    poll_id: int = Field(foreign_key="date_polls.id", index=True)
    at: datetime = Field(default_factory=utc_now)


class DateVoteCreate(DateVoteBase):
    """The answer form's validated input: who answers (the device's member, or the member an elder
    answers for, `entered_by`), their choice and whether it came after the week."""


def create_poll(session: Session, *, night_id: int, poll: DatePollCreate) -> DatePoll:
    return saved(session, DatePoll.model_validate(poll, update={"night_id": night_id}))


def get_poll(session: Session, *, night_id: int) -> DatePoll | None:
    return session.exec(select(DatePoll).where(DatePoll.night_id == night_id)).first()


def list_polls(session: Session) -> list[DatePoll]:
    return list(session.exec(select(DatePoll).order_by(col(DatePoll.created_at).desc())))


def set_vote(session: Session, *, poll_id: int, answer: DateVoteCreate) -> DateVote:
    """A member's answer (`entered_by`: the elder who gave it for them, or None: the member
    themself); answering again replaces the earlier answer."""
    vote = session.exec(
        select(DateVote).where(DateVote.poll_id == poll_id, DateVote.member_id == answer.member_id)
    ).first()
    if vote is None:
        vote = DateVote.model_validate(answer, update={"poll_id": poll_id})
    else:
        vote.choice = answer.choice
        vote.late = answer.late
        vote.entered_by = answer.entered_by
        vote.at = utc_now()
    return saved(session, vote)


def list_votes(session: Session, *, poll_id: int) -> list[DateVote]:
    return list(session.exec(select(DateVote).where(DateVote.poll_id == poll_id).order_by(col(DateVote.id))))


def choose_date(session: Session, *, poll_id: int, chosen: date | None) -> DatePoll:
    poll = stored(session, DatePoll, poll_id)
    poll.chosen = chosen
    return saved(session, poll)

