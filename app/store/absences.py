"""Players of an online night whom bots play while "bots for the absent" is on
(`night_absences`).

One class, no Base/Create/Public layering: no form's input becomes a row (a player's Away or
Play button names only the night and the player, which the store takes as two keywords), and
the night page reads nothing of a row but the player's name (`list_absences`), which is no
secret."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import UniqueConstraint
from sqlmodel import Field, Session, SQLModel, col, select

from app.store.db import utc_now


class NightAbsence(SQLModel, table=True):
    """A player of an online night whom bots play, at every table from now on, until they press
    Play again (kept while the night's "bots for the absent" is on)."""

    __tablename__ = "night_absences"
    __table_args__ = (UniqueConstraint("night_id", "player", name="uq_night_absences_player"),)

    id: int | None = Field(default=None, primary_key=True)
    night_id: int = Field(foreign_key="nights.id", index=True)
    player: str = Field(max_length=40)  # the name the player has at this night
    since: datetime = Field(default_factory=utc_now)


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

