"""Export then import gives the same replay: for every preset and variant, many games logged as a
room logs them (start, deal, act events) are written to a history file, read back, and the
replay viewer's story of the file equals the room's story step by step, with the same scores."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from app.rooms import engine
from app.rooms.history_files import file_stories, story_history
from app.rooms.replay import StoredEvent, build_stories
from app.rules.bots import RandomBot
from app.rules.history import read_games
from tests.rules.test_properties import CASES, VARIANTS


def logged_game(case: str, players: int, seed: int) -> tuple[str, list[StoredEvent]]:
    """A whole game as a room stores it, dealt from a seeded shuffle, played by random bots."""
    preset, options = VARIANTS.get(case, (case, {}))
    opts: dict[str, Any] = {k: list(v) if isinstance(v, tuple) else v for k, v in options.items()}
    rng = random.Random(seed)
    dealer = rng.randrange(players)
    game = engine.make_game(preset, players, dealer, opts)
    at = datetime(2026, 12, 1, 19, 30, tzinfo=UTC)
    names = [f"P{s} \"{seed}\"" for s in range(players)]
    events: list[StoredEvent] = [(0, "start", {"players": names, "dealer": dealer, "options": opts}, at)]
    bots = [RandomBot(rng.randrange(2**30)) for _ in range(players)]
    while not game.over:
        at += timedelta(seconds=5)
        if game.to_act is None:
            events.append((None, "deal", engine.deal(game, rng), at))
        else:
            seat = game.to_act
            events.append((seat, "act", {"action": str(game.apply(bots[seat].choose(game)))}, at))
    return preset, events


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(case=st.sampled_from(CASES), seed=st.integers(0, 2**31))
def test_export_then_import_gives_the_same_replay_and_scores(case: tuple[str, int], seed: int) -> None:
    preset, events = logged_game(*case, seed)
    [room_story] = build_stories(preset, {}, events)
    text = story_history(room_story, link="https://gurka.example/r/abc")
    games = read_games(text)
    [file_story] = file_stories(games)
    assert file_story.players == room_story.players
    assert file_story.steps == room_story.steps
    assert file_story.game.scores == room_story.game.scores
    assert file_story.game.ranking == room_story.game.ranking
    assert file_story.deal_log == room_story.deal_log
    assert games[0].tags["Date"] == "2026-12-01" and games[0].tags["Time"] == "19:30:00Z"
