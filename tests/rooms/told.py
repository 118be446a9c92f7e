"""Rooms on their own, without a web side: readers that are only what a room sees of a
connection, and an audience that keeps, per reader, every piece of news the room told it (what a
web side would have drawn and sent)."""

from __future__ import annotations

import itertools
from collections import defaultdict

from app.rooms.news import News, Reader
from app.rooms.tokens import hash_token

_ids = itertools.count(1)


class Listener:
    """A reader of a room (a `news.Reader`): a seat token, the seat the room found for it."""

    def __init__(self, token: str | None = None) -> None:
        self.id = next(_ids)
        self.token_hash = hash_token(token) if token else None
        self.seat: int | None = None
        self.closed = False

    async def stop(self) -> None:
        self.closed = True


class Told:
    def __init__(self) -> None:
        self.news: dict[int, list[News]] = defaultdict(list)  # reader id -> its news, in order

    def publish(self, room: object, news: News, /) -> None:
        for reader in news.to:
            if not reader.closed:
                self.news[reader.id].append(news)

    def of(self, reader: Reader) -> list[News]:
        return self.news[reader.id]
