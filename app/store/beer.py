"""The beer ledger (`beer_ledger`): crates owed, paid or waived."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, Session, SQLModel, col, select

from app.rules import text as words  # a refusal a reader sees (sqlalchemy's Text is a column type)
from app.store.db import saved, stored, utc_now


class BeerDebt(SQLModel, table=True):
    __tablename__ = "beer_ledger"

    id: int | None = Field(default=None, primary_key=True)
    member_id: int = Field(foreign_key="members.id", index=True)
    crates: int = Field(default=1)
    reason: str = Field(max_length=200)
    night_id: int | None = Field(default=None, foreign_key="nights.id")
    recorded_by: str = Field(max_length=40)
    at: datetime = Field(default_factory=utc_now)
    settled_at: datetime | None = None
    waived_at: datetime | None = None  # an elder let the crate go, with a reason
    waived_by: str | None = Field(default=None, max_length=40)
    waive_reason: str | None = Field(default=None, max_length=200)

    @property
    def is_owed(self) -> bool:
        """Still owed: neither paid nor waived."""
        return self.settled_at is None and self.waived_at is None


def add_debt(
    session: Session, *, member_id: int, reason: str, recorded_by: str, crates: int = 1,
    night_id: int | None = None,
) -> BeerDebt:
    debt = BeerDebt(
        member_id=member_id, crates=crates, reason=reason, recorded_by=recorded_by,
        night_id=night_id,
    )
    return saved(session, debt)


def list_debts(session: Session, *, open_only: bool = False) -> list[BeerDebt]:
    query = select(BeerDebt).order_by(col(BeerDebt.at).desc(), col(BeerDebt.id).desc())
    if open_only:
        query = query.where(col(BeerDebt.settled_at).is_(None), col(BeerDebt.waived_at).is_(None))
    return list(session.exec(query))


def waive_debt(session: Session, *, debt_id: int, by: str, reason: str) -> BeerDebt:
    """An elder lets an open crate go, with a reason (ValueError if paid or waived already)."""
    debt = stored(session, BeerDebt, debt_id)
    if not debt.is_owed:
        raise ValueError(words.Text("That crate is no longer owed: it was paid or waived already."))
    debt.waived_at = utc_now()
    debt.waived_by = by
    debt.waive_reason = reason
    return saved(session, debt)


def settle_debt(session: Session, *, debt_id: int) -> BeerDebt:
    debt = stored(session, BeerDebt, debt_id)
    debt.settled_at = utc_now()
    return saved(session, debt)

