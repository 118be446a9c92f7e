"""A room's news on the wire: the web side's `Audience` of the rooms.

A room says what changed (`app.rooms.news`); this draws it and offers each of its readers the
frames (JSON text; see the README, "Protocol"):

- the table: the whole of it (`{"kind": "table", ...}`) or what changed of it
  (`{"kind": "fragments", ...}`), made by the table publisher (`publisher.py`);
- `{"kind": "notice", "level": l, "message": m, "version": v, "content": html, "target": "#notice",
  "swap": "innerHTML"}`: a notice for one reader;
- `{"kind": "chat", "content": html, "target": "#chat-log", "swap": "beforeend"}` (lines said) or
  `"swap": "innerHTML"` (the recent talk, after a sync);
- `{"kind": "chatform", "content": html, "target": "#chat-form", "swap": "outerHTML"}`: the chat
  form as the reader's seat sees it;
- `{"kind": "reaction", "seat": s, "content": html, "target": "#react-s", "swap": "innerHTML"}`.

A frame that is the same for several readers (a chat line in one language) is made once. The
connection's queue is told which frames are the table's: a whole table supersedes the table's
frames still waiting there (`Connection.offer`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterable
from typing import cast

from fastapi.templating import Jinja2Templates

from app.i18n import say, use_language
from app.rooms.chat import ChatLine
from app.rooms.news import News, NewsKind, Notice, Reaction
from app.rooms.room import LiveRoom
from app.web.table import talk
from app.web.table.hub import Connection
from app.web.table.publisher import TablePublisher
from app.web.table.render import render_block

NOTICE_TEMPLATE = "table/room.html"


class RoomFrames:
    """Shows rooms' news to their readers: draws it and offers each reader its frames."""

    def __init__(self, templates: Jinja2Templates, tables: TablePublisher) -> None:
        self.templates = templates
        self.tables = tables

    def publish(self, room: LiveRoom, news: News, /) -> None:
        # the readers are the connections the websocket attached to the room (`hub.Connection`)
        readers = [cast(Connection, conn) for conn in news.to if not conn.closed]
        if not readers:
            return
        match news.kind:
            case NewsKind.TABLE | NewsKind.PRESENCE:
                for conn, frame in self.tables.push_frames(room, readers):
                    conn.offer(frame, part=True)
            case NewsKind.WHOLE_TABLE:
                for conn in readers:
                    conn.offer(self.tables.table_frame(room, conn), whole=True)
            case NewsKind.NOTICE:
                assert news.notice is not None
                notice = news.notice
                _each(readers, lambda conn: conn.lang,
                      lambda conn: self.notice_frame(notice, news.version, conn.lang))
            case NewsKind.CHAT:
                _each(readers, lambda conn: conn.lang,
                      lambda conn: self.chat_frame(news.lines, conn.lang))
            case NewsKind.TALK:
                for conn in readers:
                    conn.offer(self.chat_frame(tuple(room.chat.lines), conn.lang, replace=True))
                    conn.offer(self.chat_form_frame(room, conn.seat, conn.lang))
            case NewsKind.CHAT_RULES:
                _each(readers, lambda conn: (conn.seat, conn.lang),
                      lambda conn: self.chat_form_frame(room, conn.seat, conn.lang))
            case NewsKind.REACTION:
                assert news.reaction is not None
                frame = self.reaction_frame(news.reaction)
                for conn in readers:
                    conn.offer(frame)

    # ------------------------------------------------------------------ frames

    def notice_frame(self, notice: Notice, version: int, lang: str) -> str:
        """A notice (its `Text` said in `lang`, the reader's language)."""
        with use_language(lang):
            html = render_block(self.templates, NOTICE_TEMPLATE, "notice",
                                {"message": notice.message, "level": notice.level})
            said = say(notice.message)
        return json.dumps({"kind": "notice", "level": notice.level, "message": said, "version": version,
                           "content": html, "target": "#notice", "swap": "innerHTML"})

    def chat_frame(self, lines: Iterable[ChatLine], lang: str, *, replace: bool = False) -> str:
        """Chat lines appended to the chat log (`replace`: the whole log)."""
        with use_language(lang):
            html = talk.render_lines(self.templates, list(lines))
        return json.dumps({"kind": "chat", "content": html, "target": "#chat-log",
                           "swap": "innerHTML" if replace else "beforeend"})

    def chat_form_frame(self, room: LiveRoom, seat: int | None, lang: str) -> str:
        """The chat form as `seat` sees it (talk allowed or not, the host's switches)."""
        with use_language(lang):
            html = talk.render_form(self.templates, room, seat)
        return json.dumps({"kind": "chatform", "content": html, "target": "#chat-form", "swap": "outerHTML"})

    def reaction_frame(self, reaction: Reaction) -> str:
        """A quick reaction shown briefly by its sender's seat."""
        html = talk.render_reaction(self.templates, reaction.emoji)
        return json.dumps({"kind": "reaction", "seat": reaction.seat, "content": html,
                           "target": f"#react-{reaction.seat}", "swap": "innerHTML"})


def _each(readers: list[Connection], key: Callable[[Connection], Hashable],
          frame: Callable[[Connection], str]) -> None:
    """Offer each reader its frame, made once per `key` (readers alike get the same text)."""
    made: dict[Hashable, str] = {}
    for conn in readers:
        k = key(conn)
        text = made.get(k)
        if text is None:
            text = made[k] = frame(conn)
        conn.offer(text)
