"""A room's finished games as history files (docs/history-format.md), and a file's games as
stories for the replay viewer: the two directions between the event log and the file."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC
from typing import Any

from app.rooms.replay import GameStory, StoredEvent, build_stories
from app.rules.history import HistoryGame, write_game


def story_history(story: GameStory, *, link: str | None = None, extra: Mapping[str, str] | None = None) -> str:
    """The history file of one finished game (its number at the table as the Game tag)."""
    tags: dict[str, str] = {"Game": str(story.number)}
    if story.started_at is not None:
        at = story.started_at if story.started_at.tzinfo is None else story.started_at.astimezone(UTC)
        tags["Date"] = at.strftime("%Y-%m-%d")
        tags["Time"] = at.strftime("%H:%M:%SZ")
    if link:
        tags["Link"] = link
    tags.update(extra or {})
    return write_game(story.game, story.players, tags)


def file_events(game: HistoryGame) -> list[StoredEvent]:
    """The events a room would have stored for a game read from a file."""
    options: dict[str, Any] = {k: v for k, v in game.game.ruleset.as_dict().items() if k != "name"}
    events: list[StoredEvent] = [(None, "start", {"players": list(game.names), "dealer": game.game.first_dealer,
                                                  "options": options}, None)]
    for entry in game.game.log:
        if "deal" in entry:
            events.append((None, "deal", dict(entry["deal"]), None))
        else:
            events.append((entry["seat"], "act", {"action": entry["action"]}, None))
    return events


def file_stories(games: list[HistoryGame]) -> list[GameStory]:
    """Every game of a file as the replay viewer's story, numbered 1, 2 … in file order."""
    stories: list[GameStory] = []
    for number, game in enumerate(games, start=1):
        [story] = build_stories(game.preset, {}, file_events(game))
        story.number = number
        stories.append(story)
    return stories
