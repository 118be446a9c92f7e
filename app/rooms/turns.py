"""Room operations the timers (and any seated player) start, beside the action path: the move a
bot makes for a seat whose time ran out, the next deal after the pause, and the host role
passing on. Each runs through the room's one way of making a change (`RoomChanges.run`) and
checks the version it was started for, so with several processes the first commit wins and the
others do nothing."""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from app.rooms import engine
from app.rooms.bots import Thinking, bot_request
from app.rooms.changes import Change, RoomChanges, status_after
from app.rooms.dealing import Dealer
from app.rooms.host import Event, Timing
from app.rooms.presence import Presence
from app.rooms.seats import Refused, Seat
from app.rooms.state import RoomState, RoomStatus
from app.rules.cards import pretty_cards
from app.rules.text import Text

TIMEOUTS_BEFORE_BOT = 2  # timeouts in a row after which a bot plays the seat until its player acts


class TurnsHost(Timing, Thinking, Protocol):
    """What the turns need from the room's host: its clock and timings, and where bots think
    (a timed-out seat's move)."""


class Turns:
    def __init__(self, state: RoomState, changes: RoomChanges, presence: Presence, dealer: Dealer,
                 host: TurnsHost) -> None:
        self.state = state
        self.changes = changes
        self.presence = presence
        self.dealer = dealer
        self.host = host

    def turn_deadline(self) -> float | None:
        """When the seat to act runs out of time (None: no timer runs now)."""
        g = self.state.game
        if self.state.turn_seconds <= 0 or g is None or self.state.status != RoomStatus.PLAYING or g.to_act is None:
            return None
        s = self.state.seats.get(g.to_act)
        if s is None or s.botted:
            return None
        return self.state.turn_started + self.state.turn_seconds

    def deal_due(self) -> float | None:
        """When the next deal is dealt (None: no deal is waiting)."""
        g = self.state.game
        if g is None or self.state.status != RoomStatus.PLAYING or g.over or g.phase != "waiting":
            return None
        return self.state.turn_started + (0.0 if self.state.hurried() else self.host.deal_pause)

    async def expire_turn(self, seen: int) -> str | None:
        """The seat to act ran out of time at version `seen`: a bot makes that one move. After
        `TIMEOUTS_BEFORE_BOT` in a row the bot keeps the seat until its player acts again.
        Returns the move, or None when there was nothing to do (moved on, or not yet due).

        The move is the host's level's bot's (`bot_levels.host`), thought out in the bot pool
        before the change is staged; a table that moved meanwhile makes it nothing to do."""
        chosen: str | None = None
        g = self.state.game
        deadline = self.turn_deadline()
        due = deadline is not None and self.host.clock.now() >= deadline
        if due and seen == self.state.version and g is not None and g.to_act is not None:
            request = bot_request(self.state, g.to_act, self.state.bot_levels.host)
            chosen = (await self.host.decide_bot(request, 0.0)).action

        def fn() -> Change[str | None]:
            deadline = self.turn_deadline()
            if seen != self.state.version or deadline is None or self.state.game is None or self.state.game.to_act is None:
                return Change(None)
            if self.host.clock.now() < deadline or chosen is None:
                return Change(None)
            g = self.state.game.fork()
            assert g.to_act is not None
            s = self.state.seats[g.to_act]
            applied = engine.apply(g, chosen, s.seat)
            events: list[Event] = [(s.seat, "act", {"action": applied, "timeout": True})]
            seats: dict[int, Seat] | None = None
            count = self.state.timeouts.get(s.seat, 0) + 1
            if count >= TIMEOUTS_BEFORE_BOT:
                seats = dict(self.state.seats)
                seats[s.seat] = replace(s, bot_controlled=True)
                events.append((None, "takeover", {"seat": s.seat, "timeout": True, "level": self.state.bot_levels.host}))
            events += self.dealer.deal_on(g)
            if seats is not None:
                note = Text("Time: a bot %(did)s for %(name)s. A bot plays for %(name)s until they "
                            "act again.", did=told(applied), name=s.name)
            else:
                note = Text("Time: a bot %(did)s for %(name)s.", did=told(applied), name=s.name)

            def count_it() -> None:
                self.state.count_timeout(s.seat, True)
                if seats is not None:
                    self.state.timeouts.pop(s.seat, None)
                self.state.time_note, self.state.time_note_seat = note, s.seat

            return Change(applied, events, seats=seats, status=status_after(g, None), game=g,
                          after=[count_it])

        result: str | None = await self.changes.run(fn)
        return result

    async def deal_next(self, seen: int | None, by: int | None = None) -> bool:
        """Deal the next deal: when the pause after a deal is over (the timers, `by` None), or
        at once when a seated player skips the pause. False when there was nothing to deal."""

        def fn() -> Change[bool]:
            if by is not None and by not in self.state.seats:
                raise Refused(Text("Only the players at this table can deal on."))
            due = self.deal_due()
            if due is None or (seen is not None and seen != self.state.version):
                return Change(False)
            if by is None and self.host.clock.now() < due:
                return Change(False)
            g = self.state.game.fork() if self.state.game is not None else None
            events = self.dealer.deal_on(g, pause=False)
            if not events:
                return Change(False)
            return Change(True, events, status=status_after(g, None), game=g)

        result: bool = await self.changes.run(fn)
        return result

    def next_host(self) -> int | None:
        """The present human who should hold the host role now (None: keep it where it is).

        The host's own powers are the waiting room's (start, add bots, remove seats): during a
        game anyone seated may hand an absent seat to a bot or vote for a rematch, so the role
        only moves on while the table waits for its start."""
        present = self.presence.present()
        if self.state.status != RoomStatus.LOBBY or self.state.host in present or not self.state.seats:
            return None
        n = max(self.state.seats) + 1
        for step in range(1, n + 1):
            seat = (self.state.host + step) % n
            s = self.state.seats.get(seat)
            if s is not None and not s.is_bot and seat in present:
                return seat
        return None

    async def pass_host(self) -> int | None:
        """The host has left: the role passes to the next present human (returns the new host)."""

        def fn() -> Change[int | None]:
            new = self.next_host()
            if new is None:
                return Change(None)
            return Change(new, [(None, "host", {"seat": new, "from": self.state.host})], host=new)

        result: int | None = await self.changes.run(fn)
        return result


def told(action: str) -> str:
    """What everybody may hear about a timed-out move (swapped cards stay secret)."""
    words = action.split()
    if words[0] == "play":
        return Text("played %(cards)s", cards=pretty_cards(words[1:]))
    if words[0] == "exchange":
        n = len(words) - 1
        if not n:
            return Text("kept the hand")
        return Text("swapped %(n)s card", n=n) if n == 1 else Text("swapped %(n)s cards", n=n)
    if words[0] == "pass":
        return Text("kept the hand")
    return Text("chose %(word)s", word=words[0])
