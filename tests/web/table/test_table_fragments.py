"""The table per version (issue 36): each connection gets its whole table once, then a shared frame
of what changed for everybody (the same bytes for every connection of a language) and a private
frame of what changed for its seat alone; applied in order they give exactly the table a fresh
render gives, for every seat and spectators in four languages, through whole games of every preset."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from html.parser import HTMLParser
from typing import Any

import pytest
from fastapi.testclient import TestClient

from app.i18n import use_language
from app.main import create_app
from app.rooms import engine
from app.rooms.clock import FakeClock
from app.rooms.tokens import hash_token
from bench.table_wire import Stale, apply, element, parse, pieces_of
from tests.conftest import make_settings
from tests.web.table.test_room_protocol import start, three_players
from tests.web.table.viewers import read_as
from tests.web.table.wsutil import close_all, settle

Node = tuple[str, tuple[tuple[str, str], ...], tuple[Any, ...]]


class _Tree(HTMLParser):
    """A page's elements as nested tuples (tag, attributes, children), text with its whitespace
    collapsed and blank text left out: the structure a browser builds, not the string."""

    VOID = frozenset({"meter", "input", "br", "img", "use", "hr", "meta", "link"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.stack: list[tuple[str, tuple[tuple[str, str], ...], list[Any]]] = [("root", (), [])]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = (tag, tuple(sorted((k, v or "") for k, v in attrs)), [])
        self.stack[-1][2].append(node)
        if tag not in self.VOID:
            self.stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1][2].append((tag, tuple(sorted((k, v or "") for k, v in attrs)), []))

    def handle_endtag(self, tag: str) -> None:
        if tag in self.VOID:
            return
        assert self.stack[-1][0] == tag, (self.stack[-1][0], tag)
        self.stack.pop()

    def handle_data(self, data: str) -> None:
        text = " ".join(data.split())
        if text:
            self.stack[-1][2].append(text)


def tree(html: str) -> Any:
    parser = _Tree()
    parser.feed(html)
    parser.close()
    assert len(parser.stack) == 1, "every element is closed"

    def frozen(node: Any) -> Any:
        return node if isinstance(node, str) else (node[0], node[1], tuple(frozen(c) for c in node[2]))

    return frozen(parser.stack[0])


class Viewer:
    """A connection as the room sees it: a seat (None: a spectator), a language, its frames."""

    def __init__(self, seat: int | None, lang: str, token_hash: str | None) -> None:
        self.seat, self.lang, self.token_hash, self.closed = seat, lang, token_hash, False
        self.shown: tuple[int, int | None] | None = None
        self.frames: list[str] = []

    def offer(self, frame: str, *, whole: bool = False, part: bool = False) -> bool:
        self.frames.append(frame)
        return True

    def start(self) -> None:
        pass

    async def stop(self) -> None:
        self.closed = True


@pytest.fixture
def web(db_url: str) -> Iterator[TestClient]:
    """The app on a clock that stands still: a fresh render shows the turn timer's seconds left as
    the last push did (on the wall clock a busy machine crossed a second between the push and the
    fresh render, and the two differed by `data-turn-left` alone)."""
    with TestClient(create_app(make_settings(db_url), clock=FakeClock())) as client:
        try:
            yield client
        finally:
            close_all()


def fresh(web: TestClient, room: Any, viewer: Viewer) -> str:
    """The whole table `viewer`'s seat and language gets now, drawn from scratch (as the room page
    draws it: nothing reused from what was rendered before)."""
    with use_language(viewer.lang):
        return str(web.app.state.publisher.page_table(room, viewer.seat))  # type: ignore[attr-defined]


NAMES = ("Ann <script>alert(1)</script>", 'Bo "B" \\o/', "Cai & Dóra's")


@pytest.mark.parametrize("preset", engine.preset_names())
def test_each_connections_pushes_give_the_table_a_fresh_render_gives(web: TestClient, preset: str) -> None:
    manager = web.app.state.rooms  # type: ignore[attr-defined]

    async def play() -> dict[str, int]:
        room, token = await manager.create_room(preset=preset, options={}, seats=3, host_name=NAMES[0])
        tokens = [token] + [(await room.join(name))[1] for name in NAMES[1:]]
        # two seats and a spectator share a language (what they see alike is rendered once for
        # them), two others have their own
        viewers = [Viewer(i, ("en", "da", "en")[i], hash_token(t)) for i, t in enumerate(tokens)]
        viewers += [Viewer(None, "en", None), Viewer(None, "fi", None), Viewer(None, "is", None)]
        for v in viewers:
            room.attach(v)
        shown = {id(v): "" for v in viewers}
        seen = {"pushes": 0, "fragments": 0, "checks": 0}

        def check() -> None:
            for v in viewers:
                for raw in v.frames:
                    frame = parse(raw)
                    if frame["kind"] == "table":
                        shown[id(v)] = frame["content"]
                    elif frame["kind"] in ("fragments", "private"):
                        seen["pushes"] += 1
                        seen["fragments"] += len(pieces_of(frame["content"]))
                        shown[id(v)] = apply(shown[id(v)], frame)
                v.frames.clear()
                assert tree(shown[id(v)]) == tree(fresh(web, room, v)), (preset, v.seat, room.state.version)
                seen["checks"] += 1

        rng = random.Random(len(preset))
        check()
        await room.start(0, dealer=0)
        check()
        moves = 0
        while room.state.game is not None and not room.state.game.over and moves < 1500:
            g = room.state.game
            moves += 1
            if g.to_act is None:
                await room.deal_next(room.state.version, by=0)
            else:
                await room.act(g.to_act, rng.choice([str(a) for a in g.legal_actions()]), room.state.version)
            check()
        assert room.state.game is not None and room.state.game.over, "a whole game was played"
        await room.vote_rematch(1)  # the game-over panel changes for everybody
        check()
        for v in viewers:
            room.detach(v)  # type: ignore[arg-type]
        return seen

    seen = web.portal.call(play)  # type: ignore[attr-defined]
    # a whole game is many steps (the shortest seen: 43 steps, 172 checks; the deals are shuffled
    # anew each run), each checked for every viewer
    assert seen["pushes"] > 50 and seen["checks"] > 100
    # a push sends a few pieces, not the whole table
    assert seen["fragments"] < 4 * seen["pushes"], seen


def hand_codes(room: Any) -> set[str]:
    """Every card in any hand now."""
    return {c for seat in range(len(room.state.seats)) for c in room.state.game.seat_view(seat)["hand"]}


def test_one_shared_frame_per_language_the_same_bytes_for_all_and_no_hand_in_it(web: TestClient) -> None:
    """Every connection of a language at the same seq is offered the identical shared frame,
    whatever its seat; a seat's own changes come in a private frame of its own, and no shared
    frame holds a hand, a legal move or a viewer's own advice."""
    manager = web.app.state.rooms  # type: ignore[attr-defined]

    async def play() -> int:
        room, token = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Ann")
        tokens = [token] + [(await room.join(name))[1] for name in ("Bo", "Cai")]
        viewers = [Viewer(i, "en", hash_token(t)) for i, t in enumerate(tokens)]
        viewers += [Viewer(None, "en", None), Viewer(None, "da", None), Viewer(1, "da", hash_token(tokens[1]))]
        for v in viewers:
            room.attach(v)
        await room.start(0, dealer=0)
        rng = random.Random(2)
        checked = 0
        while room.state.game is not None and not room.state.game.over and checked < 60:
            for v in viewers:
                v.frames.clear()
            g = room.state.game
            if g.to_act is None:
                await room.deal_next(room.state.version, by=0)
                continue
            mover = g.to_act
            await room.act(mover, rng.choice([str(a) for a in g.legal_actions()]), room.state.version)
            # the cards in hands now that the table shows nobody (a card of a past deal, a penalty
            # card, may be in a hand again)
            shown = set(re.findall(r'data-card="([^"]+)"', fresh(web, room, Viewer(None, "en", None))))
            still = hand_codes(room) - shown
            shared: dict[str, set[str]] = {}
            for v in viewers:
                frames = [parse(f) for f in v.frames]
                kinds = [f["kind"] for f in frames]
                assert kinds[:1] == ["fragments"] and kinds.count("fragments") == 1, kinds
                shared.setdefault(v.lang, set()).add(v.frames[0])
                content = frames[0]["content"]
                assert "table-hand" not in content and "table-move" not in content and "data-legal" not in content
                assert 'id="card-' not in content and "data-hand" not in content
                for code in still:  # no card hidden in a hand is named by the table everyone sees
                    assert f'data-card="{code}"' not in content, code
                for f in frames[1:]:  # the seat's own: only its own cards
                    assert f["kind"] == "private" and f["seq"] == frames[0]["seq"]
                    others = still - set(room.state.game.seat_view(v.seat)["hand"] if v.seat is not None else ())
                    for code in others:
                        assert f'data-card="{code}"' not in f["content"], (v.seat, code)
            assert all(len(texts) == 1 for texts in shared.values()), "one frame per language"
            assert len(shared) == 2
            mover_frames = [parse(f) for f in viewers[mover].frames]
            assert any(f["kind"] == "private" for f in mover_frames), "the mover's own hand changed"
            checked += 1
        for v in viewers:
            room.detach(v)  # type: ignore[arg-type]
        return checked

    assert web.portal.call(play) >= 20  # type: ignore[attr-defined]


