"""The replay page: a finished game, step by step (every deal and every move), all hands face up,
with its score sheet and the table talk alongside. Built from the stored event log
(`app.rooms.replay`); a game still being played is refused and shows no card.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from fastapi.templating import Jinja2Templates
from sqlalchemy import Engine

from app.i18n import N_
from app.rooms import LiveRoom, RoomManager
from app.rooms.chat import REACT, SAY, ChatLine
from app.rooms.replay import GameStory, Step, StoredEvent, build_stories
from app.rules.cards import pretty_cards
from app.rules.text import Text
from app.store import rooms as store
from app.store.db import session_scope
from app.web.state import get_manager, get_templates
from app.web.table.analysis_view import room_key, section_for
from app.web.table.model import display_name, score_rows
from app.web.table.places import game_rows
from app.web.table.talk import line_model

router = APIRouter(tags=["replay"])

ManagerDep = Annotated[RoomManager, Depends(get_manager)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]


class ReplayText:
    """The replay page's sentences (one place, ready to be wrapped for translation)."""

    no_game = Text("Nothing has been played at this table yet: there is no game to replay.")
    not_over = Text("This game is still being played. Its replay opens once the game is over; "
                    "until then no hand is shown to anyone.")
    no_such_game = Text("This table has no game with that number.")
    round_on = Text("This table played the same cards as the other tables of its round (duplicate deals). "
                    "Its replay opens once the round is over at every table.")
    dealt = Text("The cards are dealt.")

    @staticmethod
    def move(name: str, action: str) -> str:
        word, *cards = action.split()
        shown = pretty_cards(cards) if cards else ""
        if word == "play":
            return Text("%(name)s played %(cards)s.", name=name, cards=shown)
        if word == "exchange":
            if not cards:
                return Text("%(name)s kept their hand.", name=name)
            if len(cards) == 1:
                return Text("%(name)s swapped %(n)s card.", name=name, n=1)
            return Text("%(name)s swapped %(n)s cards.", name=name, n=len(cards))
        said = {"free": Text("%(name)s took free cards.", name=name), "double": Text("%(name)s doubled.", name=name),
                "redouble": Text("%(name)s redoubled.", name=name), "pass": Text("%(name)s kept their hand.", name=name)}
        return said.get(word, Text("%(name)s: %(action)s.", name=name, action=action))


def _load(db: Engine, room_id: int) -> list[StoredEvent]:
    with session_scope(db) as session:
        return [(e.seat, e.kind, dict(e.payload), e.at) for e in store.list_events(session, room_id=room_id)]


def _naive(at: datetime | None) -> datetime | None:
    return at.replace(tzinfo=None) if at is not None and at.tzinfo is not None else at


def _chat_of(story: GameStory, lines: list[ChatLine], until: datetime | None) -> list[dict[str, Any]]:
    """Talk from the game's start (the first game: from the lobby on) until the next game started."""
    start = _naive(story.started_at) if story.number > 1 else None
    end = _naive(until)
    picked = []
    for line in lines:
        at = _naive(line.at)
        if line.kind not in (SAY, REACT) or at is None:
            continue
        if (start is None or at >= start) and (end is None or at < end):
            picked.append(line_model(line))
    return picked


def _nav(steps: list[Step], i: int) -> dict[str, int | None]:
    deals = [s.index for s in steps if s.action == "deal"]
    tricks = [s.index for s in steps if s.trick_done or s.deal_end is not None]
    last = len(steps) - 1
    return {
        "first": 0 if i > 0 else None,
        "prev": i - 1 if i > 0 else None,
        "next": i + 1 if i < last else None,
        "last": last if i < last else None,
        "prev_trick": max((t for t in tricks if t < i), default=None),
        "next_trick": min((t for t in tricks if t > i), default=None),
        "prev_deal": max((d for d in deals if d < i), default=None),
        "next_deal": min((d for d in deals if d > i), default=None),
    }


def _whole(raw: str | None) -> int | None:
    """A whole number from the query string, or None (a bad one is treated as absent)."""
    try:
        return int(raw) if raw is not None and len(raw) <= 9 else None
    except ValueError:
        return None


def _refused(request: Request, templates: Jinja2Templates, slug: str, message: str, status: int) -> Response:
    response = templates.TemplateResponse(
        request, "table/replay_refused.html", {"slug": slug, "message": message}, status_code=status
    )
    response.headers["Cache-Control"] = "no-store"
    return response


