"""Download a finished game as a history file (docs/history-format.md): `/r/<slug>/history.txt`
(`?game=n`: that game at the table; else its last finished one), and a Gurka Night's online
tables' finished games as one file (`/club/nights/<id>/history.txt`).

Nothing is given while its cards are secret: a game still being played, or a table of a
duplicate round not yet over at every table (the same refusals as the replay page).
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

from fastapi import APIRouter, Depends, HTTPException, Request
from fastapi.responses import Response
from fastapi.templating import Jinja2Templates

from app.i18n import N_
from app.rooms import LiveRoom, RoomManager
from app.rooms.history_files import story_history
from app.rooms.replay import GameStory, build_stories
from app.rules.history import write_games
from app.store import nights as night_store
from app.store.db import session_scope
from app.web.state import get_manager, get_templates
from app.web.table.replay import Refusal, _load, _refused, pick_story, refused_story

router = APIRouter(tags=["history"])

ManagerDep = Annotated[RoomManager, Depends(get_manager)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]


def _text_file(text: str, filename: str) -> Response:
    return Response(text.encode("utf-8"), media_type="text/plain; charset=utf-8", headers={
        "Content-Disposition": f'attachment; filename="{filename}"', "Cache-Control": "no-store"})


def _link(request: Request, slug: str) -> str:
    return str(request.base_url).rstrip("/") + f"/r/{slug}"


def _stories(manager: RoomManager, room: LiveRoom) -> list[GameStory] | Refusal:
    refusal = refused_story(manager, room)
    if refusal is not None:
        return refusal
    return build_stories(room.state.preset, room.state.options, _load(manager.db, room.state.id))


def _filename(story: GameStory, preset: str) -> str:
    day = story.started_at.strftime("%Y-%m-%d") if story.started_at is not None else "game"
    return f"gurka-{preset}-{day}-game-{story.number}.txt"


@router.get("/r/{slug}/history.txt")
async def room_history(request: Request, slug: str, manager: ManagerDep, templates: TemplatesDep,
                       game: str | None = None) -> Response:
    room = await manager.find(slug)
    if room is None:
        raise HTTPException(404, N_("No such room: check the link."))
    return await asyncio.to_thread(_room_history, request, manager, templates, room, game)


def _room_history(request: Request, manager: RoomManager, templates: Jinja2Templates, room: LiveRoom,
                  game: str | None) -> Response:
    stories = _stories(manager, room)
    story = pick_story(stories, game) if isinstance(stories, list) else stories
    if isinstance(story, Refusal):
        return _refused(request, templates, room.state.slug, story.message, story.status)
    return _text_file(story_history(story, link=_link(request, room.state.slug)), _filename(story, room.state.preset))


@router.get("/club/nights/{night_id}/history.txt")
async def night_history(request: Request, night_id: int, manager: ManagerDep) -> Response:
    """Every finished game of the night's online tables, in the order the tables opened; a
    table still playing (or whose duplicate round is on elsewhere) is left out and said so."""
    night = await asyncio.to_thread(_night_rooms, manager, night_id)
    if night is None:
        raise HTTPException(404, N_("No such night."))
    day, entries = night
    rooms: list[tuple[str, LiveRoom]] = []
    for key, slug in entries:
        room = await manager.find(slug)
        if room is not None:
            rooms.append((key, room))
    text = await asyncio.to_thread(_night_text, request, manager, night_id, day, rooms)
    return _text_file(text, f"gurka-night-{day}.txt")


def _night_rooms(manager: RoomManager, night_id: int) -> tuple[str, list[tuple[str, str]]] | None:
    with session_scope(manager.db) as session:
        row = night_store.get_night(session, night_id=night_id)
        if row is None:
            return None
        rooms: dict[str, Any] = row.state.get("rooms") or {}
        return row.date.isoformat(), [(key, entry["slug"]) for key, entry in rooms.items()
                                      if isinstance(entry, dict) and isinstance(entry.get("slug"), str)]


def _night_text(request: Request, manager: RoomManager, night_id: int, day: str,
                rooms: list[tuple[str, LiveRoom]]) -> str:
    parts: list[str] = []
    left_out: list[str] = []
    for key, room in rooms:
        stories = _stories(manager, room)
        finished = [s for s in stories if s.over] if isinstance(stories, list) else []
        if not isinstance(stories, list) or any(not s.over for s in stories):
            left_out.append(key)
        stage, _, rest = key.partition("-")
        number, _, table = rest.partition("-")
        extra = {"Night": day, "Table": table or key}
        if number.isdigit():
            extra["Round"] = number if stage == "base" else f"{stage} {number}"
        for story in finished:
            parts.append(story_history(story, link=_link(request, room.state.slug), extra=extra))
    # a comment line of the file, in the format's own words (its keywords are English too)
    head = f"; Gurka Night {day}: {len(parts)} finished table games"  # not shown
    if left_out:
        head += f"; still playing, left out: {', '.join(left_out)}"  # not shown
    return head + "\n" + write_games(parts)