def test_a_seat_coming_and_going_sends_the_others_only_its_row_changes(web: TestClient) -> None:
    _slug, room, players = three_players(web, target="12")
    start(players, room)
    version = room.state.version
    players[2].close()  # Cai's tab closes
    settle(web)
    for p in players[:2]:
        update = p.recv()
        assert update["kind"] == "fragments" and update["version"] == version
        assert 'class="dot off" id="dot-2"' in update["content"] and "data-hand" not in update["content"]
        assert "private" not in update  # nothing of anybody's own changed
        assert 'class="dot off" id="dot-2"' in p.table["content"]


def test_changes_that_do_not_start_from_the_shown_table_do_not_apply(web: TestClient) -> None:
    _slug, room, players = three_players(web, target="12")
    start(players, room)
    bo = players[1]
    old = bo.table["content"]
    seat = room.state.game.to_act
    players[seat].send(do="act", action=room.state.game.view(seat)["legal"][0], v=room.state.version, aid="a")
    settle(web)
    bo.recv()
    seat = room.state.game.to_act
    players[seat].send(do="act", action=room.state.game.view(seat)["legal"][0], v=room.state.version, aid="b")
    settle(web)
    second = bo.recv()
    with pytest.raises(Stale):
        apply(old, second)  # a page that missed the first push does not apply the second
    bo.send(do="sync", v=0)
    assert bo.recv()["kind"] == "table" and bo.version == room.state.version  # it asks for the whole table


