"""The table phones of a night at the host's home: each link's generation (`night_table_links`)
and each result a phone sent, under the entry id the phone gave it (`table_entries`).

One class per table, no Base/Create/Public layering: a link's row is read by the elders' view
through `app.web.club.table_links.TableLink` (the built link, who made it and when: the
generation behind the link's secret never reaches the page as such), and the entries are read
only by the recording code (`app.nights.recording`), never by a page; neither is made from a
form's model (a new link is a button, a phone's entry is parsed into a `RoundResult` first)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, Session, SQLModel, col, select

from app.store.db import saved, utc_now


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
    made_at: datetime = Field(default_factory=utc_now)


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
    at: datetime = Field(default_factory=utc_now)


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
    found.made_at = utc_now()
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
    return saved(session, entry)


def entries_for_results(session: Session, *, night_id: int) -> dict[int, TableEntry]:
    """The live (not undone) phone entry behind each result it made, by result id."""
    rows = session.exec(select(TableEntry).where(
        TableEntry.night_id == night_id, col(TableEntry.result_id).is_not(None), col(TableEntry.undone_at).is_(None)))
    return {row.result_id: row for row in rows if row.result_id is not None}

