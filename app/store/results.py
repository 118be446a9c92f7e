"""A night's recorded table results (`night_results`, one row per table and round, in recording
order: replaying follows it) and their corrections (`corrections`: the old result, the new one
and the reason). A correction is an update of one row plus a row that keeps what it was.

One class per table, no Base/Create/Public layering: the night page, the correction page and
the corrections log show every column a page could want of both (slot, result, source, who,
when; before, after and why) and nothing on them is hidden from a reader, so a `Public` class
would copy the table; no form's input becomes a row as it is (a result form's fields are parsed
into a `RoundResult` and replayed through the night, `app.nights.recording`, which gives the
store the result's dict, and a correction row is copied from the result it changes)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, Text, UniqueConstraint, func
from sqlmodel import Field, Session, SQLModel, col, select

from app.store.db import saved, stored, utc_now
from app.store.table_phones import TableEntry


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
    at: datetime = Field(default_factory=utc_now)


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
    at: datetime = Field(default_factory=utc_now)
    source: str = Field(default="hand", max_length=8, sa_column_kwargs={"server_default": "hand"})  # of the result


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
    return saved(session, row)


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
    row = stored(session, NightResult, result_id)
    correction = Correction(
        night_id=row.night_id, result_id=row.id, who=who, phase=row.phase, round=row.round,
        table=row.table, before=dict(row.result), after=dict(after), reason=reason, source=row.source,
    )
    row.result = dict(after)
    session.add(row)
    return saved(session, correction)


def list_corrections(session: Session, *, night_id: int | None = None) -> list[Correction]:
    query = select(Correction).order_by(col(Correction.at).desc(), col(Correction.id).desc())
    if night_id is not None:
        query = query.where(Correction.night_id == night_id)
    return list(session.exec(query))


def undo_table_entry(session: Session, *, entry: TableEntry) -> None:
    """Take back a phone's result: its row goes, the entry is kept as undone."""
    if entry.result_id is not None:
        delete_result(session, result_id=entry.result_id)
    entry.result_id = None
    entry.undone_at = utc_now()
    session.add(entry)
    session.flush()

