"""A room's collaborators, each on its own: built from a plain `RoomState` and fakes of what it
is handed, without a manager, a database or a LiveRoom."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest

from app.bot_pool import BotMove, BotRequest
from app.rooms import engine
from app.rooms.bots import Bots
from app.rooms.changes import NOT_SAVED, Change, NotSaved, RoomChanges
from app.rooms.chat import SAY, ChatLine, ChatRefused
from app.rooms.clock import Clock, FakeClock
from app.rooms.herald import Herald
from app.rooms.news import News, NewsKind, Notice
from app.rooms.presence import Presence
from app.rooms.seats import Refused, Seat
from app.rooms.state import RoomState, RoomStatus
from app.rooms.talk import Talk
from app.rooms.timers import Timers
from app.rooms.tokens import hash_token
from tests.rooms.told import Listener

T0 = 1_000_000.0


class Timing:
    """What a room's host sets: a clock and its timings."""

    def __init__(self, clock: FakeClock, *, takeover: float = 60.0) -> None:
        self.clock = clock
        self.takeover_seconds = takeover
        self.deal_pause = 0.0
        self.bot_delay = 0.0

    def deck_for(self, key: str, deal_no: int, /) -> list[str] | None:
        return None


def table(status: str = "lobby", *, seats: int = 3, bots: tuple[int, ...] = ()) -> RoomState:
    state = RoomState(room_id=1, slug="abc", preset="gurka-night", options={}, capacity=4, status=status,
                      version=5, host=0, turn_started=T0,
                      seats=[Seat(i, f"P{i}", hash_token(f"tok{i}"), is_bot=i in bots) for i in range(seats)])
    if status != "lobby":
        state.game = engine.make_game("gurka-night", seats, 0, {})
    return state


def connection(token: str | None) -> Listener:
    return Listener(token)


# ------------------------------------------------------------------ presence


def test_presence_knows_who_is_here_and_since_when_a_seat_is_away() -> None:
    clock = FakeClock(start=T0)
    state = table("playing")
    presence = Presence(state, Timing(clock, takeover=60.0))
    ann, watcher = connection("tok0"), connection(None)
    assert presence.attach(ann) is True  # seat 0 just came
    assert presence.attach(watcher) is False and watcher.seat is None
    assert presence.present() == {0} and ann.seat == 0
    clock.advance(61)
    assert presence.handovers() == {1, 2}  # away for over a minute, during a game
    assert presence.detach(ann) is True
    assert presence.absent_for(0) == 0.0 and not presence.can_hand_to_bot(0)
    clock.advance(60)
    assert presence.absent_for(0) == 60.0 and presence.can_hand_to_bot(0)
    assert presence.readers() == [watcher]


# ------------------------------------------------------------------ herald


def test_the_herald_tells_the_open_connections_at_the_states_version() -> None:
    told: list[News] = []
    state = table()
    a, b = connection("tok0"), connection(None)
    herald = Herald(state, lambda: [a, b], told.append)
    herald.table_changed()
    herald.tell(b, "Not yet.", "info")
    assert [(n.kind, n.version, n.to) for n in told] == [
        (NewsKind.TABLE, 5, (a, b)), (NewsKind.NOTICE, 5, (b,)), (NewsKind.WHOLE_TABLE, 5, (b,))]
    assert told[1].notice == Notice("Not yet.", "info")


# ------------------------------------------------------------------ changes


