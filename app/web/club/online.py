"""A Gurka Night played online: each table of a round (and each playoff) is a `gurka-night` room.

The rooms layer tells us when a game ends (`RoomManager.on_game_over`, called after the final
event is committed); `advance` then records the table's result from the engine (out order, who
took any penalty card, agurker from the deal log) and opens the next round's rooms, seated in
the night's chair order with its lot-drawn first dealer. Nothing waits for a page to be viewed.
At start, `catch_up` runs `advance` for every open online night, so a game that ended just
before a restart is still recorded.

`nights.state["rooms"]` maps a table key to its room slug and the players in seat order; no seat
token is ever stored. A player's Play link (`issue_seat`) mints a fresh token for their seat.
"""

from __future__ import annotations

import asyncio
import logging
import secrets
import threading
from typing import Any, cast

from fastapi import FastAPI

from app.club import Night, RoundResult
from app.nights.words import describe_slot
from app.rooms import LiveRoom, Refused, RoomManager, RoomStatus
from app.store import night_replay
from app.store import nights as night_store
from app.store.db import session_scope
from app.web.club import absent_bots, table_flow
from app.web.club.duplicate_decks import decks_of
from app.web.state import manager_of

log = logging.getLogger("gurka.club.online")
# One night's state is read, changed and written back by several threads of this process (a
# table's result, a new room): one at a time, so none undoes another.
_NIGHT_WRITES = threading.Lock()

PRESET = "gurka-night"
DEFAULT_TURN_SECONDS = 60
MAX_ONLINE_PLAYOFF = 7  # gurka-night seats 2-7; a larger playoff is recorded by hand


def room_key(stage: str, number: int, table: str) -> str:
    return f"{stage}-{number}-{table}"


def playoff_key(stage: str, index: int) -> str:
    return f"playoff-{stage}-{index}"


def result_from_game(game: Any, names: list[str]) -> RoundResult:
    """A finished `gurka-night` game at a club table as a round result (RULES.md §7.1, §7.2):
    out order from the engine, who took any penalty card from its deal log, agurker per seat."""
    out = [names[s] for s in game.out[:2]]
    winner = next(n for n in names if n not in out)
    took = {names[s] for deal in game.deal_log for s in deal.losers}
    agurker = {names[s]: n for s, n in enumerate(game.agurk) if n}
    return RoundResult(out=out, winner=winner, took_cards=took, agurker=agurker)


def playoff_order(game: Any, names: list[str]) -> list[str]:
    """A finished playoff game's players, best first."""
    return [names[s] for s in game.ranking]


def _finished(room: LiveRoom | None, players: int) -> bool:
    game = room.state.game if room is not None else None
    return bool(room is not None and room.state.status == RoomStatus.OVER and game is not None and game.over
                and len(room.state.seats) == players)


def _lock(app: FastAPI) -> asyncio.Lock:
    lock = getattr(app.state, "club_online_lock", None)
    if lock is None:
        lock = app.state.club_online_lock = asyncio.Lock()
    return lock


# ------------------------------------------------------------------ wiring


def install(app: FastAPI) -> None:
    """Record a night's tables when their games end (called once, when the app starts)."""
    manager = manager_of(app)
    if getattr(app.state, "club_online_installed", False):
        return
    app.state.club_online_installed = True
    table_flow.install(app)
    manager.use_decks(decks_of(app))

    async def on_game_over(room: LiveRoom) -> None:
        # The game's last move may come from a player's socket, whose handler is cancelled when
        # the player closes the page at once: the night must move on all the same (a round half
        # opened would wait for a restart), so it moves on in a task of its own.
        task = asyncio.create_task(_advance_after(app, room.state.slug), name=f"night-after-{room.state.slug}")
        moving = _moving(app)
        moving.add(task)
        task.add_done_callback(moving.discard)
        await asyncio.shield(task)

    manager.on_game_over(on_game_over)


