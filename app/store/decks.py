"""The decks of a duplicate night (`night_decks`), one row per round."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import JSON, Column, UniqueConstraint
from sqlmodel import Field, Session, SQLModel, col, select

from app.store.db import saved, utc_now


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
    drawn_at: datetime = Field(default_factory=utc_now)


def get_decks(session: Session, *, night_id: int, stage: str, round_no: int) -> NightDecks | None:
    return session.exec(select(NightDecks).where(
        NightDecks.night_id == night_id, NightDecks.stage == stage, NightDecks.round == round_no)).first()


def add_decks(session: Session, *, night_id: int, stage: str, round_no: int, decks: list[list[str]]) -> NightDecks:
    """Store a round's decks, unless they are stored already (then those, the first drawn, win)."""
    found = get_decks(session, night_id=night_id, stage=stage, round_no=round_no)
    if found is not None:
        return found
    row = NightDecks(night_id=night_id, stage=stage, round=round_no, decks=decks)
    return saved(session, row)


def list_decks(session: Session, *, night_id: int) -> list[NightDecks]:
    return list(session.exec(select(NightDecks).where(NightDecks.night_id == night_id).order_by(col(NightDecks.id))))

