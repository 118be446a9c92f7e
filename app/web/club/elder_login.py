"""Elder login without freezing the server or inviting guessers.

- argon2 runs in a worker thread, at most `HASHES_AT_ONCE` at a time (argon2 releases the GIL,
  so the event loop and every room keep going while passwords are checked).
- Attempts are throttled per typed name and per address (`app.web.shared.throttle`): after a few
  failures each further try waits twice as long, up to five minutes, never longer. A right
  password starts its name's count afresh but takes back only its own try from the address's:
  an elder who knows their own password cannot reset the address's count between guesses at
  other elders' names.
- A device the elder logged in from before gets a signed "known device" cookie; the per-name
  wait does not apply to it, so a stranger guessing the elder's name does not lock the real
  elder out of their own phone (the per-address wait still does).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial

import anyio
from fastapi import Request
from starlette.responses import Response

from app.i18n import _
from app.names import name_key
from app.web.club import auth
from app.web.shared.address import client_address
from app.web.shared.throttle import Throttle, app_clock, throttle_of, wait_message

DEVICE_COOKIE = "gurka_elder_device"
DEVICE_MAX_AGE = 60 * 60 * 24 * 365
HASHES_AT_ONCE = 1


@dataclass
class LoginResult:
    member_id: int | None = None
    gen: int = 0
    error: str | None = None
    status: int = 200


def login_throttle(request: Request) -> Throttle:
    app = request.app
    return throttle_of(app, "login_throttle", lambda: Throttle(
        free=app.state.settings.login_free_attempts, clock=app_clock(app)))


def _limiter(request: Request) -> anyio.CapacityLimiter:
    state = request.app.state
    if getattr(state, "hash_limiter", None) is None:
        state.hash_limiter = anyio.CapacityLimiter(HASHES_AT_ONCE)
    limiter: anyio.CapacityLimiter = state.hash_limiter
    return limiter


async def hash_password(request: Request, password: str) -> str:
    """argon2 hash, computed off the event loop."""
    return await anyio.to_thread.run_sync(auth.hash_password, password, limiter=_limiter(request))


def _known_name(request: Request) -> str | None:
    """The name key of the elder who logged in from this device before, if any."""
    data = auth.unsign(auth._secret(request), request.cookies.get(DEVICE_COOKIE), max_age=DEVICE_MAX_AGE)
    known = data.get("n") if data else None
    return known if isinstance(known, str) else None


def _keys(request: Request, name: str) -> tuple[str, str]:
    return f"name:{name_key(name)}", f"addr:{client_address(request)}"


async def log_in(request: Request, *, name: str, password: str) -> LoginResult:
    """Check an elder's name and password, throttled, with argon2 in a worker thread."""
    throttle = login_throttle(request)
    name_k, addr_k = _keys(request, name)
    keys = [addr_k] if _known_name(request) == name_key(name) else [name_k, addr_k]
    wait = throttle.attempt(keys)
    if wait > 0:
        return LoginResult(error=wait_message(wait), status=429)
    check = partial(auth.login_member, request.app.state.engine, name=name, password=password)
    found = await anyio.to_thread.run_sync(check, limiter=_limiter(request))
    if found is None:
        return LoginResult(error=_("That name and password do not match an elder."), status=401)
    throttle.forget([name_k])  # the right password proves this name's: its count starts afresh
    throttle.refund([addr_k])  # the address also counts guesses at other names: only this try goes
    return LoginResult(member_id=found[0], gen=found[1])


def remember_device(request: Request, response: Response, name: str) -> None:
    """Mark this browser as one the elder `name` logged in from."""
    value = auth.sign(auth._secret(request), {"n": name_key(name), "c": "", "t": int(time.time())})
    response.set_cookie(
        DEVICE_COOKIE, value, max_age=DEVICE_MAX_AGE, path="/club", httponly=True, samesite="lax",
        secure=bool(request.app.state.settings.secure_cookies),
    )
