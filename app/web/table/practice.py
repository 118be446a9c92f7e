"""Practice in one click: the home page's button seats you at Gurka Night against three bots of
the level you picked (strong unless you chose otherwise), dealt and playing at once.

Once you are out, the bots play on to the end: that took about two minutes of watching with no
way out. A player alone with bots who is out of a game still being played is offered, on the
table (a panel hooked into it: `install`), "Finish at once" (the bots play the rest without
their delay and without the pause between deals: `RoomState.hurry_for`) and "New practice
game" (the same level, a new room)."""

from __future__ import annotations

import math

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import RedirectResponse, Response
from markupsafe import Markup

from app.i18n import N_, _
from app.rooms import LiveRoom
from app.rooms.bot_levels import parse_level
from app.rooms.room import Refused
from app.rooms.state import RoomStatus
from app.rules.text import text_of
from app.web.shared.address import client_address
from app.web.shared.errors import error_page
from app.web.shared.security import seat_token, set_seat_cookie
from app.web.state import get_manager, room_panels, templates_of
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
    response = RedirectResponse(f"/r/{room.state.slug}", status_code=303)
    set_seat_cookie(response, slug=room.state.slug, token=token, secure=request.app.state.settings.secure_cookies)
    return response


def out_alone_with_bots(room: LiveRoom, seat: int | None) -> bool:
    """`seat` is the only human at the table, and out of the game being played (the bots play
    on without it)."""
    g = room.state.game
    if seat is None or g is None or g.over or room.state.status != RoomStatus.PLAYING or seat not in g.out:
        return False
    mine = room.state.seats.get(seat)
    return (mine is not None and not mine.is_bot
            and all(s.is_bot for n, s in room.state.seats.items() if n != seat))


def practice_level(room: LiveRoom) -> str:
    """The level of the room's bots, for a new practice game like this one."""
    bots = sorted(n for n, s in room.state.seats.items() if s.is_bot)
    return room.bot_level(bots[0]) if bots else PRACTICE_LEVEL


def install(app: FastAPI) -> None:
    """Hook the panel into every room's table (once)."""
    panels = room_panels(app)
    if any(getattr(p, "__name__", "") == "practice_out_panel" for p in panels):
        return

    def practice_out_panel(room: LiveRoom, seat: int | None) -> str:
        if not out_alone_with_bots(room, seat):
            return ""  # the usual case, on every push: no template rendered
        template = templates_of(app).env.get_template("table/practice_out.html")
        return Markup(template.render(slug=room.state.slug, level=practice_level(room),
                                      finishing=room.state.hurried()))

    panels.append(practice_out_panel)


@router.post("/r/{slug}/finish")
async def finish_at_once(request: Request, slug: str) -> Response:
    """The player who is out asks the bots to finish the game at once. Under the room's path, so
    the browser sends the seat cookie, which says who asks (the Origin is checked at the edge)."""
    room = await get_manager(request).find(slug)
    if room is None:
        raise HTTPException(status_code=404, detail=N_("No such room: check the link."))
    seat = room.seat_for_token(seat_token(request, slug))
    if seat is None or not out_alone_with_bots(room, seat):
        return RedirectResponse(f"/r/{slug}", status_code=303)  # nothing to finish here: the table says why
    await room.finish_at_once(seat)
    return RedirectResponse(f"/r/{slug}", status_code=303)
