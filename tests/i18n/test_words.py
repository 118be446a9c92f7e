"""Issue 37 item 10: words. Danish kept "Hall of Fame" in English where Icelandic and Finnish
translate it; every language names the Hall of Fame in its own words now (the Danish rules page
also gives the club's English name in brackets, as the club's own rules text uses it)."""

from __future__ import annotations

import pytest

from app.i18n import catalogs
from tests.web.club.helpers import become_elder


@pytest.mark.parametrize("lang", ["da", "fi", "is"])
def test_the_hall_of_fame_is_named_in_each_language(lang: str) -> None:
    club = catalogs.read(lang, "club")
    assert club.get("Hall of Fame").string not in ("", "Hall of Fame")
    english = [m.id for m in club if m.id and "Hall of Fame" in str(m.string)]
    assert english == []


def test_the_danish_club_pages_say_aeresgalleriet(client) -> None:  # type: ignore[no-untyped-def]
    become_elder(client)
    client.cookies.set("lang", "da")
    page = client.get("/club/hall-of-fame")
    assert page.status_code == 200
    assert "Æresgalleriet" in page.text and "Hall of Fame" not in page.text
