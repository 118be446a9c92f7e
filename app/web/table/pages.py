"""Pages: home (create a room), the room page, joining a seat, rules pages."""

from __future__ import annotations

import math
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from app.i18n import N_, _
from app.parsing import strict_int
from app.rooms import RoomManager
from app.rooms import engine as rules_engine
from app.rooms.manager import MAX_TURN_SECONDS, MIN_TURN_SECONDS
from app.rooms.room import LiveRoom, Refused
from app.rooms.state import DEFAULT_TURN_SECONDS
from app.rules.text import Text, text_of
from app.web.shared.address import client_address
from app.web.shared.errors import error_page
from app.web.shared.security import seat_token, set_seat_cookie
from app.web.shared.throttle import app_clock, wait_message
from app.web.state import TEMPLATES_DIR, get_manager, get_templates, seat_table_context
from app.web.table.bot_words import form_levels, level_choices
from app.web.table.house_rules import clash_message, form_problem
from app.web.table.member_seats import note_seat
from app.web.table.model import previous_trick as previous_trick_of
from app.web.table.new_rooms import Full, NewRooms
from app.web.table.rejoin_panel import rejoin_panel
from app.web.table.render import render_block
from app.web.table.talk import chat_context
from app.web.table.watching import WATCH_LATER, held_back

router = APIRouter(tags=["pages"])

ManagerDep = Annotated[RoomManager, Depends(get_manager)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]

DEFAULT_PRESET = "gurka-night"
MAX_FORM_FIELD = 200


def _presets() -> list[str]:
    return rules_engine.preset_names()


def _home_context(preset: str, form: dict[str, Any] | None = None, error: str | None = None) -> dict[str, Any]:
    form = form or {}
    lo, hi = rules_engine.player_limits(preset, {})
    bots = strict_int(str(form.get("bots") or 0), lo=0, hi=99) or 0
    return {
        "presets": _presets(),
        "preset": preset,
        "fields": rules_engine.option_fields(preset),
        "limits": (lo, hi),
        "form": form,
        "error": error,
        "default_seats": min(max(3, lo), hi),
        "default_turn_seconds": int(DEFAULT_TURN_SECONDS),
        "bot_levels": level_choices(),
        "bots_chosen": min(bots, hi - 1),  # a level to choose for each
        # switches that do not go together, and what the form says when both are ticked
        "clashes": [(a, b, clash_message(a, b, why)) for a, b, why in rules_engine.option_clashes(preset)],
        "bad_options": (),
    }


@router.get("/", response_class=HTMLResponse)
def home(request: Request, templates: TemplatesDep) -> Response:
    return templates.TemplateResponse(request, "table/home.html", _home_context(DEFAULT_PRESET))


@router.get("/new/options", response_class=HTMLResponse)
def options_fragment(request: Request, templates: TemplatesDep, preset: str = DEFAULT_PRESET) -> Response:
    if preset not in _presets():
        raise HTTPException(404, N_("Unknown game"))
    html = render_block(templates, "table/home.html", "options", {"request": request, **_home_context(preset)})
    return HTMLResponse(html)


@router.get("/new/bot-levels", response_class=HTMLResponse)
def bot_levels_fragment(request: Request, templates: TemplatesDep) -> Response:
    """The form's bot levels for the number of bots it now asks for (the choices made kept)."""
    form = {k: str(v)[:MAX_FORM_FIELD] for k, v in request.query_params.items()}
    preset = form.get("preset", DEFAULT_PRESET)
    if preset not in _presets():
        raise HTTPException(404, N_("Unknown game"))
    html = render_block(templates, "table/home.html", "bot_levels",
                        {"request": request, **_home_context(preset, form)})
    return HTMLResponse(html)


def new_rooms(request: Request) -> NewRooms:
    """The app's limits on making rooms (`app.web.table.new_rooms`), made on first use."""
    app = request.app
    found: NewRooms | None = getattr(app.state, "new_rooms", None)
    if found is None:
        settings = app.state.settings
        found = app.state.new_rooms = NewRooms(per_address=settings.new_rooms_per_address,
                                               total=settings.new_rooms_total, clock=app_clock(app).now)
    return found


