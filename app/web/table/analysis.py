"""The strong bot's analysis of a finished game, on its replay: `POST …/analysis` starts it (or
finds it stored or running), `GET …/analysis` is its section of the page (progress while it runs:
the page asks every second; the judgement once done). For a room's game `/r/<slug>/analysis`, for
a game of an opened history file `/replay/<key>/analysis`, each with `?game=n&step=i` (the game,
and the step the page shows, whose judgement is drawn in the step view).

- **Never while cards are secret**: a game still being played, or a table of a duplicate round
  not yet over at every table, is refused as its replay is (the analysis reads every hand); nothing
  is started, stored or shown.
- **Once per game**: the result is stored (`app.rooms.analyses`); a second click, another
  visitor or another process gets the stored result, or the run already going.
- **Limited per visitor**: a visitor (a random id in an HttpOnly cookie, kept as a hash) may have
  one analysis running at a time and start `ANALYSES_PER_VISITOR` per hour, an address
  `ANALYSES_PER_ADDRESS` per hour (a visitor without the cookie is still an address), and at most
  `MAX_ACTIVE` analyses wait or run at once; each refusal says so in the reader's language.
  Finding a stored or running analysis costs nothing.
- The handlers only look up the room on the event loop; the log, the replay, the database and the
  decisions' views are read in worker threads, the judging is done in the bot pool.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
import secrets
from dataclasses import dataclass
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates

from app.i18n import N_
from app.rooms import LiveRoom, RoomManager
from app.rooms.analyses import State
from app.rooms.replay import GameStory, build_stories
from app.rules.analysis import decisions
from app.rules.text import Text
from app.web.shared.address import client_address
from app.web.state import get_manager, get_templates
from app.web.table.analysis_view import analyses_of, analysis_context, file_key, room_key
from app.web.table.kept_files import kept_game
from app.web.table.model import BOT_SUFFIX, display_name
from app.web.table.new_rooms import NewRooms
from app.web.table.open_history import OpenText
from app.web.table.replay import Refusal, _load, _whole, pick_story, refused_story

router = APIRouter(tags=["analysis"])

ManagerDep = Annotated[RoomManager, Depends(get_manager)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]

VISITOR_COOKIE = "gurka_visitor"
YEAR = 365 * 24 * 3600
HOUR = 3600.0
MAX_ACTIVE = 6  # analyses waiting or running at once, in every process together


class AnalysisText:
    one_at_a_time = Text("Your analysis of another game is still running: one at a time. "
                         "Start this one when that one is done.")
    busy = Text("The strong bot is busy with other analyses just now. Try again in a few minutes.")

    @staticmethod
    def per_hour(n: int, minutes: int) -> Text:
        return Text("You have started %(n)s analyses in the last hour, as many as one may. "
                    "Try again in %(minutes)s min.", n=n, minutes=minutes)


@dataclass(frozen=True)
class Analysed:
    """A finished game that may be analysed: what it is (`key`), its story and its players' names,
    and the addresses of its analysis and its replay."""

    key: str
    story: GameStory
    names: list[str]
    url: str  # the analysis, without the query

    def replay(self, step: int) -> str:
        """The replay page at `step`."""
        page = self.url.removesuffix("/analysis") + ("/replay" if self.url.startswith("/r/") else "")
        return f"{page}?game={self.story.number}&step={step}"


class Limits:
    """Per visitor and per address, analyses started per hour (sliding windows)."""

    def __init__(self, per_visitor: int, per_address: int) -> None:
        self.per_visitor = NewRooms(per_address=per_visitor, total=100_000, window=HOUR)
        self.per_address = NewRooms(per_address=per_address, total=100_000, window=HOUR)

    def take(self, visitor: str, address: str) -> tuple[int, float] | None:
        """None when one more may start (and it is counted), else (the limit, seconds to wait)."""
        full = self.per_visitor.take("visitor:" + visitor)
        if full is not None:
            return self.per_visitor.per_address, full.wait
        full = self.per_address.take(address)
        if full is not None:
            self.per_visitor.give_back("visitor:" + visitor)
            return self.per_address.per_address, full.wait
        return None

    def give_back(self, visitor: str, address: str) -> None:
        self.per_visitor.give_back("visitor:" + visitor)
        self.per_address.give_back(address)


def limits_of(request: Request) -> Limits:
    found: Limits | None = getattr(request.app.state, "analysis_limits", None)
    if found is None:
        settings = request.app.state.settings
        found = request.app.state.analysis_limits = Limits(settings.analyses_per_visitor, settings.analyses_per_address)
    return found


def visitor_of(request: Request) -> tuple[str, str | None]:
    """(the hash the visitor is known by, a new cookie value to set or None)."""
    raw = request.cookies.get(VISITOR_COOKIE)
    fresh = None
    if not raw or len(raw) > 64:
        raw = fresh = secrets.token_urlsafe(24)
    return hashlib.sha256(raw.encode()).hexdigest(), fresh


# ------------------------------------------------------------------ finding the game (threads)

def _room_game(manager: RoomManager, room: LiveRoom, humans: frozenset[str], game: str | None) -> Analysed | Refusal:
    refusal = refused_story(manager, room)
    if refusal is not None:
        return refusal
    stories = build_stories(room.state.preset, room.state.options, _load(manager.db, room.state.id))
    story = pick_story(stories, game)
    if isinstance(story, Refusal):
        return story
    names = [display_name(n, n.endswith(BOT_SUFFIX), humans) for n in story.players]
    return Analysed(room_key(room.state.id, story.number), story, names, f"/r/{room.state.slug}/analysis")


def _file_game(manager: RoomManager, key: str, game: str | None) -> Analysed | Refusal:
    found = kept_game(manager, key, game)
    if found is None:
        return Refusal(OpenText.gone, 404)
    return Analysed(file_key(key, found.story.number), found.story, found.names, f"/replay/{key}/analysis")


def step_of(story: GameStory, step: str | None) -> int:
    return min(max(_whole(step) or 0, 0), len(story.steps) - 1)


def section_context(found: Analysed, state: State, step: int, *, message: str | Text | None = None) -> dict[str, Any]:
    """The replay page's (and the fragment's) `analysis`."""
    url = f"{found.url}?game={found.story.number}&step={step}"
    return analysis_context(state, url=url, names=found.names, step=step, message=message)


# ------------------------------------------------------------------ answers

def _htmx(request: Request) -> bool:
    return bool(request.headers.get("hx-request"))


def _fragment(request: Request, templates: Jinja2Templates, found: Analysed, state: State, step: int, *,
              message: str | Text | None = None, status: int = 200, cookie: str | None = None) -> Response:
    """The analysis section (to htmx); a form sent without htmx goes back to the replay (or is told
    why not on a page of its own)."""
    response: Response
    if _htmx(request) or request.method != "POST":
        ctx = {"analysis": section_context(found, state, step, message=message), "story_number": found.story.number,
               "top_cards": [c for c in found.story.game.ruleset.top_cards if not c.startswith("X")],
               "verdict_too": state.status == "done"}
        response = templates.TemplateResponse(request, "table/analysis_fragment.html", ctx, status_code=status)
    elif message is not None:
        response = _refused(request, templates, Refusal(message, status), back=found.replay(step))
    else:
        response = RedirectResponse(found.replay(step) + "#analysis", status_code=303)
    response.headers["Cache-Control"] = "no-store"
    if cookie is not None:
        response.set_cookie(VISITOR_COOKIE, cookie, max_age=YEAR, path="/", httponly=True, samesite="lax",
                            secure=bool(getattr(request.app.state.settings, "secure_cookies", False)))
    return response


def _refused(request: Request, templates: Jinja2Templates, refusal: Refusal, *, back: str) -> Response:
    """Why no analysis now: the message only (no card, no judgement); to htmx the section alone."""
    response = templates.TemplateResponse(request, "table/analysis_refused.html",
                                          {"message": refusal.message, "back": back, "bare": _htmx(request)},
                                          status_code=refusal.status)
    response.headers["Cache-Control"] = "no-store"
    return response


async def _show(request: Request, templates: Jinja2Templates, found: Analysed | Refusal, step: str | None,
                back: str) -> Response:
    if isinstance(found, Refusal):
        return _refused(request, templates, found, back=back)
    state = await asyncio.to_thread(analyses_of(request.app).state, found.key)
    return _fragment(request, templates, found, state, step_of(found.story, step))


async def _start(request: Request, templates: Jinja2Templates, found: Analysed | Refusal, step: str | None,
                 back: str) -> Response:
    """Start the game's analysis, unless it is stored, running, or the visitor may not start one now."""
    if isinstance(found, Refusal):
        return _refused(request, templates, found, back=back)
    analyses = analyses_of(request.app)
    async with analyses.starting(found.key):
        return await _start_one(request, templates, found, step_of(found.story, step))


