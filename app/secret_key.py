"""The secret that signs the elders' sessions and the members' devices: strong, or no start.

Anyone who knows `SECRET_KEY` can sign a cookie that opens every elder page, so the app refuses
to start with a key that is missing, shorter than `MIN_LENGTH` characters, made of a handful of
characters, or one of the placeholders that get copied from examples (`change-me-in-production`
and friends). The refusal names the setting and says how to make a good one.

Development (`ENVIRONMENT=development`, which `make run` sets) may leave the key unset: it is then
read from `.secret_key` in the working folder, which is made once with a random key (readable by
its owner only, ignored by git), so logins survive a restart without any set-up. A key that *is*
set must be strong in development too: there is one rule for what a good key is.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Callable
from pathlib import Path

from app.settings import Settings

MIN_LENGTH = 32
MIN_DISTINCT = 10  # characters: "aaaa…" or "abababab…" is long but guessable
LOCAL_FILE = Path(".secret_key")
PLACEHOLDERS = frozenset({
    "change-me-in-production", "change-me", "changeme", "change_me", "changethis", "secret",
    "secret-key", "secret_key", "secretkey", "test-secret", "test", "e2e", "dev", "development",
    "bench", "password", "insecure", "please-change-me", "replace-me", "your-secret-key",
})
PLACEHOLDER_WORDS = ("change-me", "changeme", "change_me", "replace-me", "your-secret", "insecure")

HOW_TO_SET = (
    "Set SECRET_KEY to a long random value, for example:\n"
    "    export SECRET_KEY=\"$(python3 -c 'import secrets; print(secrets.token_urlsafe(32))')\"\n"
    "(or a line SECRET_KEY=... in a .env file in the working folder; with docker compose, in the\n"
    "environment of `docker compose up`). Keep it secret and keep it the same across restarts.\n"
    "On your own machine, `make run` (ENVIRONMENT=development) makes one for you in .secret_key."
)


class UnsafeSecret(RuntimeError):
    """The app will not start with this secret; the message says why and what to do."""


def new_secret() -> str:
    """A fresh random key (43 characters, 256 bits)."""
    return secrets.token_urlsafe(32)


def weakness(key: str) -> str | None:
    """Why `key` must not sign sessions, or None when it is good."""
    if not key:
        return "SECRET_KEY is not set"
    plain = key.strip().lower()
    if plain in PLACEHOLDERS or any(word in plain for word in PLACEHOLDER_WORDS):
        return "SECRET_KEY is a well-known placeholder, so anyone can sign an elder's session with it"
    if len(key) < MIN_LENGTH:
        return f"SECRET_KEY is {len(key)} characters long; it needs at least {MIN_LENGTH}"
    if len(set(key)) < MIN_DISTINCT:
        return f"SECRET_KEY uses only {len(set(key))} different characters; it needs a random value"
    return None


def kept_in_file(path: Path, make: Callable[[], str]) -> str:
    """The development key kept in `path`, made by `make` (and written owner-only) the first time."""
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        return path.read_text().strip()
    key = make()
    with os.fdopen(fd, "w") as out:
        out.write(key + "\n")
    return key


def local_secret(path: Path = LOCAL_FILE) -> str:
    """The development key kept in `path`, made (random, owner-only) the first time."""
    return kept_in_file(path, new_secret)


def with_secret(settings: Settings, *, local_file: Path = LOCAL_FILE) -> Settings:
    """`settings` with the key to sign with, or UnsafeSecret saying what is wrong and how to fix it."""
    key, source = settings.secret_key, "SECRET_KEY"
    if not key and settings.environment == "development":
        key, source = local_secret(local_file), str(local_file)
        settings = settings.model_copy(update={"secret_key": key})
    problem = weakness(key)
    if problem is not None:
        where = "" if source == "SECRET_KEY" else f" (the key in {source}: delete the file to get a new one)"
        raise UnsafeSecret(f"Gurka online will not start: {problem}{where}. It signs the elders' logins, "
                           f"so whoever knows it can act as an elder.\n{HOW_TO_SET}")
    return settings
