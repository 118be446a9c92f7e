"""Gurka Nights (`nights`): a night as what happened, not as a game state (the players, the start
tables, the seed of its lots; its results are rows of their own, see `results`), with a cached
summary (`state`: phase, placement, Hall of Fame points) written after every change, so lists
and the Hall of Fame never replay every night. Also the lock that makes changes to one night
happen one at a time, and the fingerprint its pages are made of.

Layered as ARCHITECTURE describes: `NightBase` is what a night's pages show of the row,
`Night` the row itself, and `NightPublic` (`public`) the row as the night's pages get it: its
id, and the seed of the lots only once the night is over (the night page reveals it then), never
while it is open. The handlers themselves read the stored `Night`: the night is replayed from its
players, start tables, seed and results. No `NightCreate`: the set-up form's input becomes a
night only with what the server adds (the drawn seed, new members' ids, who set it up)."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from datetime import date, datetime
from typing import Any, cast

from sqlalchemy import JSON, BigInteger, Column, CursorResult, func, update
from sqlalchemy import false as sa_false
from sqlalchemy import select as sa_select
from sqlmodel import Field, Session, SQLModel, col, select

from app.store.absences import NightAbsence
from app.store.beer import BeerDebt
from app.store.date_polls import DatePoll, DateVote
from app.store.db import row_id, saved, stored, utc_now
from app.store.decks import NightDecks
from app.store.results import Correction, NightResult
from app.store.table_phones import NightTableLink, TableEntry


class NightBase(SQLModel):
    """What a night's pages show of it."""

    date: dt.date
    host: str = Field(max_length=40)
    status: str = Field(default="open", max_length=16)  # open | done
    mode: str = Field(default="hand", max_length=8)  # hand | online
    winner: str | None = Field(default=None, max_length=40)
    turn_seconds: int = Field(default=60, sa_column_kwargs={"server_default": "60"})  # online tables' turn timer
    # Duplicate deals (online nights): the three tables of a round play the same decks
    duplicate: bool = Field(default=False, sa_column_kwargs={"server_default": sa_false()})


class Night(NightBase, table=True):
    """A night as stored, with what its pages do not show as such: the seed of its lots, the
    players and start tables it is replayed from, the cached summary and who switched what."""

    __tablename__ = "nights"

    id: int | None = Field(default=None, primary_key=True)
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    # [{"name": str, "member_id": int, "for_id": int | None, "for_name": str | None}]
    players: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # {player: "vinder" | "mellan" | "taber"} or {} when the start tables were drawn by lot
    start: dict[str, str] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    state: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    created_by: str = Field(default="", max_length=40)
    created_at: datetime = Field(default_factory=utc_now)
    # "Bots for the absent", switched on by this elder (None: off) for the rest of the night
    bots_for_absent_by: str | None = Field(default=None, max_length=40)
    bots_for_absent_since: datetime | None = None


class NightPublic(NightBase):
    """A night as its pages read it: the seed of the lots only once the night is over."""

    id: int
    seed: int | None = None


def public(night: Night) -> NightPublic:
    return NightPublic(
        id=row_id(night), date=night.date, host=night.host, status=night.status, mode=night.mode,
        winner=night.winner, turn_seconds=night.turn_seconds, duplicate=night.duplicate,
        seed=night.seed if night.status == "done" else None,
    )


def create_night(
    session: Session,
    *,
    day: date,
    host: str,
    seed: int,
    players: list[dict[str, Any]],
    start: dict[str, str],
    mode: str = "hand",
    created_by: str = "",
    state: dict[str, Any] | None = None,
    turn_seconds: int = 60,
    duplicate: bool = False,
) -> Night:
    night = Night(
        date=day, host=host, seed=seed, players=players, start=start, mode=mode,
        created_by=created_by, state=state or {}, turn_seconds=turn_seconds, duplicate=duplicate,
    )
    return saved(session, night)


def get_night(session: Session, *, night_id: int) -> Night | None:
    return session.get(Night, night_id)


def list_nights(session: Session, *, status: str | None = None, newest_first: bool = True) -> list[Night]:
    order = (col(Night.date).desc(), col(Night.id).desc()) if newest_first else (col(Night.date), col(Night.id))
    query = select(Night).order_by(*order)
    if status is not None:
        query = query.where(Night.status == status)
    return list(session.exec(query))


