"""The rules pages in Danish, Icelandic and Finnish: a reader who chose a language gets every
rule set in it, in the words the clubs themselves use, and no English left over."""

from __future__ import annotations

import html
import re
from typing import Any

import pytest

from app.i18n.catalogs import extract

PAGES = ["", "gurka-night", "gurka-is", "vidivellir", "kurkku", "rassi"]

# Each rule set read in a language that plays it says the seeds' own words.
OWN_WORDS: list[tuple[str, str, list[str]]] = [
    ("da", "gurka-night", ["forhånd", "baghånd", "agurk", "gået agurk", "Bar røv", "oldermænd", "stik",
                           "strafpoint", "Vinderbord"]),
    ("da", "", ["agurkespillet", "forhånd", "baghånd", "Alle fem spil"]),
    ("is", "gurka-is", ["Gúrka", "forhönd", "geymslubunka", "laufasexan", "slaginn", "refsistig"]),
    ("is", "vidivellir", ["Gúrkan", "forhönd", "tvennu", "Leggja á", "laufsjöan", "spaðasjöan", "Fljótsdal"]),
    ("fi", "kurkku", ["kurkku", "tikki", "etumies", "miinuspiste", "Jätä viimeiseksi käsikortiksi"]),
    ("fi", "rassi", ["kahdennus", "vastakahdennus", "Onko ilmaisia?", "kuvakortti", "nostopakka", "bridgestä"]),
]


def _text(page: str) -> str:
    """What a reader sees: the tags gone, the entities read, the spaces collapsed."""
    body = page.split("<main", 1)[-1]
    body = re.sub(r"<[^>]+>", " ", body)
    return " ".join(html.unescape(body).split())


def _read(client: Any, lang: str, slug: str) -> str:
    client.cookies.set("lang", lang)
    try:
        page = client.get(f"/rules/{slug}")
    finally:
        client.cookies.clear()
    assert page.status_code == 200, (lang, slug)
    assert f'<html lang="{lang}">' in page.text
    return str(page.text)


@pytest.mark.parametrize(("lang", "slug", "words"), OWN_WORDS)
def test_a_rule_set_reads_in_its_own_words(client: Any, lang: str, slug: str, words: list[str]) -> None:
    text = _text(_read(client, lang, slug))
    missing = [w for w in words if w.casefold() not in text.casefold()]
    assert not missing, f"/rules/{slug} in {lang} lacks {missing}"


# English sentences of four words or more, without markup: none may be left on a translated page.
_SENTENCES = [m.id for m in extract("rules") if isinstance(m.id, str) and "<" not in m.id
              and len(m.id.split()) >= 4 and "Gúrka (Iceland)" not in m.id]


@pytest.mark.parametrize("lang", ["da", "is", "fi"])
def test_no_english_is_left_on_a_translated_rules_page(client: Any, lang: str) -> None:
    assert len(_SENTENCES) > 100  # the check itself looks at the prose, not at nothing
    for slug in PAGES:
        text = _text(_read(client, lang, slug))
        left = [s for s in _SENTENCES if s in text]
        assert not left, f"/rules/{slug} in {lang} still says {left[:3]}"


def test_english_readers_keep_the_english_rules(client: Any) -> None:
    text = _text(_read(client, "en", "gurka-night"))
    assert "Ending a deal with a joker as your last card is called gået agurk" in text
    assert "Playing a trick" in text and "Spilleren til venstre" not in text