def _moving(app: FastAPI) -> set[asyncio.Task[None]]:
    found = getattr(app.state, "club_nights_moving", None)
    if found is None:
        found = app.state.club_nights_moving = set()
    return cast("set[asyncio.Task[None]]", found)


async def _advance_after(app: FastAPI, slug: str) -> None:
    """The night of the room `slug` (if any) records its game and moves on."""
    try:
        night_id = await asyncio.to_thread(night_of_room, app, slug)
        if night_id is not None:
            await advance(app, night_id)
    except Exception:
        log.exception("room %s: its night could not move on", slug)


async def load_decks(app: FastAPI) -> None:
    """At start, before the rooms deal again: the decks of every open duplicate night."""
    await asyncio.to_thread(decks_of(app).refresh)


async def catch_up(app: FastAPI) -> None:
    """At start: every open online night records what its rooms finished and opens what is due."""
    for night_id in await asyncio.to_thread(_open_online_nights, app):
        try:
            await advance(app, night_id)
        except Exception:
            log.exception("night %s: could not catch up with its rooms", night_id)


def _open_online_nights(app: FastAPI) -> list[int]:
    with session_scope(app.state.engine) as session:
        return [n.id for n in night_store.list_nights(session, status="open") if n.mode == "online" and n.id is not None]


def night_of_room(app: FastAPI, slug: str) -> int | None:
    with session_scope(app.state.engine) as session:
        for row in night_store.list_nights(session, status="open"):
            if row.mode == "online" and any(
                e.get("slug") == slug for e in row.state.get("rooms", {}).values()
            ):
                return row.id
    return None


# ------------------------------------------------------------------ the night moves on


async def advance(app: FastAPI, night_id: int) -> None:
    """Record every finished table (or playoff) of an online night from its room, then open the
    rooms still to play. Idempotent; serialised per app."""
    async with _lock(app):
        for _ in range(100):  # a round may complete and open the next one
            if not await _step(app, night_id):
                break
    await table_flow.refresh(app, night_id)
    await apply_bot_wishes(app, night_id)


async def _step(app: FastAPI, night_id: int) -> bool:
    """One pass; True if a result was recorded (so the night may have moved on). The database
    work runs in worker threads; the rooms are read here, on the event loop."""
    loaded = await asyncio.to_thread(_open_online_night, app, night_id)
    if loaded is None:
        return False
    night, rooms, duplicate = loaded
    manager = manager_of(app)
    if night.phase in ("base", "finals"):
        stage, number = night.stage, night.current.number
        for table in night.pending_tables:
            key = room_key(stage, number, table)
            chairs = list(night.current.seating[table])
            dealer = chairs.index(night.dealers[table])
            entry = rooms.get(key)
            if entry is None or entry.get("players") != chairs or entry.get("dealer") != dealer:
                decks = (await asyncio.to_thread(decks_of(app).ensure, night_id, stage, number)
                         if duplicate else None)
                await _open(app, manager, night_id, rooms, key, chairs, dealer, deck_key=decks)
                continue
            room = await manager.find(entry["slug"])
            if not _finished(room, len(chairs)):
                continue
            assert room is not None
            result = result_from_game(room.state.game, chairs)
            if await asyncio.to_thread(_record, app, night_id, stage=stage, number=number, table=table,
                                       result=result):
                return True
    elif night.phase == "playoff":
        stage = night.stage
        for group in night.playoffs:
            if not 2 <= len(group) <= MAX_ONLINE_PLAYOFF:
                continue
            key = playoff_key(stage, sum(1 for k in rooms if k.startswith(f"playoff-{stage}-")) + 1)
            entry = next(
                (e for k, e in rooms.items() if k.startswith(f"playoff-{stage}-")
                 and sorted(e.get("players", [])) == sorted(group)),
                None,
            )
            if entry is None:
                await _open(app, manager, night_id, rooms, key, list(group), secrets.randbelow(len(group)))
                continue
            room = await manager.find(entry["slug"])
            if not _finished(room, len(group)):
                continue
            assert room is not None
            order = playoff_order(room.state.game, entry["players"])
            if await asyncio.to_thread(_record_playoff, app, night_id, stage=stage, order=order):
                return True
    return False


