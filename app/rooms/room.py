"""An authoritative room: one asyncio lock serialises every change.

Every accepted change gets the next version number(s) and is committed to the event log
before anybody is told; then the room's audience (the host's: the web side) is told what
changed (`news`), and each connection is offered what changed of its seat's table.

A `LiveRoom` is a composition: a plain `RoomState` (seats, game, version, status, host) and a
few collaborators, each with a narrow job and constructible alone:

- `presence`: the readers (the web side's connections), who is here and since when a seat is away;
- `herald`: tells the audience what changed, for whom;
- `changes`: the one way to change the state (stage, commit, then apply);
- `actions` and `seat_changes`: what players and hosts do (each staged as a `Change`);
- `turns`: the timed moves, the next deal, the host role passing on;
- `bots`: a bot's move when one is due; `timers`: what is due when;
- `talk`: table talk, which never moves the version.

The room wires them together and answers its callers (the manager, the web, the club); a client
message is parsed once (`messages.parse_message`) and dispatched here.
"""

from __future__ import annotations

import threading
from typing import TypeVar

from app.parsing import BadFrame
from app.rooms import engine
from app.rooms.actions import RoomActions
from app.rooms.bots import Bots
from app.rooms.changes import Change, RoomChanges
from app.rooms.chat import ChatLine, ChatLog, ChatRefused
from app.rooms.clock import Clock
from app.rooms.dealing import Dealer
from app.rooms.herald import Herald
from app.rooms.host import Event, RoomHost
from app.rooms.messages import (
    MAX_FRAME,
    Act,
    AddBot,
    HandToBot,
    Message,
    Mute,
    NextDeal,
    React,
    RecentTalk,
    Rematch,
    Remove,
    Say,
    SeenActions,
    Spectators,
    Start,
    Sync,
    TakeBack,
    Unreadable,
    parse_message,
)
from app.rooms.news import News, NewsKind, Reader
from app.rooms.presence import Presence
from app.rooms.presence_updates import PresenceCoalescer
from app.rooms.seat_changes import SeatChanges
from app.rooms.seats import BOT_NAMES, MAX_NAME, Refused, Seat, SeatStatus, clean_name
from app.rooms.state import RoomState, RoomStatus, RoomView
from app.rooms.talk import Talk
from app.rooms.timers import Timers
from app.rooms.turns import Turns
from app.rules.text import Text, text_of

__all__ = [
    "BOT_NAMES", "MAX_FRAME", "MAX_NAME", "Event", "LiveRoom", "Refused", "RoomHost", "RoomStatus", "Seat",
    "clean_name",
]

T = TypeVar("T")

ALREADY_RECEIVED = Text("That action was already received; it was not applied twice.")


