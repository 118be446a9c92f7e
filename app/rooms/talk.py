"""A room's table talk: messages, quick reactions, the host's mute and spectator switches.

Talk never touches the game: it takes no game lock, moves no version and re-renders no table.
Each line is stored first (off the event loop), then pushed to every connection as its own small
frame appended to the chat log; a page load or a sync (a reconnect) gets the recent lines.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from app.i18n import current_language, use_language
from app.rooms.chat import (
    MUTE,
    REACT,
    SAY,
    SPECTATORS,
    UNMUTE,
    ChatLine,
    ChatRefused,
    ChatText,
    check_reaction,
    clean_text,
)
from app.rooms.hub import Connection
from app.rooms.publishing import RoomPublishing


class RoomTalk(RoomPublishing):
    # ------------------------------------------------------------------ frames

    def chat_lines_frame(self, lines: list[ChatLine], *, replace: bool = False, lang: str | None = None) -> str:
        with use_language(lang or current_language()):
            html = self.manager.render_chat(self, lines)
        return json.dumps({"kind": "chat", "content": html, "target": "#chat-log",
                           "swap": "innerHTML" if replace else "beforeend"})

    def chat_form_frame(self, seat: int | None, lang: str | None = None) -> str:
        with use_language(lang or current_language()):
            html = self.manager.render_chat_form(self, seat)
        return json.dumps({"kind": "chatform", "content": html, "target": "#chat-form", "swap": "outerHTML"})

    def reaction_frame(self, seat: int, emoji: str) -> str:
        html = self.manager.render_reaction(emoji)
        return json.dumps({"kind": "reaction", "seat": seat, "content": html, "target": f"#react-{seat}",
                           "swap": "innerHTML"})

    def offer_chat(self, conn: Connection) -> None:
        """The recent talk and this seat's chat form, after a sync (a page reconnecting asks for
        one; a freshly loaded page already shows them)."""
        conn.offer(self.chat_lines_frame(list(self.chat.lines), replace=True, lang=conn.lang))
        conn.offer(self.chat_form_frame(conn.seat, conn.lang))

    def _to_all(self, frame: Callable[[str], str]) -> None:
        """Offer every connection `frame(lang)`, rendered once per language."""
        cache: dict[str, str] = {}
        for conn in list(self.connections):
            if not conn.closed:
                if conn.lang not in cache:
                    cache[conn.lang] = frame(conn.lang)
                conn.offer(cache[conn.lang])

    def _forms_to_all(self) -> None:
        cache: dict[tuple[int | None, str], str] = {}
        for conn in list(self.connections):
            if conn.closed:
                continue
            key = (conn.seat, conn.lang)
            if key not in cache:
                cache[key] = self.chat_form_frame(conn.seat, conn.lang)
            conn.offer(cache[key])

    # ------------------------------------------------------------------ storing

    def _talker_name(self, seat: int | None) -> str:
        s = self.seats.get(seat) if seat is not None else None
        return s.name if s is not None else ChatText.spectator

    async def _keep(self, line: ChatLine) -> None:
        """Store the line (off the loop), then remember it; one line at a time per room."""
        async with self.chat_lock:
            await asyncio.to_thread(self.manager.save_chat, self, line)
            self.chat.add(line)

    # ------------------------------------------------------------------ requests

    async def say(self, conn: Connection, raw: Any) -> None:
        text = clean_text(raw)
        seat = conn.seat
        self.chat.check_talker(seat, _talker_key(conn))
        line = ChatLine(SAY, seat, self._talker_name(seat), text)
        await self._keep(line)
        self._to_all(lambda lang: self.chat_lines_frame([line], lang=lang))

    async def react(self, conn: Connection, raw: Any) -> None:
        emoji = check_reaction(raw)
        seat = conn.seat
        self.chat.check_talker(seat, _talker_key(conn))
        line = ChatLine(REACT, seat, self._talker_name(seat), emoji)
        await self._keep(line)
        self._to_all(lambda lang: self.chat_lines_frame([line], lang=lang))
        if seat is not None:
            self._to_all(lambda lang: self.reaction_frame(seat, emoji))

    async def set_muted(self, by: int | None, seat: int, muted: bool) -> None:
        if by is None or by != self.host:
            raise ChatRefused(ChatText.host_only)
        if seat == by:
            raise ChatRefused(ChatText.not_self)
        if seat not in self.seats:
            raise ChatRefused(ChatText.no_seat)
        if (seat in self.chat.muted) == muted:
            return
        line = ChatLine(MUTE if muted else UNMUTE, seat, self.seats[seat].name, "")
        await self._keep(line)
        self._to_all(lambda lang: self.chat_lines_frame([line], lang=lang))
        self._forms_to_all()

    async def set_spectators(self, by: int | None, allowed: bool) -> None:
        if by is None or by != self.host:
            raise ChatRefused(ChatText.host_only)
        if self.chat.spectators_allowed == allowed:
            return
        line = ChatLine(SPECTATORS, None, self._talker_name(by), "on" if allowed else "off")
        await self._keep(line)
        self._to_all(lambda lang: self.chat_lines_frame([line], lang=lang))
        self._forms_to_all()


def _talker_key(conn: Connection) -> str:
    """Rate limits count per seat; a spectator counts per connection."""
    return f"seat:{conn.seat}" if conn.seat is not None else f"conn:{conn.id}"