@router.get("/r/{slug}/replay", response_class=HTMLResponse)
async def replay_page(request: Request, slug: str, manager: ManagerDep, templates: TemplatesDep,
                      game: str | None = None, step: str | None = None, deal: str | None = None) -> Response:
    """The room is looked up on the event loop (its players' names read there); the stored log is
    read, replayed and rendered in a worker thread."""
    room = await manager.find(slug)
    if room is None:
        raise HTTPException(404, N_("No such room: check the link."))
    humans = frozenset(s.name for s in room.state.seats.values() if not s.is_bot)
    return await asyncio.to_thread(_replay_response, request, manager, templates, room, humans, game, step, deal)


@dataclass(frozen=True)
class Refusal:
    message: str
    status: int


def refused_story(manager: RoomManager, room: LiveRoom) -> Refusal | None:
    """Why no game of `room` may be shown now (a duplicate round still on somewhere), or None.
    Blocking: call it off the event loop."""
    if manager.decks_secret(room.state.deck_key):
        return Refusal(ReplayText.round_on, 403)
    return None


def pick_story(stories: list[GameStory], game: str | None) -> GameStory | Refusal:
    """The finished game asked for (`?game=n`; none: the last finished one), or why not."""
    number = _whole(game)
    if game is not None and number is None:
        return Refusal(ReplayText.no_such_game, 404)
    if number is None:
        if not stories:
            return Refusal(ReplayText.no_game, 404)
        finished = [s for s in stories if s.over]
        if not finished:
            return Refusal(ReplayText.not_over, 403)
        return finished[-1]
    story = next((s for s in stories if s.number == number), None)
    if story is None:
        return Refusal(ReplayText.no_such_game, 404)
    if not story.over:
        return Refusal(ReplayText.not_over, 403)
    return story


def story_context(story: GameStory, names: list[str], at: int, deal_no: int | None,
                  step_given: bool) -> dict[str, Any]:
    """What the replay viewer shows of `story` at step `at` (or at the step that deals deal
    `deal_no` when no step was given): the same for a room's game and for an opened file."""
    if not step_given and deal_no is not None:
        at = next((s.index for s in story.steps if s.action == "deal" and s.deal_no == deal_no), 0)
    i = min(max(at, 0), len(story.steps) - 1)
    current = story.steps[i]
    actor = names[current.actor] if current.actor is not None else ""
    done_deals = [d for d in story.deal_log if d.deal_no < current.deal_no or current.deal_end is not None
                  and d.deal_no == current.deal_no]
    return {
        "story": story,
        "step": current,
        "steps_total": len(story.steps),
        "names": names,
        "what": ReplayText.dealt if current.action == "deal" else ReplayText.move(actor, current.action),
        "nav": _nav(story.steps, i),
        "deal_starts": [(s.deal_no, s.index) for s in story.steps if s.action == "deal"],
        "score_sheet": score_rows(done_deals, len(names)),
        "final_rows": score_rows(story.deal_log, len(names)),
        "final_places": game_rows(story.game, names),
        "top_cards": [c for c in story.game.ruleset.top_cards if not c.startswith("X")],
        "target": story.game.ruleset.target,
    }


def _replay_response(request: Request, manager: RoomManager, templates: Jinja2Templates, room: LiveRoom,
                     humans: frozenset[str], game: str | None, step: str | None, deal: str | None) -> Response:
    slug = room.state.slug
    refusal = refused_story(manager, room)
    if refusal is not None:
        return _refused(request, templates, slug, refusal.message, refusal.status)
    events = _load(manager.db, room.state.id)
    chat = manager.load_chat(room.state.id)
    stories = build_stories(room.state.preset, room.state.options, events)
    finished = [s for s in stories if s.over]
    at = _whole(step) or 0
    story = pick_story(stories, game)
    if isinstance(story, Refusal):
        return _refused(request, templates, slug, story.message, story.status)
    names = [display_name(n, n.endswith(" (bot)"), humans) for n in story.players]
    following = next((s.started_at for s in stories if s.number == story.number + 1), None)
    ctx = story_context(story, names, at, _whole(deal), step is not None)
    ctx |= {
        "slug": slug,
        "preset": room.state.preset,
        "games": [s.number for s in finished],
        "chat_lines": _chat_of(story, chat, following),
        "download_url": f"/r/{slug}/history.txt?game={story.number}",
        "analysis": section_for(request.app, room_key(room.state.id, story.number), f"/r/{slug}/analysis", story.number,
                                names, ctx["step"].index),
    }
    response = templates.TemplateResponse(request, "table/replay.html", ctx)
    response.headers["Cache-Control"] = "no-store"
    return response
