"""An audience for rooms on their own: it keeps, per connection, every piece of news the room
told it (what a web layer would have drawn and sent)."""

from __future__ import annotations

from collections import defaultdict

from app.rooms.hub import Connection
from app.rooms.news import News


class Told:
    def __init__(self) -> None:
        self.news: dict[int, list[News]] = defaultdict(list)  # connection id -> its news, in order

    def publish(self, room: object, news: News, /) -> None:
        for conn in news.to:
            if not conn.closed:
                self.news[conn.id].append(news)

    def of(self, conn: Connection) -> list[News]:
        return self.news[conn.id]
