"""Open a history file anywhere: `/replay` takes an uploaded or pasted file (docs/history-format.md),
reads it strictly through the rules core and shows it in the replay viewer, no room needed.

A file that reads is kept under the hash of its text (`app.store.histories`) and shown at
`/replay/<key>`, so the viewer's step links work from any process; a bad file gets the form back
with the line and what is wrong. Opening is limited per visitor (a sliding window, as making
rooms is): reading a long file replays every move.
"""

from __future__ import annotations

import asyncio
import hashlib
import math
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response
from fastapi.templating import Jinja2Templates
from starlette.datastructures import UploadFile

from app.i18n import _, say
from app.rooms import RoomManager
from app.rules.history import HistoryError, read_games
from app.rules.text import Text
from app.store import histories as store
from app.store.db import session_scope
from app.web.shared.address import client_address
from app.web.state import get_manager, get_templates
from app.web.table.analysis_view import file_key, section_for
from app.web.table.kept_files import KEY, kept_game
from app.web.table.new_rooms import NewRooms
from app.web.table.replay import _whole, story_context

router = APIRouter(tags=["replay"])

ManagerDep = Annotated[RoomManager, Depends(get_manager)]
TemplatesDep = Annotated[Jinja2Templates, Depends(get_templates)]

MAX_BYTES = 2_000_000  # a whole Gurka Night (about 50 games) is well under half of this
PER_ADDRESS, TOTAL, WINDOW = 30, 600, 600.0


class OpenText:
    too_big = Text("The file is too big: at most %(n)s MB.", n=MAX_BYTES // 1_000_000)
    empty = Text("Choose a file or paste its text.")
    not_utf8 = Text("The file is not UTF-8 text (a history file is plain text).")
    gone = Text("That file is not kept here: open it again.")
    opened = Text("Opened from a history file: checked move by move by the rules.")


def limits(request: Request) -> NewRooms:
    found: NewRooms | None = getattr(request.app.state, "opened_files", None)
    if found is None:
        found = request.app.state.opened_files = NewRooms(per_address=PER_ADDRESS, total=TOTAL, window=WINDOW)
    return found


def _form_page(request: Request, templates: Jinja2Templates, *, text: str = "", error: str | None = None,
               line: int = 0, status: int = 200) -> Response:
    lines = text.split("\n") if line else []
    line_text = lines[line - 1].removesuffix("\r")[:200] if 0 < line <= len(lines) else ""
    response = templates.TemplateResponse(request, "table/open_history.html",
                                          {"text": text, "error": error, "line": line, "line_text": line_text},
                                          status_code=status)
    response.headers["Cache-Control"] = "no-store"
    return response


@router.get("/replay", response_class=HTMLResponse)
async def open_page(request: Request, templates: TemplatesDep) -> Response:
    return _form_page(request, templates)


@router.post("/replay", response_class=HTMLResponse)
async def open_file(request: Request, manager: ManagerDep, templates: TemplatesDep) -> Response:
    full = limits(request).take(client_address(request))
    if full is not None:
        wait = max(1, math.ceil(full.wait))
        response = _form_page(request, templates, status=429, error=_(
            "You have opened many files just now; try again in %(minutes)d min.", minutes=math.ceil(wait / 60)))
        response.headers["Retry-After"] = str(wait)
        return response
    if int(request.headers.get("content-length") or 0) > MAX_BYTES + 10_000:
        return _form_page(request, templates, error=OpenText.too_big, status=413)
    form = await request.form(max_files=1, max_fields=4, max_part_size=MAX_BYTES)
    raw = await _raw_text(form.get("file"), form.get("text"))
    if isinstance(raw, Text):
        return _form_page(request, templates, error=raw, status=400 if raw != OpenText.too_big else 413)
    result = await asyncio.to_thread(_read_and_keep, manager, raw)
    if isinstance(result, HistoryError):
        return _form_page(request, templates, text=raw if len(raw) <= 200_000 else "", status=400,
                          error=result.message, line=result.line)
    return RedirectResponse(f"/replay/{result}", status_code=303)


async def _raw_text(upload: Any, pasted: Any) -> str | Text:
    if isinstance(upload, UploadFile) and upload.filename:
        data = await upload.read(MAX_BYTES + 1)
        if len(data) > MAX_BYTES:
            return OpenText.too_big
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            return OpenText.not_utf8
        if text.strip():
            return text
    if isinstance(pasted, str) and pasted.strip():
        return pasted if len(pasted.encode("utf-8")) <= MAX_BYTES else OpenText.too_big
    return OpenText.empty


def _read_and_keep(manager: RoomManager, text: str) -> str | HistoryError:
    """The key the file is kept under, or why it cannot be read (blocking: a worker thread)."""
    try:
        read_games(text)
    except HistoryError as exc:
        return exc
    key = hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]
    with session_scope(manager.db) as session:
        store.keep_history(session, key=key, text=text)
    return key


@router.get("/replay/{key}", response_class=HTMLResponse)
async def opened_replay(request: Request, key: str, manager: ManagerDep, templates: TemplatesDep,
                        game: str | None = None, step: str | None = None, deal: str | None = None) -> Response:
    return await asyncio.to_thread(_opened_response, request, manager, templates, key, game, step, deal)


def _opened_response(request: Request, manager: RoomManager, templates: Jinja2Templates, key: str,
                     game: str | None, step: str | None, deal: str | None) -> Response:
    found = kept_game(manager, key, game)
    if found is None:
        return _form_page(request, templates, error=OpenText.gone, status=404)
    story = found.story
    ctx = story_context(story, found.names, _whole(step) or 0, _whole(deal), step is not None)
    ctx |= {
        "slug": None,
        "preset": story.game.ruleset.name,
        "games": found.numbers,
        "chat_lines": None,
        "download_url": f"/replay/{key}/history.txt",
        "opened_from": OpenText.opened,
        "tags": found.tags,
        "analysis": section_for(request.app, file_key(key, story.number), f"/replay/{key}/analysis", story.number,
                                found.names, ctx["step"].index),
    }
    response = templates.TemplateResponse(request, "table/replay.html", ctx)
    response.headers["Cache-Control"] = "no-store"
    return response


@router.get("/replay/{key}/history.txt")
async def opened_file(key: str, manager: ManagerDep) -> Response:
    text = await asyncio.to_thread(_kept, manager, key)
    if text is None:
        return Response(say(OpenText.gone), status_code=404, media_type="text/plain; charset=utf-8")
    return Response(text.encode("utf-8"), media_type="text/plain; charset=utf-8", headers={
        "Content-Disposition": f'attachment; filename="gurka-{key[:8]}.txt"', "Cache-Control": "no-store"})


def _kept(manager: RoomManager, key: str) -> str | None:
    if not KEY.match(key):
        return None
    with session_scope(manager.db) as session:
        return store.get_history(session, key=key)
