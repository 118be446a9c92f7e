"""What elders read is made of proper sentences with the tables' own names (issue 24, item 11):
no table keys ("at vinder"), no rule-book references ("RULES.md §7.6") anywhere in the interface,
in any language."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.support.club_nights import new_night

from .helpers import core, token

ROOT = Path(__file__).resolve().parents[3]
KEYS = r"vinder|mellan|taber|finale|mellanfinale|taberfinale"


def test_no_template_or_catalog_names_the_rule_book() -> None:
    """Every message of the interface is in a catalog (the English one as msgid): none cites
    RULES.md or one of its sections, and no template does."""
    found = []
    for path in [*ROOT.glob("templates/**/*.html"), *ROOT.glob("locales/*/LC_MESSAGES/*.po")]:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
            if line.startswith("#"):  # a catalog's comments: where a message comes from
                continue
            if "RULES.md" in line or "§" in line:
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == []


def a_correction_that_breaks_round_two(client) -> tuple[str, dict[str, str]]:  # type: ignore[no-untyped-def]
    """Two base rounds recorded by hand; a form that swaps who went out in round 1 at the
    Vinderbord (so round 2 is seated differently, and its recorded results no longer fit)."""
    night_id = new_night(client)
    url = f"/club/nights/{night_id}"
    for _ in range(6):
        night = core(client, night_id)
        table = night.pending_tables[0]
        chairs = night.tables[table]
        client.post(f"{url}/results", data={"csrf": token(client, url), "table": table, "phase": "base",
                                            "round": str(night.current.number), "first_out": chairs[0],
                                            "second_out": chairs[1], "winner": chairs[2]})
    chairs = list(core(client, night_id).history("base")[0].seating["vinder"])
    page = client.get(url).text
    start = page.index("Base round 1</summary>")
    result_id = re.search(rf"{url}/results/(\d+)/correct", page[start:]).group(1)  # type: ignore[union-attr]
    form = {"first_out": chairs[1], "second_out": chairs[0], "winner": chairs[2], "reason": "Swapped"}
    return f"{url}/results/{result_id}/correct", form


@pytest.mark.parametrize(("lang", "sentence"), [
    ("en", (r"With this change to base round 1 at the Vinderbord, the result recorded later for base round 2 at the"
           r" (Vinderbord|Mellanbord|Taberbord) no longer fits \(\w+ is not at the (Vinderbord|Mellanbord|Taberbord)"
           r" this round\)\. Tick the box below")),
    ("da", (r"Med denne ændring af grundrunde 1 ved Vinderbord passer resultatet, der senere blev registreret for"
           r" grundrunde 2 ved (Vinderbord|Mellanbord|Taberbord), ikke længere \(\w+ sidder ikke ved"
           r" (Vinderbord|Mellanbord|Taberbord) i denne runde\)\. Sæt kryds")),
])
def test_a_correction_that_no_longer_fits_a_later_result_says_so_in_a_sentence(client, lang, sentence) -> None:  # type: ignore[no-untyped-def]
    url, form = a_correction_that_breaks_round_two(client)
    client.cookies.set("lang", lang)
    refused = client.post(url, data={"csrf": token(client, url), **form})
    assert refused.status_code == 422
    message = re.search(r'id="correct-errors">\s*<p>(.*?)</p>', refused.text, re.DOTALL)
    assert message, refused.text
    assert re.search(sentence, message.group(1)), message.group(1)
    assert not re.search(rf"\b({KEYS})\b", message.group(1))


def test_corrections_and_the_beer_ledger_name_tables_properly_and_cite_no_rule_book(client) -> None:  # type: ignore[no-untyped-def]
    url, form = a_correction_that_breaks_round_two(client)
    done = client.post(url, data={"csrf": token(client, url), **form, "drop_later": "yes"}, follow_redirects=False)
    assert done.status_code == 303
    log = client.get("/club/corrections").text
    assert "<strong>Base round 1 at the Vinderbord</strong>" in log
    night = client.get(done.headers["location"].split("#")[0]).text
    assert "<strong>Base round 1 at the Vinderbord</strong>, corrected by Elsa" in night
    for page in (log, night, client.get("/club/beer").text):
        assert "RULES.md" not in page and "§" not in page
        assert not re.search(rf"\bat (the )?({KEYS})\b", page)
