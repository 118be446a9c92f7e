"""The platform a user meets: settings, the app factory, the `gurka` command, vendored htmx."""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

from sqlalchemy import inspect

from app.settings import Settings
from app.store.db import make_engine

ROOT = Path(__file__).resolve().parent.parent
HTMX = ROOT / "static" / "vendor" / "htmx"


def test_settings_read_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("DATABASE_URL", "sqlite:///elsewhere.db")
    monkeypatch.setenv("ALLOWED_ORIGINS", "https://gurka.example, https://club.example/")
    monkeypatch.setenv("BOT_DELAY", "0.25")
    settings = Settings()
    assert settings.database_url == "sqlite:///elsewhere.db"
    assert settings.allowed_origins == ["https://gurka.example", "https://club.example"]
    assert settings.bot_delay == 0.25
    assert settings.is_sqlite


def test_vendored_htmx_matches_its_checksums() -> None:
    lines = (HTMX / "SHA256SUMS").read_text().splitlines()
    assert len(lines) >= 4
    for line in lines:
        digest, name = line.split(maxsplit=1)
        assert hashlib.sha256((HTMX / name).read_bytes()).hexdigest() == digest, name
    assert "4.0.1" in (HTMX / "VERSION").read_text()
    assert "BSD" in (HTMX / "LICENSE").read_text()


def test_app_serves_static_htmx(client) -> None:
    response = client.get("/static/vendor/htmx/htmx.min.js")
    assert response.status_code == 200
    assert response.content == (HTMX / "htmx.min.js").read_bytes()


def test_gurka_migrate_command(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'cli.db'}"
    env = {**os.environ, "DATABASE_URL": url}
    done = subprocess.run(
        [sys.executable, "-m", "app.main", "migrate"],
        check=False, cwd=ROOT, env=env, capture_output=True, text=True, timeout=60,
    )
    assert done.returncode == 0, done.stderr
    assert "up to date" in done.stdout
    engine = make_engine(url)
    assert "alembic_version" in inspect(engine).get_table_names()
    engine.dispose()


def test_health_check(client) -> None:
    response = client.get("/healthz")
    assert response.status_code == 200
    assert response.json() == {"status": "ok"}
