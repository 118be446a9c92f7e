"""Bots for the absent: an elder's wish, pressed once, that for the rest of an online night a bot
plays the seat of every player who is not at their table.

- The switch is the night's (`nights.bots_for_absent_by`: who turned it on; None: off), so it
  holds for every later room of the night, playoffs and finals included, and across restarts.
- Each room of the night is watched while it plays (`watch_room`). A player's absent seat goes to
  a bot as soon as the room allows: after the player's grace time (`SEAT_TAKEOVER_SECONDS`: a
  player walking over from their last table is not overtaken), or at once for a player who is
  *away*.
- Away (`night_absences`, one row per player): a bot took their seat at this night and they have
  not come back since. They come back by pressing Play (on the night page, or "Next: … — Play"
  in a room), which ends the wish for them and gives their seat back from the bot; or by taking
  their seat back at their table and staying there.
- Turning the switch off ends it for everyone; seats already played by a bot stay so until their
  players take them back.
- The elder who turns it on picks the bots' level (kept in the night's state, ``bot_level``;
  medium unless chosen); each handed-over seat's level is stored with its room's takeover. It
  is the night's level: the turn timer of every table of the night plays at it too (the tables
  playing when it is chosen, and every table opened after).

Rooms are changed on the event loop; the night's rows are read and written in worker threads.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, cast
from zoneinfo import ZoneInfo

from fastapi import FastAPI, Request
from sqlmodel import Session

from app.rooms import LiveRoom, Refused, RoomStatus
from app.rooms.bot_levels import DEFAULT_LEVEL, level_or_default
from app.store import absences as absence_store
from app.store import nights as night_store
from app.store import rooms as room_store
from app.store.db import session_scope
from app.web.club.common import nice_moment
from app.web.state import manager_of

log = logging.getLogger("gurka.club.bots")

RETRY_SECONDS = 0.5  # how often a watched room is looked at again (in memory; no query unless needed)


@dataclass(frozen=True)
class Wish:
    on: bool
    away: frozenset[str]
    level: str = DEFAULT_LEVEL  # the level of the bots that play for the absent (the elders')


# ------------------------------------------------------------------ the night's rows (worker threads)


def switch(app: FastAPI, night_id: int, by: str | None, level: str = DEFAULT_LEVEL) -> bool:
    """Turn the night's bots for the absent on (`by`: the elder; the bots of `level`, kept in
    the night's state as ``bot_level``) or off (None); False if there is no such open online
    night."""
    with session_scope(app.state.engine) as session:
        row = night_store.get_night(session, night_id=night_id)
        if row is None or row.mode != "online" or row.status != "open":
            return False
        if by is not None and row.bots_for_absent_by is None:
            night_store.save_night_state(session, night_id=night_id, state={**row.state, "bot_level": level},
                                   status=row.status, winner=row.winner)
        night_store.set_bots_for_absent(session, night_id=night_id, by=by)
    return True


def night_level(state: dict[str, Any]) -> str:
    """The level the night's elders chose for the bots of the absent (medium if none)."""
    return level_or_default(state.get("bot_level"))


def wish_of(app: FastAPI, night_id: int) -> Wish:
    with session_scope(app.state.engine) as session:
        row = night_store.get_night(session, night_id=night_id)
        if row is None or row.bots_for_absent_by is None or row.status != "open":
            return Wish(False, frozenset())
        return Wish(True, frozenset(a.player for a in absence_store.list_absences(session, night_id=night_id)),
                    night_level(row.state))


def club_moment(request: Request, at: datetime | None) -> str:
    """When something happened, to the minute, on the club's clock (`CLUB_TIME_ZONE`)."""
    if at is None:
        return ""
    zone = ZoneInfo(request.app.state.settings.club_time_zone)
    return nice_moment((at if at.tzinfo is not None else at.replace(tzinfo=UTC)).astimezone(zone))


def _mark_away(app: FastAPI, night_id: int, name: str) -> None:
    with session_scope(app.state.engine) as session:
        if absence_store.mark_absent(session, night_id=night_id, player=name):
            log.info("night %s: %s is away; bots play for them until they press Play", night_id, name)


def _end_absence(app: FastAPI, night_id: int, name: str) -> None:
    with session_scope(app.state.engine) as session:
        if absence_store.end_absence(session, night_id=night_id, player=name):
            log.info("night %s: %s pressed Play and is back", night_id, name)


def botted_players(session: Session, entries: list[dict[str, Any]]) -> set[str]:
    """The players whose seat a bot plays now at these rooms (as stored: any process's rooms)."""
    names: set[str] = set()
    for entry in entries:
        room = room_store.get_room(session, slug=entry["slug"])
        if room is None or room.id is None or room.status != RoomStatus.PLAYING:
            continue
        players = entry.get("players", [])
        for seat in room_store.list_seats(session, room_id=room.id):
            if (seat.bot_controlled or seat.is_bot) and 0 <= seat.seat < len(players):
                names.add(players[seat.seat])
    return names


# ------------------------------------------------------------------ carrying it out (event loop)


