"""The secret that signs elders' sessions (issue 24, item 1): a known or weak key refuses to start,
a cookie forged with the old compose default opens nothing, and `make run`'s development path
keeps a generated key in `.secret_key` across restarts."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.secret_key import PLACEHOLDERS, UnsafeSecret, new_secret, weakness, with_secret
from app.settings import Settings
from app.web.club import auth
from tests.conftest import make_settings
from tests.support.app_process import free_port
from tests.web.club.helpers import become_elder, member_ids

ROOT = Path(__file__).resolve().parent.parent
OLD_COMPOSE_DEFAULT = "change-me-in-production"


def test_a_generated_key_is_good_and_each_one_differs() -> None:
    first, second = new_secret(), new_secret()
    assert weakness(first) is None and weakness(second) is None
    assert first != second and len(first) >= 32


@pytest.mark.parametrize("key, says", [
    ("", "not set"),
    ("x" * 31 + "Q", "only 2 different characters"),
    ("k3Y-abc", "7 characters long; it needs at least 32"),
    (OLD_COMPOSE_DEFAULT, "placeholder"),
    ("Change-Me-In-Production-2026-please-really", "placeholder"),
    ("test-secret", "placeholder"),
])
def test_weak_keys_are_named_with_the_reason(key: str, says: str) -> None:
    problem = weakness(key)
    assert problem is not None and says in problem and "SECRET_KEY" in problem


def test_every_listed_placeholder_is_refused() -> None:
    assert all(weakness(key) is not None for key in PLACEHOLDERS)
    assert all(weakness(key.upper()) is not None for key in PLACEHOLDERS)


@pytest.mark.parametrize("key", ["", "short", OLD_COMPOSE_DEFAULT, "secret"])
def test_the_app_refuses_to_start_with_a_missing_short_or_default_key(sqlite_url: str, key: str) -> None:
    with pytest.raises(UnsafeSecret) as refused:
        create_app(make_settings(sqlite_url, secret_key=key))
    message = str(refused.value)
    assert "SECRET_KEY" in message and "export SECRET_KEY=" in message and "make run" in message


def test_a_set_key_must_be_strong_in_development_too(sqlite_url: str, tmp_path: Path) -> None:
    settings = make_settings(sqlite_url, secret_key=OLD_COMPOSE_DEFAULT, environment="development")
    with pytest.raises(UnsafeSecret):
        with_secret(settings, local_file=tmp_path / ".secret_key")
    assert not (tmp_path / ".secret_key").exists()


def test_development_keeps_one_generated_key_in_a_private_file(tmp_path: Path) -> None:
    keep = tmp_path / ".secret_key"
    first = with_secret(Settings(secret_key="", environment="development"), local_file=keep)
    again = with_secret(Settings(secret_key="", environment="development"), local_file=keep)
    assert weakness(first.secret_key) is None
    assert again.secret_key == first.secret_key == keep.read_text().strip()
    assert stat.S_IMODE(keep.stat().st_mode) == 0o600
    with pytest.raises(UnsafeSecret):  # the same settings outside development: refused
        with_secret(Settings(secret_key="", environment="production"), local_file=keep)
    keep.write_text("tampered\n")
    with pytest.raises(UnsafeSecret) as refused:
        with_secret(Settings(secret_key="", environment="development"), local_file=keep)
    assert str(keep) in str(refused.value)


def test_a_cookie_forged_with_the_old_default_opens_no_elder_page(sqlite_url: str) -> None:
    with TestClient(create_app(make_settings(sqlite_url))) as client:
        become_elder(client, "Elsa")
        elsa = member_ids(client)["Elsa"]
        client.cookies.clear()

        def elder_cookie(secret: str) -> str:
            return auth.sign(secret, {"m": elsa, "g": 0, "c": "forged-csrf", "t": int(time.time())})

        client.cookies.set(auth.COOKIE, elder_cookie(OLD_COMPOSE_DEFAULT))
        forged = client.get("/club/nights/new", follow_redirects=False)  # an elder's page
        assert forged.status_code == 303 and forged.headers["location"].startswith("/club/login")
        # the same cookie signed with the app's own key is an elder's: the forgery failed only
        # because of the key, not because of its shape
        client.cookies.set(auth.COOKIE, elder_cookie(client.app.state.settings.secret_key))
        genuine = client.get("/club/nights/new", follow_redirects=False)
        assert genuine.status_code == 200 and 'action="/club/logout"' in genuine.text


def _env(tmp_path: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("SECRET_KEY", "ENVIRONMENT")}
    env.update(DATABASE_URL=f"sqlite:///{tmp_path / 'gurka.db'}", PYTHONPATH=str(ROOT), **extra)
    return env


@pytest.mark.parametrize("key", [None, "too-short", OLD_COMPOSE_DEFAULT])
def test_gurka_serve_refuses_plainly_outside_development(tmp_path: Path, key: str | None) -> None:
    extra = {"SECRET_KEY": key} if key is not None else {}
    done = subprocess.run([sys.executable, "-m", "app.main", "serve", "--port", str(free_port())],
                          cwd=tmp_path, env=_env(tmp_path, **extra), capture_output=True, text=True,
                          timeout=60, check=False)
    assert done.returncode == 2, done.stdout + done.stderr
    assert "will not start" in done.stderr and "SECRET_KEY" in done.stderr
    assert "Traceback" not in done.stderr
    assert not (tmp_path / "gurka.db").exists()  # refused before touching anything


def test_make_run_path_serves_with_a_generated_key_that_survives_a_restart(tmp_path: Path) -> None:
    makefile = (ROOT / "Makefile").read_text()
    assert "ENVIRONMENT=development $(VENV)/bin/gurka serve" in makefile
    keep = tmp_path / ".secret_key"
    keys = []
    for _ in range(2):
        port = free_port()
        server = subprocess.Popen([sys.executable, "-m", "app.main", "serve", "--port", str(port)],
                                  cwd=tmp_path, env=_env(tmp_path, ENVIRONMENT="development"),
                                  stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            cookie = None
            deadline = time.monotonic() + 60
            while cookie is None:
                assert server.poll() is None, server.stderr.read() if server.stderr else ""
                assert time.monotonic() < deadline, "the development server never answered"
                try:
                    cookie = httpx.get(f"http://127.0.0.1:{port}/club", timeout=2).cookies[auth.COOKIE]
                except httpx.HTTPError:
                    time.sleep(0.1)
        finally:
            server.terminate()
            server.wait(20)
        key = keep.read_text().strip()
        assert weakness(key) is None
        assert auth.unsign(key, cookie) is not None  # the server signed with the kept key
        keys.append(key)
    assert keys[0] == keys[1]
