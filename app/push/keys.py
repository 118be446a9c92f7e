"""The VAPID key that signs our web push messages, made once and kept like the secret key.

The private key is a P-256 scalar, base64url (43 characters, what `gurka vapid-keys` prints);
its public key (the browser's `applicationServerKey`) is worked out from it. In development an
unset key is made once and kept in `.vapid_key` (owner only, ignored by git); `gurka serve`
refuses to start without one otherwise, unless web push is switched off (`WEB_PUSH=false`).
"""

from __future__ import annotations

import base64
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from app.secret_key import kept_in_file
from app.settings import Settings

LOCAL_FILE = Path(".vapid_key")
HOW_TO_SET = (
    "Make a key once with `gurka vapid-keys` and set VAPID_PRIVATE_KEY to it (in the environment or a\n"  # not shown
    ".env line), with VAPID_SUBJECT=mailto:you@example.org; keep it the same across restarts (a new key\n"
    "silently orphans every device's subscription). Or set WEB_PUSH=false to run without web push."
)


class MissingVapidKey(RuntimeError):
    """`gurka serve` will not start: web push is on and has no key."""


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64url(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def new_private_key() -> str:
    """A fresh VAPID private key (base64url of the raw 32-byte scalar)."""
    key = ec.generate_private_key(ec.SECP256R1())
    return b64url(key.private_numbers().private_value.to_bytes(32, "big"))


def load_private_key(text: str) -> ec.EllipticCurvePrivateKey:
    """The key from its base64url form; ValueError says what is wrong with it."""
    try:
        raw = unb64url(text.strip())
    except (ValueError, TypeError) as exc:
        raise ValueError("VAPID_PRIVATE_KEY is not base64url") from exc
    if len(raw) != 32:
        raise ValueError(f"VAPID_PRIVATE_KEY is {len(raw)} bytes; a P-256 key is 32 (make one: gurka vapid-keys)")
    return ec.derive_private_key(int.from_bytes(raw, "big"), ec.SECP256R1())


def public_key(private: str) -> str:
    """The browser's `applicationServerKey`: the uncompressed public point, base64url."""
    point = load_private_key(private).public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    return b64url(point)


def local_key(path: Path = LOCAL_FILE) -> str:
    """The development key kept in `path`, made (random, owner-only) the first time."""
    return kept_in_file(path, new_private_key)


def with_vapid(settings: Settings, *, local_file: Path = LOCAL_FILE) -> Settings:
    """`settings` with the development key filled in when it is unset; a key that is set must load."""
    if not settings.web_push:
        return settings
    if not settings.vapid_private_key and settings.environment == "development":
        settings = settings.model_copy(update={"vapid_private_key": local_key(local_file)})
    if settings.vapid_private_key:
        load_private_key(settings.vapid_private_key)  # ValueError: a broken key stops the start
    return settings


def refuse_without_key(settings: Settings) -> None:
    """`gurka serve` in production: web push needs its key (MissingVapidKey says how to make one)."""
    if settings.web_push and not settings.vapid_private_key and settings.environment != "development":
        raise MissingVapidKey(f"Gurka online will not start: VAPID_PRIVATE_KEY is not set, and web push "  # not shown
                              f"needs it to sign its messages.\n{HOW_TO_SET}")
    if settings.web_push and settings.vapid_private_key:
        try:
            load_private_key(settings.vapid_private_key)
        except ValueError as exc:
            raise MissingVapidKey(f"Gurka online will not start: {exc}.\n{HOW_TO_SET}") from exc  # not shown
