"""Dealing on: the deals a staged change makes while its game waits for one, from the room's
generator or a duplicate night's decks."""

from __future__ import annotations

from app.rooms import engine
from app.rooms.host import Event, Timing
from app.rooms.state import RoomState


class Dealer:
    def __init__(self, state: RoomState, timing: Timing) -> None:
        self.state = state
        self.timing = timing

    def next_deck(self, game: engine.Game) -> list[str] | None:
        """The deck the next deal of `game` is dealt from (a duplicate night's table), or None."""
        key = self.state.deck_key
        return self.timing.deck_for(key, game.deal_no + 1) if key else None

    def deal_on(self, game: engine.Game | None, *, pause: bool = True) -> list[Event]:
        """Deal on `game` (a fork) while it waits for a deal. A deal can end the moment it is
        dealt (a one-card deal is decided by the show), which would leave nobody to act: deal on
        until someone must act or the game is over. After a finished deal the room may first
        pause (`deal_pause`): then its timers deal the next one (`pause=False`) when the pause
        is over. A room whose bots finish the game at once (`RoomState.hurried`) never pauses."""
        g = game
        events: list[Event] = []
        while g is not None and not g.over and g.phase == "waiting":
            if pause and g.deal_no > 0 and self.timing.deal_pause > 0 and not self.state.hurried():
                break
            events.append((None, "deal", engine.deal(g, self.state.rng, self.next_deck(g))))
            pause = True
        return events
