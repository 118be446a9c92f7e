"""Web push on this device: the settings panel (`/push`), the subscription the page's script
posts (`/push/subscriptions`), the choices and "all off", and the room page's visibility report
(`/r/<slug>/visible`).

A device is known by a random secret in an HttpOnly cookie (`gurka_push`); the database keeps
its hash. The subscription's URL is checked before it is kept (`app.push.endpoints`: https, and
public addresses only). A club member's device (its personal link remembered) is also theirs for
the club's news; a seat's page that reports its visibility makes its seat this device's for
"your turn".
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, Response

from app.i18n import current_language, gettext
from app.push import endpoints
from app.rooms.tokens import hash_token
from app.store import push as store
from app.store.db import session_scope
from app.web.club import identity
from app.web.device.service import push_of
from app.web.shared.address import client_address
from app.web.shared.security import seat_token
from app.web.shared.throttle import Throttle, app_clock, throttle_of, wait_message
from app.web.state import manager_of, templates_of

router = APIRouter(tags=["device"])
COOKIE = "gurka_push"
YEAR = 365 * 24 * 3600
MAX_BODY = 4096
PAGE_ID = 40  # characters of a page's id at most


def _hash(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def device_hash(request: Request) -> str | None:
    secret = request.cookies.get(COOKIE)
    return _hash(secret) if secret and 20 <= len(secret) <= 64 else None


def _subscribe_throttle(request: Request) -> Throttle:
    app = request.app
    return throttle_of(app, "push_subscribe_throttle", lambda: Throttle(free=10, clock=app_clock(app)))


def _member_id(request: Request) -> int | None:
    me = identity.remembered(request)
    return me.member_id if me is not None else None


@router.get("/push", response_class=HTMLResponse)
def push_page(request: Request, saved: str = "") -> Response:
    service = push_of(request.app)
    row = None
    found = device_hash(request)
    if found is not None:
        with session_scope(request.app.state.engine) as session:
            row = store.get_subscription(session, device_hash=found)
    ctx: dict[str, Any] = {
        "available": service is not None,
        "public_key": service.public_key if service is not None else "",
        "subscribed": row is not None,
        "topics": row.topic_set if row is not None else set(store.TOPICS),
        "saved": saved in ("1", "off"),
        "off": saved == "off",
    }
    return templates_of(request.app).TemplateResponse(request, "device/push.html", ctx)


async def _body(request: Request, limit: int) -> bytes | None:
    """The request's body, or None once it is longer than `limit` (read no further)."""
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > limit:
            return None
    return raw


def _refuse(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"ok": False, "message": message}, status_code=status)


@router.post("/push/subscriptions")
async def subscribe(request: Request) -> Response:
    """The page's script posts its browser's `PushSubscription` (JSON) here."""
    if push_of(request.app) is None:
        return _refuse(gettext("Web push is off on this server."), 409)
    raw = await _body(request, MAX_BODY)
    if raw is None:
        return _refuse(gettext("This push subscription is too long."), 413)
    wait = _subscribe_throttle(request).attempt([client_address(request)])
    if wait > 0:
        return _refuse(wait_message(wait), 429)
    secret = request.cookies.get(COOKIE) if device_hash(request) is not None else secrets.token_urlsafe(32)
    assert secret is not None
    lang = current_language()
    try:
        data = json.loads(raw)
        subscription = endpoints.parse(data.get("subscription") if isinstance(data, dict) else None)
        # resolving the push service's name and the database: in a thread
        await asyncio.to_thread(_keep, request, subscription, _hash(secret), lang)
    except endpoints.BadSubscription as refused:
        return _refuse(gettext(str(refused)))
    except (ValueError, UnicodeDecodeError):
        return _refuse(gettext("This is not a push subscription."))
    response = JSONResponse({"ok": True, "message": gettext("Notifications are on for this device.")})
    response.set_cookie(COOKIE, secret, max_age=YEAR, httponly=True, samesite="lax",
                        secure=request.app.state.settings.secure_cookies)
    return response


def _keep(request: Request, subscription: endpoints.Subscription, device: str, lang: str) -> None:
    endpoints.check_endpoint(subscription.endpoint, allow_loopback=request.app.state.settings.push_allow_loopback)
    with session_scope(request.app.state.engine) as session:
        store.save_subscription(session, device_hash=device, endpoint=subscription.endpoint,
                                p256dh=subscription.p256dh, auth=subscription.auth, lang=lang,
                                member_id=_member_id(request))


@router.post("/push/settings")
async def choose(request: Request) -> Response:
    form = await request.form()
    topics = {str(t) for t in form.getlist("topic") if str(t) in store.TOPICS}
    found = device_hash(request)
    if found is not None:
        lang = current_language()

        def save() -> None:
            with session_scope(request.app.state.engine) as session:
                store.set_topics(session, device_hash=found, topics=topics, lang=lang,
                                 member_id=_member_id(request))

        await asyncio.to_thread(save)
    return RedirectResponse("/push?saved=1", status_code=303)


@router.post("/push/off")
async def all_off(request: Request) -> Response:
    found = device_hash(request)
    if found is not None:

        def forget() -> None:
            with session_scope(request.app.state.engine) as session:
                row = store.get_subscription(session, device_hash=found)
                if row is not None and row.id is not None:
                    store.delete_subscription(session, subscription_id=row.id)

        await asyncio.to_thread(forget)
    response = RedirectResponse("/push?saved=off", status_code=303)
    response.delete_cookie(COOKIE)
    return response


@router.post("/r/{slug}/visible", include_in_schema=False)
async def visible(request: Request, slug: str) -> Response:
    """A room page says whether it is visible (on load, on each change, every 20 s while it is):
    no "your turn" push while one of the seat's pages is. 204 always (nothing to tell a page)."""
    service = push_of(request.app)
    token = seat_token(request, slug)
    room = manager_of(request.app).get(slug)
    if service is None or token is None or room is None or room.seat_for_token(token) is None:
        return Response(status_code=204)
    raw = await _body(request, 256)
    try:
        data = json.loads(raw) if raw is not None else {}
    except ValueError:
        data = {}
    page = str(data.get("page", ""))[:PAGE_ID] if isinstance(data, dict) else ""
    if not page:
        return Response(status_code=204)
    token_hash = hash_token(token)
    said = data.get("n")
    count = said if isinstance(said, int) and 0 <= said < 2**31 else 0
    service.visibility.report(room.state.id, token_hash, page, data.get("visible") is True, count)
    found = device_hash(request)
    link = (found or "", room.state.id, token_hash)
    if (found is not None and link not in service.linked
            and await asyncio.to_thread(_link, request, found, room.state.id, token_hash)):
        if len(service.linked) > 100_000:
            service.linked.clear()
        service.linked.add(link)
    return Response(status_code=204)


def _link(request: Request, device: str, room_id: int, token_hash: str) -> bool:
    """This device plays that seat (True), or it has no subscription to link (False)."""
    with session_scope(request.app.state.engine) as session:
        row = store.get_subscription(session, device_hash=device)
        if row is None or row.id is None:
            return False
        store.link_seat(session, subscription_id=row.id, room_id=room_id, token_hash=token_hash)
        return True
