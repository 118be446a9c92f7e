"""Who may watch a table: anyone, except a table of a duplicate round while the round is on.

At a duplicate round every table plays the same decks, so watching one table would show a
player of another table the cards they are about to hold. Until the round is over at every
table, only the table's own players see it (their page and their socket); a watcher is told
why and when it opens.
"""

from __future__ import annotations

import asyncio

from app.rooms import RoomManager
from app.rooms.room import LiveRoom
from app.rules.text import Text

WATCH_LATER = Text("This table plays the same cards as the other tables of its round (duplicate deals), "
                   "so it opens to watchers once the round is over at every table.")
WATCH_LATER_CLOSE = "duplicate round on: watching opens when it is over at every table"


async def held_back(manager: RoomManager, room: LiveRoom, token: str | None) -> bool:
    """True when this visitor may not see the table now: not seated at a duplicate table whose
    round is still on somewhere (the decks' check reads the database: off the loop)."""
    if room.state.deck_key is None or room.seat_for_token(token) is not None:
        return False
    return await asyncio.to_thread(manager.decks_secret, room.state.deck_key)
