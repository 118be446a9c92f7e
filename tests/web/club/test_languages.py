"""The club pages in the reader's language: Danish, Icelandic and Finnish readers get the Hall of
Fame and a night page in their own words, with dates and numbers written their way; English
readers keep the English pages."""

from __future__ import annotations

import re
from datetime import date, timedelta

import pytest

from .helpers import NINE, add_members, become_elder, finished_night_in_store, token

NIGHT_DAY = date(2025, 3, 3)  # a Monday

# language → (Hall of Fame phrases, night page phrases, the night's date as that reader writes it)
EXPECTED = {
    "da": (["Alle tider", "Placeringen for hver aften", "Gns. plads", "Aftener"],
           ["Placering", "Næste aften", "Indskrevne resultater", "Slet denne aften"],
           "man. 3. mar. 2025"),
    "is": (["Frægðarhöll", "Frá upphafi", "Lokastaða hvers kvölds", "Meðalsæti"],
           ["Lokastaða", "Næsta kvöld", "Skráð úrslit", "Eyða þessu kvöldi"],
           "mán. 3. mar. 2025"),
    "fi": (["Kunniagalleria", "Kaikkien aikojen", "Jokaisen illan sijoitukset", "Keskim. sija"],
           ["Sijoitukset", "Seuraava ilta", "Kirjatut tulokset", "Poista tämä ilta"],
           "ma 3.3.2025"),
}
ENGLISH = ["All time", "Every night's placement", "Recorded results", "The next night", "Delete this night"]


@pytest.fixture
def night_id(client) -> int:
    become_elder(client)
    ids = add_members(client, NINE)
    return finished_night_in_store(client.app.state.engine, ids=ids, players=NINE, day=NIGHT_DAY, seed=5)


def _averages(html: str) -> list[str]:
    """The Hall of Fame's average places (the column with two decimals)."""
    return re.findall(r'<td class="num">(\d+[.,]\d\d)</td>', html)


@pytest.mark.parametrize("lang", sorted(EXPECTED))
def test_a_reader_gets_the_hall_of_fame_and_a_night_in_their_language(client, night_id, lang) -> None:
    hof_words, night_words, day = EXPECTED[lang]
    client.cookies.set("lang", lang)
    hof = client.get("/club/hall-of-fame")
    night = client.get(f"/club/nights/{night_id}")
    assert hof.status_code == 200 and night.status_code == 200
    for page, words in ((hof.text, hof_words), (night.text, night_words)):
        assert f'<html lang="{lang}"' in page
        missing = [w for w in words if w not in page]
        assert not missing, f"{lang}: missing {missing}"
        assert not [w for w in ENGLISH if w in page], f"{lang}: English left on the page"
    assert day in hof.text  # every night's placement, dated the reader's way
    assert f"Gurka Night · {day}" in night.text
    averages = _averages(hof.text)
    assert len(averages) == len(NINE) and all("," in a for a in averages)  # 4,25 not 4.25


def test_an_english_reader_keeps_the_english_pages(client, night_id) -> None:
    hof = client.get("/club/hall-of-fame").text
    night = client.get(f"/club/nights/{night_id}").text
    assert "All time" in hof and "Mon 3 Mar 2025" in hof
    assert "Gurka Night · Mon 3 Mar 2025" in night and "Recorded results" in night
    averages = _averages(hof)
    assert len(averages) == len(NINE) and all("." in a for a in averages)


@pytest.mark.parametrize(("lang", "refusal", "crate_reason", "owed"), [
    ("en", "Propose two different dates", "Proposed the dates after the week", "1 crate of beer</a> still owed"),
    ("da", "Foreslå to forskellige datoer", "Foreslog datoerne efter ugen", "1 kasse øl</a> skyldes stadig"),
    ("is", "Stingdu upp á tveimur ólíkum dagsetningum", "Stakk upp á dagsetningum eftir að vikan var liðin",
     "1 bjórkassi</a> enn í skuld"),
    ("fi", "Ehdota kahta eri päivää", "Ehdotti päivämäärät viikon jälkeen", "1 kori olutta</a> on yhä velkaa"),
])
def test_the_club_core_refuses_and_records_in_the_readers_language(
    client, lang, refusal, crate_reason, owed
) -> None:
    """A refusal raised in app.club, a crate's stored reason and the crates still owed are said in
    the reader's words."""
    become_elder(client)
    ids = add_members(client, NINE)
    late = date.today() - timedelta(days=10)  # the week to propose dates is over
    night = finished_night_in_store(client.app.state.engine, ids=ids, players=NINE, day=late, seed=5)
    client.cookies.set("lang", lang)
    url = f"/club/nights/{night}"
    csrf = token(client, url)
    soon, later = date.today() + timedelta(days=7), date.today() + timedelta(days=14)
    same = client.post(f"{url}/poll", data={"csrf": csrf, "date_a": soon.isoformat(), "date_b": soon.isoformat()})
    assert same.status_code == 422 and refusal in same.text
    client.post(f"{url}/poll", data={"csrf": csrf, "date_a": soon.isoformat(), "date_b": later.isoformat()})
    ledger = client.get("/club/beer").text
    assert crate_reason in ledger and "Brud på disse datoer koster en kasse øl" in ledger
    assert lang == "en" or "Proposed the dates after the week" not in ledger
    assert owed in client.get("/club").text


@pytest.mark.parametrize(("lang", "said"), [
    ("da", "Den kasse skyldes ikke længere"),
    ("is", "Þessi kassi er ekki lengur í skuld"),
    ("fi", "Tätä koria ei ole enää velkaa"),
])
def test_a_crate_waived_twice_is_refused_in_the_readers_language(client, lang, said) -> None:
    from app.store import beer as beer_store
    from app.store.db import session_scope

    become_elder(client)
    ids = add_members(client, NINE[:1])
    with session_scope(client.app.state.engine) as session:
        debt_id = beer_store.add_debt(session, debt=beer_store.BeerDebtCreate(member_id=ids["Ann"], reason="Late"),
                                      recorded_by="Elsa").id
    client.cookies.set("lang", lang)
    for reason in ("Her flight was cancelled", "again"):
        answer = client.post(f"/club/beer/{debt_id}/waive", data={"csrf": token(client, "/club/beer"),
                                                                  "waive_reason": reason})
    assert answer.status_code == 422 and said in answer.text
    assert "no longer owed" not in answer.text
