"""Note which member's device takes a seat (made a room, joined one), for the club's ratings:
an online game counts when every seat was a member's (`app.ratings.sources`). Off the event
loop; a failure here never stops anyone from sitting down."""

from __future__ import annotations

import asyncio
import logging

from fastapi import Request

from app.store import seat_members as store
from app.store.db import session_scope
from app.web.club import identity

log = logging.getLogger("gurka.ratings")


def _note(request: Request, room_id: int, seat: int) -> None:
    member = identity.remembered(request)
    with session_scope(request.app.state.engine) as session:
        store.seat_taken(session, room_id=room_id, seat=seat, member_id=member.member_id if member else None)


async def note_seat(request: Request, room_id: int | None, seat: int | None) -> None:
    if room_id is None or seat is None:
        return
    try:
        await asyncio.to_thread(_note, request, room_id, seat)
    except Exception:
        log.exception("could not note who took seat %s of room %s", seat, room_id)
