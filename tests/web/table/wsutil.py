"""A small harness for driving rooms through the real websocket protocol with TestClient."""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

from fastapi.testclient import TestClient

from app.rooms.clock import FakeClock
from app.web.shared.security import seat_cookie_name
from bench.table_wire import apply, parse
from tests.web.table.viewers import visible_as

HX_VALS = re.compile(r"hx-vals='([^']*)'")
DATA_LEGAL = re.compile(r"id=\"table-move\" data-legal='([^']*)'")
CODE = re.compile(r"(?<![A-Za-z0-9])([2-9TJQKA][CDHS]|X[12])(?![A-Za-z0-9])")
RANKS = {"2": "2", "3": "3", "4": "4", "5": "5", "6": "6", "7": "7", "8": "8", "9": "9", "T": "10",
         "J": "jack", "Q": "queen", "K": "king", "A": "ace"}
SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}


def token_from(response: Any, slug: str) -> str:
    cookie = response.headers["set-cookie"]
    match = re.search(rf"{seat_cookie_name(slug)}=([^;]+)", cookie)
    assert match, cookie
    return match.group(1)


def create_room(client: TestClient, *, name: str = "Anna", preset: str = "gurka-night", seats: int = 3,
                bots: int = 0, turn_seconds: str | None = None, **options: Any) -> tuple[str, str]:
    """A new room made by `name` (its host): its slug and the host's seat token; `options` are
    the house rules (`opt_…` fields), `turn_seconds` the turn timer ("0": none)."""
    data = {"name": name, "preset": preset, "seats": str(seats), "bots": str(bots)}
    if turn_seconds is not None:
        data["turn_seconds"] = turn_seconds
    data.update({f"opt_{k}": v for k, v in options.items()})
    response = client.post("/rooms", data=data, follow_redirects=False)
    assert response.status_code == 303, response.text
    slug = response.headers["location"].rsplit("/", 1)[-1]
    token = token_from(response, slug)
    client.cookies.clear()
    return slug, token


def join(client: TestClient, slug: str, name: str) -> str:
    response = client.post(f"/r/{slug}/join", data={"name": name}, follow_redirects=False)
    assert response.status_code == 303, response.text
    token = token_from(response, slug)
    client.cookies.clear()
    return token


def three_seated(client: TestClient, turn_seconds: str) -> tuple[Any, list[Player]]:
    """A room of Anna (the host), Bo and Cai, not started: the room, and each seat's websocket,
    caught up with the table."""
    slug, t0 = create_room(client, turn_seconds=turn_seconds)
    tokens = [t0, join(client, slug, "Bo"), join(client, slug, "Cai")]
    players = [Player(client, slug, t).connect() for t in tokens]
    room = client.app.state.rooms.get(slug)  # type: ignore[attr-defined]
    catch_up(players, room)
    return room, players


def advance(client: TestClient, clock: FakeClock, seconds: float) -> None:
    """Move the fake clock on the app's own loop, then let the loop run what became due."""
    client.portal.call(clock.advance, seconds)  # type: ignore[union-attr]
    settle(client)


def settle(client: TestClient) -> None:
    client.portal.call(asyncio.sleep, 0.05)  # type: ignore[union-attr]


def seen(p: Player) -> int:
    """The table version this socket was last sent (-1: none yet)."""
    tables = [f for f in p.frames if f["kind"] in ("table", "fragments")]
    return int(tables[-1]["version"]) if tables else -1


def catch_up(players: list[Player], room: Any) -> None:
    """Read each socket's frames until it has the room's current table version."""
    for p in players:
        while seen(p) < room.state.version:
            p.recv()


def card_words(code: str) -> str:
    return "Joker" if code.startswith("X") else f"{RANKS[code[0]]} of {SUITS[code[1]]}"


OPEN: list[Player] = []


def close_all() -> None:
    """Close every websocket a test left open (a failing test must not hang the teardown)."""
    while OPEN:
        OPEN.pop().close()


