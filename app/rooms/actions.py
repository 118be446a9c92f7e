"""What players and hosts do at a room's table: sit down, add and remove bots, start, play,
hand an absent seat to a bot and take it back, get a fresh seat token, start a rematch.

Each operation is worked out on the state as it is (a fork of the game: nothing is touched) and
staged as a `Change`, which the room's `RoomChanges` commits and only then applies.
"""

from __future__ import annotations

from dataclasses import replace

from app.names import name_key
from app.rooms import engine
from app.rooms.bot_levels import level_or_default
from app.rooms.changes import Change, RoomChanges, status_after
from app.rooms.dealing import Dealer
from app.rooms.host import Event, Timing
from app.rooms.presence import Presence
from app.rooms.seats import BOT_NAMES, Refused, Seat, SeatStatus, clean_name
from app.rooms.state import RoomState, RoomStatus
from app.rooms.tokens import new_token, seat_secrets
from app.rules.ruleset import preset_title
from app.rules.text import Text


class RoomActions:
    def __init__(self, state: RoomState, changes: RoomChanges, presence: Presence, dealer: Dealer,
                 timing: Timing) -> None:
        self.state = state
        self.changes = changes
        self.presence = presence
        self.dealer = dealer
        self.timing = timing

    def _require_host(self, by: int | None) -> None:
        if by is None or by != self.state.host:
            raise Refused(Text("Only the host can do that."))

    def _require_lobby(self) -> None:
        if self.state.status != RoomStatus.LOBBY:
            raise Refused(Text("The game has already started."))

    def _free_seat(self) -> int:
        for i in range(self.state.capacity):
            if i not in self.state.seats:
                return i
        raise Refused(Text("The table is full."))

    async def join(self, name: str) -> tuple[int, str]:
        """A new player sits in the first free seat; returns (seat, token)."""
        name = clean_name(name)
        if not name:
            raise Refused(Text("Please type a display name."))

        def fn() -> Change[tuple[int, str]]:
            if self.state.status == RoomStatus.PLAYING or (self.state.status == RoomStatus.OVER and self.state.club_table):
                raise Refused(Text("The game has already started: you can take a free seat between games."))
            taken = next((s.name for s in self.state.seats.values() if name_key(s.name) == name_key(name)), None)
            if taken is not None:
                raise Refused(Text("Someone at this table is already called %(name)s: choose another name.", name=taken))
            seat = self._free_seat()
            token = new_token()
            seats = dict(self.state.seats)
            token_hash, code_hash = seat_secrets(token)
            seats[seat] = Seat(seat, name, token_hash, code_hash=code_hash)
            return Change((seat, token), [(seat, "join", {"seat": seat, "name": name})], seats=seats,
                          after=[lambda: self.presence.away_from_now(seat)])

        return await self.changes.run(fn)

    async def add_bot(self, by: int | None, level: str | None = None) -> None:
        """The host adds a bot of `level` (default: the host's level, `bot_levels.host`)."""

        def fn() -> Change[None]:
            self._require_host(by)
            self._require_lobby()
            seat = self._free_seat()
            used = {s.name for s in self.state.seats.values()}
            name = next((f"{n} (bot)" for n in BOT_NAMES if f"{n} (bot)" not in used), f"Bot {seat + 1}")
            seats = dict(self.state.seats)
            seats[seat] = Seat(seat, name, None, is_bot=True)
            kind = level_or_default(level, self.state.bot_levels.host)
            return Change(None, [(by, "bot", {"seat": seat, "name": name, "level": kind})], seats=seats)

        await self.changes.run(fn)

    async def remove_seat(self, by: int | None, seat: int) -> None:
        def fn() -> Change[None]:
            self._require_host(by)
            self._require_lobby()
            target = self.state.seats.get(seat)
            if target is None:
                raise Refused(Text("That seat is already empty."))
            if not target.is_bot and seat in self.presence.present():
                raise Refused(Text("Only bots and absent players can be removed."))
            if seat == self.state.host:
                raise Refused(Text("The host cannot leave their own seat."))
            seats = dict(self.state.seats)
            del seats[seat]
            return Change(None, [(by, "leave", {"seat": seat})], seats=seats)

        await self.changes.run(fn)

    async def start(self, by: int | None, *, dealer: int | None = None) -> None:
        """Start the game; the first dealer is drawn here unless given (a seat number)."""

        def fn() -> Change[None]:
            self._require_host(by)
            self._require_lobby()
            lo, hi = self.state.limits()
            n = len(self.state.seats)
            if n < lo:
                raise Refused(Text("%(game)s needs at least %(n)s players: add a bot or wait for friends.",
                                   game=preset_title(self.state.preset), n=lo))
            if n > hi:
                raise Refused(Text("%(game)s takes at most %(n)s players.", game=preset_title(self.state.preset), n=hi))
            # Close the gaps: seats become 0..n-1 in the order people sat down.
            order = sorted(self.state.seats.values(), key=lambda s: s.seat)
            renumber = {s.seat: i for i, s in enumerate(order)}
            seats = {renumber[s.seat]: replace(s, seat=renumber[s.seat]) for s in order}
            first = self.state.rng.randrange(n) if dealer is None else renumber.get(dealer)
            if first is None:
                raise Refused(Text("The first dealer must be someone at the table."))
            game = engine.make_game(self.state.preset, n, first, self.state.options)
            events: list[Event] = [(by, "start", {"players": [seats[i].name for i in range(n)],
                                                  "dealer": first, "options": self.state.options})]
            events += self.dealer.deal_on(game)

            return Change(None, events, seats=seats, status=status_after(game, RoomStatus.PLAYING),
                          host=renumber[self.state.host], game=game, after=[lambda: self.presence.renumber(renumber)])

        await self.changes.run(fn)

    async def rematch(self, by: int | None, seen: int | None) -> None:
        def fn() -> Change[None]:
            if self.state.club_table:
                raise Refused(Text("This is a Gurka Night table: the night opens the next game itself."))
            if by is None or by not in self.state.seats:
                raise Refused(Text("Only the players at this table can start a rematch."))
            if self.state.status != RoomStatus.OVER or self.state.game is None:
                raise Refused(Text("The game is not over yet."))
            if seen is not None and seen != self.state.version:
                raise Refused(Text("A rematch has already been started."))
            n = len(self.state.seats)
            dealer = (self.state.game.dealer + 1) % n
            game = engine.make_game(self.state.preset, n, dealer, self.state.options)
            events: list[Event] = [(by, "start", {"players": [self.state.seats[i].name for i in range(n)],
                                                  "dealer": dealer, "options": self.state.options})]
            events += self.dealer.deal_on(game)
            return Change(None, events, status=status_after(game, RoomStatus.PLAYING), game=game)

        await self.changes.run(fn)

    async def act(self, seat: int | None, action: str, seen: int | None, *, bot: bool = False) -> str:
        def fn() -> Change[str]:
            if seat is None or seat not in self.state.seats:
                raise Refused(Text("You are watching: only players at the table can play."))
            if self.state.game is None or self.state.status == RoomStatus.LOBBY:
                raise Refused(Text("The game has not started yet."))
            if not bot and self.state.seats[seat].botted:
                raise Refused(Text("A bot is playing your seat: take it back first."))
            if seen is None:
                raise Refused(Text("Your message did not say which table version you saw."))
            if seen != self.state.version:
                raise Refused(Text(
                    "The table changed before your move arrived (you saw version %(seen)s, "
                    "it is now %(version)s): here is the fresh table.", seen=seen, version=self.state.version
                ))
            reason = engine.check(self.state.game, action, seat)
            if reason:
                raise Refused(reason)
            g = self.state.game.fork()
            applied = engine.apply(g, action, seat)
            events: list[Event] = [(seat, "act", {"action": applied})]
            events += self.dealer.deal_on(g)
            # a move of the seat's own clears its timeouts in a row (as a rebuild from the log does)
            return Change(applied, events, status=RoomStatus.OVER if g.over else None, game=g,
                          after=[lambda: self.state.count_timeout(seat, False)])

        return await self.changes.run(fn)

    async def hand_to_bot(self, by: int | None, seat: int, *, grace: bool = True,
                          level: str | None = None) -> None:
        """A bot plays an absent player's seat until they act again. `grace=False`: the player is
        known to be away (a club elder's wish for a member who has not come back), so the seat
        goes to the bot without their grace time. The bot is of `level` (a club night's elders
        choose it), else the host's level."""

        def fn() -> Change[None]:
            if by is None or by not in self.state.seats:
                raise Refused(Text("Only the players at this table can hand a seat to a bot."))
            s = self.state.seats.get(seat)
            if s is None:
                raise Refused(Text("There is nobody in that seat."))
            if s.botted:
                raise Refused(Text("%(name)s's seat is already played by a bot.", name=s.name))
            if self.state.status != RoomStatus.PLAYING:
                raise Refused(Text("Seats can be handed to a bot only during a game."))
            if seat in self.presence.present():
                raise Refused(Text("%(name)s is here: only an absent player's seat can go to a bot.", name=s.name))
            wait = self.timing.takeover_seconds - self.presence.absent_for(seat) if grace else 0
            if wait > 0:
                raise Refused(Text("%(name)s has been away only briefly: try again in %(n)s s.", name=s.name,
                                   n=int(wait) + 1))
            seats = dict(self.state.seats)
            seats[seat] = replace(s, bot_controlled=True)
            kind = level_or_default(level, self.state.bot_levels.host)
            return Change(None, [(by, "takeover", {"seat": seat, "level": kind})], seats=seats)

        await self.changes.run(fn)

    async def set_host_level(self, level: str) -> None:
        """The host's level (the turn timer's move, "Let a bot play") is `level` from now on: a
        club night's level, chosen by its elders while this table plays. Nothing if it is."""

        def fn() -> Change[None]:
            kind = level_or_default(level, self.state.bot_levels.host)
            if kind == self.state.bot_levels.host:
                return Change(None)
            return Change(None, [(None, "bot_level", {"level": kind})])

        await self.changes.run(fn)

    async def issue_token(self, seat: int) -> str:
        """A fresh seat token for `seat`, replacing the previous one (whoever held the old token
        now only watches). Only the token's hash is stored; the token goes to the caller."""

        def fn() -> Change[str]:
            s = self.state.seats.get(seat)
            if s is None or s.is_bot:
                raise Refused(Text("That seat has no player."))
            token = new_token()
            seats = dict(self.state.seats)
            token_hash, code_hash = seat_secrets(token)
            seats[seat] = replace(s, token_hash=token_hash, code_hash=code_hash)
            # the player is on their way to the seat: their grace time starts now
            return Change(token, [(seat, "token", {"seat": seat})], seats=seats,
                          after=[lambda: self.presence.away_from_now(seat)])

        return await self.changes.run(fn)

    async def take_back(self, seat: int | None) -> None:
        def fn() -> Change[None]:
            s = self.state.seats.get(seat) if seat is not None else None
            if s is None or s.status != SeatStatus.HANDED:
                raise Refused(Text("Your seat is not played by a bot."))
            seats = dict(self.state.seats)
            seats[s.seat] = replace(s, bot_controlled=False)
            return Change(None, [(s.seat, "takeback", {"seat": s.seat})], seats=seats,
                          after=[lambda: self.presence.away_from_now(s.seat)])

        await self.changes.run(fn)
