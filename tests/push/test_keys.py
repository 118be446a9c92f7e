"""VAPID keys: made once in development, refused at start in production when missing or broken,
and `gurka vapid-keys` prints a pair that loads."""

from __future__ import annotations

from pathlib import Path

import pytest

from app import main
from app.push.keys import (
    MissingVapidKey,
    load_private_key,
    public_key,
    refuse_without_key,
    with_vapid,
)
from app.settings import Settings


def test_development_makes_the_key_once_and_keeps_it(tmp_path: Path) -> None:
    kept = tmp_path / ".vapid_key"
    first = with_vapid(Settings(environment="development"), local_file=kept)
    again = with_vapid(Settings(environment="development"), local_file=kept)
    assert first.vapid_private_key and first.vapid_private_key == again.vapid_private_key
    assert kept.stat().st_mode & 0o077 == 0  # owner only
    assert len(public_key(first.vapid_private_key)) == 87  # 65 bytes, base64url


def test_production_refuses_to_serve_without_a_key_unless_push_is_off() -> None:
    with pytest.raises(MissingVapidKey, match="VAPID_PRIVATE_KEY is not set"):
        refuse_without_key(Settings(environment="production"))
    with pytest.raises(MissingVapidKey, match="32"):
        refuse_without_key(Settings(environment="production", vapid_private_key="c2hvcnQ"))
    refuse_without_key(Settings(environment="production", web_push=False))
    with pytest.raises(ValueError, match="base64url|bytes"):
        load_private_key("!!!")


def test_gurka_serve_says_why_it_will_not_start(monkeypatch: pytest.MonkeyPatch, tmp_path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("SECRET_KEY", "k" + "abcdefghijklmnopqrstuvwxyz0123456789")
    monkeypatch.setenv("ENVIRONMENT", "production")
    monkeypatch.delenv("VAPID_PRIVATE_KEY", raising=False)
    monkeypatch.setattr(main, "serve", lambda *a, **k: pytest.fail("it started"))
    with pytest.raises(SystemExit) as stopped:
        main.cli(["serve"])
    assert stopped.value.code == 2
    assert "VAPID_PRIVATE_KEY is not set" in capsys.readouterr().err


def test_gurka_vapid_keys_prints_a_key_that_loads(capsys: pytest.CaptureFixture[str]) -> None:
    main.cli(["vapid-keys"])
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith("VAPID_PRIVATE_KEY=")
    load_private_key(line.split("=", 1)[1])