@dataclass(eq=False)
class Player:
    """One websocket of one seat; remembers every frame it got."""

    client: TestClient
    slug: str
    token: str | None
    frames: list[dict[str, Any]] = field(default_factory=list)
    ws: Any = None
    _cm: Any = None
    shown: dict[str, Any] | None = None  # the whole table the page shows (table frames and changes applied)
    _waiting: list[dict[str, Any]] = field(default_factory=list)  # read ahead, not yet taken by recv()

    def connect(self, headers: dict[str, str] | None = None) -> Player:
        hdrs = dict(headers or {})
        if self.token:
            hdrs["cookie"] = f"{seat_cookie_name(self.slug)}={self.token}"
        self._cm = self.client.websocket_connect(f"/r/{self.slug}/ws", headers=hdrs)
        self.ws = self._cm.__enter__()
        OPEN.append(self)
        return self

    def close(self) -> None:
        if self._cm is not None:
            cm, self._cm, self.ws = self._cm, None, None
            if self in OPEN:
                OPEN.remove(self)
            with contextlib.suppress(Exception):  # already closed by the server
                cm.__exit__(None, None, None)

    def _next(self) -> dict[str, Any]:
        frame = self._waiting.pop(0) if self._waiting else parse(self.ws.receive_text())
        self.frames.append(frame)
        if frame["kind"] == "table":
            self.shown = frame
        elif frame["kind"] in ("fragments", "private"):
            assert self.shown is not None, "changes before any table"
            self.shown = {"kind": "table", "version": frame.get("version", self.shown["version"]),
                          "content": apply(self.shown["content"], frame)}
        return frame

    def _waiting_frame(self) -> dict[str, Any] | None:
        """The frame the server sent next, if it is there already (after a few turns of its loop)."""
        if self._waiting:
            return self._waiting[0]
        stream = self.ws._send_rx  # (the test client's own stream of what the app sent)
        for _ in range(4):
            if not stream.statistics().current_buffer_used:  # (no WouldBlock: its traceback would be garbage)
                self.client.portal.call(asyncio.sleep, 0)  # type: ignore[union-attr]
                continue
            message = self.client.portal.call(stream.receive_nowait)  # type: ignore[union-attr]
            self.ws._raise_on_close(message)  # type: ignore[union-attr]
            self._waiting.append(parse(message["text"]))
            return self._waiting[0]
        return None

    def recv(self) -> dict[str, Any]:
        """The next frame; a change of the table together with the seat's own change that comes
        right after it (its content then holds both, its "private" the seat's own frame)."""
        frame = self._next()
        if frame["kind"] == "fragments":
            following = self._waiting_frame()
            if following is not None and following["kind"] == "private" and following["seq"] == frame["seq"]:
                own = self._next()
                frame = {**frame, "content": frame["content"] + own["content"], "private": own}
        return frame

    def recv_table(self) -> dict[str, Any]:
        """The next table frame, or changes to the table: the whole table it shows then."""
        frame = self.recv()
        assert frame["kind"] in ("table", "fragments", "private"), frame
        return self.table

    def drain(self, n: int) -> list[dict[str, Any]]:
        return [self.recv() for _ in range(n)]

    def send(self, **message: Any) -> None:
        self.ws.send_text(json.dumps(message))

    @property
    def table(self) -> dict[str, Any]:
        assert self.shown is not None, "no table yet"
        return self.shown

    @property
    def version(self) -> int:
        return int(self.table["version"])

    @property
    def visible(self) -> str:
        """The table as this page shows it (what is for other viewers left out)."""
        return visible_as(self.table["content"])

    def offered(self) -> list[dict[str, Any]]:
        """Every hx-vals payload in the last table that the page shows (what it lets this seat send)."""
        return [json.loads(html.unescape(v)) for v in HX_VALS.findall(self.visible)]

    def offered_actions(self) -> list[str]:
        """The moves the seat's page offers now: its move's `data-legal` (each card button plays
        itself when that lists it; rassi's and the exchange's buttons say their own)."""
        found = DATA_LEGAL.search(self.table["content"])
        return [str(a) for a in json.loads(html.unescape(found.group(1)))] if found else []


def hidden_cards(room: Any, seat: int | None) -> set[str]:
    """Cards `seat` must not see now: other hands and the stock of the current deal."""
    g = room.state.game
    if g is None:
        return set()
    hidden: set[str] = set()
    for other in range(g.players):
        if other != seat:
            hidden.update(g.view(other)["hand"])
    deals = [entry for entry in g.log if "deal" in entry]
    if deals:
        hidden.update(deals[-1]["deal"]["stock"])
    return hidden - visible_cards(g.view(seat))


def visible_cards(view: dict[str, Any]) -> set[str]:
    """Every card a view shows: own hand, trick, previous trick, penalty piles, last deal."""
    cards = set(view.get("hand") or [])
    for trick in (view.get("trick"), view.get("last_trick")):
        for play in (trick or {}).get("plays", []):
            cards.update(play["cards"])
    for pile in view.get("penalty_cards") or []:
        cards.update(pile)
    last = view.get("last_deal") or {}
    cards.update(last.get("cards") or [])
    for final in last.get("final_cards") or []:
        if isinstance(final, str):
            cards.add(final)
        elif final:
            cards.update(final)
    return cards


def foreign_cards(frame: dict[str, Any], view: dict[str, Any]) -> set[str]:
    """Card codes in a frame that the seat's own view does not show (must be empty)."""
    return set(CODE.findall(frame.get("content", ""))) - visible_cards(view)


def leaks(frame: dict[str, Any], hidden: set[str]) -> list[str]:
    text = json.dumps(frame)
    content = frame.get("content", "")
    found = [c for c in CODE.findall(text) if c in hidden]
    found += [c for c in hidden if card_words(c) in content and not c.startswith("X")]
    return found
