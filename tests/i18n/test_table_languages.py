"""The table domain in each reader's language: the home page, a room page, the card names, the
error pages, and the websocket, where every connection keeps the language it connected in."""

from __future__ import annotations

import json
import random
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from markupsafe import escape

from app.i18n import use_language
from app.main import create_app
from app.web.shared.security import seat_cookie_name
from app.web.table.words import card_label
from bench.table_wire import parse
from tests.conftest import make_settings
from tests.web.table.test_room_protocol import play_one, start, three_players
from tests.web.table.wsutil import Player, close_all, create_room, join

HOME = {
    "en": ["Play Gurka with friends", "Create room", "3 players", "1 bot"],
    "da": ["Spil Gurka med vennerne", "Opret rum", "3 spillere", "1 bot", "Sådan virker det"],
    "is": ["Spilaðu Gúrku með vinunum", "Búa til herbergi", "3 spilarar", "1 vélmenni"],
    "fi": ["Pelaa Gurkaa kavereiden kanssa", "Luo huone", "3 pelaajaa", "1 botti", "Näin se toimii"],
}
# the status line of a seat that waits, and of the seat whose turn it is
WAITING = {"en": "Waiting for", "da": "Venter på", "is": "Beðið eftir", "fi": "Odotetaan pelaajaa"}
YOUR_TURN = {"en": "Your turn", "da": "Din tur", "is": "Þú átt leik", "fi": "Sinun vuorosi"}
NOT_YOUR_TURN = {"en": "It is not your turn", "da": "Det er ikke din tur", "is": "Það er ekki komið að þér",
                 "fi": "Ei ole sinun vuorosi"}


@pytest.fixture
def web(tmp_path: Path) -> Iterator[TestClient]:
    # a whole game's turns, played flat out against bots, may come faster than a player's
    # message budget (100 in 20 s) lets a socket send: lifted, it is not what these tests check
    settings = make_settings(f"sqlite:///{tmp_path / 'langs.db'}", ws_player_messages=100_000)
    with TestClient(create_app(settings)) as client:
        try:
            yield client
        finally:
            close_all()


@pytest.mark.parametrize("lang", list(HOME))
def test_the_home_page_speaks_the_readers_language(web: TestClient, lang: str) -> None:
    page = web.get("/", headers={"cookie": f"lang={lang}"})
    assert page.status_code == 200
    assert f'<html lang="{lang}">' in page.text
    for phrase in HOME[lang]:
        assert phrase in page.text, (lang, phrase)
    if lang != "en":
        assert "Play Gurka with friends" not in page.text and "How it works" not in page.text


def test_the_option_help_and_game_names_follow_the_language(web: TestClient) -> None:
    page = web.get("/new/options?preset=rassi", headers={"accept-language": "fi"}).text
    assert "Rassi: ilmaiset kortit ja kahdennus" in page  # the option's name for players
    assert "Ennen peliä käden, jossa ei ole kuvakorttia, saa vaihtaa ilmaiseksi" in page  # its line
    assert "Talon säännöt: Rassi (suomalainen)" in page
    assert "(§6)" not in page  # no rule-book numbers
    assert "Seuraava jakaja" in page and ">vasemmalla oleva pelaaja</option>" in page  # a name and a choice
    assert "Next dealer" not in page and "next dealer" not in page


@pytest.mark.parametrize("lang", list(HOME))
def test_every_house_rule_has_a_name_and_a_line_for_players(web: TestClient, lang: str) -> None:
    """Issue 24: the home page showed code names ("eight led lowest", "out at: reach")."""
    from app.rooms.engine import option_fields
    from app.web.table.house_rules import choice_label, option_help, option_label

    for preset in ("gurka-night", "gurka-is", "vidivellir", "kurkku", "rassi"):
        page = web.get(f"/new/options?preset={preset}", headers={"accept-language": lang}).text
        shown = re.sub(r"<[^>]+>", " ", page)  # the words, not the attributes
        for field in option_fields(preset):
            with use_language(lang):
                label, help_line = option_label(field.name), option_help(field.name)
                choices = [choice_label(field.name, c) for c in field.choices]
            assert label != field.name.replace("_", " ") and help_line, (preset, field.name)
            assert str(escape(label)) in page and str(escape(help_line)) in page, (lang, preset, field.name)
            for choice, words in zip(field.choices, choices, strict=True):
                assert f">{escape(words)}</option>" in page, (lang, preset, field.name, choice)
                assert words != choice.replace("_", " ") or words.isalpha() and " " not in choice, words
        for code in ("eight led lowest", "out at", "one left", "first out", "exact clear", "beat equal", "§"):
            assert code not in shown, (lang, preset, code)