def _tasks(app: FastAPI) -> dict[tuple[int, str], asyncio.Task[None]]:
    """The rooms watched, by (night, room slug)."""
    found = getattr(app.state, "club_bot_tasks", None)
    if found is None:
        found = app.state.club_bot_tasks = {}
    return cast("dict[tuple[int, str], asyncio.Task[None]]", found)


async def carry_out(app: FastAPI, night_id: int, playing: list[dict[str, Any]],
                    opened: list[dict[str, Any]]) -> None:
    """Watch every room of the night still playing (`playing`: their entries, slug and players)
    if the night's switch is on, and no other room of it (a table recorded by hand, a switch
    turned off). `opened`: every room the night ever opened (to see whether an away player came
    back at their last table)."""
    wish = await asyncio.to_thread(wish_of, app, night_id)
    tasks = _tasks(app)
    wanted = {entry["slug"] for entry in playing} if wish.on else set()
    for (night, slug), task in list(tasks.items()):
        if night == night_id and (slug not in wanted or task.done()):
            task.cancel()
            del tasks[(night, slug)]
    if wish.on:  # the tables playing now: their turn timers play at the night's level too
        await _host_level(app, [entry["slug"] for entry in playing], wish.level)
    for entry in playing:
        key = (night_id, entry["slug"])
        if entry["slug"] in wanted and key not in tasks:
            tasks[key] = asyncio.create_task(
                watch_room(app, night_id, entry["slug"], list(entry.get("players", [])), opened),
                name=f"absent-bots-{entry['slug']}")
            tasks[key].add_done_callback(_log_failure)


async def _host_level(app: FastAPI, slugs: list[str], level: str) -> None:
    """The host's level of these rooms (the turn timer's move) is `level` (stored as an event)."""
    manager = manager_of(app)
    for slug in slugs:
        room = await manager.find(slug)
        if room is None or room.state.status != RoomStatus.PLAYING or room.state.bot_levels.host == level:
            continue
        try:
            await room.actions.set_host_level(level)
        except Refused:
            continue  # the room moved on meanwhile (another process): its own next look sets it


def _log_failure(task: asyncio.Task[None]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.error("%s failed", task.get_name(), exc_info=task.exception())


async def watch_room(app: FastAPI, night_id: int, slug: str, names: list[str],
                     opened: list[dict[str, Any]]) -> None:
    """Until the room's game is over (or the switch is off): hand each absent seat to a bot as
    soon as the room allows, and remember its player as away."""
    manager = manager_of(app)
    marked: set[str] = set()
    while True:
        room = await manager.find(slug)
        if room is None or room.state.status == RoomStatus.OVER:
            return
        if room.state.status == RoomStatus.PLAYING:
            present = room.present()
            absent = [s for s in sorted(room.state.seats) if s not in present and not room.state.seats[s].is_bot]
            todo = [s for s in absent if not room.state.seats[s].botted]
            unmarked = [s for s in absent if room.state.seats[s].botted and _name(room, names, s) not in marked]
            if todo or unmarked:
                wish = await asyncio.to_thread(wish_of, app, night_id)
                if not wish.on:
                    return
                marked = set(wish.away)
                for seat in todo:
                    name = _name(room, names, seat)
                    at_once = name in wish.away and not _came_back(manager, opened, slug, name)
                    try:
                        await room.hand_to_bot(room.state.host, seat, grace=not at_once, level=wish.level)
                    except Refused:
                        continue  # not allowed yet (grace time), or moved meanwhile: look again soon
                    unmarked.append(seat)
                for seat in unmarked:
                    name = _name(room, names, seat)
                    if name not in marked:
                        await asyncio.to_thread(_mark_away, app, night_id, name)
                        marked.add(name)
        await asyncio.sleep(RETRY_SECONDS)


def _name(room: LiveRoom, names: list[str], seat: int) -> str:
    return names[seat] if 0 <= seat < len(names) else room.state.seats[seat].name


def _came_back(manager: Any, opened: list[dict[str, Any]], here: str, name: str) -> bool:
    """Whether `name` is at their last other table of the night, playing their own seat (this
    process's rooms only: elsewhere they count as still away until they press Play)."""
    for entry in reversed(opened):
        players = entry.get("players", [])
        if entry.get("slug") == here or name not in players:
            continue
        room = manager.rooms.get(entry["slug"])
        seat = players.index(name)
        return bool(room is not None and seat in room.state.seats and not room.state.seats[seat].botted
                    and seat in room.present())
    return False


async def player_back(app: FastAPI, night_id: int, room: LiveRoom, seat: int, name: str) -> None:
    """A player pressed Play for their seat in `room`: they are no longer away, and a bot that
    plays their seat gives it back."""
    await asyncio.to_thread(_end_absence, app, night_id, name)
    s = room.state.seats.get(seat)
    if s is not None and s.bot_controlled:
        try:
            await room.take_back(seat)
        except Refused:
            pass  # given back meanwhile


async def stop(app: FastAPI) -> None:
    """Stop watching (the switch is kept with the night; watching resumes at the next start)."""
    tasks = list(_tasks(app).values())
    for task in tasks:
        task.cancel()
    await asyncio.gather(*tasks, return_exceptions=True)
