"""Seats nobody can lose: a seat taken back on another device with its rejoin code (the old
device is told), and the rematch that starts when every seated player here has said yes."""

from __future__ import annotations

import secrets
from dataclasses import replace

from app.rooms import engine
from app.rooms.host import Event
from app.rooms.seats import Refused, Seat
from app.rooms.tokens import clean_code, hash_code, new_token, seat_secrets
from app.rooms.turns import RoomTurns
from app.rules.text import Text

SEAT_MOVED = Text("Your seat moved to another device.")


class RoomSeatChanges(RoomTurns):
    def seat_for_code(self, code: str) -> int | None:
        wanted = hash_code(code)
        found = None
        for s in self.seats.values():  # compare them all: the time taken says nothing
            if s.code_hash and secrets.compare_digest(s.code_hash, wanted):
                found = s.seat
        return found

    async def rejoin(self, code: str) -> tuple[int, str]:
        """Take the seat whose rejoin code this is (on this device): a fresh token and code for
        it, the old device only watches from now and is told so. Returns (seat, token)."""
        code = clean_code(code)
        if not code:
            raise Refused(Text("Please type the rejoin code shown on your other device."))

        def fn() -> tuple[int, str]:
            seat = self.seat_for_code(code)
            if seat is None:
                raise Refused(Text("That rejoin code does not fit any seat at this table."))
            s = self.seats[seat]
            token = new_token()
            token_hash, code_hash = seat_secrets(token)
            seats = dict(self.seats)
            seats[seat] = replace(s, token_hash=token_hash, code_hash=code_hash)
            old = [c for c in self.connections if c.seat == seat]
            self._commit([(seat, "rejoin", {"seat": seat})], seats=seats)
            self.absent_since[seat] = self.manager.clock.now()
            for conn in old:
                self.tell(conn, SEAT_MOVED, "warn", with_table=False)
            self.reseat()
            return seat, token

        result: tuple[int, str] = await self._run(fn)
        return result

    def rematch_waits_for(self) -> list[int]:
        """The seated players here who have not said yes to a rematch yet."""
        present = self.present()
        return [s.seat for s in self.seats.values()
                if not s.is_bot and s.seat in present and s.seat not in self.ready]

    async def vote_rematch(self, by: int | None) -> bool:
        """`by` is ready for a rematch; the rematch starts once every seated player who is here
        has said yes (returns True then). Players away keep their seats: a bot plays for them
        until they come back and act. Seats stay as they are, latecomers included."""

        def fn() -> bool:
            if self.club_table:
                raise Refused(Text("This is a Gurka Night table: the night opens the next game itself."))
            if by is None or by not in self.seats or self.seats[by].is_bot:
                raise Refused(Text("Only the players at this table can start a rematch."))
            if self.status != "over" or self.game is None:
                raise Refused(Text("The game is not over yet."))
            if by in self.ready:
                raise Refused(Text("You said yes already: waiting for the others."))
            n = len(self.seats)
            lo, hi = self.limits()
            events: list[Event] = [(by, "ready", {"seat": by})]
            self.ready.add(by)
            if self.rematch_waits_for() or not lo <= n <= hi:
                try:
                    self._commit(events)
                except BaseException:
                    self.ready.discard(by)
                    raise
                return False
            present = self.present()
            seats: dict[int, Seat] = {
                i: replace(s, bot_controlled=not s.is_bot and i not in present and i not in self.ready)
                for i, s in self.seats.items()
            }
            dealer = (self.game.dealer + 1) % n
            previous_game, previous_ready = self.game, set(self.ready)
            self.game = engine.make_game(self.preset, n, dealer, self.options)
            try:
                events.append((by, "start", {"players": [seats[i].name for i in range(n)],
                                             "dealer": dealer, "options": self.options}))
                events += self._auto_deal()
                self._commit(events, seats=seats, status=self._status_after("playing"))
            except BaseException:
                self.game, self.ready = previous_game, previous_ready - {by}
                raise
            self.ready = set()
            return True

        result: bool = await self._run(fn)
        return result
