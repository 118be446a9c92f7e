"""A brand-new, empty database on a Postgres server, dropped afterwards (even while still
connected to): for a bench run, or a test (tests/conftest.py's `postgres_url`)."""

from __future__ import annotations

import secrets
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def fresh_database(server_url: str, prefix: str) -> Iterator[str]:
    """The URL of a new database named `prefix` and 12 random hex digits on the server of
    `server_url` (a SQLAlchemy URL whose user may create databases), dropped on the way out."""
    import psycopg
    from sqlalchemy.engine import make_url

    admin = make_url(server_url)
    name = f"{prefix}{secrets.token_hex(6)}"
    dsn = admin.set(drivername="postgresql").render_as_string(hide_password=False)
    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    try:
        yield admin.set(database=name).render_as_string(hide_password=False)
    finally:
        with psycopg.connect(dsn, autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
