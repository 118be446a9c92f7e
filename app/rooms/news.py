"""What a room tells whoever shows it: "I reached version v, and this is what changed".

A room knows nothing of HTML, frames or the wire. Each change it makes, each notice for one
reader, each line of talk is handed to its `Audience` (on the web side: the publisher, which
draws the tables, makes the frames and offers them to the connections) as one `News`: its
kind, the version the room is at, who it is for, and the little data it carries.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol, TypeVar

from app.rooms.chat import ChatLine


class Reader(Protocol):
    """One connection to a room, as the room sees it: the seat token it holds (None: a
    spectator), the seat the room found for that token, and whether it is still open. The
    connections themselves (their sockets, queues and frames) are the web side's."""

    id: int
    token_hash: str | None
    seat: int | None
    closed: bool

    async def stop(self) -> None:
        """Let the connection go (its room stops)."""
        ...


class NewsKind(StrEnum):
    TABLE = "table"  # the table changed: each reader is to see what changed of its table
    PRESENCE = "presence"  # who is here changed (shown like any change of the table)
    WHOLE_TABLE = "whole_table"  # each reader is to get its whole table (it has none, or asked)
    NOTICE = "notice"  # a notice for its readers (`Notice`)
    CHAT = "chat"  # lines of talk were said (`lines`), for everybody
    TALK = "talk"  # each reader is to get the recent talk and its chat form again (a sync)
    CHAT_RULES = "chat_rules"  # the host muted someone or switched spectators' talk: chat forms
    REACTION = "reaction"  # a quick reaction by a seat (`Reaction`)


@dataclass(frozen=True, slots=True)
class Notice:
    message: str  # a `Text`, said in each reader's language
    level: str = "error"  # "error", "warn" or "info"


@dataclass(frozen=True, slots=True)
class Reaction:
    seat: int
    emoji: str


@dataclass(frozen=True, slots=True)
class News:
    kind: NewsKind
    version: int  # the version the room is at
    to: tuple[Reader, ...]  # its readers
    lines: tuple[ChatLine, ...] = ()  # CHAT: what was said
    notice: Notice | None = None  # NOTICE: what to tell
    reaction: Reaction | None = None  # REACTION: who reacted how


R_contra = TypeVar("R_contra", contravariant=True)


class Audience(Protocol[R_contra]):
    """Whoever shows rooms of type `R_contra` to their readers (the web layer's publisher)."""

    def publish(self, room: R_contra, news: News, /) -> None:
        """Show `news` about `room` to its readers, now (never awaits a reader)."""
        ...


class Unheard:
    """An audience that shows nothing (a manager without a web layer: rooms on their own)."""

    def publish(self, room: object, news: News, /) -> None:
        return None

