"""Publishing a room to its connections: each one is offered its own seat's full table."""

from __future__ import annotations

import json

from app.i18n import current_language, say, use_language
from app.rooms.hub import Connection
from app.rooms.presence import RoomPresence


class RoomPublishing(RoomPresence):
    def attach(self, conn: Connection) -> None:
        """The newcomer gets its table; the others only when a seat just became present (a
        spectator, or a second tab of a present seat, changes nothing they see)."""
        conn.seat = self.seat_of(conn.token_hash)
        arrived = conn.seat is not None and conn.seat not in self.present()
        self.connections.add(conn)
        conn.start()
        if not (arrived and self.presence.changed()):
            conn.offer(self.table_frame(conn.seat, conn.lang))
            self.rearm()

    def detach(self, conn: Connection) -> None:
        self.connections.discard(conn)
        conn.closed = True
        if conn.seat is not None and conn.seat not in self.present():
            self.absent_since[conn.seat] = self.manager.clock.now()
            self.presence.changed()
        self.rearm()

    def publish(self) -> None:
        """Offer every live connection its own full table (rendered once per seat and language)."""
        cache: dict[tuple[int | None, str], str] = {}
        for conn in list(self.connections):
            if conn.closed:
                self.connections.discard(conn)
                continue
            key = (conn.seat, conn.lang)
            if key not in cache:
                cache[key] = self.table_frame(conn.seat, conn.lang)
            if not conn.offer(cache[key]):
                self.connections.discard(conn)

    def table_frame(self, seat: int | None, lang: str | None = None) -> str:
        """`seat`'s table in `lang` (None: the language of the code that asks)."""
        with use_language(lang or current_language()):
            html = self.manager.render_table(self, seat)
        return json.dumps(
            {"kind": "table", "version": self.version, "content": html, "target": "#table", "swap": "outerHTML"}
        )

    def notice_frame(self, message: str, level: str = "error", lang: str | None = None) -> str:
        """A notice (a `Text` is said in `lang`, the reader's language)."""
        with use_language(lang or current_language()):
            html = self.manager.render_notice(message, level)
            said = say(message)
        return json.dumps(
            {"kind": "notice", "level": level, "message": said, "version": self.version,
             "content": html, "target": "#notice", "swap": "innerHTML"}
        )

    def tell(self, conn: Connection, message: str, level: str = "error", *, with_table: bool = True) -> None:
        conn.offer(self.notice_frame(message, level, conn.lang))
        if with_table:
            conn.offer(self.table_frame(conn.seat, conn.lang))
