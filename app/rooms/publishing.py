"""Publishing a room to its connections: the room says when its table changed; the frames are
the host's (`RoomHost.table_frame`, `RoomHost.push_frames`: on the web side, the whole table for a
connection that has none, else the fragments that changed for it).

A seat coming or going is a change of the table like any other (its presence dot, maybe a
button): presence changes are coalesced (`presence_updates`) and then published.
"""

from __future__ import annotations

import json

from app.i18n import current_language, say, use_language
from app.rooms.hub import Connection
from app.rooms.presence import RoomPresence


class RoomPublishing(RoomPresence):
    def attach(self, conn: Connection) -> None:
        """The newcomer gets its whole table; the others the change, when a seat just became
        present (a spectator, or a second tab of a present seat, changes nothing they see)."""
        conn.seat = self.seat_of(conn.token_hash)
        arrived = conn.seat is not None and conn.seat not in self.present()
        self.connections.add(conn)
        conn.start()
        conn.offer(self.table_frame(conn))
        if arrived:
            self.presence.changed()
        self.rearm()

    def detach(self, conn: Connection) -> None:
        self.connections.discard(conn)
        conn.closed = True
        if conn.seat is not None and conn.seat not in self.present():
            self.absent_since[conn.seat] = self.manager.clock.now()
            self.presence.changed()
        self.rearm()

    def publish(self) -> None:
        """Offer every live connection what changed of its table."""
        for conn, frame in self.manager.push_frames(self, self.live_connections()):
            self.offer(conn, frame)

    def show_presence(self) -> None:
        """Presence changed (coalesced): show it like any other change."""
        self.publish()

    def handovers(self) -> frozenset[int]:
        """The seats a "Let a bot play" button is offered for now."""
        if self.status != "playing":
            return frozenset()
        present = self.present()
        return frozenset(i for i in self.seats if self.can_hand_to_bot(i, present))

    def live_connections(self) -> list[Connection]:
        for conn in [c for c in self.connections if c.closed]:
            self.connections.discard(conn)
        return list(self.connections)

    def offer(self, conn: Connection, frame: str) -> None:
        if not conn.offer(frame):
            self.connections.discard(conn)

    def table_frame(self, conn: Connection) -> str:
        """`conn`'s whole table, in its language."""
        return self.manager.table_frame(self, conn)

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
            conn.offer(self.table_frame(conn))
