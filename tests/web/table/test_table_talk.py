"""Table talk over the real websocket: escaping, length, rate limit, mute, spectators, kept with
the room; chat never moves the game's version."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from app.rooms.chat import MAX_TEXT, RATE_COUNT, RATE_WINDOW
from tests.web.table.wsutil import Player, create_room, join


@pytest.fixture
def db_url(database_url: str) -> str:
    """Every test here runs on SQLite and on Postgres."""
    return database_url



class FakeClock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def two_players(web: TestClient) -> tuple[str, object, Player, Player]:
    slug, t0 = create_room(web, name="Anna", seats=3)
    t1 = join(web, slug, "Bo")
    anna, bo = Player(web, slug, t0).connect(), Player(web, slug, t1).connect()
    anna.drain(2)  # her own arrival and Bo's
    bo.drain(1)
    return slug, web.app.state.rooms.get(slug), anna, bo


def chat_frames(player: Player, n: int) -> list[dict]:
    frames = player.drain(n)
    assert all(f["kind"] == "chat" for f in frames), frames
    return frames


def notice(player: Player) -> str:
    frame = player.recv()
    assert frame["kind"] == "notice", frame
    return frame["message"]


def test_a_message_is_escaped_plain_text_and_moves_no_version(web: TestClient) -> None:
    slug, room, anna, bo = two_players(web)
    version = room.state.version
    anna.send(do="say", text='<script>alert(1)</script> see https://example.com <b>now</b>')
    for p in (anna, bo):
        frame = chat_frames(p, 1)[0]
        assert frame["target"] == "#chat-log" and frame["swap"] == "beforeend"
        assert "version" not in frame
        assert "<script>" not in frame["content"] and "&lt;script&gt;" in frame["content"]
        assert "<b>now" not in frame["content"]
        assert "<a " not in frame["content"], "links are not clickable"
        assert "Anna" in frame["content"]
    assert room.state.version == version, "talk is not a game event"
    # a refresh shows it (kept with the room, escaped in the page too)
    page = web.get(f"/r/{slug}")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert "<script>alert(1)" not in page.text


def test_length_limit_and_empty_messages(web: TestClient) -> None:
    _slug, room, anna, bo = two_players(web)
    anna.send(do="say", text="x" * (MAX_TEXT + 1))
    assert f"the limit is {MAX_TEXT}" in notice(anna)
    anna.send(do="say", text="   \n\t ")
    assert "Type a message" in notice(anna)
    anna.send(do="say", text="y" * MAX_TEXT)
    frame = chat_frames(bo, 1)[0]
    assert "y" * MAX_TEXT in frame["content"]
    chat_frames(anna, 1)
    assert [line.text for line in room.chat.lines] == ["y" * MAX_TEXT]


def test_rate_limit_per_seat_with_a_clear_notice(web: TestClient) -> None:
    _slug, room, anna, bo = two_players(web)
    clock = FakeClock()
    room.chat.limit.clock = clock
    for i in range(RATE_COUNT):
        anna.send(do="say", text=f"hello {i}")
        chat_frames(anna, 1)
        chat_frames(bo, 1)
    anna.send(do="say", text="one too many")
    message = notice(anna)
    assert "too fast" in message and f"{RATE_COUNT} messages" in message
    # the limit is per seat: Bo may still talk
    bo.send(do="say", text="my turn to talk")
    assert "my turn to talk" in chat_frames(anna, 1)[0]["content"]
    chat_frames(bo, 1)
    clock.now += RATE_WINDOW
    anna.send(do="say", text="back again")
    assert "back again" in chat_frames(bo, 1)[0]["content"]
    assert "one too many" not in [line.text for line in room.chat.lines]


def test_host_mutes_a_seat_and_lets_it_talk_again(web: TestClient) -> None:
    _slug, room, anna, bo = two_players(web)
    bo.send(do="mute", seat=0)
    assert "Only the host" in notice(bo)
    anna.send(do="mute", seat=1)
    for p in (anna, bo):
        note, form = p.drain(2)
        assert note["kind"] == "chat" and "muted Bo" in note["content"]
        assert form["kind"] == "chatform"
    assert "muted you" in bo.frames[-1]["content"], "Bo's form says why he cannot talk"
    bo.send(do="say", text="can you hear me")
    assert "muted you" in notice(bo)
    bo.send(do="react", emoji="👍")
    assert "muted you" in notice(bo)
    anna.send(do="unmute", seat=1)
    for p in (anna, bo):
        p.drain(2)
    bo.send(do="say", text="thanks")
    assert "thanks" in chat_frames(anna, 1)[0]["content"]
    assert room.chat.muted == set()


def test_spectators_talk_only_when_the_host_allows(web: TestClient) -> None:
    slug, _room, anna, bo = two_players(web)
    watcher = Player(web, slug, None).connect()
    watcher.recv_table()  # a spectator arriving pushes nothing to the players
    watcher.send(do="say", text="hi from the rail")
    assert "Only the players" in notice(watcher)
    anna.send(do="spectators", allow="on")
    for p in (anna, bo, watcher):
        note, form = p.drain(2)
        assert "let spectators talk" in note["content"] and form["kind"] == "chatform"
    assert 'data-chat-form' in watcher.frames[-1]["content"]
    watcher.send(do="say", text="hi from the rail")
    assert "Spectator" in chat_frames(anna, 1)[0]["content"]


def test_a_reaction_shows_by_the_seat_and_in_the_log(web: TestClient) -> None:
    _slug, _room, anna, bo = two_players(web)
    bo.send(do="react", emoji="🥒")
    line, bubble = anna.drain(2)
    # drawn as our own cucumber (no emoji font needed), named in the log, hidden in the bubble
    assert line["kind"] == "chat" and '<use href="#react-cucumber"/>' in line["content"]
    assert 'role="img" aria-label="cucumber"' in line["content"]
    assert bubble["kind"] == "reaction" and bubble["target"] == "#react-1"
    assert '<use href="#react-cucumber"/>' in bubble["content"] and 'aria-hidden="true"' in bubble["content"]
    bo.drain(2)
    bo.send(do="react", emoji="<img src=x>")
    assert "not one of" in notice(bo)


def test_recent_talk_survives_a_restart_and_comes_with_a_sync(web: TestClient, db_url: str) -> None:
    from app.main import create_app
    from tests.conftest import make_settings

    slug, _room, anna, bo = two_players(web)
    anna.send(do="say", text="remember me")
    chat_frames(anna, 1)
    anna.send(do="mute", seat=1)
    anna.drain(2)
    anna.close()
    bo.close()
    with TestClient(create_app(make_settings(db_url))) as fresh:
        page = fresh.get(f"/r/{slug}")
        assert "remember me" in page.text
        again = fresh.app.state.rooms.get(slug)
        assert again.chat.muted == {1}, "the host's mute is kept with the room"
        p = Player(fresh, slug, anna.token).connect()
        try:
            p.recv_table()
            p.send(do="sync", v=again.state.version)
            table = p.recv()
            while table["kind"] in ("fragments", "private"):  # a change of the table (presence) may come first
                table = p.recv()
            assert table["kind"] == "table"
            lines = p.recv()
            while lines["kind"] in ("table", "fragments", "private"):  # a push of the table (presence, timers) may come between
                lines = p.recv()
            form = p.recv()
            assert lines["kind"] == "chat" and lines["swap"] == "innerHTML"
            assert "remember me" in lines["content"] and form["kind"] == "chatform"
        finally:
            p.close()
