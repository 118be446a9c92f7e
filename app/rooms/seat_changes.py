"""Seats nobody can lose: a seat taken back on another device with its rejoin code (the old
device is told), and the rematch that starts when every seated player here has said yes."""

from __future__ import annotations

import secrets
from dataclasses import replace

from app.rooms import engine
from app.rooms.changes import Change, RoomChanges, status_after
from app.rooms.dealing import Dealer
from app.rooms.herald import Herald
from app.rooms.host import Event
from app.rooms.presence import Presence
from app.rooms.seats import Refused, Seat
from app.rooms.state import RoomState, RoomStatus
from app.rooms.tokens import clean_code, hash_code, new_token, seat_secrets
from app.rules.text import Text

SEAT_MOVED = Text("Your seat moved to another device.")


class SeatChanges:
    def __init__(self, state: RoomState, changes: RoomChanges, presence: Presence, dealer: Dealer,
                 herald: Herald) -> None:
        self.state = state
        self.changes = changes
        self.presence = presence
        self.dealer = dealer
        self.herald = herald

    def seat_for_code(self, code: str) -> int | None:
        wanted = hash_code(code)
        found = None
        for s in self.state.seats.values():  # compare them all: the time taken says nothing
            if s.code_hash and secrets.compare_digest(s.code_hash, wanted):
                found = s.seat
        return found

    async def rejoin(self, code: str) -> tuple[int, str]:
        """Take the seat whose rejoin code this is (on this device): a fresh token and code for
        it, the old device only watches from now and is told so. Returns (seat, token)."""
        code = clean_code(code)
        if not code:
            raise Refused(Text("Please type the rejoin code shown on your other device."))

        def fn() -> Change[tuple[int, str]]:
            seat = self.seat_for_code(code)
            if seat is None:
                raise Refused(Text("That rejoin code does not fit any seat at this table."))
            s = self.state.seats[seat]
            token = new_token()
            token_hash, code_hash = seat_secrets(token)
            seats = dict(self.state.seats)
            seats[seat] = replace(s, token_hash=token_hash, code_hash=code_hash)

            def moved() -> None:  # the devices that held the seat until now are told
                self.presence.away_from_now(seat)
                for conn in self.presence.at(seat):
                    self.herald.tell(conn, SEAT_MOVED, "warn", with_table=False)

            return Change((seat, token), [(seat, "rejoin", {"seat": seat})], seats=seats, after=[moved])

        result: tuple[int, str] = await self.changes.run(fn)
        return result

    def rematch_waits_for(self, ready: set[int] | None = None) -> list[int]:
        """The seated players here who have not said yes to a rematch yet (counting `ready`, the
        room's votes unless given)."""
        present = self.presence.present()
        ready = self.state.ready if ready is None else ready
        return [s.seat for s in self.state.seats.values()
                if not s.is_bot and s.seat in present and s.seat not in ready]

    async def vote_rematch(self, by: int | None) -> bool:
        """`by` is ready for a rematch; the rematch starts once every seated player who is here
        has said yes (returns True then). Players away keep their seats: a bot plays for them
        until they come back and act. Seats stay as they are, latecomers included."""

        def fn() -> Change[bool]:
            if self.state.club_table:
                raise Refused(Text("This is a Gurka Night table: the night opens the next game itself."))
            if by is None or by not in self.state.seats or self.state.seats[by].is_bot:
                raise Refused(Text("Only the players at this table can start a rematch."))
            if self.state.status != RoomStatus.OVER or self.state.game is None:
                raise Refused(Text("The game is not over yet."))
            if by in self.state.ready:
                raise Refused(Text("You said yes already: waiting for the others."))
            n = len(self.state.seats)
            lo, hi = self.state.limits()
            events: list[Event] = [(by, "ready", {"seat": by})]
            ready = self.state.ready | {by}
            if self.rematch_waits_for(ready) or not lo <= n <= hi:
                return Change(False, events, after=[lambda: self.state.ready.add(by)])
            present = self.presence.present()
            seats: dict[int, Seat] = {
                i: replace(s, bot_controlled=not s.is_bot and i not in present and i not in ready)
                for i, s in self.state.seats.items()
            }
            dealer = (self.state.game.dealer + 1) % n
            game = engine.make_game(self.state.preset, n, dealer, self.state.options)
            events.append((by, "start", {"players": [seats[i].name for i in range(n)],
                                         "dealer": dealer, "options": self.state.options}))
            events += self.dealer.deal_on(game)

            def clear_votes() -> None:
                self.state.ready = set()

            return Change(True, events, seats=seats, status=status_after(game, RoomStatus.PLAYING), game=game,
                          after=[clear_votes])

        result: bool = await self.changes.run(fn)
        return result