async def _open(app: FastAPI, manager: RoomManager, night_id: int, rooms: dict[str, Any], key: str,
                players: list[str], dealer: int, *, deck_key: str | None = None) -> None:
    """A table's room, seated in chair order with its first dealer (on a duplicate night, dealing
    from its round's decks, `deck_key`); remembered in the night (and in `rooms`, the caller's
    copy of the night's rooms)."""
    turn_seconds, level = await asyncio.to_thread(_table_settings, app, night_id)
    try:
        room = await manager.create_table(preset=PRESET, options={}, names=players, dealer=dealer,
                                          turn_seconds=turn_seconds, deck_key=deck_key, bot_level=level)
    except Refused:
        log.exception("night %s: could not open the room for %s", night_id, key)
        return
    entry = await asyncio.to_thread(_remember_room, app, night_id, key, players, dealer, room.state.slug)
    if entry is not None:
        rooms[key] = entry


def _open_online_night(app: FastAPI, night_id: int) -> tuple[Night, dict[str, Any], bool] | None:
    """The night, its rooms and whether it deals duplicate decks, if it is an open online night."""
    with session_scope(app.state.engine) as session:
        loaded = night_replay.load(session, night_id=night_id)
        if loaded is None:
            return None
        row, _results, night = loaded
        if row.mode != "online" or row.status != "open":
            return None
        return night, dict(row.state.get("rooms", {})), row.duplicate


def _table_settings(app: FastAPI, night_id: int) -> tuple[float, str]:
    """A new table's turn timer: its seconds, and the level of the bot that moves when they run
    out (the level the night's elders chose for its bots; medium if none)."""
    with session_scope(app.state.engine) as session:
        night_row = night_store.get_night(session, night_id=night_id)
        if night_row is None:
            return DEFAULT_TURN_SECONDS, absent_bots.night_level({})
        return night_row.turn_seconds, absent_bots.night_level(night_row.state)


def _remember_room(app: FastAPI, night_id: int, key: str, players: list[str], dealer: int,
                   slug: str) -> dict[str, Any] | None:
    """Keep the table's new room with the night; None if another process opened it meanwhile."""
    with _NIGHT_WRITES, session_scope(app.state.engine) as session:
        fresh = night_store.get_night(session, night_id=night_id)
        if fresh is None:
            return None
        theirs = fresh.state.get("rooms", {}).get(key)
        if theirs and theirs.get("players") == players and theirs.get("dealer") == dealer:
            log.warning("night %s: %s was opened meanwhile (another process); room %s unused",
                        night_id, key, slug)
            return None
        entry = {"slug": slug, "players": players, "dealer": dealer}
        stored = {**fresh.state.get("rooms", {}), key: entry}
        night_store.save_night_state(session, night_id=night_id, state={**fresh.state, "rooms": stored},
                               status=fresh.status, winner=fresh.winner)
    return entry


def _record(app: FastAPI, night_id: int, *, stage: str, number: int, table: str, result: RoundResult) -> bool:
    with _NIGHT_WRITES, session_scope(app.state.engine) as session:
        loaded = night_replay.load(session, night_id=night_id)
        if loaded is None:
            return False
        row, _results, night = loaded
        if night.stage != stage or night.current.number != number or table not in night.pending_tables:
            return False  # recorded meanwhile (by hand) or the night moved on
        night_replay.add_table_result(session, row, night, table=table, result=result, by="online table",
                                      source="online")
    log.info("night %s: %s recorded from its room", night_id, describe_slot(stage, number, table))
    return True


