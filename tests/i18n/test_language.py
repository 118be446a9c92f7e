"""The reader's language: switch and cookie, else Accept-Language, else English."""

from __future__ import annotations

from app.i18n import Text, gettext, negotiate, say, use_language
from app.web.shared.language import choose, safe_next


def test_accept_language_picks_the_best_of_ours() -> None:
    assert negotiate("fi-FI,fi;q=0.9,en;q=0.8") == "fi"
    assert negotiate("de-DE,is;q=0.5") == "is"
    assert negotiate("da") == "da"
    assert negotiate("nb-NO,nb;q=0.9") == "da"
    assert negotiate("de-DE") is None
    assert negotiate("") is None
    assert negotiate("en;q=x, da;q=0.2") == "da"


def test_the_cookie_wins_over_the_header() -> None:
    assert choose("lang=is; other=1", "da") == "is"
    assert choose("lang=xx", "fi") == "fi"
    assert choose('bad"cookie', None) == "en"
    assert choose(None, None) == "en"


def test_the_way_back_stays_on_this_site() -> None:
    assert safe_next("/r/abc?x=1") == "/r/abc?x=1"
    assert safe_next("//evil.example/") == "/"
    assert safe_next("https://evil.example/") == "/"
    assert safe_next(None) == "/"


def test_a_text_reads_as_english_and_keeps_its_id() -> None:
    t = Text("%(name)s is here.", name="Anna")
    assert t == "Anna is here."
    assert t.msgid == "%(name)s is here." and t.params == {"name": "Anna"}
    with use_language("en"):
        assert say(t) == "Anna is here."
        assert gettext("Hello %(who)s", who="Bo") == "Hello Bo"


def test_the_switch_remembers_the_language(client) -> None:  # type: ignore[no-untyped-def]
    r = client.get("/language/is?next=/rules/", follow_redirects=False)
    assert r.status_code == 303 and r.headers["location"] == "/rules/"
    assert "lang=is" in r.headers["set-cookie"]
    page = client.get("/rules/")
    assert '<html lang="is">' in page.text
    client.cookies.clear()
    page = client.get("/rules/", headers={"Accept-Language": "fi"})
    assert '<html lang="fi">' in page.text
    page = client.get("/rules/", headers={"Accept-Language": "de"})
    assert '<html lang="en">' in page.text
