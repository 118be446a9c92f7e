"""Database engines, sessions and schema upgrades (Alembic owns the schema)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Protocol, TypeVar

from alembic import command
from alembic.config import Config
from sqlalchemy import Engine, event
from sqlmodel import Session, SQLModel, create_engine

ROOT = Path(__file__).resolve().parents[2]
RowT = TypeVar("RowT", bound=SQLModel)


def make_engine(url: str) -> Engine:
    """An engine for `url`; SQLite gets WAL, foreign keys and a busy timeout."""
    if url.startswith("sqlite"):
        engine = create_engine(url, connect_args={"check_same_thread": False, "timeout": 30})

        @event.listens_for(engine, "connect")
        def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.execute("PRAGMA synchronous=NORMAL")
            cursor.close()

        return engine
    return create_engine(url, pool_pre_ping=True, pool_size=10, max_overflow=20)


@contextmanager
def session_scope(engine: Engine) -> Iterator[Session]:
    """A session that commits when the block succeeds and rolls back when it raises."""
    with Session(engine, expire_on_commit=False) as session:
        try:
            yield session
            session.commit()
        except BaseException:
            session.rollback()
            raise


def alembic_config(url: str) -> Config:
    config = Config(str(ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(ROOT / "migrations"))
    config.attributes["database_url"] = url
    return config


def upgrade(url: str, revision: str = "head") -> None:
    """Bring the schema at `url` up to `revision` (the app does this at every start)."""
    command.upgrade(alembic_config(url), revision)


def downgrade(url: str, revision: str = "base") -> None:
    command.downgrade(alembic_config(url), revision)


def utc_now() -> datetime:
    """Now, in UTC: when a row was made or changed."""
    return datetime.now(UTC)


class HasId(Protocol):
    id: int | None


def row_id(row: HasId) -> int:
    """The id of a row read from the database (or flushed): it always has one there."""
    if row.id is None:
        raise LookupError(f"{type(row).__name__} is not stored yet")
    return row.id


def stored(session: Session, model: type[RowT], key: int) -> RowT:
    """The row `key` of `model`: LookupError when there is none."""
    row = session.get(model, key)
    if row is None:
        raise LookupError(f"no {model.__name__} {key}")
    return row


def saved(session: Session, row: RowT) -> RowT:
    """`row` added (or changed) and flushed: it has its id, and later queries see it."""
    session.add(row)
    session.flush()
    return row