def test_a_room_page_in_each_language(web: TestClient) -> None:
    slug, token = create_room(web, name="Anna", seats=3)
    seat = f"{seat_cookie_name(slug)}={token}"
    expected = {
        "en": ["Waiting room", "You are the host: start when everyone is here.", "Table talk", "Add a bot"],
        "da": ["Venteværelse", "Du er vært: start, når alle er her.", "Bordsnak", "Tilføj en bot"],
        "is": ["Biðstofa", "Þú ert gestgjafinn: byrjaðu þegar allir eru komnir.", "Borðspjall"],
        "fi": ["Odotushuone", "Olet isäntä: aloita, kun kaikki ovat paikalla.", "Pöytäjutut", "Lisää botti"],
    }
    for lang, phrases in expected.items():
        page = web.get(f"/r/{slug}", headers={"cookie": f"{seat}; lang={lang}"}).text
        for phrase in phrases:
            assert phrase in page, (lang, phrase)
    spectator = web.get(f"/r/{slug}", headers={"accept-language": "da"}).text
    assert "Venter på, at værten starter spillet." in spectator and "Tag en plads" in spectator


def test_card_names_are_said_in_each_language() -> None:
    said = {}
    for lang in ("en", "da", "is", "fi"):
        with use_language(lang):
            said[lang] = (card_label("QH"), card_label("TC"), card_label("X1"))
    assert said["en"] == ("queen of hearts", "10 of clubs", "Joker")
    assert said["da"] == ("hjerter dame", "klør 10", "Joker")
    assert said["is"] == ("hjarta drottning", "laufa 10", "Jóker")
    assert said["fi"] == ("hertta rouva", "risti 10", "Jokeri")


def test_the_404_page_of_a_room_and_an_error_page_are_translated(web: TestClient) -> None:
    missing = web.get("/r/nosuchroom12", headers={"cookie": "lang=is"})
    assert missing.status_code == 404 and "Herbergið er ekki til" in missing.text
    unknown = web.get("/new/options?preset=nope", headers={"cookie": "lang=da"})
    assert unknown.status_code == 404
    assert "Ikke fundet" in unknown.text and "Ukendt spil" in unknown.text and "Gå tilbage" in unknown.text


def test_a_form_refusal_is_said_in_the_readers_language(web: TestClient) -> None:
    page = web.post("/rooms", data={"name": "", "preset": "gurka-night", "seats": "3", "bots": "0"},
                    headers={"cookie": "lang=fi"})
    assert page.status_code == 400
    assert "Kirjoita nimimerkkisi." in page.text


def _four_readers(web: TestClient) -> tuple[list[Player], list[str], object]:
    """Four seats, each connected in its own language (the host reads English)."""
    langs = ["en", "da", "is", "fi"]
    slug, t0 = create_room(web, name="Anna", seats=4)
    tokens = [t0] + [join(web, slug, name) for name in ("Bo", "Cai", "Dan")]
    players = []
    for i, (token, lang) in enumerate(zip(tokens, langs, strict=True)):
        players.append(Player(web, slug, token).connect(headers={"accept-language": lang}))
    for i, p in enumerate(players):  # every attach publishes presence to those already connected
        p.drain(4 - i)
    room = web.app.state.rooms.get(slug)  # type: ignore[attr-defined]
    host = players[0]
    host.send(do="start", v=host.version)
    for p in players:
        p.recv_table()
    return players, langs, room


def test_each_connection_gets_its_tables_and_refusals_in_its_own_language(web: TestClient) -> None:
    players, langs, room = _four_readers(web)
    to_act = room.state.game.to_act  # type: ignore[attr-defined]
    for seat, (p, lang) in enumerate(zip(players, langs, strict=True)):
        content = p.visible
        assert (YOUR_TURN if seat == to_act else WAITING)[lang] in content, (lang, seat)
        for other in langs:
            if other != lang and other != "en":
                assert WAITING[other] not in content and YOUR_TURN[other] not in content, (lang, other)
    # a refusal from the rules is said in the language of the connection that asked
    for seat, (p, lang) in enumerate(zip(players, langs, strict=True)):
        if seat == to_act:
            continue
        p.send(do="act", action="play 2C", v=p.version)
        notice = p.recv()
        assert notice["kind"] == "notice", notice
        assert notice["message"].startswith(NOT_YOUR_TURN[lang]), (lang, notice["message"])
        assert NOT_YOUR_TURN[lang] in notice["content"]
        p.recv_table()
    # a move pushes a new table to all, each in its reader's language
    actor = players[to_act]
    action = random.Random(7).choice(actor.offered_actions())
    before = room.state.version  # type: ignore[attr-defined]
    actor.send(do="act", action=action, v=actor.version)
    for p, lang in zip(players, langs, strict=True):
        frame = p.recv_table()
        assert frame["version"] > before
        assert WAITING[lang] in frame["content"] or YOUR_TURN[lang] in frame["content"], lang
    # the cards are named in each reader's words too (the hand's labels for screen readers)
    danish = players[1].visible
    assert any(f'aria-label="{suit} ' in danish for suit in ("hjerter", "ruder", "klør", "spar"))
    assert not any(f" of {suit}" in danish for suit in ("hearts", "diamonds", "clubs", "spades"))


