"""The rooms' news on the wire (`app/web/table/publisher.py`): the room says what changed, the web
side makes the frames and tells each connection's queue which ones are the table's (a whole
table supersedes the table's frames still waiting; notices and talk keep their place)."""

from __future__ import annotations

from typing import Any

from fastapi.testclient import TestClient

from app.rooms.news import NewsKind, Reaction
from app.rooms.tokens import hash_token
from app.rules.text import Text
from bench.table_wire import parse


class Listener:
    """A connection as the web side sees it: a seat, a language, and what it was offered how."""

    def __init__(self, token: str | None, lang: str = "en") -> None:
        self.token_hash = hash_token(token) if token else None
        self.seat: int | None = None
        self.lang, self.closed, self.id = lang, False, id(self)
        self.offered: list[tuple[dict[str, Any], str]] = []  # (frame, "whole" | "part" | "")

    def offer(self, frame: str, *, whole: bool = False, part: bool = False) -> bool:
        self.offered.append((parse(frame), "whole" if whole else "part" if part else ""))
        return True

    async def stop(self) -> None:
        self.closed = True


def test_each_kind_of_news_becomes_its_frame_and_the_queue_knows_the_tables(web: TestClient) -> None:
    manager = web.app.state.rooms  # type: ignore[attr-defined]

    async def play() -> tuple[Listener, Listener]:
        room, token = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Ann <b>")
        await room.join("Bo")
        ann, watcher = Listener(token), Listener(None, "da")
        room.attach(ann)
        room.attach(watcher)
        await room.join("Cai")  # a change of the table: what changed, for each
        room.tell(ann, Text("Only the host can do that."), "info")  # a notice, then the whole table
        room.herald.announce(NewsKind.REACTION, reaction=Reaction(0, "🥒"))
        await room.say(ann, "hello <i>there</i>")
        return ann, watcher

    ann, watcher = web.portal.call(play)  # type: ignore[attr-defined]
    kinds = [(frame["kind"], how) for frame, how in ann.offered]
    assert kinds == [("table", "whole"), ("fragments", "part"), ("notice", ""), ("table", "whole"),
                     ("reaction", ""), ("chat", "")]
    notice = ann.offered[2][0]
    assert notice["target"] == "#notice" and notice["message"] == "Only the host can do that."
    assert ann.offered[4][0]["target"] == "#react-0"
    chat = ann.offered[5][0]
    assert chat["target"] == "#chat-log" and chat["swap"] == "beforeend"
    assert "&lt;i&gt;there&lt;/i&gt;" in chat["content"] and "<i>" not in chat["content"]
    # the spectator heard the change and the talk, not Ann's notice
    assert [frame["kind"] for frame, _how in watcher.offered] == ["table", "fragments", "reaction", "chat"]
