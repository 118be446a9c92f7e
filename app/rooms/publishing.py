"""Publishing a room to its connections: each one is offered its own seat's full table.

A table frame is complete (the whole `#table`), so a page that missed one converges on the
next one, and on `sync`. What all seats share is rendered once per state (the web layer's
shared parts); per push, each seat's own table is rendered once per (seat, language) and a
spectator's once. Presence (a seat coming or going) is sent as a small `presence` frame with
only the seats' presence marks, unless it changes more than the marks (see `show_presence`).
"""

from __future__ import annotations

import itertools
import json

from app.i18n import current_language, say, use_language
from app.rooms.hub import Connection
from app.rooms.presence import RoomPresence

FrameKey = tuple[int | None, str]  # (seat, language)
_ROUNDS = itertools.count(1)  # publish() rounds, numbered across rooms


class RoomPublishing(RoomPresence):
    def attach(self, conn: Connection) -> None:
        """The newcomer gets its table; the others only the presence marks, and only when a
        seat just became present (a spectator, or a second tab of a present seat, changes
        nothing they see)."""
        conn.seat = self.seat_of(conn.token_hash)
        arrived = conn.seat is not None and conn.seat not in self.present()
        self.connections.add(conn)
        conn.start()
        if arrived and self.presence_needs_tables() and self.presence.changed():
            return  # everybody got a full table just now, the newcomer too
        conn.offer(self.table_frame(conn.seat, conn.lang))
        if arrived and not self.presence_needs_tables():
            self.presence.changed()  # the others get the presence marks (after its table)
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
        self.shown_handovers = self.handovers()
        frames: dict[FrameKey, str] = {}
        self.publishing = next(_ROUNDS)  # one round: nothing changes the room while it renders
        try:
            for conn in self.live_connections():
                key = (conn.seat, conn.lang)
                if key not in frames:
                    frames[key] = self.table_frame(*key)
                self.offer(conn, frames[key])
        finally:
            self.publishing = None

    def show_presence(self) -> None:
        """Presence changed (coalesced): send only the presence marks when that is all that
        changes. In the lobby and after a game presence also changes buttons and lines (the
        host's Remove, who a rematch waits for), and during a game it may change who can be
        handed to a bot: then every connection gets its full table instead."""
        if self.presence_needs_tables():
            self.publish()
            return
        frames: dict[str, str] = {}
        for conn in self.live_connections():
            if conn.lang not in frames:
                frames[conn.lang] = self.presence_frame(conn.lang)
            self.offer(conn, frames[conn.lang])

    def presence_needs_tables(self) -> bool:
        """Presence now changes more than the marks: a lobby or a finished game (the host's
        Remove buttons, who a rematch waits for), or who can be handed to a bot."""
        return self.status != "playing" or self.handovers() != self.shown_handovers

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

    def table_frame(self, seat: int | None, lang: str | None = None) -> str:
        """`seat`'s table in `lang` (None: the language of the code that asks). The frame is
        what `json.dumps` makes of it, put together around the table already escaped (the
        parts all seats share are escaped once)."""
        with use_language(lang or current_language()):
            content = self.manager.render_table_json(self, seat)
        return (f'{{"kind": "table", "version": {int(self.version)}, "content": "{content}",'  # not shown
                ' "target": "#table", "swap": "outerHTML"}')

    def presence_frame(self, lang: str | None = None) -> str:
        """The seats' presence marks as htmx partials, in `lang`; `version` is the table they
        belong to (a page showing an older table has missed a push and asks for `sync`)."""
        with use_language(lang or current_language()):
            html = self.manager.render_presence(self)
        return json.dumps({"kind": "presence", "version": self.version, "content": html, "swap": "none"})

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
