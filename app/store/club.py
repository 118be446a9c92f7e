"""The club: members and elders, Gurka Nights, their recorded results, corrections, date polls
and the beer ledger. Tables and keyword-only queries.

A night is stored as what happened, not as a game state: the players, the start tables, the
seed of its lots and one row per recorded table result (in recording order). The web layer
replays those rows through `app.club` to get the standings, so a correction is an update of
one row plus a row in `corrections` that keeps the old and new result and the reason.
`nights.state` is a cached summary (phase, placement, Hall of Fame points, counts) written
after every change, so lists and the Hall of Fame never need to replay every night.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from datetime import UTC, date, datetime
from typing import Any

from sqlalchemy import JSON, BigInteger, Column, Text, UniqueConstraint, func, update
from sqlalchemy import false as sa_false
from sqlalchemy import select as sa_select
from sqlmodel import Field, Session, SQLModel, col, select

from app.rules import text as words  # a refusal a reader sees (sqlalchemy's Text is a column type)


def _now() -> datetime:
    return datetime.now(UTC)


class Member(SQLModel, table=True):
    __tablename__ = "members"

    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(max_length=40, unique=True, index=True)
    is_elder: bool = Field(default=False)
    password_hash: str | None = Field(default=None, max_length=255)
    active: bool = Field(default=True)
    created_at: datetime = Field(default_factory=_now)
    # The member's personal link (sha256 of its secret; the secret itself is never stored) and
    # the epoch of the devices that remember them: a new link or "forget devices" bumps it.
    link_hash: str | None = Field(default=None, max_length=64)
    device_epoch: int = Field(default=0, sa_column_kwargs={"server_default": "0"})
    # Signed session cookies carry this number; raising it ends every session of this elder.
    session_gen: int = Field(default=0)


class Night(SQLModel, table=True):
    __tablename__ = "nights"

    id: int | None = Field(default=None, primary_key=True)
    date: dt.date
    host: str = Field(max_length=40)
    status: str = Field(default="open", max_length=16)  # open | done
    mode: str = Field(default="hand", max_length=8)  # hand | online
    seed: int = Field(sa_column=Column(BigInteger, nullable=False))
    # [{"name": str, "member_id": int, "for_id": int | None, "for_name": str | None}]
    players: list[dict[str, Any]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    # {player: "vinder" | "mellan" | "taber"} or {} when the start tables were drawn by lot
    start: dict[str, str] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    state: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    winner: str | None = Field(default=None, max_length=40)
    created_by: str = Field(default="", max_length=40)
    created_at: datetime = Field(default_factory=_now)
    turn_seconds: int = Field(default=60, sa_column_kwargs={"server_default": "60"})  # online tables' turn timer
    # "Bots for the absent", switched on by this elder (None: off) for the rest of the night
    bots_for_absent_by: str | None = Field(default=None, max_length=40)
    bots_for_absent_since: datetime | None = None
    # Duplicate deals (online nights): the three tables of a round play the same decks
    duplicate: bool = Field(default=False, sa_column_kwargs={"server_default": sa_false()})


class NightDecks(SQLModel, table=True):
    """The decks of one round of a duplicate night, drawn (with `secrets`) when the round opens:
    deal k at every table of the round is dealt from deck k. Secret until the round is over at
    every table (never sent to a client before)."""

    __tablename__ = "night_decks"
    __table_args__ = (UniqueConstraint("night_id", "stage", "round", name="uq_night_decks_round"),)

    id: int | None = Field(default=None, primary_key=True)
    night_id: int = Field(foreign_key="nights.id", index=True)
    stage: str = Field(max_length=16)  # base | finals
    round: int
    decks: list[list[str]] = Field(default_factory=list, sa_column=Column(JSON, nullable=False))
    drawn_at: datetime = Field(default_factory=_now)


class NightAbsence(SQLModel, table=True):
    """A player of an online night whom bots play, at every table from now on, until they press
    Play again (kept while the night's "bots for the absent" is on)."""

    __tablename__ = "night_absences"
    __table_args__ = (UniqueConstraint("night_id", "player", name="uq_night_absences_player"),)

    id: int | None = Field(default=None, primary_key=True)
    night_id: int = Field(foreign_key="nights.id", index=True)
    player: str = Field(max_length=40)  # the name the player has at this night
    since: datetime = Field(default_factory=_now)


class NightResult(SQLModel, table=True):
    __tablename__ = "night_results"
    __table_args__ = (
        UniqueConstraint("night_id", "phase", "round", "table", name="uq_night_results_slot"),
    )

    id: int | None = Field(default=None, primary_key=True)
    night_id: int = Field(foreign_key="nights.id", index=True)
    seq: int  # recording order within the night: replaying follows it
    phase: str = Field(max_length=16)  # base | finals | playoff
    round: int  # 1..16 base, 1..6 finals, n-th playoff
    table: str = Field(max_length=16)  # vinder … taberfinale; for a playoff: the stage
    result: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    source: str = Field(default="hand", max_length=8)  # hand | online | phone (a table's phone)
    recorded_by: str = Field(default="", max_length=40)
    at: datetime = Field(default_factory=_now)


class NightTableLink(SQLModel, table=True):
    """The generation of one table phone's link at a night (no row: generation 0). The link's
    secret is derived from the app's secret key, the night, the table and this number, so
    nothing secret is stored; a new link raises the number and the old link stops working."""

    __tablename__ = "night_table_links"
    __table_args__ = (UniqueConstraint("night_id", "table", name="uq_night_table_links_table"),)

    id: int | None = Field(default=None, primary_key=True)
    night_id: int = Field(foreign_key="nights.id", index=True)
    table: str = Field(max_length=16)  # vinder … taberfinale
    generation: int = Field(default=0)
    made_by: str = Field(default="", max_length=40)
    made_at: datetime = Field(default_factory=_now)


class TableEntry(SQLModel, table=True):
    """A result sent from a table's phone, under the id the phone gave it: a repeat of the same
    entry (a phone that lost the answer and sends again) gets the stored outcome, never a second
    result; an entry undone at the table stays undone."""

    __tablename__ = "table_entries"
    __table_args__ = (UniqueConstraint("night_id", "entry_id", name="uq_table_entries_entry"),)

    id: int | None = Field(default=None, primary_key=True)
    night_id: int = Field(foreign_key="nights.id", index=True)
    entry_id: str = Field(max_length=64)
    table: str = Field(max_length=16)
    phase: str = Field(max_length=16)  # base | finals
    round: int
    result: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    result_id: int | None = Field(default=None, foreign_key="night_results.id")
    undone_at: datetime | None = None
    at: datetime = Field(default_factory=_now)


class Correction(SQLModel, table=True):
    __tablename__ = "corrections"

    id: int | None = Field(default=None, primary_key=True)
    night_id: int = Field(foreign_key="nights.id", index=True)
    result_id: int | None = Field(default=None, foreign_key="night_results.id")
    who: str = Field(max_length=40)
    phase: str = Field(max_length=16)
    round: int
    table: str = Field(max_length=16)
    before: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    after: dict[str, Any] = Field(default_factory=dict, sa_column=Column(JSON, nullable=False))
    reason: str = Field(sa_column=Column(Text, nullable=False))
    at: datetime = Field(default_factory=_now)
    source: str = Field(default="hand", max_length=8, sa_column_kwargs={"server_default": "hand"})  # of the result


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
    created_at: datetime = Field(default_factory=_now)


class DateVote(SQLModel, table=True):
    __tablename__ = "date_votes"
    __table_args__ = (UniqueConstraint("poll_id", "member_id", name="uq_date_votes_member"),)

    id: int | None = Field(default=None, primary_key=True)
    poll_id: int = Field(foreign_key="date_polls.id", index=True)
    member_id: int = Field(foreign_key="members.id")
    choice: str = Field(max_length=8)  # a | b | both | neither
    late: bool = Field(default=False, sa_column_kwargs={"server_default": sa_false()})  # after the week
    entered_by: str | None = Field(default=None, max_length=40)  # the elder who answered for the member
    at: datetime = Field(default_factory=_now)


class BeerDebt(SQLModel, table=True):
    __tablename__ = "beer_ledger"

    id: int | None = Field(default=None, primary_key=True)
    member_id: int = Field(foreign_key="members.id", index=True)
    crates: int = Field(default=1)
    reason: str = Field(max_length=200)
    night_id: int | None = Field(default=None, foreign_key="nights.id")
    recorded_by: str = Field(max_length=40)
    at: datetime = Field(default_factory=_now)
    settled_at: datetime | None = None
    waived_at: datetime | None = None  # an elder let the crate go, with a reason
    waived_by: str | None = Field(default=None, max_length=40)
    waive_reason: str | None = Field(default=None, max_length=200)

    @property
    def is_owed(self) -> bool:
        """Still owed: neither paid nor waived."""
        return self.settled_at is None and self.waived_at is None


# ---------------------------------------------------------------- members


def count_elders(session: Session) -> int:
    query = select(func.count()).select_from(Member).where(Member.is_elder, Member.active)
    return int(session.exec(query).one())


def add_member(
    session: Session, *, name: str, is_elder: bool = False, password_hash: str | None = None
) -> Member:
    member = Member(name=name, is_elder=is_elder, password_hash=password_hash)
    session.add(member)
    session.flush()
    return member


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
    member = session.get(Member, member_id)
    if member is None:
        raise LookupError(f"no member {member_id}")
    member.link_hash = link_hash
    member.device_epoch += 1
    session.add(member)
    session.flush()
    return member


def list_members(session: Session, *, active_only: bool = False) -> list[Member]:
    query = select(Member).order_by(func.lower(Member.name))
    if active_only:
        query = query.where(Member.active)
    return list(session.exec(query))


def update_member(
    session: Session,
    *,
    member_id: int,
    name: str | None = None,
    is_elder: bool | None = None,
    active: bool | None = None,
    password_hash: str | None = None,
) -> Member:
    member = session.get(Member, member_id)
    if member is None:
        raise LookupError(f"no member {member_id}")
    if name is not None:
        member.name = name
    if is_elder is not None:
        member.is_elder = is_elder
    if active is not None:
        member.active = active
    if password_hash is not None:
        member.password_hash = password_hash
    session.add(member)
    session.flush()
    return member


def end_sessions(session: Session, *, member_id: int) -> int:
    """End every session of this member (logout, new password); returns the new generation."""
    member = session.get(Member, member_id)
    if member is None:
        raise LookupError(f"no member {member_id}")
    member.session_gen = (member.session_gen or 0) + 1
    session.add(member)
    session.flush()
    return member.session_gen


# ---------------------------------------------------------------- nights


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
    session.add(night)
    session.flush()
    return night


def get_night(session: Session, *, night_id: int) -> Night | None:
    return session.get(Night, night_id)


def list_nights(session: Session, *, status: str | None = None, newest_first: bool = True) -> list[Night]:
    order = (col(Night.date).desc(), col(Night.id).desc()) if newest_first else (col(Night.date), col(Night.id))
    query = select(Night).order_by(*order)
    if status is not None:
        query = query.where(Night.status == status)
    return list(session.exec(query))


def last_done_night(session: Session, *, before_id: int | None = None) -> Night | None:
    """The most recent finished night (optionally: finished before night `before_id`)."""
    query = select(Night).where(Night.status == "done")
    if before_id is not None:
        query = query.where(Night.id != before_id)
    return session.exec(query.order_by(col(Night.date).desc(), col(Night.id).desc())).first()


def save_night_state(
    session: Session, *, night_id: int, state: dict[str, Any], status: str, winner: str | None
) -> Night:
    night = session.get(Night, night_id)
    if night is None:
        raise LookupError(f"no night {night_id}")
    night.state = state
    night.status = status
    night.winner = winner
    session.add(night)
    session.flush()
    return night


def set_night_mode(session: Session, *, night_id: int, mode: str) -> None:
    night = session.get(Night, night_id)
    if night is None:
        raise LookupError(f"no night {night_id}")
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


# ---------------------------------------------------------------- duplicate decks


def get_decks(session: Session, *, night_id: int, stage: str, round_no: int) -> NightDecks | None:
    return session.exec(select(NightDecks).where(
        NightDecks.night_id == night_id, NightDecks.stage == stage, NightDecks.round == round_no)).first()


def add_decks(session: Session, *, night_id: int, stage: str, round_no: int, decks: list[list[str]]) -> NightDecks:
    """Store a round's decks, unless they are stored already (then those, the first drawn, win)."""
    found = get_decks(session, night_id=night_id, stage=stage, round_no=round_no)
    if found is not None:
        return found
    row = NightDecks(night_id=night_id, stage=stage, round=round_no, decks=decks)
    session.add(row)
    session.flush()
    return row


def list_decks(session: Session, *, night_id: int) -> list[NightDecks]:
    return list(session.exec(select(NightDecks).where(NightDecks.night_id == night_id).order_by(col(NightDecks.id))))


# ---------------------------------------------------------------- bots for the absent


def set_bots_for_absent(session: Session, *, night_id: int, by: str | None) -> Night:
    """Switch a night's "bots for the absent" on (`by`: the elder) or off (None). Off also
    ends every player's absence: nobody is handed to a bot at once any more."""
    night = session.get(Night, night_id)
    if night is None:
        raise LookupError(f"no night {night_id}")
    if by is None:
        night.bots_for_absent_by, night.bots_for_absent_since = None, None
        for row in list(session.exec(select(NightAbsence).where(NightAbsence.night_id == night_id))):
            session.delete(row)
    elif night.bots_for_absent_by is None:
        night.bots_for_absent_by, night.bots_for_absent_since = by, _now()
    session.add(night)
    session.flush()
    return night


def list_absences(session: Session, *, night_id: int) -> list[NightAbsence]:
    query = select(NightAbsence).where(NightAbsence.night_id == night_id)
    return list(session.exec(query.order_by(col(NightAbsence.since), col(NightAbsence.id))))


def mark_absent(session: Session, *, night_id: int, player: str) -> bool:
    """Bots play `player` from now on at this night; False if they did already."""
    found = session.exec(
        select(NightAbsence).where(NightAbsence.night_id == night_id, NightAbsence.player == player)
    ).first()
    if found is not None:
        return False
    session.add(NightAbsence(night_id=night_id, player=player))
    session.flush()
    return True


def end_absence(session: Session, *, night_id: int, player: str) -> bool:
    """`player` is back (pressed Play); False if they were not away."""
    found = session.exec(
        select(NightAbsence).where(NightAbsence.night_id == night_id, NightAbsence.player == player)
    ).first()
    if found is None:
        return False
    session.delete(found)
    session.flush()
    return True


# ---------------------------------------------------------------- results


def list_results(session: Session, *, night_id: int) -> list[NightResult]:
    return list(
        session.exec(
            select(NightResult).where(NightResult.night_id == night_id).order_by(col(NightResult.seq))
        )
    )


def get_result(
    session: Session, *, night_id: int, phase: str, round_no: int, table: str
) -> NightResult | None:
    return session.exec(
        select(NightResult).where(
            NightResult.night_id == night_id,
            NightResult.phase == phase,
            NightResult.round == round_no,
            NightResult.table == table,
        )
    ).first()


def add_result(
    session: Session,
    *,
    night_id: int,
    phase: str,
    round_no: int,
    table: str,
    result: dict[str, Any],
    recorded_by: str,
    source: str = "hand",
) -> NightResult:
    """Append one table's result; the (night, phase, round, table) slot is unique."""
    last = session.exec(
        select(func.max(NightResult.seq)).where(NightResult.night_id == night_id)
    ).one()
    row = NightResult(
        night_id=night_id, seq=(last or 0) + 1, phase=phase, round=round_no, table=table,
        result=result, recorded_by=recorded_by, source=source,
    )
    session.add(row)
    session.flush()
    return row


def delete_result(session: Session, *, result_id: int) -> None:
    row = session.get(NightResult, result_id)
    if row is not None:
        for correction in session.exec(select(Correction).where(Correction.result_id == result_id)):
            correction.result_id = None
            session.add(correction)
        for entry in session.exec(select(TableEntry).where(TableEntry.result_id == result_id)):
            entry.result_id = None
            session.add(entry)
        session.flush()
        session.delete(row)
        session.flush()


def correct_result(
    session: Session, *, result_id: int, after: dict[str, Any], who: str, reason: str
) -> Correction:
    """Replace a recorded result and keep the old one, the new one and the reason."""
    row = session.get(NightResult, result_id)
    if row is None:
        raise LookupError(f"no result {result_id}")
    correction = Correction(
        night_id=row.night_id, result_id=row.id, who=who, phase=row.phase, round=row.round,
        table=row.table, before=dict(row.result), after=dict(after), reason=reason, source=row.source,
    )
    row.result = dict(after)
    session.add(row)
    session.add(correction)
    session.flush()
    return correction


def list_corrections(session: Session, *, night_id: int | None = None) -> list[Correction]:
    query = select(Correction).order_by(col(Correction.at).desc(), col(Correction.id).desc())
    if night_id is not None:
        query = query.where(Correction.night_id == night_id)
    return list(session.exec(query))


def lock_night(session: Session, *, night_id: int) -> bool:
    """Hold the night until this transaction ends, so that changes to one night happen one at a
    time in every app process (Postgres: the row's lock; SQLite: the database's write lock).
    Call it first, then read the night: what is read is what the others committed. False when
    there is no such night."""
    locked = session.execute(update(Night).where(col(Night.id) == night_id).values(seed=Night.seed))
    return bool(locked.rowcount)  # type: ignore[attr-defined]


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


# ---------------------------------------------------------------- table phones


def table_link_generation(session: Session, *, night_id: int, table: str) -> int:
    found = session.exec(
        select(NightTableLink.generation).where(NightTableLink.night_id == night_id, NightTableLink.table == table)
    ).first()
    return int(found or 0)


def table_link_generations(session: Session, *, night_id: int) -> dict[str, NightTableLink]:
    rows = session.exec(select(NightTableLink).where(NightTableLink.night_id == night_id))
    return {row.table: row for row in rows}


def new_table_link(session: Session, *, night_id: int, table: str, made_by: str) -> int:
    """The next generation of a table's link (the previous link stops working)."""
    found = session.exec(
        select(NightTableLink).where(NightTableLink.night_id == night_id, NightTableLink.table == table)
    ).first()
    if found is None:
        found = NightTableLink(night_id=night_id, table=table)
    found.generation += 1
    found.made_by = made_by
    found.made_at = _now()
    session.add(found)
    session.flush()
    return found.generation


def get_table_entry(session: Session, *, night_id: int, entry_id: str) -> TableEntry | None:
    return session.exec(
        select(TableEntry).where(TableEntry.night_id == night_id, TableEntry.entry_id == entry_id)
    ).first()


def add_table_entry(
    session: Session, *, night_id: int, entry_id: str, table: str, phase: str, round_no: int,
    result: dict[str, Any], result_id: int | None,
) -> TableEntry:
    entry = TableEntry(night_id=night_id, entry_id=entry_id, table=table, phase=phase, round=round_no,
                       result=result, result_id=result_id)
    session.add(entry)
    session.flush()
    return entry


def entries_for_results(session: Session, *, night_id: int) -> dict[int, TableEntry]:
    """The live (not undone) phone entry behind each result it made, by result id."""
    rows = session.exec(select(TableEntry).where(
        TableEntry.night_id == night_id, col(TableEntry.result_id).is_not(None), col(TableEntry.undone_at).is_(None)))
    return {row.result_id: row for row in rows if row.result_id is not None}


def undo_table_entry(session: Session, *, entry: TableEntry) -> None:
    """Take back a phone's result: its row goes, the entry is kept as undone."""
    if entry.result_id is not None:
        delete_result(session, result_id=entry.result_id)
    entry.result_id = None
    entry.undone_at = _now()
    session.add(entry)
    session.flush()


# ---------------------------------------------------------------- date polls


def create_poll(
    session: Session, *, night_id: int, proposed_by: str, option_a: date, option_b: date,
    answer_by: date, late: bool = False,
) -> DatePoll:
    poll = DatePoll(
        night_id=night_id, proposed_by=proposed_by, option_a=option_a, option_b=option_b,
        answer_by=answer_by, late=late,
    )
    session.add(poll)
    session.flush()
    return poll


def get_poll(session: Session, *, night_id: int) -> DatePoll | None:
    return session.exec(select(DatePoll).where(DatePoll.night_id == night_id)).first()


def list_polls(session: Session) -> list[DatePoll]:
    return list(session.exec(select(DatePoll).order_by(DatePoll.created_at.desc())))  # type: ignore[attr-defined]


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
        vote.at = _now()
    session.add(vote)
    session.flush()
    return vote


def list_votes(session: Session, *, poll_id: int) -> list[DateVote]:
    return list(session.exec(select(DateVote).where(DateVote.poll_id == poll_id).order_by(col(DateVote.id))))


def choose_date(session: Session, *, poll_id: int, chosen: date | None) -> DatePoll:
    poll = session.get(DatePoll, poll_id)
    if poll is None:
        raise LookupError(f"no poll {poll_id}")
    poll.chosen = chosen
    session.add(poll)
    session.flush()
    return poll


# ---------------------------------------------------------------- beer ledger


def add_debt(
    session: Session, *, member_id: int, reason: str, recorded_by: str, crates: int = 1,
    night_id: int | None = None,
) -> BeerDebt:
    debt = BeerDebt(
        member_id=member_id, crates=crates, reason=reason, recorded_by=recorded_by,
        night_id=night_id,
    )
    session.add(debt)
    session.flush()
    return debt


def list_debts(session: Session, *, open_only: bool = False) -> list[BeerDebt]:
    query = select(BeerDebt).order_by(col(BeerDebt.at).desc(), col(BeerDebt.id).desc())
    if open_only:
        query = query.where(col(BeerDebt.settled_at).is_(None), col(BeerDebt.waived_at).is_(None))
    return list(session.exec(query))


def waive_debt(session: Session, *, debt_id: int, by: str, reason: str) -> BeerDebt:
    """An elder lets an open crate go, with a reason (ValueError if paid or waived already)."""
    debt = session.get(BeerDebt, debt_id)
    if debt is None:
        raise LookupError(f"no debt {debt_id}")
    if not debt.is_owed:
        raise ValueError(words.Text("That crate is no longer owed: it was paid or waived already."))
    debt.waived_at = _now()
    debt.waived_by = by
    debt.waive_reason = reason
    session.add(debt)
    session.flush()
    return debt


def settle_debt(session: Session, *, debt_id: int) -> BeerDebt:
    debt = session.get(BeerDebt, debt_id)
    if debt is None:
        raise LookupError(f"no debt {debt_id}")
    debt.settled_at = _now()
    session.add(debt)
    session.flush()
    return debt
