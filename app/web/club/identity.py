"""Who a device belongs to: a member proves it once with the personal link an elder gave them,
then the device remembers them in a signed, HttpOnly cookie.

Why a link and not a PIN the member sets the first time: a first-time PIN is claimed by whoever
comes first (Jens could set Mette's PIN before Mette ever plays), so it proves nothing; the link
comes from an elder, who knows the members, through a channel the member already has (a text
message). It is 256 bits of randomness, so it cannot be guessed, and it is stored hashed. Tries
are throttled all the same (`app.web.shared.throttle`), so nobody can hammer the endpoint: per
address, and wrong links from everywhere together, so that many addresses buy no more guesses.
Only wrong links count on that second key, and nothing resets it but time: a member opening
their own link proves nothing about the other guesses.

Revocation: each member has a `device_epoch`; the cookie names the member *and* the epoch. A new
link (or the elder's "forget all devices") bumps the epoch, so every remembered device forgets
at once, and the old link stops working.

The cookie is signed with a key derived from the app's secret for this purpose only, so a
member cookie can never pass for the elders' session cookie (`auth.COOKIE`) or the other way.
"""

from __future__ import annotations

import hashlib
import secrets
import time
from dataclasses import dataclass
from typing import cast

from fastapi import Request
from starlette.responses import Response

from app.store import members as member_store
from app.store.db import session_scope
from app.web.club import auth
from app.web.shared.throttle import Throttle, app_clock, throttle_of

COOKIE = "gurka_member"
MAX_AGE = 60 * 60 * 24 * 365
TRIES_FREE = 20  # links opened from one address (a club night shares one) before back-off
WRONG_LINKS_FREE = 50  # wrong links from all addresses together before back-off
ANY_ADDRESS = "wrong-links"


@dataclass(frozen=True)
class Member:
    """The member this device belongs to."""

    member_id: int
    name: str


def new_link_secret() -> tuple[str, str]:
    """(secret for the link, its hash for the store)."""
    secret = secrets.token_urlsafe(32)
    return secret, link_hash(secret)


def link_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def _key(request: Request) -> str:
    return f"{request.app.state.settings.secret_key}/club-member-device"


def remembered(request: Request) -> Member | None:
    """The member this device remembers, if the cookie is genuine and not revoked."""
    cached = getattr(request.state, "club_member", False)
    if cached is not False:
        return cast("Member | None", cached)
    found: Member | None = None
    data = auth.unsign(_key(request), request.cookies.get(COOKIE), max_age=MAX_AGE)
    if data is not None and isinstance(data.get("m"), int) and isinstance(data.get("e"), int):
        with session_scope(request.app.state.engine) as session:
            member = member_store.get_member(session, member_id=data["m"])
            if member is not None and member.active and member.device_epoch == data["e"]:
                assert member.id is not None
                found = Member(member.id, member.name)
    request.state.club_member = found
    return found


def remember(request: Request, response: Response, *, member_id: int, epoch: int) -> None:
    value = auth.sign(_key(request), {"m": member_id, "e": epoch, "c": "device", "t": int(time.time())})
    response.set_cookie(COOKIE, value, max_age=MAX_AGE, path="/", httponly=True, samesite="lax",
                        secure=bool(request.app.state.settings.secure_cookies))


def forget(request: Request, response: Response) -> None:
    response.delete_cookie(COOKIE, path="/", httponly=True, samesite="lax",
                           secure=bool(request.app.state.settings.secure_cookies))


def link_throttle(request: Request) -> Throttle:
    app = request.app
    return throttle_of(app, "member_link_throttle", lambda: Throttle(free=TRIES_FREE, clock=app_clock(app)))


def wrong_links(request: Request) -> Throttle:
    """Wrong personal links from every address together (key `ANY_ADDRESS`)."""
    app = request.app
    return throttle_of(app, "member_wrong_links", lambda: Throttle(free=WRONG_LINKS_FREE, clock=app_clock(app)))
