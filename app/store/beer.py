"""The beer ledger (`beer_ledger`): crates owed, paid or waived.

Layered as ARCHITECTURE describes: `BeerDebtBase` is what an elder's form (or the date poll)
puts on the ledger, `BeerDebt` the stored row, `BeerDebtCreate` the form's validated input. There
is no `Public` class: the beer page shows every column (who recorded it, when, paid, waived by
whom and why) and names each row by its id in its Paid and Waive forms."""

from __future__ import annotations

from datetime import datetime

from sqlmodel import Field, Session, SQLModel, col, select

from app.rules import text as words  # a refusal a reader sees (sqlalchemy's Text is a column type)
from app.store.db import saved, stored, utc_now


class BeerDebtBase(SQLModel):
    """A crate owed as it is put on the ledger: who owes it, how many, why, and the night whose
    date was broken (if one)."""

    member_id: int = Field(foreign_key="members.id", index=True)
    crates: int = Field(default=1)
    reason: str = Field(max_length=200)
    night_id: int | None = Field(default=None, foreign_key="nights.id")


class BeerDebt(BeerDebtBase, table=True):
    """A debt as stored, with who recorded it and when, and whether it was paid or waived."""

    __tablename__ = "beer_ledger"

    id: int | None = Field(default=None, primary_key=True)
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


class BeerDebtCreate(BeerDebtBase):
    """The ledger form's validated input (1 to 10 crates, a reason of up to 200 characters; the
    beer page checks them first and says what is wrong in the reader's language)."""

    crates: int = Field(default=1, ge=1, le=10)
    reason: str = Field(min_length=1, max_length=200)


def add_debt(session: Session, *, debt: BeerDebtCreate, recorded_by: str) -> BeerDebt:
    return saved(session, BeerDebt.model_validate(debt, update={"recorded_by": recorded_by}))


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

