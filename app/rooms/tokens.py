"""Seat tokens and room slugs: random, unguessable; only a token's hash is ever stored."""

from __future__ import annotations

import hashlib
import hmac
import secrets


def new_token() -> str:
    """A fresh seat token: 32 random bytes, URL-safe text (goes into an HttpOnly cookie)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_matches(token: str | None, token_hash: str | None) -> bool:
    if not token or not token_hash:
        return False
    return hmac.compare_digest(hash_token(token), token_hash)


def new_slug() -> str:
    """An unguessable room slug (~72 random bits)."""
    return secrets.token_urlsafe(9).replace("-", "x").replace("_", "y")
