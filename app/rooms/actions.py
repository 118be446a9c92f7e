"""The action path of a room: check under the lock, commit to the event log, apply, publish;
and the bots that act through the same path.

Commit, then apply: a change is worked out on a fork of the game and staged as a `Change`
without touching the live room; the writer thread commits it off the event loop, and only once
the commit succeeded does the room adopt it. A commit that fails leaves the room exactly as it
was (memory is always the last committed state), so the room carries on by itself as soon as the
database answers again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import Generic, TypeVar

from app.bot_pool import BotRequest
from app.names import name_key
from app.rooms import engine
from app.rooms.bot_levels import level_or_default
from app.rooms.host import Event
from app.rooms.publishing import RoomPublishing
from app.rooms.seats import BOT_NAMES, Refused, Seat, clean_name
from app.rooms.tokens import new_token, seat_secrets
from app.rules.ruleset import preset_title
from app.rules.text import Text
from app.store.room_writes import VersionConflict

log = logging.getLogger("gurka.rooms")

T = TypeVar("T")

NOT_SAVED = Text("The server could not save that move (the database is not answering); nothing changed, "
                 "try again in a moment.")
RETRY_SECONDS = 2.0  # after a failed commit, bots and timers try again this much later


class NotSaved(Refused):
    """The change could not be committed: nothing changed, the room is as it was."""


@dataclass
class Change(Generic[T]):
    """A staged room change: the events to commit and what the room becomes once they are.

    `game` (a fork, or a new game) replaces the room's game; `seats`, `status` and `host` replace
    the room's when given; `after` are in-memory-only steps run once the commit succeeded."""

    result: T
    events: list[Event] = field(default_factory=list)
    seats: dict[int, Seat] | None = None
    status: str | None = None
    host: int | None = None
    game: engine.Game | None = None
    after: list[Callable[[], object]] = field(default_factory=list)


def old_news(note_seat: int | None, events: Iterable[Event]) -> bool:
    """Whether a "Time: a bot played … for X" note about `note_seat` is no longer news after
    `events` (seat, kind, payload): once that seat moves again (its player, or a bot for it)
    or a new deal is dealt. (Another timeout of the seat brings a note of its own.)"""
    return any(kind == "deal" or (kind == "act" and seat == note_seat and not payload.get("timeout"))
               for seat, kind, payload in events)


