"""Publishing a room: the room says what changed (`news`); its audience (the host's: on the web
side, the publisher) draws it and offers each connection its frames.

A seat coming or going is a change of the table like any other (its presence dot, maybe a
button): presence changes are coalesced (`presence_updates`) and then published.
"""

from __future__ import annotations

from collections.abc import Sequence

from app.rooms.chat import ChatLine
from app.rooms.hub import Connection
from app.rooms.news import News, NewsKind, Notice, Reaction
from app.rooms.presence import RoomPresence


class RoomPublishing(RoomPresence):
    def attach(self, conn: Connection) -> None:
        """The newcomer gets its whole table; the others the change, when a seat just became
        present (a spectator, or a second tab of a present seat, changes nothing they see)."""
        conn.seat = self.seat_of(conn.token_hash)
        arrived = conn.seat is not None and conn.seat not in self.present()
        self.connections.add(conn)
        conn.start()
        self.announce(NewsKind.WHOLE_TABLE, [conn])
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
        self.announce(NewsKind.TABLE)

    def show_presence(self) -> None:
        """Presence changed (coalesced): show it like any other change."""
        self.announce(NewsKind.PRESENCE)

    def announce(self, kind: NewsKind, to: Sequence[Connection] | None = None, *,
                 lines: tuple[ChatLine, ...] = (), notice: Notice | None = None,
                 reaction: Reaction | None = None) -> None:
        """Hand news of `kind` for `to` (every live connection unless given) to the audience."""
        readers = tuple(self.live_connections() if to is None else to)
        self.manager.publish(self, News(kind, self.version, readers, lines, notice, reaction))

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

    def tell(self, conn: Connection, message: str, level: str = "error", *, with_table: bool = True) -> None:
        """A notice for one connection (a `Text`, said in its language), then its whole table."""
        self.announce(NewsKind.NOTICE, [conn], notice=Notice(message, level))
        if with_table:
            self.announce(NewsKind.WHOLE_TABLE, [conn])