class Site:
    """A room around its changes: a store that works or fails, and a record of what it was asked."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.fail = False
        self.calls: list[str] = []

    async def store(self, change: Change[Any]) -> int:
        self.calls.append("store")
        if self.fail:
            raise OSError("the database is not answering")
        return 5 + len(change.events)

    async def reload(self) -> None:
        self.calls.append("reload")

    def seats_changed(self) -> None:
        self.calls.append("seats")

    def changed(self) -> None:
        self.calls.append("changed")

    def look_again(self) -> None:
        self.calls.append("look again")

    async def game_over(self) -> None:
        self.calls.append("game over")


async def test_changes_commit_then_apply_and_a_failed_commit_changes_nothing() -> None:
    state = table()
    site = Site(FakeClock(start=T0))
    changes = RoomChanges(state, site)
    seats = dict(state.seats)
    seats[3] = Seat(3, "Dag", "hash3")
    assert await changes.run(lambda: Change("ok", [(3, "join", {"seat": 3})], seats=seats)) == "ok"
    assert state.version == 6 and 3 in state.seats
    assert site.calls == ["store", "seats", "changed", "look again"]

    site.fail, site.calls = True, []
    with pytest.raises(NotSaved, match=str(NOT_SAVED)[:20]):
        await changes.run(lambda: Change(None, [(None, "start", {})], status=RoomStatus.PLAYING))
    assert state.version == 6 and state.status == RoomStatus.LOBBY and site.calls == ["store"]
    assert changes.retry_task is not None  # bots and timers look again a little later
    changes.stop()

    def refused() -> Change[None]:
        raise Refused("no")

    with pytest.raises(Refused):
        await changes.run(refused)


# ------------------------------------------------------------------ timers


class Turns:
    """The timed operations, as far as the timers see them: a deadline, and a record of what ran."""

    def __init__(self, deadline: float | None) -> None:
        self.deadline = deadline
        self.expired: list[int] = []

    def turn_deadline(self) -> float | None:
        return self.deadline

    def deal_due(self) -> float | None:
        return None

    def next_host(self) -> int | None:
        return None

    async def expire_turn(self, seen: int) -> str | None:
        self.expired.append(seen)
        self.deadline = None
        return "play 3"

    async def deal_next(self, seen: int | None, by: int | None = None) -> bool:
        return False

    async def pass_host(self) -> int | None:
        return None


async def test_timers_wake_when_the_turn_runs_out_and_not_before() -> None:
    clock = FakeClock(start=T0)
    state = table("playing", bots=(1, 2))  # the bots need no "Let a bot play" moment
    presence = Presence(state, Timing(clock))
    presence.attach(connection("tok0"))
    turns = Turns(deadline=T0 + 30)
    shown: list[int] = []
    timers = Timers(state, turns, presence, Timing(clock), show=lambda: shown.append(state.version))
    assert timers.next_moment() == (T0 + 30, "turn")
    timers.arm()
    clock.advance(29)
    await asyncio.sleep(0.01)
    assert turns.expired == []
    clock.advance(1)
    for _ in range(5):
        await asyncio.sleep(0)
    assert turns.expired == [5] and shown == [5]  # the move, for the version it was armed for
    assert timers.next_moment() is None and timers.task is None
    await timers.stop()


# ------------------------------------------------------------------ bots


class Pool:
    """Bots that think instantly: the first legal move of the game they are shown."""

    def __init__(self, state: RoomState) -> None:
        self.state = state
        self.bot_delay = 0.0

    async def decide_bot(self, request: BotRequest, delay: float) -> BotMove:
        assert self.state.game is not None
        return BotMove(str(self.state.game.legal_actions()[0]), "here")


async def test_a_bot_moves_when_its_seat_is_to_act_through_the_play_it_is_given() -> None:
    state = table("playing", bots=(0, 1, 2))
    assert state.game is not None
    engine.deal(state.game, state.rng, None)
    played: list[tuple[int | None, str, int]] = []

    async def play(seat: int, action: str, seen: int) -> None:
        played.append((seat, action, seen))

    bots = Bots(state, Pool(state), play, SimpleNamespace(moved_elsewhere=False))
    to_act = state.game.to_act
    assert to_act is not None and bots.seat() == to_act
    bots.schedule()
    assert bots.task is not None
    await bots.task
    assert played == [(to_act, str(state.game.legal_actions()[0]), 5)]  # at the version it thought at
    assert bots.task is None  # and nothing moved, so it does not look again

    state.seats[to_act] = Seat(to_act, "P", "hash", bot_controlled=False)  # a human's turn: no bot
    bots.schedule()
    assert bots.task is None


# ------------------------------------------------------------------ talk


async def test_talk_stores_a_line_then_tells_everybody_and_refuses_empty_words() -> None:
    told: list[News] = []
    saved: list[ChatLine] = []
    state = table()
    ann = connection("tok0")
    ann.seat = 0
    talk = Talk(state, Herald(state, lambda: [ann], told.append), saved.append)
    await talk.say(ann, "  hello  ")
    assert [(line.kind, line.name, line.text) for line in saved] == [(SAY, "P0", "hello")]
    assert [(n.kind, n.lines) for n in told] == [(NewsKind.CHAT, tuple(saved))]
    assert list(talk.chat.lines) == saved
    with pytest.raises(ChatRefused):
        await talk.say(ann, "   ")


# ------------------------------------------------------------------ statuses, stored


async def test_statuses_are_stored_as_the_same_words(database_url: str) -> None:
    """A room's status is a StrEnum: the database holds the words it always held."""
    from sqlalchemy import text

    from app.rooms import RoomManager
    from app.store.db import make_engine, upgrade

    upgrade(database_url)
    db = make_engine(database_url)
    manager = RoomManager(db, takeover_seconds=0.0)
    room, _token = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Ann", bots=2)

    def stored() -> object:
        with db.connect() as conn:
            return conn.execute(text("SELECT status FROM rooms WHERE id = :id"), {"id": room.state.id}).scalar()

    assert stored() == "lobby" and room.state.status == RoomStatus.LOBBY
    await room.start(0, dealer=0)
    assert stored() == "playing" and type(stored()) is str
    await manager.stop()
    again = RoomManager(db)
    again.load()
    back = again.rooms[room.state.slug]
    assert back.state.status is RoomStatus.PLAYING
    db.dispose()


def test_a_seats_status_says_who_plays_it() -> None:
    from app.rooms.seats import SeatStatus

    assert Seat(0, "Ann", "h").status == SeatStatus.PLAYER == "player"
    assert Seat(1, "Bodil (bot)", None, is_bot=True).status == SeatStatus.BOT
    handed = Seat(2, "Cai", "h", bot_controlled=True)
    assert handed.status == SeatStatus.HANDED and handed.botted
