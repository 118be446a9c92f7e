"""The story of every game in a room, rebuilt from its stored event log with the rules core.

There is no second record: each `start` event opens a game, each `deal` and `act` event is
replayed through the engine exactly as the live room did, and a snapshot is taken after each.
Snapshots hold every hand face up, so only a finished game's story may ever be shown (the web
layer refuses the rest).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from app.rooms import engine
from app.rules.scoring import DealResult

StoredEvent = tuple[int | None, str, dict[str, Any], datetime | None]


@dataclass(frozen=True)
class Step:
    """The table right after one event of a game."""

    index: int
    deal_no: int
    actor: int | None
    action: str  # "deal" or the action's notation
    phase: str
    hands: list[list[str]]
    trick: dict[str, Any] | None
    last_trick: dict[str, Any] | None
    scores: list[int]
    dealer: int
    to_act: int | None
    trick_done: bool  # this event completed a trick
    deal_end: DealResult | None  # this event ended a deal


@dataclass
class GameStory:
    number: int  # 1 for the room's first game, 2 for a rematch, ...
    players: list[str]
    game: engine.Game
    steps: list[Step] = field(default_factory=list)
    started_at: datetime | None = None
    ended_at: datetime | None = None

    @property
    def over(self) -> bool:
        return self.game.over

    @property
    def deal_log(self) -> list[DealResult]:
        return self.game.deal_log


def build_stories(preset: str, options: Mapping[str, Any], events: list[StoredEvent]) -> list[GameStory]:
    """Every game played in a room, oldest first, each with one step per deal and action."""
    stories: list[GameStory] = []
    story: GameStory | None = None
    for seat, kind, payload, at in events:
        if kind == "start":
            if story is not None and story.ended_at is None:
                story.ended_at = at
            game = engine.make_game(preset, len(payload["players"]), payload["dealer"],
                                    payload.get("options", options))
            story = GameStory(len(stories) + 1, list(payload["players"]), game, started_at=at)
            stories.append(story)
        elif story is None:
            continue
        elif kind == "deal":
            engine.replay_deal(story.game, payload)
            _snapshot(story, None, "deal", deals_before=len(story.game.deal_log), tricks_before=None)
        elif kind == "act" and seat is not None:
            g = story.game
            deals_before = len(g.deal_log)
            before = g.last_trick
            engine.apply(g, payload["action"], seat)
            _snapshot(story, seat, payload["action"], deals_before=deals_before, tricks_before=before)
            if g.over and story.ended_at is None:
                story.ended_at = at
    return stories


def _snapshot(story: GameStory, actor: int | None, action: str, *, deals_before: int,
              tricks_before: object) -> None:
    g = story.game
    ended = g.deal_log[-1] if len(g.deal_log) > deals_before else None
    story.steps.append(Step(
        index=len(story.steps),
        deal_no=g.deal_no,
        actor=actor,
        action=action,
        phase=g.phase,
        hands=[list(h) for h in g.hands],
        trick=g.trick.as_dict() if g.trick is not None else None,
        last_trick=g.last_trick.as_dict() if g.last_trick is not None else None,
        scores=list(g.scores),
        dealer=g.dealer,
        to_act=g.to_act,
        trick_done=actor is not None and g.last_trick is not tricks_before,
        deal_end=ended,
    ))
