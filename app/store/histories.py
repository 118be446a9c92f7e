"""History files opened on /replay, kept under the hash of their text so that the replay viewer's
links (`/replay/<key>?step=n`) work from any process; the same file opened twice is kept once."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import Column, DateTime, Text
from sqlmodel import Field, Session, SQLModel, select


def _now() -> datetime:
    return datetime.now(UTC)


class OpenedHistory(SQLModel, table=True):
    __tablename__ = "opened_histories"

    key: str = Field(primary_key=True, max_length=32)  # the first 32 hex digits of the text's SHA-256
    text: str = Field(sa_column=Column(Text, nullable=False))
    opened_at: datetime = Field(default_factory=_now, sa_column=Column(DateTime(timezone=True), nullable=False))


def keep_history(session: Session, *, key: str, text: str) -> None:
    """Keep `text` under `key` (nothing to do when it is already kept)."""
    if session.get(OpenedHistory, key) is None:
        session.add(OpenedHistory(key=key, text=text))


def get_history(session: Session, *, key: str) -> str | None:
    row = session.exec(select(OpenedHistory).where(OpenedHistory.key == key)).first()
    return row.text if row is not None else None
