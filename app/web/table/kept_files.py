"""The games of a history file opened on `/replay` (kept under the hash of its text by
`app.store.histories`), read once and kept: the opened file's replay page and its analysis both
find a game here.

A file's text never changes under its key, so its stories are read once and the last few files
asked about are kept in memory (`KEPT_FILES`): the analysis's progress is asked for every second,
and reading a whole night's file again each time would cost more than the analysis's own work.
Blocking (the database, replaying every move): call it from a worker thread.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from dataclasses import dataclass

from app.rooms import RoomManager
from app.rooms.history_files import file_stories
from app.rooms.replay import GameStory
from app.rules.history import read_games
from app.store import histories as history_store
from app.store.db import session_scope
from app.web.table.model import BOT_SUFFIX, display_name
from app.web.table.replay import _whole

KEY = re.compile(r"[0-9a-f]{32}\Z")  # the first 32 hex digits of the text's SHA-256


@dataclass(frozen=True)
class KeptFile:
    """Every game of one file, in file order: its story (numbered 1, 2 …) and its tags."""

    stories: list[GameStory]
    tags: list[dict[str, str]]


@dataclass(frozen=True)
class KeptGame:
    """One game of a kept file: its story, its players' names as the replay shows them, its tags,
    and the numbers of every game in the file."""

    story: GameStory
    names: list[str]
    tags: dict[str, str]
    numbers: list[int]


class _KeptFiles:
    """The last few kept files asked about, read (an LRU of `size` files)."""

    def __init__(self, size: int = 4) -> None:
        self.size = size
        self._files: OrderedDict[str, KeptFile] = OrderedDict()
        self._lock = threading.Lock()

    def file(self, manager: RoomManager, key: str) -> KeptFile | None:
        """The file kept under `key`, or None when none is (or `key` is no key)."""
        if not KEY.match(key):
            return None
        with self._lock:
            if key in self._files:
                self._files.move_to_end(key)
                return self._files[key]
        with session_scope(manager.db) as session:
            text = history_store.get_history(session, key=key)
        if text is None:
            return None
        games = read_games(text)  # kept only once it read
        found = KeptFile(file_stories(games), [game.tags for game in games])
        with self._lock:
            self._files[key] = found
            while len(self._files) > self.size:
                self._files.popitem(last=False)
        return found


KEPT_FILES = _KeptFiles()


def kept_game(manager: RoomManager, key: str, game: str | None) -> KeptGame | None:
    """Game number `game` (the first when not a number, the nearest when out of range) of the
    file kept under `key`, or None when no file is kept under it."""
    found = KEPT_FILES.file(manager, key)
    if found is None:
        return None
    stories = found.stories
    story = stories[min(max(_whole(game) or 1, 1), len(stories)) - 1]
    humans = frozenset(n for n in story.players if not n.endswith(BOT_SUFFIX))
    names = [display_name(n, True, humans) for n in story.players]  # as the room's replay shows them
    return KeptGame(story, names, found.tags[story.number - 1], [s.number for s in stories])