PIECES = ["table-say", "table-result", "table-seats", "table-felt", "table-sheet", "table-over", "table-lead"]


@pytest.mark.parametrize("piece", PIECES)
def test_names_with_markup_quotes_and_backslashes_are_text_in_every_piece(web: TestClient, piece: str) -> None:
    manager = web.app.state.rooms  # type: ignore[attr-defined]

    async def play() -> tuple[list[tuple[int | None, str]], list[str]]:
        room, token = await manager.create_room(preset="gurka-night", options={"target": 12}, seats=3,
                                                host_name=NAMES[0])
        tokens = [token] + [(await room.join(name))[1] for name in NAMES[1:]]
        viewers = [Viewer(1, "en", hash_token(tokens[1])), Viewer(None, "en", None)]
        htmls: list[tuple[int | None, str]] = []

        def keep() -> None:
            for v in viewers:
                table = fresh(web, room, v)
                if f'id="{piece}"' in table:
                    start_, _inner, end = element(table, piece)
                    htmls.append((v.seat, table[start_:end]))

        keep()
        await room.start(0, dealer=0)
        rng = random.Random(5)
        while room.state.game is not None and not room.state.game.over:
            g = room.state.game
            if g.to_act is None:
                await room.deal_next(room.state.version, by=0)
            else:
                await room.act(g.to_act, rng.choice([str(a) for a in g.legal_actions()]), room.state.version)
            keep()
        return htmls, [s.name for s in room.state.seats.values()]  # (as the room keeps them)

    htmls, names = web.portal.call(play)  # type: ignore[attr-defined]
    assert any("<" in n for n in names) and any('"' in n for n in names) and any("\\" in n for n in names)
    named = [h for _seat, h in htmls if "Ann" in h or "Bo" in h or "Cai" in h]
    assert named, f"the {piece} piece names a player at some point"
    for _seat, html in htmls:
        assert "<script" not in html and 'Bo "B"' not in html
        texts = json.dumps(tree(html), ensure_ascii=False)
        for name in names:
            first = name.split()[0]
            if f">{first}" in html or f"> {first}" in html or f"\n{first}" in html:  # shown
                assert json.dumps(" ".join(name.split()), ensure_ascii=False)[1:-1] in texts, name


