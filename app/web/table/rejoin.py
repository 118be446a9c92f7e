"""Taking a seat back on another device: the rejoin link (from the QR code) and the rejoin form.

Opening the link shows the room with the code filled in and one button: a link preview or a
prefetch never moves a seat, a person does. Tries are throttled per address and per room
(`app.web.shared.throttle`): after a few wrong codes each further try waits twice as long. A
right code takes back only its own try, so a player who types their own seat's code between
guesses at the others' gains nothing; and each seat's moves are counted too (never taken back),
so moving one's own seat back and forth cannot write event rows without end.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from app.i18n import _
from app.rooms import RoomManager
from app.rooms.room import Refused
from app.rooms.tokens import clean_code
from app.rules.text import text_of
from app.web.shared.address import client_address
from app.web.shared.security import seat_token, set_seat_cookie
from app.web.shared.throttle import Throttle, app_clock, throttle_of, wait_message
from app.web.state import get_manager, get_templates
from app.web.table.pages import _room_or_404, room_response

router = APIRouter(tags=["rejoin"])

ManagerDep = Annotated[RoomManager, Depends(get_manager)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]

TRIES_FREE = 5  # codes tried from one address, or for one room, before back-off


def rejoin_throttle(request: Request) -> Throttle:
    app = request.app
    return throttle_of(app, "rejoin_throttle", lambda: Throttle(free=TRIES_FREE, clock=app_clock(app)))


@router.get("/r/{slug}/rejoin")
async def rejoin_link(request: Request, slug: str, manager: ManagerDep, templates: TemplatesDep,
                      code: str = "") -> Response:
    room = await _room_or_404(manager, slug)
    return room_response(request, templates, room, prefill=clean_code(code))


@router.post("/r/{slug}/rejoin")
async def rejoin(request: Request, slug: str, manager: ManagerDep, templates: TemplatesDep) -> Response:
    room = await _room_or_404(manager, slug)
    form = await request.form()
    code = clean_code(str(form.get("code", ""))[:40])
    throttle = rejoin_throttle(request)
    keys = [f"addr:{client_address(request)}", f"room:{slug}"]
    seat = room.seat_for_code(code) if code else None
    if seat is not None and room.seat_for_token(seat_token(request, slug)) == seat:
        return RedirectResponse(f"/r/{slug}", status_code=303)  # this device holds that seat already
    moves = [f"moves:{slug}:{seat}"] if seat is not None else []  # counts moves, never refunded
    wait = throttle.attempt(keys + moves)
    if wait > 0:
        moved_often = bool(moves) and throttle.wait(moves[0]) >= wait
        what = _("This seat moved to another device several times just now") if moved_often \
            else _("Too many wrong codes")
        return room_response(request, templates, room, error=wait_message(wait, what), status_code=429,
                             prefill=code)
    try:
        _seat, token = await room.rejoin(code)
    except Refused as refused:
        return room_response(request, templates, room, error=text_of(refused), status_code=400, prefill=code)
    throttle.refund(keys)  # the right code was no guess: only its own try is taken back
    response = RedirectResponse(f"/r/{slug}", status_code=303)
    set_seat_cookie(response, slug=slug, token=token, secure=request.app.state.settings.secure_cookies)
    return response
