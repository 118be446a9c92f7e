"""A small harness for driving rooms through the real websocket protocol with TestClient."""

from __future__ import annotations

import contextlib
import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

from fastapi.testclient import TestClient

from app.web.shared.security import seat_cookie_name
from tests.web.fragments import apply

HX_VALS = re.compile(r"hx-vals='([^']*)'")
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
                bots: int = 0, **options: Any) -> tuple[str, str]:
    data = {"name": name, "preset": preset, "seats": str(seats), "bots": str(bots)}
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

    def recv(self) -> dict[str, Any]:
        frame = json.loads(self.ws.receive_text())
        self.frames.append(frame)
        if frame["kind"] == "table":
            self.shown = frame
        elif frame["kind"] == "fragments":
            assert self.shown is not None, "fragments before any table"
            self.shown = {"kind": "table", "version": frame["version"],
                          "content": apply(self.shown["content"], frame)}
        return frame

    def recv_table(self) -> dict[str, Any]:
        """The next table frame, or changes to the table: the whole table it shows then."""
        frame = self.recv()
        assert frame["kind"] in ("table", "fragments"), frame
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

    def offered(self) -> list[dict[str, Any]]:
        """Every hx-vals payload in the last table (what the page lets this seat send)."""
        return [json.loads(html.unescape(v)) for v in HX_VALS.findall(self.table["content"])]

    def offered_actions(self) -> list[str]:
        return [v["action"] for v in self.offered() if v.get("do") == "act" and "action" in v]


def hidden_cards(room: Any, seat: int | None) -> set[str]:
    """Cards `seat` must not see now: other hands and the stock of the current deal."""
    g = room.game
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