def test_talk_with_markup_quotes_and_backslashes_is_text(web: TestClient) -> None:
    _slug, _room, players = three_players(web, target="12")
    said = '<script>alert("x")</script> \\ \'quoted\''
    players[0].send(do="say", text=said)
    settle(web)
    frame = players[1].recv()
    assert frame["kind"] == "chat" and "<script" not in frame["content"]
    assert json.dumps(" ".join(said.split()), ensure_ascii=False)[1:-1] in json.dumps(tree(frame["content"]),
                                                                                      ensure_ascii=False)


def partials(frames: list[str]) -> list[tuple[str, str]]:
    """(target id, swap) of every partial in `frames` (JSON text), in order."""
    found: list[tuple[str, str]] = []
    for raw in frames:
        frame = parse(raw)
        if frame["kind"] in ("fragments", "private"):
            found += [(target, swap) for target, swap, _html in pieces_of(frame["content"])]
    return found


def test_a_play_adds_itself_a_deal_adds_a_row_and_a_card_played_is_taken_away(web: TestClient) -> None:
    """Lists as keyed items: the next card of a trick is added at the end of the trick's plays (the
    felt is not sent again), a finished deal adds its row to the score sheet (the sheet's
    <details>, open or not, stays), the card played leaves its player's hand alone, and a card
    played changes the mover's count, not the seats' rows; whose turn it is, the section says."""
    manager = web.app.state.rooms  # type: ignore[attr-defined]

    async def play() -> None:
        room, token = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Ann")
        tokens = [token] + [(await room.join(name))[1] for name in ("Bo", "Cai")]
        viewers = [Viewer(i, "en", hash_token(t)) for i, t in enumerate(tokens)]
        for v in viewers:
            room.attach(v)
        await room.start(0, dealer=0)
        rng = random.Random(5)
        inside_trick = deals_added = 0
        while room.state.game is not None and not room.state.game.over and deals_added < 2:
            g = room.state.game
            for v in viewers:
                v.frames.clear()
            if g.to_act is None:
                await room.deal_next(room.state.version, by=0)
                continue
            mover = g.to_act
            plays_before = len((g.view(None).get("trick") or {}).get("plays") or [])
            deals_before = len(g.deal_log)
            hand_before = list(g.seat_view(mover)["hand"])
            action = rng.choice([str(a) for a in g.legal_actions()])
            await room.act(mover, action, room.state.version)
            sent = partials(viewers[0].frames)
            targets = [target for target, _swap in sent]
            if plays_before and room.state.game.view(None)["trick"] and room.state.game.view(None)["trick"]["plays"]:
                assert ("table-plays", "beforeend") in sent and "table-felt" not in targets, sent
                assert not any(t.startswith("table-seat-") for t in targets), sent  # the rows stay
                assert f"table-count-{mover}" in targets, sent
                own = partials(viewers[mover].frames)
                played = action.split()[1:]
                if len(hand_before) > len(played):
                    assert [t for t, swap in own if swap == "delete"] == [
                        f"card-{c.lower()}" for c in played], own  # (one deck: one copy of each)
                inside_trick += 1
            if len(room.state.game.deal_log) > deals_before and deals_before:
                assert ("table-sheetrows", "beforeend") in sent and "table-sheetsum" in targets, sent
                assert "table-sheet" not in targets, sent
                deals_added += 1
        assert inside_trick > 5 and deals_added >= 1, (inside_trick, deals_added)
        for v in viewers:
            room.detach(v)  # type: ignore[arg-type]

    web.portal.call(play)  # type: ignore[attr-defined]


