"""A room's table talk: messages, quick reactions, the host's mute and spectator switches.

Talk never touches the game: it takes no game lock, moves no version and re-renders no table.
Each line is stored first (off the event loop), then told to everybody as news of its own (the
audience appends it to each page's chat log); a page load or a sync (a reconnect) gets the
recent lines.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from app.rooms.chat import (
    MUTE,
    REACT,
    SAY,
    SPECTATORS,
    UNMUTE,
    ChatLine,
    ChatLog,
    ChatRefused,
    ChatText,
    check_reaction,
    clean_text,
)
from app.rooms.herald import Herald
from app.rooms.news import NewsKind, Reaction, Reader
from app.rooms.state import RoomState


class Talk:
    def __init__(self, state: RoomState, herald: Herald, save: Callable[[ChatLine], None]) -> None:
        self.state = state
        self.herald = herald
        self.save = save  # stores one line with the room (blocking: called off the event loop)
        self.chat = ChatLog()  # table talk: kept apart from the game, never moves the version
        self.lock = asyncio.Lock()  # one line stored at a time

    def offer_chat(self, conn: Reader) -> None:
        """The recent talk and this seat's chat form, after a sync (a page reconnecting asks for
        one; a freshly loaded page already shows them)."""
        self.herald.announce(NewsKind.TALK, [conn])

    # ------------------------------------------------------------------ storing

    def _talker_name(self, seat: int | None) -> str:
        s = self.state.seats.get(seat) if seat is not None else None
        return s.name if s is not None else ChatText.spectator

    async def _keep(self, line: ChatLine) -> None:
        """Store the line (off the loop), then remember it; one line at a time per room."""
        async with self.lock:
            await asyncio.to_thread(self.save, line)
            self.chat.add(line)

    # ------------------------------------------------------------------ requests

    async def say(self, conn: Reader, raw: Any) -> None:
        text = clean_text(raw)
        seat = conn.seat
        self.chat.check_talker(seat, _talker_key(conn))
        line = ChatLine(SAY, seat, self._talker_name(seat), text)
        await self._keep(line)
        self.herald.announce(NewsKind.CHAT, lines=(line,))

    async def react(self, conn: Reader, raw: Any) -> None:
        emoji = check_reaction(raw)
        seat = conn.seat
        self.chat.check_talker(seat, _talker_key(conn))
        line = ChatLine(REACT, seat, self._talker_name(seat), emoji)
        await self._keep(line)
        self.herald.announce(NewsKind.CHAT, lines=(line,))
        if seat is not None:
            self.herald.announce(NewsKind.REACTION, reaction=Reaction(seat, emoji))

    async def set_muted(self, by: int | None, seat: int, muted: bool) -> None:
        if by is None or by != self.state.host:
            raise ChatRefused(ChatText.host_only)
        if seat == by:
            raise ChatRefused(ChatText.not_self)
        if seat not in self.state.seats:
            raise ChatRefused(ChatText.no_seat)
        if (seat in self.chat.muted) == muted:
            return
        line = ChatLine(MUTE if muted else UNMUTE, seat, self.state.seats[seat].name, "")
        await self._keep(line)
        self.herald.announce(NewsKind.CHAT, lines=(line,))
        self.herald.announce(NewsKind.CHAT_RULES)

    async def set_spectators(self, by: int | None, allowed: bool) -> None:
        if by is None or by != self.state.host:
            raise ChatRefused(ChatText.host_only)
        if self.chat.spectators_allowed == allowed:
            return
        line = ChatLine(SPECTATORS, None, self._talker_name(by), "on" if allowed else "off")
        await self._keep(line)
        self.herald.announce(NewsKind.CHAT, lines=(line,))
        self.herald.announce(NewsKind.CHAT_RULES)


def _talker_key(conn: Reader) -> str:
    """Rate limits count per seat; a spectator counts per connection."""
    return f"seat:{conn.seat}" if conn.seat is not None else f"conn:{conn.id}"
