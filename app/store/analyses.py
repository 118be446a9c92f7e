"""The strong bot's analysis of a finished game, stored once per game (`app.rooms.analyses` runs
it): one row per game, keyed by what the game is (a room's game, or a game of an opened history
file), with its progress while it runs and its judgement once done.

One run per game, whatever the number of requests and processes: a run starts by inserting the
game's row (the key is unique: of two requests at once, one insert fails and that request reads
the other's row), or by taking over a row whose run failed or went quiet (a conditional update
that only one request can win). A run's row is touched as it goes (`beat`), so "went quiet"
means its process is gone.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, cast

from sqlalchemy import JSON, Column, CursorResult, DateTime, func, or_, update
from sqlmodel import Field, Session, SQLModel, col, select

from app.store.db import utc_now

WAITING, RUNNING, DONE, FAILED = "waiting", "running", "done", "failed"
ACTIVE = (WAITING, RUNNING)


class GameAnalysis(SQLModel, table=True):
    __tablename__ = "game_analyses"

    id: int | None = Field(default=None, primary_key=True)
    game_key: str = Field(max_length=80, unique=True, index=True)  # "room:<room id>:<game number>" or "file:<key>:<n>"
    status: str = Field(max_length=16)  # waiting, running, done, failed
    done: int = 0  # decisions judged so far
    total: int = 0  # decisions to judge
    visitor: str | None = Field(default=None, max_length=64, index=True)  # who asked: a hash of their cookie
    result: dict[str, Any] | None = Field(default=None, sa_column=Column(JSON, nullable=True))
    started_at: datetime = Field(default_factory=utc_now, sa_column=Column(DateTime(timezone=True), nullable=False))
    updated_at: datetime = Field(default_factory=utc_now, sa_column=Column(DateTime(timezone=True), nullable=False))


def get_analysis(session: Session, *, game_key: str) -> GameAnalysis | None:
    return session.exec(select(GameAnalysis).where(GameAnalysis.game_key == game_key)).first()


def add_analysis(session: Session, *, game_key: str, visitor: str | None, total: int) -> GameAnalysis:
    """A new run's row (running: `beat` says when it waits for its turn). Raises IntegrityError (at
    the commit) when the game has a row already: another request started first."""
    row = GameAnalysis(game_key=game_key, status=RUNNING, total=total, visitor=visitor)
    session.add(row)
    session.flush()
    return row


def take_over(session: Session, *, game_key: str, visitor: str | None, total: int, quiet_since: datetime) -> bool:
    """Start the game's run again if its last one failed or has not been touched since
    `quiet_since` (its process is gone); True when this request won the row."""
    now = utc_now()
    changed = cast(CursorResult[Any], session.execute(  # (an UPDATE's result: it counts its rows)
        update(GameAnalysis)
        .where(col(GameAnalysis.game_key) == game_key)
        .where(or_(col(GameAnalysis.status) == FAILED,
                   col(GameAnalysis.status).in_(ACTIVE) & (col(GameAnalysis.updated_at) < quiet_since)))
        .values(status=RUNNING, done=0, total=total, visitor=visitor, result=None, started_at=now, updated_at=now)
    ))
    return bool(changed.rowcount)


def beat(session: Session, *, game_key: str, status: str, done: int) -> None:
    """A run's progress (and a sign that it is alive)."""
    session.execute(update(GameAnalysis).where(col(GameAnalysis.game_key) == game_key)
                    .values(status=status, done=done, updated_at=utc_now()))


def touch(session: Session, *, game_key: str) -> None:
    """A run is alive (waiting for its turn, or for the bots to let it go on)."""
    session.execute(update(GameAnalysis).where(col(GameAnalysis.game_key) == game_key)
                    .where(col(GameAnalysis.status).in_(ACTIVE))
                    .values(updated_at=utc_now()))


def finish(session: Session, *, game_key: str, result: dict[str, Any]) -> None:
    session.execute(update(GameAnalysis).where(col(GameAnalysis.game_key) == game_key)
                    .values(status=DONE, done=GameAnalysis.total, result=result, updated_at=utc_now()))


def fail(session: Session, *, game_key: str) -> None:
    session.execute(update(GameAnalysis).where(col(GameAnalysis.game_key) == game_key)
                    .values(status=FAILED, updated_at=utc_now()))


def active_for_visitor(session: Session, *, visitor: str, quiet_since: datetime) -> list[str]:
    """The games whose run `visitor` started and that are still waiting or running."""
    rows = session.exec(select(GameAnalysis.game_key)
                        .where(GameAnalysis.visitor == visitor)
                        .where(col(GameAnalysis.status).in_(ACTIVE))
                        .where(GameAnalysis.updated_at >= quiet_since))
    return list(rows)


def count_active(session: Session, *, quiet_since: datetime) -> int:
    """Runs waiting or running anywhere (every process)."""
    return int(session.exec(select(func.count()).select_from(GameAnalysis)
                            .where(col(GameAnalysis.status).in_(ACTIVE))
                            .where(GameAnalysis.updated_at >= quiet_since)).one())