class RoomActions(RoomPublishing):
    def _adopt(self, change: Change[T], version: int) -> None:
        """The change is committed at `version`: the room becomes what it staged."""
        with self.state_lock:
            if change.game is not None:
                self.game = change.game
            if change.seats is not None:
                self.seats = dict(sorted(change.seats.items()))
            if change.status is not None:
                self.status = change.status
            if change.host is not None:
                self.host = change.host
            self.version = version
            for _seat, kind, payload in change.events:
                self.bot_levels.note(kind, payload)
        if self.time_note is not None and old_news(self.time_note_seat, change.events):
            self.time_note = self.time_note_seat = None
        for step in change.after:
            step()
        if change.seats is not None:
            self.reseat()

    async def _store(self, change: Change[T]) -> int:
        """Commit the staged events (off the event loop); the new version."""
        seats = None if change.seats is None else list(change.seats.values())
        self.committing = self.version + len(change.events)
        try:
            return await self.manager.store_commit(
                self, events=change.events, seats=seats, status=change.status, host=change.host
            )
        finally:
            self.committing = None

    def _retry_later(self) -> None:
        """After a failed commit: let the bots and timers look again a little later (the room
        itself needs nothing: it is still at its last committed state)."""
        if self._retry_task is not None and not self._retry_task.done():
            return
        with contextlib.suppress(RuntimeError):
            self._retry_task = asyncio.get_running_loop().create_task(
                self._retry_after(RETRY_SECONDS), name=f"retry-{self.slug}"
            )

    async def _retry_after(self, delay: float) -> None:
        clock = self.manager.clock
        await clock.sleep_until(clock.now() + delay)
        self.schedule_bot()
        self.rearm()

    # ------------------------------------------------------------------ changes

    async def _run(self, fn: Callable[[], Change[T]]) -> T:
        """The one way to change a room: stage the change (`fn`, on a fork: it never touches the
        room), commit it, and only then adopt it and publish."""
        async with self.lock:
            was_over = self.status == "over"
            for attempt in range(3):
                try:
                    change = fn()
                except Refused:
                    if attempt:  # reloaded after a conflict: everybody here gets the fresh table
                        self.publish()
                    raise
                except Exception:
                    log.exception("room %s: a change could not be worked out; nothing changed", self.id)
                    raise Refused(Text("Something went wrong on the server; nothing changed.")) from None
                if not change.events:  # nothing to store
                    self._adopt(change, self.version)
                    result = change.result
                    break
                try:
                    version = await self._store(change)
                except VersionConflict:
                    # Another process moved this room first: the database refused our version.
                    # Adopt what it wrote (one consistent snapshot) and check the request again
                    # (a move made on the old version is then refused as stale; a join retries).
                    log.info("room %s: another process moved first; reloading", self.id)
                    self.moved_elsewhere = True
                    try:
                        await self.manager.reload(self)
                    except Exception as exc:  # noqa: BLE001  (any failure: nothing changed)
                        log.warning("room %s: could not reload (%s); nothing changed", self.id,
                                    exc.__class__.__name__)
                        self._retry_later()
                        raise NotSaved(NOT_SAVED) from None
                    continue
                except Exception as exc:  # noqa: BLE001  (any failure: nothing changed)
                    log.warning("room %s: the change was not saved (%s: %s); nothing changed", self.id,
                                exc.__class__.__name__, str(exc).splitlines()[0][:200] if str(exc) else "")
                    self._retry_later()
                    raise NotSaved(NOT_SAVED) from None
                self._adopt(change, version)
                result = change.result
                break
            else:
                self.publish()
                raise Refused(Text(
                    "Another move reached the table first (it is now at version %(version)s): "
                    "here is the fresh table.", version=self.version
                ))
            game_over = self.status == "over" and not was_over
            self.moved_elsewhere = False
        self.publish()
        self.schedule_bot()
        if game_over:
            await self.manager.game_over(self)
        return result

    def _auto_deal(self, game: engine.Game | None, *, pause: bool = True) -> list[Event]:
        """Deal on `game` (a fork) while it waits for a deal. A deal can end the moment it is
        dealt (a one-card deal is decided by the show), which would leave nobody to act: deal on
        until someone must act or the game is over. After a finished deal the room may first
        pause (`deal_pause`): then its timers deal the next one (`pause=False`) when the pause
        is over."""
        g = game
        events: list[Event] = []
        while g is not None and not g.over and g.phase == "waiting":
            if pause and g.deal_no > 0 and self.manager.deal_pause > 0:
                break
            events.append((None, "deal", engine.deal(g, self.rng, self.next_deck(g))))
            pause = True
        return events

    @staticmethod
    def _status_after(game: engine.Game | None, status: str | None) -> str | None:
        """The status to store: "over" once `game` has ended, else `status`."""
        return "over" if game is not None and game.over else status

    def _require_host(self, by: int | None) -> None:
        if by is None or by != self.host:
            raise Refused(Text("Only the host can do that."))

    def _require_lobby(self) -> None:
        if self.status != "lobby":
            raise Refused(Text("The game has already started."))

    def _free_seat(self) -> int:
        for i in range(self.capacity):
            if i not in self.seats:
                return i
        raise Refused(Text("The table is full."))

    async def join(self, name: str) -> tuple[int, str]:
        """A new player sits in the first free seat; returns (seat, token)."""
        name = clean_name(name)
        if not name:
            raise Refused(Text("Please type a display name."))

        def fn() -> Change[tuple[int, str]]:
            if self.status == "playing" or (self.status == "over" and self.club_table):
                raise Refused(Text("The game has already started: you can take a free seat between games."))
            taken = next((s.name for s in self.seats.values() if name_key(s.name) == name_key(name)), None)
            if taken is not None:
                raise Refused(Text("Someone at this table is already called %(name)s: choose another name.", name=taken))
            seat = self._free_seat()
            token = new_token()
            seats = dict(self.seats)
            token_hash, code_hash = seat_secrets(token)
            seats[seat] = Seat(seat, name, token_hash, code_hash=code_hash)
            return Change((seat, token), [(seat, "join", {"seat": seat, "name": name})], seats=seats,
                          after=[lambda: self.absent_since.__setitem__(seat, self.manager.clock.now())])

        return await self._run(fn)

    async def add_bot(self, by: int | None, level: str | None = None) -> None:
        """The host adds a bot of `level` (default: the host's level, `bot_levels.host`)."""

        def fn() -> Change[None]:
            self._require_host(by)
            self._require_lobby()
            seat = self._free_seat()
            used = {s.name for s in self.seats.values()}
            name = next((f"{n} (bot)" for n in BOT_NAMES if f"{n} (bot)" not in used), f"Bot {seat + 1}")
            seats = dict(self.seats)
            seats[seat] = Seat(seat, name, None, is_bot=True)
            kind = level_or_default(level, self.bot_levels.host)
            return Change(None, [(by, "bot", {"seat": seat, "name": name, "level": kind})], seats=seats)

        await self._run(fn)

    async def remove_seat(self, by: int | None, seat: int) -> None:
        def fn() -> Change[None]:
            self._require_host(by)
            self._require_lobby()
            target = self.seats.get(seat)
            if target is None:
                raise Refused(Text("That seat is already empty."))
            if not target.is_bot and seat in self.present():
                raise Refused(Text("Only bots and absent players can be removed."))
            if seat == self.host:
                raise Refused(Text("The host cannot leave their own seat."))
            seats = dict(self.seats)
            del seats[seat]
            return Change(None, [(by, "leave", {"seat": seat})], seats=seats)

        await self._run(fn)

    async def start(self, by: int | None, *, dealer: int | None = None) -> None:
        """Start the game; the first dealer is drawn here unless given (a seat number)."""

        def fn() -> Change[None]:
            self._require_host(by)
            self._require_lobby()
            lo, hi = self.limits()
            n = len(self.seats)
            if n < lo:
                raise Refused(Text("%(game)s needs at least %(n)s players: add a bot or wait for friends.",
                                   game=preset_title(self.preset), n=lo))
            if n > hi:
                raise Refused(Text("%(game)s takes at most %(n)s players.", game=preset_title(self.preset), n=hi))
            # Close the gaps: seats become 0..n-1 in the order people sat down.
            order = sorted(self.seats.values(), key=lambda s: s.seat)
            renumber = {s.seat: i for i, s in enumerate(order)}
            seats = {renumber[s.seat]: replace(s, seat=renumber[s.seat]) for s in order}
            first = self.rng.randrange(n) if dealer is None else renumber.get(dealer)
            if first is None:
                raise Refused(Text("The first dealer must be someone at the table."))
            game = engine.make_game(self.preset, n, first, self.options)
            events: list[Event] = [(by, "start", {"players": [seats[i].name for i in range(n)],
                                                  "dealer": first, "options": self.options})]
            events += self._auto_deal(game)

            def renumber_absences() -> None:
                self.absent_since = {renumber.get(k, k): v for k, v in self.absent_since.items()
                                     if k in renumber}

            return Change(None, events, seats=seats, status=self._status_after(game, "playing"),
                          host=renumber[self.host], game=game, after=[renumber_absences])

        await self._run(fn)

    async def rematch(self, by: int | None, seen: int | None) -> None:
        def fn() -> Change[None]:
            if self.club_table:
                raise Refused(Text("This is a Gurka Night table: the night opens the next game itself."))
            if by is None or by not in self.seats:
                raise Refused(Text("Only the players at this table can start a rematch."))
            if self.status != "over" or self.game is None:
                raise Refused(Text("The game is not over yet."))
            if seen is not None and seen != self.version:
                raise Refused(Text("A rematch has already been started."))
            n = len(self.seats)
            dealer = (self.game.dealer + 1) % n
            game = engine.make_game(self.preset, n, dealer, self.options)
            events: list[Event] = [(by, "start", {"players": [self.seats[i].name for i in range(n)],
                                                  "dealer": dealer, "options": self.options})]
            events += self._auto_deal(game)
            return Change(None, events, status=self._status_after(game, "playing"), game=game)

        await self._run(fn)

    async def act(self, seat: int | None, action: str, seen: int | None, *, bot: bool = False) -> str:
        def fn() -> Change[str]:
            if seat is None or seat not in self.seats:
                raise Refused(Text("You are watching: only players at the table can play."))
            if self.game is None or self.status == "lobby":
                raise Refused(Text("The game has not started yet."))
            if not bot and self.seats[seat].botted:
                raise Refused(Text("A bot is playing your seat: take it back first."))
            if seen is None:
                raise Refused(Text("Your message did not say which table version you saw."))
            if seen != self.version:
                raise Refused(Text(
                    "The table changed before your move arrived (you saw version %(seen)s, "
                    "it is now %(version)s): here is the fresh table.", seen=seen, version=self.version
                ))
            reason = engine.check(self.game, action, seat)
            if reason:
                raise Refused(reason)
            g = self.game.fork()
            applied = engine.apply(g, action, seat)
            events: list[Event] = [(seat, "act", {"action": applied})]
            events += self._auto_deal(g)
            # a move of the seat's own clears its timeouts in a row (as a rebuild from the log does)
            return Change(applied, events, status="over" if g.over else None, game=g,
                          after=[lambda: self.count_timeout(seat, False)])

        return await self._run(fn)

    async def hand_to_bot(self, by: int | None, seat: int, *, grace: bool = True,
                          level: str | None = None) -> None:
        """A bot plays an absent player's seat until they act again. `grace=False`: the player is
        known to be away (a club elder's wish for a member who has not come back), so the seat
        goes to the bot without their grace time. The bot is of `level` (a club night's elders
        choose it), else the host's level."""

        def fn() -> Change[None]:
            if by is None or by not in self.seats:
                raise Refused(Text("Only the players at this table can hand a seat to a bot."))
            s = self.seats.get(seat)
            if s is None:
                raise Refused(Text("There is nobody in that seat."))
            if s.botted:
                raise Refused(Text("%(name)s's seat is already played by a bot.", name=s.name))
            if self.status != "playing":
                raise Refused(Text("Seats can be handed to a bot only during a game."))
            if seat in self.present():
                raise Refused(Text("%(name)s is here: only an absent player's seat can go to a bot.", name=s.name))
            wait = self.manager.takeover_seconds - self.absent_for(seat) if grace else 0
            if wait > 0:
                raise Refused(Text("%(name)s has been away only briefly: try again in %(n)s s.", name=s.name,
                                   n=int(wait) + 1))
            seats = dict(self.seats)
            seats[seat] = replace(s, bot_controlled=True)
            kind = level_or_default(level, self.bot_levels.host)
            return Change(None, [(by, "takeover", {"seat": seat, "level": kind})], seats=seats)

        await self._run(fn)

    async def issue_token(self, seat: int) -> str:
        """A fresh seat token for `seat`, replacing the previous one (whoever held the old token
        now only watches). Only the token's hash is stored; the token goes to the caller."""

        def fn() -> Change[str]:
            s = self.seats.get(seat)
            if s is None or s.is_bot:
                raise Refused(Text("That seat has no player."))
            token = new_token()
            seats = dict(self.seats)
            token_hash, code_hash = seat_secrets(token)
            seats[seat] = replace(s, token_hash=token_hash, code_hash=code_hash)
            # the player is on their way to the seat: their grace time starts now
            return Change(token, [(seat, "token", {"seat": seat})], seats=seats,
                          after=[lambda: self.absent_since.__setitem__(seat, self.manager.clock.now())])

        return await self._run(fn)

    async def take_back(self, seat: int | None) -> None:
        def fn() -> Change[None]:
            s = self.seats.get(seat) if seat is not None else None
            if s is None or not s.bot_controlled:
                raise Refused(Text("Your seat is not played by a bot."))
            seats = dict(self.seats)
            seats[s.seat] = replace(s, bot_controlled=False)
            return Change(None, [(s.seat, "takeback", {"seat": s.seat})], seats=seats,
                          after=[lambda: self.absent_since.__setitem__(s.seat, self.manager.clock.now())])

        await self._run(fn)

    # ------------------------------------------------------------------ bots

    def bot_seat(self) -> int | None:
        """The seat a bot should move for now, if any."""
        g = self.game
        if g is None or self.status != "playing" or g.over or g.to_act is None:
            return None
        s = self.seats.get(g.to_act)
        return s.seat if s is not None and s.botted else None

    def schedule_bot(self) -> None:
        """Let a bot move if one is due. Idempotent: called after every accepted change and every
        seat change; a pending bot turn decides whose turn it is only when it runs, and looks again
        after its move, so a change made while it waited is never missed."""
        if self.bot_seat() is None:
            return
        if self._bot_task is not None and not self._bot_task.done():
            return
        with contextlib.suppress(RuntimeError):
            self._bot_task = asyncio.get_running_loop().create_task(self._bot_turn(), name=f"bot-{self.slug}")

    def bot_request(self, seat: int, level: str | None = None) -> BotRequest:
        """What the bot for `seat` (the seat to act) may know: that seat's view, the rules and a
        seed from the room's generator; the bot of `level`, else the seat's own."""
        assert self.game is not None
        kind = level or self.bot_level(seat)
        return BotRequest.for_seat(self.game, seat, kind, self.rng.randrange(2**31))

    async def _bot_turn(self) -> None:
        """The bot to act thinks (in the bot pool, off the event loop) while its usual delay
        runs; its move then goes through the action path (a game that moved on meanwhile
        refuses it as stale, and the bot looks again)."""
        try:
            seat, game = self.bot_seat(), self.game
            if seat is None or game is None:
                return
            request = self.bot_request(seat)
            version = self.version
            move = await self.manager.decide_bot(request, self.manager.bot_delay)
            action = move.action
            if self.game is game and self.bot_seat() == seat:  # only the seats changed meanwhile
                version = self.version
        except Exception:
            log.exception("room %s: the bot could not choose", self.id)
            if self._bot_task is asyncio.current_task():
                self._bot_task = None
            return
        try:
            await self.act(seat, action, version, bot=True)
        except Refused as refused:
            log.info("room %s: bot move refused: %s", self.id, refused)
            if self.moved_elsewhere:  # lost the race to another process: it carries the bots on
                if self._bot_task is asyncio.current_task():
                    self._bot_task = None
                return
        if self._bot_task is asyncio.current_task():
            self._bot_task = None
        if self.version != version:  # something moved (this move or another): look again
            self.schedule_bot()