def too_many_rooms(full: Full) -> str:
    what = (_("You have made many rooms just now") if full.limit == "address"
            else _("Many rooms are being made on this server just now"))
    if full.wait <= 90:
        return wait_message(full.wait, what)
    return _("%(what)s; try again in %(minutes)d min.", what=what, minutes=math.ceil(full.wait / 60))


@router.post("/rooms")
async def create_room(request: Request) -> Response:
    # The limits first, and a small page when they are reached, so a flood of refusals costs
    # little: no form read, and no dependencies (FastAPI runs a plain-def dependency in a thread).
    limits, address = new_rooms(request), client_address(request)
    full = limits.take(address)
    if full is not None:
        return error_page(request, 429, too_many_rooms(full), {"Retry-After": str(max(1, math.ceil(full.wait)))})
    manager, templates = get_manager(request), get_templates(request)
    form = {k: str(v)[:MAX_FORM_FIELD] for k, v in (await request.form()).items()}
    preset = form.get("preset", DEFAULT_PRESET)
    if preset not in _presets():
        preset = DEFAULT_PRESET
    try:
        options = rules_engine.parse_options(preset, form)
        seats = strict_int(form.get("seats") or 3, lo=0, hi=99)
        bots = strict_int(form.get("bots") or 0, lo=0, hi=99)
        if seats is None or bots is None:
            raise Refused(Text("Seats and bots must be whole numbers."))
        turn_seconds = _turn_seconds(form.get("turn_seconds"))
        levels, host_level = form_levels(form, min(bots, seats))
        room, token = await manager.create_room(
            preset=preset, options=options, seats=seats, bots=bots, host_name=form.get("name", ""),
            turn_seconds=turn_seconds, bot_levels=levels, bot_level=host_level,
        )
    except (Refused, ValueError) as exc:
        limits.give_back(address)  # no room was made
        message = text_of(exc) if not isinstance(exc, ValueError) or str(exc) else Text("Please check the form.")
        if isinstance(exc, ValueError) and "invalid literal" in message:
            message = Text("Seats and bots must be whole numbers.")
        problem = form_problem(preset, form, str(message))
        ctx = _home_context(preset, form, problem.message if problem else message)
        ctx["bad_options"] = problem.options if problem else ()
        return templates.TemplateResponse(request, "table/home.html", ctx, status_code=400)
    await note_seat(request, room.state.id, room.state.host)
    response = RedirectResponse(f"/r/{room.state.slug}", status_code=303)
    set_seat_cookie(response, slug=room.state.slug, token=token, secure=request.app.state.settings.secure_cookies)
    return response


def _turn_seconds(raw: str | None) -> float:
    """The form's `turn_seconds`: blank means the default, else a whole number (0: no timer)."""
    if raw is None or not raw.strip():
        return DEFAULT_TURN_SECONDS
    value = strict_int(raw.strip(), lo=0, hi=MAX_TURN_SECONDS)
    if value is None:
        raise Refused(Text("Seconds per move: a whole number (0 for no timer, else %(low)s–%(high)s).",
                           low=MIN_TURN_SECONDS, high=MAX_TURN_SECONDS))
    if value and not MIN_TURN_SECONDS <= value <= MAX_TURN_SECONDS:
        raise Refused(Text("Seconds per move: 0 for no timer, else %(low)s–%(high)s.", low=MIN_TURN_SECONDS,
                           high=MAX_TURN_SECONDS))
    return float(value)


class NoSuchRoom(Exception):
    """A room link that leads nowhere: answered with an HTML page and a way home."""


async def _room_or_404(manager: RoomManager, slug: str) -> LiveRoom:
    room = await manager.find(slug)
    if room is None:
        raise NoSuchRoom(slug)
    return room


def no_such_room(request: Request, _exc: Exception) -> Response:
    templates = get_templates(request)
    minutes = round(float(getattr(request.app.state.settings, "lobby_idle_minutes", 0)))
    return templates.TemplateResponse(request, "table/not_found.html", {"lobby_minutes": minutes}, status_code=404)