async def _start_one(request: Request, templates: Jinja2Templates, found: Analysed, at: int) -> Response:
    analyses = analyses_of(request.app)
    state = await asyncio.to_thread(analyses.state, found.key)
    if state.status == "done" or state.active:
        return _fragment(request, templates, found, state, at)
    visitor, cookie = visitor_of(request)
    running = await asyncio.to_thread(analyses.running_for, visitor) if cookie is None else []
    if running:
        return _fragment(request, templates, found, state, at, message=AnalysisText.one_at_a_time, status=429)
    address = client_address(request)
    limits = limits_of(request)
    full = limits.take(visitor, address)
    if full is not None:
        limit, wait = full
        response = _fragment(request, templates, found, state, at, status=429, cookie=cookie,
                             message=AnalysisText.per_hour(limit, max(1, math.ceil(wait / 60))))
        response.headers["Retry-After"] = str(max(1, math.ceil(wait)))
        return response
    if await asyncio.to_thread(analyses.active) >= MAX_ACTIVE:
        limits.give_back(visitor, address)
        response = _fragment(request, templates, found, state, at, message=AnalysisText.busy, status=503, cookie=cookie)
        response.headers["Retry-After"] = "120"
        return response
    game = found.story.game
    listed = await asyncio.to_thread(decisions, game)
    if await asyncio.to_thread(analyses.claim, found.key, visitor, len(listed)):
        analyses.run(found.key, game.ruleset, listed)
    else:  # another process started it a moment ago
        limits.give_back(visitor, address)
    state = await asyncio.to_thread(analyses.state, found.key)
    return _fragment(request, templates, found, state, at, cookie=cookie)


