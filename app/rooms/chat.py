"""Table talk: what a room remembers of its chat, who may talk, and how fast.

Pure state, no I/O: the lines (the most recent ones), the per-talker rate limit (with an
injectable clock), the seats the host muted and whether spectators may talk. The room layer
that uses it (`talk`) persists each line and tells it as news of its own.

Every sentence a person reads about chat is built here, in `ChatText`, so it can be wrapped
for translation in one place.
"""

from __future__ import annotations

import time
import unicodedata
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime

from app.rules.text import Text

MAX_TEXT = 300
KEEP = 50  # lines a (re)connecting page is shown
RATE_COUNT = 5
RATE_WINDOW = 10.0  # seconds
REACTIONS = ("👍", "😂", "😮", "😢", "🥒", "🎉")

# kinds of stored chat rows
SAY, REACT, MUTE, UNMUTE, SPECTATORS = "say", "react", "mute", "unmute", "spectators"


class ChatText:
    """The words of table talk (one place, ready to be wrapped for translation)."""

    empty = Text("Type a message first.")
    spectators_closed = Text("Only the players can talk at this table: the host has not opened chat to spectators.")
    muted = Text("The host has muted you: your messages are not sent.")
    unknown_reaction = Text("That reaction is not one of the table's quick reactions.")
    host_only = Text("Only the host can do that.")
    not_self = Text("The host cannot mute their own seat.")
    no_seat = Text("There is nobody in that seat.")
    spectator = Text("Spectator")

    @staticmethod
    def too_long(length: int) -> str:
        return Text("That message is %(length)s characters long; the limit is %(limit)s. Nothing was sent.",
                    length=length, limit=MAX_TEXT)

    @staticmethod
    def too_fast(wait: float) -> str:
        return Text("You are talking too fast (%(count)s messages in %(seconds)s seconds at most): "
                    "wait %(wait)s s and send it again.", count=RATE_COUNT, seconds=int(RATE_WINDOW),
                    wait=max(1, round(wait)))

    @staticmethod
    def muted_seat(name: str) -> str:
        return Text("The host muted %(name)s.", name=name)

    @staticmethod
    def unmuted_seat(name: str) -> str:
        return Text("The host let %(name)s talk again.", name=name)

    @staticmethod
    def spectators_now(allowed: bool) -> str:
        return Text("The host let spectators talk.") if allowed else Text("Only the players can talk now.")

    @classmethod
    def note(cls, line: ChatLine) -> str:
        """The sentence shown for a note about the host's chat settings."""
        if line.kind == MUTE:
            return cls.muted_seat(line.name)
        if line.kind == UNMUTE:
            return cls.unmuted_seat(line.name)
        return cls.spectators_now(line.text == "on")


class ChatRefused(Exception):
    """A chat request turned down; its text goes back to the sender as is."""


@dataclass(frozen=True)
class ChatLine:
    """One remembered line: a message, a reaction, or a note about the host's chat settings.

    A note is kept as its kind and the seat's name, never as a sentence: `ChatText.note` words it
    when it is rendered, so a note read back from the database is said in each reader's language.
    """

    kind: str
    seat: int | None
    name: str
    text: str
    at: datetime = field(default_factory=lambda: datetime.now(UTC))

    @property
    def is_note(self) -> bool:
        return self.kind in (MUTE, UNMUTE, SPECTATORS)


def clean_text(raw: object) -> str:
    """A message as plain text: one line, control characters removed, surrounding space cut.
    Refuses an empty message and one longer than MAX_TEXT (counted after cleaning)."""
    if not isinstance(raw, str):
        raise ChatRefused(ChatText.empty)
    text = " ".join(raw.split())
    text = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C" or ch == " ")
    if not text:
        raise ChatRefused(ChatText.empty)
    if len(text) > MAX_TEXT:
        raise ChatRefused(ChatText.too_long(len(text)))
    return text


class RateLimit:
    """At most `count` events per `window` seconds per key (a sliding window)."""

    def __init__(self, count: int = RATE_COUNT, window: float = RATE_WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.count = count
        self.window = window
        self.clock = clock
        self._seen: dict[str, deque[float]] = {}

    def wait(self, key: str) -> float:
        """0 if `key` may go now (and the event is counted), else seconds until it may."""
        now = self.clock()
        times = self._seen.setdefault(key, deque())
        while times and now - times[0] >= self.window:
            times.popleft()
        if len(times) >= self.count:
            return self.window - (now - times[0])
        times.append(now)
        return 0.0


class ChatLog:
    """What a room keeps of its talk in memory."""

    def __init__(self, keep: int = KEEP, clock: Callable[[], float] = time.monotonic) -> None:
        self.lines: deque[ChatLine] = deque(maxlen=keep)
        self.muted: set[int] = set()
        self.spectators_allowed = False
        self.limit = RateLimit(clock=clock)

    def restore(self, lines: Iterable[ChatLine]) -> None:
        """Rebuild from the stored rows, oldest first (settings rows replayed in order)."""
        for line in lines:
            self.add(line)

    def add(self, line: ChatLine) -> None:
        if line.kind == MUTE and line.seat is not None:
            self.muted.add(line.seat)
        elif line.kind == UNMUTE and line.seat is not None:
            self.muted.discard(line.seat)
        elif line.kind == SPECTATORS:
            self.spectators_allowed = line.text == "on"
        self.lines.append(line)

    def may_talk(self, seat: int | None) -> bool:
        if seat is None:
            return self.spectators_allowed
        return seat not in self.muted

    def check_talker(self, seat: int | None, key: str) -> None:
        """Refuse a spectator (unless allowed), a muted seat, or a talker over the rate limit."""
        if seat is None and not self.spectators_allowed:
            raise ChatRefused(ChatText.spectators_closed)
        if seat is not None and seat in self.muted:
            raise ChatRefused(ChatText.muted)
        wait = self.limit.wait(key)
        if wait > 0:
            raise ChatRefused(ChatText.too_fast(wait))


def check_reaction(raw: object) -> str:
    if not isinstance(raw, str) or raw not in REACTIONS:
        raise ChatRefused(ChatText.unknown_reaction)
    return raw