def test_each_seat_reads_you_on_its_own_row_only_and_the_host_its_own_buttons(web: TestClient) -> None:
    """The public table is the same for every viewer; what each one reads of it (the CSS rules of
    "each viewer's own words", as tests/web/table/viewers.py reads them) is its own: "you" on its own
    row, "Your turn" for the seat whose turn it is, the host's buttons for the host."""
    manager = web.app.state.rooms  # type: ignore[attr-defined]

    async def play() -> None:
        room, token = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Ann")
        tokens = [token] + [(await room.join(name))[1] for name in ("Bo", "Cai")]
        lobby = {seat: fresh(web, room, Viewer(seat, "en", None)) for seat in (0, 1, None)}
        assert "Start the game" in read_as(lobby[0]) and "Start the game" not in read_as(lobby[1])
        assert "You are seated" in read_as(lobby[1]) and "You are seated" not in read_as(lobby[0])
        assert "The table is full: you are watching." in read_as(lobby[None])
        assert "Remove" in read_as(lobby[0]) and "Remove" not in read_as(lobby[1])
        await room.start(0, dealer=0)
        to_act = room.state.game.to_act
        for seat in (0, 1, 2, None):
            table = fresh(web, room, Viewer(seat, "en", hash_token(tokens[seat]) if seat is not None else None))
            said = read_as(table)
            rows = {i: read_as(table[element(table, f"table-seat-{i}")[0]:element(table, f"table-seat-{i}")[2]],
                               data_me="" if seat is None else str(seat), data_role="x", data_to_act=str(to_act)) for i in range(3)}
            for i, row in rows.items():
                assert ("YOU" in row.upper().split()) == (i == seat), (seat, i, row)
            if seat == to_act:
                assert "Your turn" in said
            else:
                assert "Your turn" not in said and f"Waiting for {('Ann', 'Bo', 'Cai')[to_act]}." in said
    web.portal.call(play)  # type: ignore[attr-defined]


def test_a_seats_own_panel_is_drawn_in_each_connections_language(web: TestClient) -> None:
    """The club's panel (a seat's own piece) is drawn in the reader's language, whoever moved:
    two connections of one seat in two languages each get their own."""
    manager = web.app.state.rooms  # type: ignore[attr-defined]
    publisher = web.app.state.publisher  # type: ignore[attr-defined]

    def panel(room: Any, seat: int | None) -> str:
        from app.i18n import _
        return f'<p class="panel-test">{_("Waiting room")} {room.state.version}</p>'

    async def play() -> tuple[str, str]:
        room, token = await manager.create_room(preset="gurka-night", options={}, seats=3, host_name="Ann")
        for name in ("Bo", "Cai"):
            await room.join(name)
        en, da = Viewer(0, "en", hash_token(token)), Viewer(0, "da", hash_token(token))
        for v in (en, da):
            room.attach(v)
        publisher.panels.append(panel)
        try:
            with use_language("fi"):  # the mover's language, say
                await room.start(0, dealer=0)
        finally:
            publisher.panels.remove(panel)
        frames = {v.lang: "".join(v.frames) for v in (en, da)}
        for v in (en, da):
            room.detach(v)  # type: ignore[arg-type]
        return frames["en"], frames["da"]

    en, da = web.portal.call(play)  # type: ignore[attr-defined]
    from app.i18n import _

    said = {}
    for lang in ("en", "da", "fi"):
        with use_language(lang):
            said[lang] = _("Waiting room")
    assert len(set(said.values())) == 3
    panels = {lang: set(re.findall(r'class="panel-test">([^<]*?) \d+<', frames)) for lang, frames in (("en", en), ("da", da))}
    assert panels == {"en": {said["en"]}, "da": {said["da"]}}, panels