def test_a_chat_note_is_said_to_each_connection_in_its_language(web: TestClient) -> None:
    players, langs, _room = _four_readers(web)
    players[0].send(do="mute", seat=1)
    said = {}
    for p, lang in zip(players, langs, strict=True):
        frame = p.recv()
        while frame["kind"] != "chat":
            frame = p.recv()
        said[lang] = frame["content"]
    assert "The host muted Bo." in said["en"]
    assert "Værten gjorde Bo tavs." in said["da"]
    assert "Gestgjafinn þaggaði niður í Bo." in said["is"]
    assert "Isäntä mykisti pelaajan Bo." in said["fi"]


def test_a_finished_game_its_score_sheet_and_replay_in_each_language(web: TestClient) -> None:
    slug, room, players = three_players(web, target="12")
    start(players, room)
    rng = random.Random(8)
    while not room.state.game.over:
        play_one(players, room, rng)
    host = f"{seat_cookie_name(slug)}={players[0].token}"
    over = {
        "da": ["Spillet er slut", "Pointliste (", "Gå spillet igennem i gennemgangen", "Klar til revanche"],
        "is": ["Spilinu er lokið", "Stigablað (", "Farðu í gegnum spilið í upprifjuninni"],
        "fi": ["Peli päättyi", "Pistekirja (", "Käy peli läpi uusinnassa", "Valmis revanssiin"],
    }
    for lang, phrases in over.items():
        page = web.get(f"/r/{slug}", headers={"cookie": f"{host}; lang={lang}"}).text
        for phrase in phrases:
            assert phrase in page, (lang, phrase)
    replay = {
        "da": ["Gennemgang: Gurka Night (dansk klub)", "Omgang 1", "Trin 1 af", "‹ Stik", "Kortene er givet."],
        "is": ["Upprifjun: Gurka Night (danskur klúbbur)", "Umferð 1", "Skref 1 af", "Spilin eru gefin."],
        "fi": ["Uusinta: Gurka Night (tanskalainen kerho)", "Jako 1", "Vaihe 1/", "Kortit on jaettu."],
    }
    for lang, phrases in replay.items():
        page = web.get(f"/r/{slug}/replay", headers={"cookie": f"lang={lang}"}).text
        for phrase in phrases:
            assert phrase in page, (lang, phrase)
        assert "Step 1 of" not in page and "The cards are dealt." not in page
    moved = web.get(f"/r/{slug}/replay?game=1&step=2", headers={"cookie": "lang=is"}).text
    assert " spilaði " in moved  # "%(name)s played %(cards)s." in Icelandic


def test_a_plural_with_a_name_renders_in_templates(web: TestClient) -> None:
    """Jinja fills a plural's parameters itself (the name as well as the number)."""
    env = web.app.state.templates.env  # type: ignore[attr-defined]
    page = env.from_string('{{ ngettext("%(name)s swapped %(num)d card", "%(name)s swapped %(num)d cards", n, '
                           'name=who) }} · {{ _("Waiting for %(name)s.", name=who) }}')
    said = {}
    for lang in ("en", "da", "is", "fi"):
        with use_language(lang):
            said[lang] = (page.render(n=1, who="Bo"), page.render(n=21, who="<Bo>"))
    assert said["en"] == ("Bo swapped 1 card · Waiting for Bo.", "&lt;Bo&gt; swapped 21 cards · Waiting for &lt;Bo&gt;.")
    assert said["fi"][0] == "Bo vaihtoi 1 kortin · Odotetaan pelaajaa Bo."
    assert said["is"][1] == "&lt;Bo&gt; skipti 21 spili · Beðið eftir &lt;Bo&gt;."  # Icelandic: 21 is singular
    assert said["da"][1].startswith("&lt;Bo&gt; byttede 21 kort")


