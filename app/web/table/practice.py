"""Practice in one click: the home page's button seats you at Gurka Night against three bots of
the level you picked (strong unless you chose otherwise), dealt and playing at once."""

from __future__ import annotations

import math

from fastapi import APIRouter, Request
from fastapi.responses import RedirectResponse, Response

from app.i18n import _
from app.rooms.bot_levels import parse_level
from app.rooms.room import Refused
from app.rules.text import text_of
from app.web.shared.address import client_address
from app.web.shared.errors import error_page
from app.web.shared.security import set_seat_cookie
from app.web.state import get_manager
from app.web.table.pages import MAX_FORM_FIELD, new_rooms, too_many_rooms

router = APIRouter(tags=["pages"])

PRACTICE_PRESET = "gurka-night"
PRACTICE_BOTS = 3
PRACTICE_LEVEL = "strong"


@router.post("/practice")
async def practice(request: Request) -> Response:
    limits, address = new_rooms(request), client_address(request)
    full = limits.take(address)  # a practice room is a room: the same limits
    if full is not None:
        return error_page(request, 429, too_many_rooms(full), {"Retry-After": str(max(1, math.ceil(full.wait)))})
    form = {k: str(v)[:MAX_FORM_FIELD] for k, v in (await request.form()).items()}
    level = parse_level(form.get("level") or PRACTICE_LEVEL)
    if level is None:
        limits.give_back(address)
        return error_page(request, 400, _("Unknown bot level: choose easy, medium or strong."))
    manager = get_manager(request)
    try:
        room, token = await manager.create_room(
            preset=PRACTICE_PRESET, options={}, seats=PRACTICE_BOTS + 1, bots=PRACTICE_BOTS,
            host_name=_("Player"), turn_seconds=0, bot_levels=[level] * PRACTICE_BOTS, bot_level=level,
        )
        await room.start(0)
    except Refused as refused:  # not expected: every value above is fixed
        limits.give_back(address)
        return error_page(request, 400, str(text_of(refused)))
    response = RedirectResponse(f"/r/{room.slug}", status_code=303)
    set_seat_cookie(response, slug=room.slug, token=token, secure=request.app.state.settings.secure_cookies)
    return response