class LiveRoom:
    """A live room: its state and the collaborators that change it.

    `state` is for reading (a `RoomView`): callers outside app/rooms (the web, the club, web
    push) never change it; they talk to the room through its messages (`join`, `act`, `start`,
    `finish_at_once`, `handle` for a client's message, ...), each checked, committed and only
    then applied. The collaborators the room hands its `RoomState` write it, and the manager and
    `sync` build it from the database. (A test or bench that sets a state up through
    `room.state` says so where it does.)"""

    def __init__(self, manager: RoomHost[LiveRoom], state: RoomState) -> None:
        self.manager = manager
        self._state = state
        self.presence = Presence(state, manager)
        self.herald = Herald(state, self.presence.readers, self._to_audience)
        # Seats coming and going are shown to everybody, a burst of them at a bounded rate
        self.presence_updates = PresenceCoalescer(self.show_presence)
        self.changes = RoomChanges(state, _Site(self))
        dealer = Dealer(state, manager)
        self.actions = RoomActions(state, self.changes, self.presence, dealer, manager)
        self.seat_changes = SeatChanges(state, self.changes, self.presence, dealer, self.herald)
        self.turns = Turns(state, self.changes, self.presence, dealer, manager)
        self.bots = Bots(state, manager, self._bot_plays, self.changes)
        self.timers = Timers(state, self.turns, self.presence, manager, show=self.herald.table_changed)
        self.talk = Talk(state, self.herald, self._save_chat)
        self.seen_actions = SeenActions()

    # ------------------------------------------------------------------ state

    @property
    def state(self) -> RoomView:
        """What the room holds, to read (see the class's docstring)."""
        return self._state

    @property
    def state_lock(self) -> threading.Lock:
        return self.state.state_lock

    @property
    def players(self) -> int:
        return self.state.players

    def limits(self) -> tuple[int, int]:
        return self.state.limits()

    def bot_level(self, seat: int) -> str:
        return self.state.bot_level(seat)

    def seat_of(self, token_hash: str | None) -> int | None:
        return self.state.seat_of(token_hash)

    def adopt(self, fresh: LiveRoom) -> None:
        """Take over the stored state of `fresh` (this room rebuilt from the database)."""
        self._state.adopt(fresh._state)
        self.presence.reseat()

    @property
    def chat(self) -> ChatLog:
        return self.talk.chat

    # ------------------------------------------------------------------ presence

    @property
    def connections(self) -> set[Reader]:
        return self.presence.connections

    @property
    def absent_since(self) -> dict[int, float]:
        return self.presence.absent_since

    def attach(self, conn: Reader) -> None:
        """The newcomer gets its whole table; the others the change, when a seat just became
        present."""
        arrived = self.presence.attach(conn)
        self.herald.whole_table(conn)
        if arrived:
            self.presence_updates.changed()
        self.timers.arm()

    def detach(self, conn: Reader) -> None:
        if self.presence.detach(conn):
            self.presence_updates.changed()
        self.timers.arm()

    def present(self) -> set[int]:
        return self.presence.present()

    def seat_for_token(self, token: str | None) -> int | None:
        return self.presence.seat_for_token(token)

    def absent_for(self, seat: int) -> float:
        return self.presence.absent_for(seat)

    def can_hand_to_bot(self, seat: int, present: set[int] | None = None) -> bool:
        return self.presence.can_hand_to_bot(seat, present)

    def handovers(self) -> frozenset[int]:
        return self.presence.handovers()

    # ------------------------------------------------------------------ showing

    def publish(self) -> None:
        """Everybody is shown what changed of their table (a new version starts the turn's
        clock); then the timers look again at what is due."""
        self._show(NewsKind.TABLE)

    def show_presence(self) -> None:
        """Presence changed (coalesced): show it like any other change."""
        self._show(NewsKind.PRESENCE)

    def _show(self, kind: NewsKind) -> None:
        self.timers.new_turn()
        self.herald.announce(kind)
        self.timers.arm()

    def tell(self, conn: Reader, message: str, level: str = "error", *, with_table: bool = True) -> None:
        self.herald.tell(conn, message, level, with_table=with_table)

    def _to_audience(self, news: News) -> None:
        """The herald's news, to the room's audience (through its host)."""
        self.manager.publish(self, news)

    # ------------------------------------------------------------------ what players and hosts do

    async def join(self, name: str) -> tuple[int, str]:
        return await self.actions.join(name)

    async def add_bot(self, by: int | None, level: str | None = None) -> None:
        await self.actions.add_bot(by, level)

    async def remove_seat(self, by: int | None, seat: int) -> None:
        await self.actions.remove_seat(by, seat)

    async def start(self, by: int | None, *, dealer: int | None = None) -> None:
        await self.actions.start(by, dealer=dealer)

    async def rematch(self, by: int | None, seen: int | None) -> None:
        await self.actions.rematch(by, seen)

    async def act(self, seat: int | None, action: str, seen: int | None, *, bot: bool = False) -> str:
        return await self.actions.act(seat, action, seen, bot=bot)

    async def hand_to_bot(self, by: int | None, seat: int, *, grace: bool = True, level: str | None = None) -> None:
        await self.actions.hand_to_bot(by, seat, grace=grace, level=level)

    async def issue_token(self, seat: int) -> str:
        return await self.actions.issue_token(seat)

    async def take_back(self, seat: int | None) -> None:
        await self.actions.take_back(seat)

    async def rejoin(self, code: str) -> tuple[int, str]:
        return await self.seat_changes.rejoin(code)

    def seat_for_code(self, code: str) -> int | None:
        return self.seat_changes.seat_for_code(code)

    async def vote_rematch(self, by: int | None) -> bool:
        return await self.seat_changes.vote_rematch(by)

    def rematch_waits_for(self, ready: set[int] | None = None) -> list[int]:
        return self.seat_changes.rematch_waits_for(ready)

    async def deal_next(self, seen: int | None, by: int | None = None) -> bool:
        return await self.turns.deal_next(seen, by)

    async def finish_at_once(self, seat: int) -> None:
        """`seat`, out of the game with only bots left in it, asks them to finish it at once
        (`RoomState.hurry_for`): a deal waiting out its pause is dealt now, and a bot waiting
        out its delay moves. The caller checked that `seat` may ask."""
        self._state.hurry_for = seat
        g = self.state.game
        if g is not None and g.phase == "waiting":  # in the pause after a deal: deal on now
            await self.deal_next(None, by=seat)
        self.bots.schedule()

    def turn_deadline(self) -> float | None:
        return self.turns.turn_deadline()

    def deal_due(self) -> float | None:
        return self.turns.deal_due()

    async def say(self, conn: Reader, raw: object) -> None:
        await self.talk.say(conn, raw)

    def _save_chat(self, line: ChatLine) -> None:
        """Store one line of talk with the room (blocking: `talk` calls it off the event loop)."""
        self.manager.save_chat(self, line)

    # ------------------------------------------------------------------ bots and timers

    def schedule_bot(self) -> None:
        self.bots.schedule()

    def arm(self) -> None:
        self.timers.arm()

    async def _bot_plays(self, seat: int, action: str, seen: int) -> str:
        return await self.actions.act(seat, action, seen, bot=True)

    # ------------------------------------------------------------------ client messages

    async def handle(self, conn: Reader, text: str | bytes) -> None:
        """One client message: parse, check, dispatch; every problem becomes a clear notice."""
        try:
            parsed = parse_message(text)
        except BadFrame as bad:
            self.tell(conn, text_of(bad))
            return
        if parsed.aid and not self.seen_actions.first_time(f"{conn.token_hash}:{parsed.aid}"):
            self.tell(conn, ALREADY_RECEIVED, "info")
            return
        try:
            await self._dispatch(conn, parsed.message)
        except Refused as refused:
            self.tell(conn, text_of(refused))
        except ChatRefused as refused:  # talk refusals leave the table alone
            self.tell(conn, text_of(refused), with_table=False)
        except engine.IllegalAction as illegal:  # the engine's own words
            self.tell(conn, text_of(illegal))

    async def _dispatch(self, conn: Reader, message: Message) -> None:
        seat = conn.seat
        match message:
            case Act(action, seen):
                if seat is not None and seat in self.state.seats and self.state.seats[seat].status == SeatStatus.HANDED:
                    # the player is back and acts: they take their seat back from the bot
                    before = self.state.version
                    await self.take_back(seat)
                    seen = self.state.version if seen == before else seen
                await self.act(seat, action, seen)
            case Sync():
                self.herald.whole_table(conn)
                self.talk.offer_chat(conn)
            case RecentTalk():  # a page just connected: what was said since it was rendered
                self.talk.offer_chat(conn)
            case Say(raw):
                await self.talk.say(conn, raw)
            case React(raw):
                await self.talk.react(conn, raw)
            case Mute(target, muted):
                await self.talk.set_muted(seat, target, muted)
            case Spectators(allowed):
                await self.talk.set_spectators(seat, allowed)
            case Start():
                await self.start(seat)
            case AddBot(level):
                await self.add_bot(seat, level)
            case Remove(target):
                await self.remove_seat(seat, target)
            case HandToBot(target):
                await self.hand_to_bot(seat, target)
            case TakeBack():
                await self.take_back(seat)
            case NextDeal(seen):
                await self.deal_next(seen, by=seat if seat is not None else -1)
            case Rematch():
                await self.vote_rematch(seat)
            case Unreadable(reason):
                raise Refused(reason)

    # ------------------------------------------------------------------ the end

    async def stop(self) -> None:
        await self.timers.stop()
        self.presence_updates.cancel()
        self.changes.stop()
        await self.bots.stop()
        for conn in list(self.connections):
            await conn.stop()
        self.connections.clear()


class _Site:
    """What the room's changes need from the room around them (`changes.ChangeSite`)."""

    def __init__(self, room: LiveRoom) -> None:
        self.room = room

    @property
    def clock(self) -> Clock:
        return self.room.manager.clock

    async def store(self, change: Change[T]) -> int:
        seats = None if change.seats is None else list(change.seats.values())
        return await self.room.manager.store_commit(
            self.room, events=change.events, seats=seats, status=change.status, host=change.host
        )

    async def reload(self) -> None:
        await self.room.manager.reload(self.room)

    def seats_changed(self) -> None:
        self.room.presence.reseat()

    def changed(self) -> None:
        self.room.publish()

    def look_again(self) -> None:
        self.room.bots.schedule()
        self.room.timers.arm()

    async def game_over(self) -> None:
        await self.room.manager.game_over(self.room)

