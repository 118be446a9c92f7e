"""Taking a seat back on another device: the rejoin link (from the QR code) and the rejoin form.

Opening the link shows the room with the code filled in and one button: a link preview or a
prefetch never moves a seat, a person does. Wrong codes are limited per address and per room.
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request
from fastapi.responses import RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from app.rooms import RoomManager
from app.rooms.room import Refused
from app.rooms.tokens import clean_code
from app.rules.text import Text, text_of
from app.web.shared.limits import FailureLimit
from app.web.shared.security import set_seat_cookie
from app.web.state import get_manager, get_templates
from app.web.table.pages import _room_or_404, room_response

router = APIRouter(tags=["rejoin"])

ManagerDep = Annotated[RoomManager, Depends(get_manager)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]

PER_ADDRESS = (5, 300.0)  # wrong codes from one address per 5 minutes
PER_ROOM = (20, 600.0)  # wrong codes for one room per 10 minutes, from anywhere


def _limits(request: Request, manager: RoomManager) -> tuple[FailureLimit, FailureLimit]:
    state = request.app.state
    limits: tuple[FailureLimit, FailureLimit] | None = getattr(state, "rejoin_limits", None)
    if limits is None:
        limits = (FailureLimit(*PER_ADDRESS, now=manager.clock.now),
                  FailureLimit(*PER_ROOM, now=manager.clock.now))
        state.rejoin_limits = limits
    return limits


@router.get("/r/{slug}/rejoin")
def rejoin_link(request: Request, slug: str, manager: ManagerDep, templates: TemplatesDep,
                code: str = "") -> Response:
    room = _room_or_404(manager, slug)
    return room_response(request, templates, room, prefill=clean_code(code))


@router.post("/r/{slug}/rejoin")
async def rejoin(request: Request, slug: str, manager: ManagerDep, templates: TemplatesDep) -> Response:
    room = _room_or_404(manager, slug)
    form = await request.form()
    code = clean_code(str(form.get("code", ""))[:40])
    by_address, by_room = _limits(request, manager)
    address = request.client.host if request.client else "?"
    wait = max(by_address.wait(address), by_room.wait(slug))
    if wait > 0:
        message = Text("Too many wrong codes: try again in %(n)s s.", n=int(wait) + 1)
        return room_response(request, templates, room, error=message, status_code=429, prefill=code)
    try:
        _seat, token = await room.rejoin(code)
    except Refused as refused:
        by_address.fail(address)
        by_room.fail(slug)
        return room_response(request, templates, room, error=text_of(refused), status_code=400, prefill=code)
    response = RedirectResponse(f"/r/{slug}", status_code=303)
    set_seat_cookie(response, slug=slug, token=token, secure=request.app.state.settings.secure_cookies)
    return response
