"""Club sessions: elder login with argon2 passwords, an HMAC-signed session cookie and CSRF.

The cookie holds `base64url(json) "." base64url(hmac_sha256(secret_key, json))`. Its JSON is
`{"m": member id or null, "g": the elder's session generation, "c": csrf token, "t": issued at}`.
Every visitor gets one (members who only play or vote are anonymous and still need a CSRF token
for the forms they send); logging in or out issues a fresh one. A signed cookie cannot be forged
without `settings.secret_key`, and the member it names is re-read from the database on each
request, so retiring an elder or taking their elder status away ends their session at once.
Logging out and a new password raise the elder's `session_gen`, which ends every session that
carries the old number (on every device), so a copied cookie is worthless afterwards.

Password hashing is slow on purpose (argon2): it never runs on the event loop (see
`app.web.club.elder_login`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import secrets
import time
from dataclasses import dataclass
from typing import Annotated, Any

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from fastapi import Depends, HTTPException, Request
from starlette.datastructures import FormData
from starlette.responses import Response

from app.i18n import _
from app.store import members as member_store
from app.store.db import session_scope

COOKIE = "gurka_club"
MAX_AGE = 60 * 60 * 24 * 30
MIN_PASSWORD = 8

# One lane (argon2's default is four, hashed on four threads): a hash then takes one core of a
# 2-core server, not both, and the event loop keeps the other (the same memory and passes: 64 MiB,
# three). Hashes made with four lanes still verify, and are made again at the next login.
_hasher = PasswordHasher(parallelism=1)


def hash_password(password: str) -> str:
    return _hasher.hash(password)


def verify_password(password_hash: str | None, password: str) -> bool:
    if not password_hash:
        return False
    try:
        return _hasher.verify(password_hash, password)
    except (VerifyMismatchError, VerificationError, InvalidHashError):
        return False


# Checked against when the name is unknown, so a wrong name costs as long as a wrong password.
_DUMMY_HASH = hash_password(secrets.token_urlsafe(16))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def _mac(secret: str, payload: str) -> str:
    return _b64(hmac.new(secret.encode(), payload.encode("ascii"), hashlib.sha256).digest())


def sign(secret: str, data: dict[str, Any]) -> str:
    payload = _b64(json.dumps(data, separators=(",", ":"), sort_keys=True).encode())
    return f"{payload}.{_mac(secret, payload)}"


def unsign(secret: str, value: str | None, *, max_age: int = MAX_AGE) -> dict[str, Any] | None:
    """The cookie's data, or None if it is missing, tampered with, malformed or too old."""
    if not value or len(value) > 1024 or value.count(".") != 1:
        return None
    payload, mac = value.split(".")
    if not hmac.compare_digest(_mac(secret, payload), mac):
        return None
    try:
        data = json.loads(_unb64(payload))
    except ValueError:
        return None
    if not isinstance(data, dict) or not isinstance(data.get("c"), str):
        return None
    issued = data.get("t")
    if not isinstance(issued, int) or time.time() - issued > max_age:
        return None
    return data


@dataclass
class Viewer:
    """Who is looking: an elder (logged in) or anyone, plus the session's CSRF token."""

    member_id: int | None
    name: str | None
    is_elder: bool
    csrf: str
    fresh_cookie: str | None = None  # set when the response must (re)issue the cookie


def _secret(request: Request) -> str:
    return str(request.app.state.settings.secret_key)


def new_session(request: Request, member_id: int | None, gen: int = 0) -> str:
    return sign(
        _secret(request),
        {"m": member_id, "g": gen, "c": secrets.token_urlsafe(24), "t": int(time.time())},
    )


def viewer(request: Request) -> Viewer:
    """The request's viewer (cached on the request)."""
    cached = getattr(request.state, "club_viewer", None)
    if isinstance(cached, Viewer):
        return cached
    data = unsign(_secret(request), request.cookies.get(COOKIE))
    fresh = None
    if data is None:
        fresh = new_session(request, None)
        data = unsign(_secret(request), fresh)
        assert data is not None
    member_id = data.get("m") if isinstance(data.get("m"), int) else None
    name, is_elder = None, False
    if member_id is not None:
        with session_scope(request.app.state.engine) as session:
            member = member_store.get_member(session, member_id=member_id)
            if (member is not None and member.active and member.is_elder
                    and data.get("g") == (member.session_gen or 0)):
                name, is_elder = member.name, True
            else:
                member_id = None
    found = Viewer(member_id, name, is_elder, data["c"], fresh)
    request.state.club_viewer = found
    return found


def set_cookie(request: Request, response: Response, value: str) -> None:
    response.set_cookie(
        COOKIE,
        value,
        max_age=MAX_AGE,
        path="/",
        httponly=True,
        samesite="lax",
        secure=bool(request.app.state.settings.secure_cookies),
    )


def finish(request: Request, response: Response) -> Response:
    """Issue the session cookie on `response` if this request created one."""
    found = getattr(request.state, "club_viewer", None)
    if found is not None and found.fresh_cookie:
        set_cookie(request, response, found.fresh_cookie)
    return response


async def check_csrf(request: Request) -> FormData:
    """The posted form, once its `csrf` field matches the session's token (else 403).

    Reading the body needs the event loop; checking the token touches no database, so the
    handler itself can be a plain `def` (run in a worker thread) taking `form: CsrfForm`."""
    form = await request.form()
    sent = form.get("csrf")
    data = unsign(_secret(request), request.cookies.get(COOKIE))
    if not isinstance(sent, str) or data is None or not hmac.compare_digest(sent, data["c"]):
        raise HTTPException(
            status_code=403,
            detail=_("This form has expired or did not come from this site. "
                     "Reload the page and try again."),
        )
    return form


CsrfForm = Annotated[FormData, Depends(check_csrf)]


def login_member(engine: Any, *, name: str, password: str) -> tuple[int, int] | None:
    """(member id, session generation) when name and password match an active elder.

    Blocking (database and argon2): call it from a worker thread."""
    with session_scope(engine) as session:
        member = member_store.get_member_by_name(session, name=name.strip())
        if member is None or member.id is None or not member.active or not member.is_elder:
            verify_password(_DUMMY_HASH, password)
            return None
        if not verify_password(member.password_hash, password):
            return None
        if member.id is not None and _hasher.check_needs_rehash(member.password_hash or ""):
            member_store.update_member(session, member_id=member.id, password_hash=hash_password(password))
        return member.id, member.session_gen or 0