class Reader:
    """A connection as the publisher sees it: a seat and a language."""

    def __init__(self, seat: int | None, lang: str) -> None:
        self.seat, self.lang = seat, lang
        self.shown: tuple[int, int | None] | None = None


def _every_reader_table(room: object) -> list[tuple[str, int | None, str]]:
    """Every seat's table and a spectator's, in every language."""
    tables = []
    for lang in ("en", "da", "is", "fi"):
        with use_language(lang):
            for seat in (0, 1, 2, None):
                (_conn, frame), = room.manager.audience.tables.table_frames(room, [Reader(seat, lang)])  # type: ignore[attr-defined]
                tables.append((lang, seat, parse(frame)["content"]))
    return tables


@pytest.mark.parametrize("preset", ["gurka-night", "gurka-is", "vidivellir", "kurkku", "rassi"])
def test_every_phase_of_every_preset_renders_in_every_language(web: TestClient, preset: str) -> None:
    """A whole game against bots; at each of the human's turns the table is rendered for every seat
    (and a spectator) in every language: no message may fail to render, and none stays English."""
    from app.rooms import engine

    options = {"exchange": "on"} if preset == "gurka-is" else {}
    slug, token = create_room(web, name="Anna", preset=preset, seats=3, bots=2, **options)
    me = Player(web, slug, token).connect(headers={"accept-language": "is"})
    me.recv_table()
    me.send(do="start", v=me.version)
    rooms = web.app.state.rooms  # type: ignore[attr-defined]
    room = rooms.get(slug)
    rng = random.Random(3)
    turns = 0
    while turns < 400:
        frame = me.recv()
        if frame["kind"] not in ("table", "fragments", "private"):
            continue
        frame = me.table  # the whole table the page shows now
        content = frame["content"]
        if 'data-mode="over"' in content:
            break
        if not re.search(r'data-mode="(play|select|exchange|rassi)"', content) or frame["version"] != room.state.version:
            continue
        assert "Þú átt leik" in content
        exchange = re.search(r"data-send-selection=\"exchange\" data-labels='([^']*)'", content)
        if exchange:  # the button's words for each count up to the cards held (one in a 1-card deal)
            labels = json.loads(exchange.group(1))
            assert labels[1] == "Skipta 1 spili" and labels[2:3] in ([], ["Skipta 2 spilum"]), labels
        if 'data-send-selection="play"' in content:
            assert '"Spila 1 spili"' in content
        # drawn on the server's loop, as a push is: the room is the loop's, and a bot's clock or a
        # presence push may be busy with it while this thread waits
        for lang, seat, html in web.portal.call(_every_reader_table, room):  # type: ignore[union-attr]
            assert "%(" not in html, (lang, seat)
            if lang != "en":
                assert "Waiting for" not in html and "Your turn" not in html, (lang, seat)
        action = engine.bot_action(room.state.game, 0, rng)
        me.send(do="act", action=action, v=frame["version"])
        turns += 1
    assert room.state.game is not None and room.state.game.over, f"{preset}: the game did not end in {turns} turns"


def test_a_refusal_names_the_game_by_its_title_in_the_readers_language(web: TestClient) -> None:
    slug, token = create_room(web, name="Anna", preset="gurka-night", seats=3)
    host = Player(web, slug, token).connect(headers={"accept-language": "da"})
    host.recv_table()
    host.send(do="start", v=host.version)
    frame = host.recv()
    while frame["kind"] != "notice":
        frame = host.recv()
    assert frame["message"].startswith("Gurka Night (dansk klub) kræver mindst 2 spillere"), frame["message"]
    assert "gurka-night" not in frame["message"] and "gurka-night" not in frame["content"]


def test_a_chat_note_comes_back_in_the_readers_language_after_a_restart(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'notes.db'}"
    with TestClient(create_app(make_settings(url))) as first:
        slug, t0 = create_room(first, name="Anna", seats=3)
        join(first, slug, "Bo")
        host = Player(first, slug, t0).connect()
        host.recv_table()
        host.send(do="mute", seat=1)
        frame = host.recv()
        while frame["kind"] != "chat":
            frame = host.recv()
        assert "The host muted Bo." in frame["content"]
        close_all()
    with TestClient(create_app(make_settings(url))) as again:
        danish = again.get(f"/r/{slug}", headers={"cookie": "lang=da"})
        finnish = again.get(f"/r/{slug}", headers={"cookie": "lang=fi"})
        english = again.get(f"/r/{slug}", headers={"cookie": "lang=en"})
    assert "Værten gjorde Bo tavs." in danish.text and "The host muted" not in danish.text
    assert "Isäntä mykisti pelaajan Bo." in finnish.text
    assert "The host muted Bo." in english.text
