"""Alembic environment: the URL comes from the app (or DATABASE_URL), the metadata from app.store."""

from __future__ import annotations

import importlib
import pkgutil

from alembic import context
from sqlalchemy import text
from sqlmodel import SQLModel

import app.store
from app.store.db import make_engine

for module in pkgutil.iter_modules(app.store.__path__):
    importlib.import_module(f"app.store.{module.name}")

config = context.config
target_metadata = SQLModel.metadata

# Several app processes may start at once against one Postgres: one migrates, the others wait.
MIGRATION_LOCK = 72_011_721


def database_url() -> str:
    url = config.attributes.get("database_url")
    if url:
        return str(url)
    from app.settings import Settings

    return Settings().database_url


def run_offline() -> None:
    context.configure(
        url=database_url(),
        target_metadata=target_metadata,
        literal_binds=True,
        render_as_batch=True,
    )
    with context.begin_transaction():
        context.run_migrations()


def run_online() -> None:
    url = database_url()
    engine = make_engine(url)
    try:
        with engine.connect() as connection:
            is_postgres = connection.dialect.name == "postgresql"
            if is_postgres:
                connection.execute(text("SELECT pg_advisory_lock(:key)"), {"key": MIGRATION_LOCK})
                connection.commit()
            try:
                context.configure(
                    connection=connection,
                    target_metadata=target_metadata,
                    render_as_batch=connection.dialect.name == "sqlite",
                    compare_type=True,
                )
                with context.begin_transaction():
                    context.run_migrations()
            finally:
                if is_postgres:
                    connection.execute(
                        text("SELECT pg_advisory_unlock(:key)"), {"key": MIGRATION_LOCK}
                    )
                    connection.commit()
    finally:
        engine.dispose()


if context.is_offline_mode():
    run_offline()
else:
    run_online()