async def _room(manager: RoomManager, slug: str, game: str | None) -> Analysed | Refusal:
    room = await manager.find(slug)
    if room is None:
        raise HTTPException(404, N_("No such room: check the link."))
    humans = frozenset(s.name for s in room.state.seats.values() if not s.is_bot)
    return await asyncio.to_thread(_room_game, manager, room, humans, game)


@router.get("/r/{slug}/analysis", response_class=HTMLResponse)
async def room_analysis(request: Request, slug: str, manager: ManagerDep, templates: TemplatesDep,
                        game: str | None = None, step: str | None = None) -> Response:
    return await _show(request, templates, await _room(manager, slug, game), step, f"/r/{slug}")


@router.post("/r/{slug}/analysis", response_class=HTMLResponse)
async def start_room_analysis(request: Request, slug: str, manager: ManagerDep, templates: TemplatesDep,
                              game: str | None = None, step: str | None = None) -> Response:
    return await _start(request, templates, await _room(manager, slug, game), step, f"/r/{slug}")


@router.get("/replay/{key}/analysis", response_class=HTMLResponse)
async def file_analysis(request: Request, key: str, manager: ManagerDep, templates: TemplatesDep,
                        game: str | None = None, step: str | None = None) -> Response:
    return await _show(request, templates, await asyncio.to_thread(_file_game, manager, key, game), step, "/replay")


@router.post("/replay/{key}/analysis", response_class=HTMLResponse)
async def start_file_analysis(request: Request, key: str, manager: ManagerDep, templates: TemplatesDep,
                              game: str | None = None, step: str | None = None) -> Response:
    return await _start(request, templates, await asyncio.to_thread(_file_game, manager, key, game), step, "/replay")