def list_public(session: Session, *, status: str | None = None, newest_first: bool = True) -> list[NightPublic]:
    """The nights as pages list them (`list_nights` without what no page may read)."""
    return [public(n) for n in list_nights(session, status=status, newest_first=newest_first)]


def last_done_night(session: Session, *, before_id: int | None = None) -> Night | None:
    """The most recent finished night (optionally: finished before night `before_id`)."""
    query = select(Night).where(Night.status == "done")
    if before_id is not None:
        query = query.where(Night.id != before_id)
    return session.exec(query.order_by(col(Night.date).desc(), col(Night.id).desc())).first()


def save_night_state(
    session: Session, *, night_id: int, state: dict[str, Any], status: str, winner: str | None
) -> Night:
    night = stored(session, Night, night_id)
    night.state = state
    night.status = status
    night.winner = winner
    return saved(session, night)


def set_night_mode(session: Session, *, night_id: int, mode: str) -> None:
    night = stored(session, Night, night_id)
    night.mode = mode
    session.add(night)
    session.flush()


def delete_night(session: Session, *, night_id: int) -> None:
    """Remove a night that was set up by mistake, with everything hanging off it."""
    for model in (TableEntry, NightTableLink, Correction, NightResult, NightAbsence, NightDecks):
        for row in list(session.exec(select(model).where(model.night_id == night_id))):
            session.delete(row)
        session.flush()
    poll = session.exec(select(DatePoll).where(DatePoll.night_id == night_id)).first()
    if poll is not None:
        for vote in list(session.exec(select(DateVote).where(DateVote.poll_id == poll.id))):
            session.delete(vote)
        session.flush()
        session.delete(poll)
    for debt in list(session.exec(select(BeerDebt).where(BeerDebt.night_id == night_id))):
        debt.night_id = None
        session.add(debt)
    session.flush()
    night = session.get(Night, night_id)
    if night is not None:
        session.delete(night)
    session.flush()


def set_bots_for_absent(session: Session, *, night_id: int, by: str | None) -> Night:
    """Switch a night's "bots for the absent" on (`by`: the elder) or off (None). Off also
    ends every player's absence: nobody is handed to a bot at once any more."""
    night = stored(session, Night, night_id)
    if by is None:
        night.bots_for_absent_by, night.bots_for_absent_since = None, None
        for row in list(session.exec(select(NightAbsence).where(NightAbsence.night_id == night_id))):
            session.delete(row)
    elif night.bots_for_absent_by is None:
        night.bots_for_absent_by, night.bots_for_absent_since = by, utc_now()
    return saved(session, night)


def lock_night(session: Session, *, night_id: int) -> bool:
    """Hold the night until this transaction ends, so that changes to one night happen one at a
    time in every app process (Postgres: the row's lock; SQLite: the database's write lock).
    Call it first, then read the night: what is read is what the others committed. False when
    there is no such night."""
    locked = session.execute(update(Night).where(col(Night.id) == night_id).values(seed=Night.seed))
    return bool(cast(CursorResult[Any], locked).rowcount)  # an UPDATE's result is a cursor's


def night_fingerprint(session: Session, *, night_id: int) -> str | None:
    """A short digest of everything a night's pages are made of (the night, its results, its
    corrections): equal digests, equal pages. None when there is no such night."""
    night = session.get(Night, night_id)
    if night is None:
        return None
    columns = [col(NightResult.id), col(NightResult.seq), col(NightResult.phase), col(NightResult.round),
               col(NightResult.table), col(NightResult.result), col(NightResult.source), col(NightResult.at)]
    results = session.execute(
        sa_select(*columns).where(col(NightResult.night_id) == night_id)
        .order_by(col(NightResult.seq), col(NightResult.id))
    ).all()
    corrections = session.exec(
        select(func.count(), func.max(Correction.id)).where(Correction.night_id == night_id)
    ).one()
    facts = [night.status, night.mode, night.date, night.host, night.seed, night.players, night.start,
             night.winner, [list(r) for r in results], list(corrections)]
    return hashlib.sha256(json.dumps(facts, default=str, sort_keys=True).encode()).hexdigest()[:20]