def _record_playoff(app: FastAPI, night_id: int, *, stage: str, order: list[str]) -> bool:
    with _NIGHT_WRITES, session_scope(app.state.engine) as session:
        loaded = night_replay.load(session, night_id=night_id)
        if loaded is None:
            return False
        row, results, night = loaded
        if night.phase != "playoff" or night.stage != stage or sorted(order) not in [sorted(g) for g in night.playoffs]:
            return False
        night_replay.add_playoff(session, row, night, order=order, by="online table", source="online",
                                 count=sum(1 for r in results if r.phase == "playoff"))
    log.info("night %s: the playoff of %s recorded from its room", night_id, ", ".join(order))
    return True


# ------------------------------------------------------------------ seats


def room_entry(row: night_store.Night, key: str) -> dict[str, Any] | None:
    entry = row.state.get("rooms", {}).get(key)
    return entry if isinstance(entry, dict) and "slug" in entry else None


async def issue_seat(app: FastAPI, row: night_store.Night, key: str, chair: int) -> tuple[str, str] | None:
    """(room slug, a fresh seat token) for the player in `chair` of an online table; the seat's
    previous token stops working, and the player is back (`absent_bots.player_back`). None if
    there is no such open room or chair."""
    entry = room_entry(row, key)
    if entry is None or not 0 <= chair < len(entry.get("players", [])):
        return None
    room = await manager_of(app).find(entry["slug"])
    if room is None or chair not in room.state.seats:
        return None
    try:
        token = await room.issue_token(chair)
    except Refused:
        return None
    assert row.id is not None
    await absent_bots.player_back(app, row.id, room, chair, entry["players"][chair])
    return room.state.slug, token


# ------------------------------------------------------------------ bots for the absent


def current_rooms(row: night_store.Night, night: Night) -> dict[str, dict[str, Any]]:
    """The rooms of the round (or the playoffs) being played now, by table key: the tables whose
    room is seated as the round is, and the playoff rooms of groups still to settle."""
    rooms: dict[str, Any] = row.state.get("rooms", {})
    found: dict[str, dict[str, Any]] = {}
    if night.phase in ("base", "finals"):
        for table in night.pending_tables:
            key = room_key(night.stage, night.current.number, table)
            entry = room_entry(row, key)
            if entry is not None and entry.get("players") == list(night.current.seating[table]):
                found[key] = entry
    elif night.phase == "playoff":
        groups = [sorted(g) for g in night.playoffs]
        for key, entry in rooms.items():
            if (key.startswith(f"playoff-{night.stage}-") and isinstance(entry, dict) and "slug" in entry
                    and sorted(entry.get("players", [])) in groups):
                found[key] = entry
    return found


async def apply_bot_wishes(app: FastAPI, night_id: int) -> None:
    """If the night's bots for the absent are on, watch every room it is playing now."""
    loaded = await asyncio.to_thread(_rooms_now, app, night_id)
    if loaded is not None:
        playing, opened = loaded
        await absent_bots.carry_out(app, night_id, playing, opened)


def _rooms_now(app: FastAPI, night_id: int) -> tuple[list[dict[str, Any]], list[dict[str, Any]]] | None:
    with session_scope(app.state.engine) as session:
        loaded = night_replay.load(session, night_id=night_id)
        if loaded is None or loaded[0].mode != "online" or loaded[0].status != "open":
            return None
        row, _results, night = loaded
        opened = [e for e in row.state.get("rooms", {}).values() if isinstance(e, dict) and "slug" in e]
        return list(current_rooms(row, night).values()), opened


async def stop(app: FastAPI) -> None:
    """Let a night that is moving on finish, then stop watching the rooms for absent players
    (the switch is kept with the night and watching resumes at the next start)."""
    moving = list(_moving(app))
    if moving:  # a round half opened is opened at the next start all the same (`catch_up`)
        _done, late = await asyncio.wait(moving, timeout=5)
        for task in late:
            task.cancel()
        await asyncio.gather(*late, return_exceptions=True)
    await absent_bots.stop(app)
