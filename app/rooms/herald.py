"""A room's herald: it tells the room's audience what changed (`news`), for whom, at which
version. What the news looks like on the wire is the audience's business (the web side)."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from app.rooms.chat import ChatLine
from app.rooms.news import News, NewsKind, Notice, Reaction, Reader
from app.rooms.state import RoomState


class Herald:
    def __init__(self, state: RoomState, readers: Callable[[], list[Reader]],
                 send: Callable[[News], None]) -> None:
        self.state = state
        self.readers = readers  # every open connection
        self.send = send  # to the audience

    def announce(self, kind: NewsKind, to: Sequence[Reader] | None = None, *,
                 lines: tuple[ChatLine, ...] = (), notice: Notice | None = None,
                 reaction: Reaction | None = None) -> None:
        """News of `kind` for `to` (every open connection unless given)."""
        readers = tuple(self.readers() if to is None else to)
        self.send(News(kind, self.state.version, readers, lines, notice, reaction))

    def table_changed(self) -> None:
        """Everybody is to see what changed of their table."""
        self.announce(NewsKind.TABLE)

    def whole_table(self, conn: Reader) -> None:
        self.announce(NewsKind.WHOLE_TABLE, [conn])

    def tell(self, conn: Reader, message: str, level: str = "error", *, with_table: bool = True) -> None:
        """A notice for one connection (a `Text`, said in its language), then its whole table."""
        self.announce(NewsKind.NOTICE, [conn], notice=Notice(message, level))
        if with_table:
            self.whole_table(conn)
