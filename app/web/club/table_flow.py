"""The club night flows by itself: a club table's room page says which table and round it is,
and once its game is over, the result and each seated member's way to their next table ("Next:
Mellanbord, base round 3 — Play"), or "wait for the other tables" with the round's progress.

The panels are computed after every change of the night (`refresh`, off the event loop) and
kept in memory per room; the room's renderer reads them (`panel_html`, a hook registered in
`app.web.state.room_panels`), so a push costs no database query. Every room of the night
whose panel changed is published again, so the players see it without reloading.

"Next" is a POST to `/r/{slug}/club-next`: under the room's path, so the browser sends the
room's seat cookie (HttpOnly, SameSite=Lax), which proves who pressed it; the Origin is checked.
Pressing it is pressing Play: a player whom bots played for is back (`absent_bots.player_back`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any, cast

from fastapi import APIRouter, FastAPI, HTTPException, Request
from fastapi.responses import Response
from markupsafe import Markup

from app.club import Night
from app.club.constants import TABLE_NAMES
from app.i18n import Text, _
from app.rooms import LiveRoom, Refused
from app.store import night_replay
from app.store import nights as night_store
from app.store import results as result_store
from app.store.db import session_scope
from app.web.club import absent_bots
from app.web.club.common import redirect
from app.web.club.duplicate_decks import decks_of
from app.web.shared.security import origin_allowed, seat_token, set_seat_cookie
from app.web.state import manager_of, room_panels, templates_of

log = logging.getLogger("gurka.club.flow")

router = APIRouter(tags=["club"])

HAND_CLOSED = Text("An elder recorded this table by hand, so this online game is closed and no longer"
                   " counts.")


@dataclass(frozen=True)
class NextTable:
    key: str
    slug: str
    label: str  # "Mellanbord, base round 3"


@dataclass(frozen=True)
class TablePanel:
    night_id: int
    title: str  # "Vinderbord, base round 2"
    state: str  # playing | over | closed
    result: str = ""
    waiting: str = ""  # "Waiting for the other tables: 1 of 3 recorded."
    night_over: str = ""
    next_for: dict[int, NextTable] = field(default_factory=dict)  # by seat


def panels_of(app: FastAPI) -> dict[str, TablePanel]:
    found = getattr(app.state, "club_table_panels", None)
    if found is None:
        found = app.state.club_table_panels = {}
    return cast("dict[str, TablePanel]", found)


def install(app: FastAPI) -> None:
    """Register the room hook (once)."""
    panels = room_panels(app)
    if any(getattr(p, "__name__", "") == "club_table_panel" for p in panels):
        return

    def club_table_panel(room: LiveRoom, seat: int | None) -> str:
        return panel_html(app, room, seat) if room.state.club_table else ""  # a night's rooms are club tables

    panels.append(club_table_panel)


def table_title(stage: str, number: int, table: str) -> Text:
    title = TABLE_NAMES.get(table, table)
    if stage == "playoff":
        return Text("Playoff")
    if stage == "base":
        return Text("%(table)s, base round %(number)s", table=title, number=number)
    return Text("%(table)s, final round %(number)s", table=title, number=number)


def _slot_of(key: str) -> tuple[str, int, str] | None:
    parts = key.split("-")
    if len(parts) == 3 and parts[0] in ("base", "finals") and parts[1].isdigit():
        return parts[0], int(parts[1]), parts[2]
    return None


def _result_text(result: dict[str, Any]) -> str:
    out = result.get("out", [])
    if len(out) != 2:
        return ""
    first, second, winner = out[0], out[1], result.get("winner")
    agurker = ", ".join(f"{p} {n}" for p, n in (result.get("agurker") or {}).items())
    if agurker:
        return Text("%(first)s went out first, %(second)s second: %(winner)s wins the table."
                    " Agurker: %(agurker)s.", first=first, second=second, winner=winner, agurker=agurker)
    return Text("%(first)s went out first, %(second)s second: %(winner)s wins the table.",
                first=first, second=second, winner=winner)


def compute(row: night_store.Night, results: list[result_store.NightResult], night: Night) -> dict[str, TablePanel]:
    """Every room of the night: its panel, from the night as stored (pure)."""
    assert row.id is not None
    rooms: dict[str, Any] = row.state.get("rooms", {})
    recorded = {(r.phase, r.round, r.table): r for r in results if r.phase != "playoff"}
    by_player: dict[str, NextTable] = {}
    if night.phase in ("base", "finals"):
        for table in night.pending_tables:
            key = f"{night.stage}-{night.current.number}-{table}"
            entry = rooms.get(key)
            if entry:
                label = table_title(night.stage, night.current.number, table)
                for name in entry.get("players", []):
                    by_player[name] = NextTable(key, entry["slug"], label)
    elif night.phase == "playoff":
        groups = [sorted(g) for g in night.playoffs]
        for key, entry in rooms.items():
            if key.startswith(f"playoff-{night.stage}-") and sorted(entry.get("players", [])) in groups:
                for name in entry["players"]:
                    by_player[name] = NextTable(key, entry["slug"], Text("the playoff (one game to 21)"))
    done = sum(1 for t in night.current.seating if t in night.current.results)
    panels: dict[str, TablePanel] = {}
    for key, entry in rooms.items():
        slug, players = entry.get("slug"), entry.get("players", [])
        if not isinstance(slug, str):
            continue
        slot = _slot_of(key)
        title = table_title(*slot) if slot else Text("Playoff")
        stored = recorded.get(slot) if slot else None
        if slot and stored is None:
            current = (night.phase in ("base", "finals") and (slot[0], slot[1]) == (night.stage, night.current.number))
            panels[slug] = TablePanel(row.id, title, "playing" if current else "over")
            continue
        state = "closed" if stored is not None and stored.source == "hand" else "over"
        waiting = ""
        if slot and night.phase in ("base", "finals") and (slot[0], slot[1]) == (night.stage, night.current.number):
            waiting = Text("Waiting for the other tables: %(done)s of %(tables)s recorded."
                           " Your next table opens here by itself.", done=done, tables=len(night.current.seating))
        elif night.phase == "playoff":
            waiting = Text("Waiting for the playoff to settle a tie; the next round opens here by itself.")
        night_over = Text("The night is over: %(winner)s wins.", winner=night.winner) if night.phase == "done" else ""
        next_for = {seat: by_player[name] for seat, name in enumerate(players)
                    if name in by_player and by_player[name].slug != slug}
        panels[slug] = TablePanel(row.id, title, state, _result_text(stored.result) if stored else "",
                                  waiting if not next_for or len(next_for) < len(players) else "",
                                  night_over, next_for)
    return panels


def _load(app: FastAPI, night_id: int) -> dict[str, TablePanel]:
    with session_scope(app.state.engine) as session:
        loaded = night_replay.load(session, night_id=night_id)
        if loaded is None or loaded[0].mode != "online":
            return {}
        return compute(*loaded)


async def refresh(app: FastAPI, night_id: int) -> None:
    """Recompute the night's panels and push every room whose panel changed. Serialised, so a
    slower, older read never overwrites a newer one."""
    lock = getattr(app.state, "club_panels_lock", None)
    if lock is None:
        lock = app.state.club_panels_lock = asyncio.Lock()
    async with lock:
        try:
            fresh = await asyncio.to_thread(_load, app, night_id)
        except Exception:
            log.exception("night %s: could not compute its table panels", night_id)
            return
        _apply(app, fresh)


def _apply(app: FastAPI, fresh: dict[str, TablePanel]) -> None:
    panels = panels_of(app)
    manager = manager_of(app)
    for slug, panel in fresh.items():
        if panels.get(slug) == panel:
            continue
        before = panels.get(slug)
        panels[slug] = panel
        room = manager.rooms.get(slug)  # only rooms this process serves have sockets to push to
        if room is None:
            continue
        room.publish()
        if panel.state == "closed" and (before is None or before.state != "closed"):
            for conn in list(room.connections):
                room.tell(conn, HAND_CLOSED, "info", with_table=False)


WATCH_SECONDS = 3.0


def _open_online_nights(app: FastAPI) -> set[int]:
    with session_scope(app.state.engine) as session:
        return {n.id for n in night_store.list_nights(session, status="open") if n.mode == "online" and n.id is not None}


async def watch(app: FastAPI) -> None:
    """Keep this process's panels fresh when another process (or a restart) moved a night on:
    every few seconds each open online night's panels are recomputed (pushed only if changed);
    a night that just ended is refreshed once more for its final "the night is over"."""
    seen: set[int] = set()
    while True:
        try:
            now_open = await asyncio.to_thread(_open_online_nights, app)
            await asyncio.to_thread(decks_of(app).refresh)  # rounds other processes opened
            for night_id in sorted(now_open | seen):
                await refresh(app, night_id)
            seen = now_open
        except Exception:
            log.exception("club panels: the watch could not read the nights")
        await asyncio.sleep(WATCH_SECONDS)


def panel_html(app: FastAPI, room: LiveRoom, seat: int | None) -> str:
    panel = panels_of(app).get(room.state.slug)
    if panel is None:
        return ""
    template = templates_of(app).env.get_template("club/_table_panel.html")
    return Markup(template.render(panel=panel, next=panel.next_for.get(seat) if seat is not None else None,
                                  slug=room.state.slug, closed_text=HAND_CLOSED))


@router.post("/r/{slug}/club-next")
async def club_next(request: Request, slug: str) -> Response:
    """A seated member goes on to their next table: a fresh seat token there, then its room."""
    if not origin_allowed(request, list(request.app.state.settings.allowed_origins)):
        raise HTTPException(status_code=403, detail=_("This form did not come from this site."))
    manager = manager_of(request.app)
    room = await manager.find(slug) if len(slug) <= 64 else None
    if room is None:
        raise HTTPException(status_code=404, detail=_("No such room: check the link."))
    seat = room.seat_for_token(seat_token(request, slug))
    panel = panels_of(request.app).get(slug)
    nxt = panel.next_for.get(seat) if panel is not None and seat is not None else None
    if nxt is None:
        return redirect(f"/r/{slug}")  # nothing to go on to (yet), or not seated here: the page says so
    target = await manager.find(nxt.slug)
    entries = await asyncio.to_thread(_entries, request.app, panel.night_id) if panel else {}
    here: dict[str, Any] = next((e for e in entries.values() if e.get("slug") == slug), {})
    names, players = list(here.get("players", [])), list(entries.get(nxt.key, {}).get("players", []))
    me = names[seat] if seat is not None and seat < len(names) else None
    if target is None or panel is None or me is None or me not in players:
        return redirect(f"/r/{slug}")
    chair = players.index(me)
    try:
        token = await target.issue_token(chair)
    except Refused:
        return redirect(f"/r/{slug}")
    await absent_bots.player_back(request.app, panel.night_id, target, chair, me)
    response = redirect(f"/r/{target.state.slug}")
    response.headers["Cache-Control"] = "no-store"
    set_seat_cookie(response, slug=target.state.slug, token=token,
                    secure=bool(request.app.state.settings.secure_cookies))
    return response


def _entries(app: FastAPI, night_id: int) -> dict[str, Any]:
    with session_scope(app.state.engine) as session:
        row = night_store.get_night(session, night_id=night_id)
        return dict(row.state.get("rooms", {})) if row is not None else {}