def room_response(request: Request, templates: Jinja2Templates, room: LiveRoom, *,
                  error: str | None = None, status_code: int = 200, prefill: str = "") -> Response:
    """The room page for whoever asks (their seat from their cookie; the rejoin panel is theirs).
    Call it on the event loop: it reads the live room, which only the loop changes."""
    token = seat_token(request, room.state.slug)
    with room.state_lock:  # one committed state, even while the room adopts the next one
        seat = room.seat_for_token(token)
        ctx = seat_table_context(request.app, room, seat)
    ctx["join_error"] = error
    ctx["rejoin"] = rejoin_panel(request, room, seat, token)
    ctx["rejoin_prefill"] = prefill
    ctx.update(chat_context(room, seat))
    response = templates.TemplateResponse(request, "table/room.html", ctx, status_code=status_code)
    response.headers["Cache-Control"] = "no-store"
    response.headers["Referrer-Policy"] = "same-origin"
    return response


@router.get("/r/{slug}", response_class=HTMLResponse)
async def room_page(request: Request, slug: str, manager: ManagerDep, templates: TemplatesDep) -> Response:
    room = await _room_or_404(manager, slug)
    if await held_back(manager, room, seat_token(request, slug)):
        response = templates.TemplateResponse(request, "table/watch_later.html", {"message": WATCH_LATER},
                                              status_code=403)
        response.headers["Cache-Control"] = "no-store"
        return response
    return room_response(request, templates, room, error=request.query_params.get("error"))


@router.get("/r/{slug}/previous-trick", response_class=HTMLResponse)
async def previous_trick(request: Request, slug: str, manager: ManagerDep, templates: TemplatesDep) -> Response:
    """The trick taken last, for the table's folded "Previous trick" (what every viewer of the
    table saw on the felt; nothing for a page held back from the room)."""
    room = await _room_or_404(manager, slug)
    trick, status = None, 403
    if not await held_back(manager, room, seat_token(request, slug)):
        with room.state_lock:
            trick, status = previous_trick_of(room), 200
    response = templates.TemplateResponse(request, "table/previous_trick.html", {"trick": trick},
                                          status_code=status)
    response.headers["Cache-Control"] = "no-store"
    return response


@router.post("/r/{slug}/join")
async def join(request: Request, slug: str, manager: ManagerDep, templates: TemplatesDep) -> Response:
    room = await _room_or_404(manager, slug)
    if room.seat_for_token(seat_token(request, slug)) is not None:
        return RedirectResponse(f"/r/{slug}", status_code=303)
    form = await request.form()
    try:
        seat, token = await room.join(str(form.get("name", ""))[:MAX_FORM_FIELD])
    except Refused as refused:
        return room_response(request, templates, room, error=text_of(refused), status_code=400)
    await note_seat(request, room.state.id, seat)
    response = RedirectResponse(f"/r/{slug}", status_code=303)
    set_seat_cookie(response, slug=slug, token=token, secure=request.app.state.settings.secure_cookies)
    return response


RULES_DIR = TEMPLATES_DIR / "table" / "rules"


@router.get("/rules/", response_class=HTMLResponse)
@router.get("/rules", response_class=HTMLResponse, include_in_schema=False)
def rules_index(request: Request, templates: TemplatesDep) -> Response:
    if not (RULES_DIR / "index.html").is_file():
        raise HTTPException(404, N_("No rules pages yet."))
    return templates.TemplateResponse(request, "table/rules/index.html", {"presets": _presets()})


@router.get("/rules/{preset}", response_class=HTMLResponse)
def rules_page(request: Request, preset: str, templates: TemplatesDep) -> Response:
    if preset not in _presets() or not (RULES_DIR / f"{preset}.html").is_file():
        raise HTTPException(404, N_("No rules page for that game yet."))
    return templates.TemplateResponse(request, f"table/rules/{preset}.html", {"preset": preset, "presets": _presets()})
