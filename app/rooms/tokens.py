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


# A seat's rejoin code: six symbols that cannot be mistaken for one another (no 0/O, 1/I/L,
# 5/S or 8/B), drawn from the seat's secret token, so only a device holding the token can show
# it. Only its hash is stored; a new token (a rejoin, a fresh seat token) means a new code.
CODE_ALPHABET = "ACDEFGHJKMNPQRTUVWXY234679"
CODE_LENGTH = 6


def rejoin_code(token: str) -> str:
    digest = int.from_bytes(hashlib.sha256(f"rejoin:{token}".encode()).digest(), "big")
    symbols = []
    for _ in range(CODE_LENGTH):
        digest, index = divmod(digest, len(CODE_ALPHABET))
        symbols.append(CODE_ALPHABET[index])
    return "".join(symbols)


def clean_code(text: str) -> str:
    """What a person typed, as a code: case, spaces and dashes do not matter."""
    return "".join(ch for ch in str(text).upper() if ch.isalnum())[: CODE_LENGTH * 2]


def hash_code(code: str) -> str:
    return hashlib.sha256(f"code:{clean_code(code)}".encode()).hexdigest()


def seat_secrets(token: str) -> tuple[str, str]:
    """What a seat stores for its token: (token hash, rejoin-code hash)."""
    return hash_token(token), hash_code(rejoin_code(token))
