"""Issue 37 item 1: house rules that clash say so. Ticking "Exchange with the stock" and "Rassi"
answered 400 "House rule “Exchange with the stock”: on does not work here", never naming Rassi,
with the house-rules section closed. Now both are named with why, the section stays open, both
boxes are marked invalid (described by the message) and the first is focused; the form carries
the pair's note for the browser to show before sending (tests/e2e/test_house_rules_browser.py)."""

from __future__ import annotations

import re

import pytest
from fastapi.testclient import TestClient

from app.rooms import engine
from app.rules import new_game
from app.rules.ruleset import CLASHES, OptionClash

BOTH = "House rules “Exchange with the stock” and “Rassi: free cards and doubling” do not go together"


def tag(html: str, name: str) -> str:
    found = re.search(rf'<(?:input|select)[^>]*name="{name}"[^>]*>', html)
    assert found, name
    return found.group(0)


def test_the_rules_name_both_switches_of_a_clash() -> None:
    with pytest.raises(OptionClash) as clash:
        new_game("rassi", players=3, exchange=True)
    assert clash.value.options == ("exchange", "rassi") and clash.value.why == CLASHES[("exchange", "rassi")]
    assert isinstance(clash.value, ValueError)
    assert engine.option_clashes("vidivellir") == [("exchange", "rassi", "both change cards before play")]
    assert engine.clashing("vidivellir", {"rassi": True}) == ("exchange", "rassi", "both change cards before play")
    assert engine.clashing("vidivellir", {"exchange": False, "rassi": True}) is None


@pytest.mark.parametrize("preset", ["gurka-night", "rassi", "vidivellir"])
def test_a_clash_names_both_keeps_the_section_open_and_marks_both(web: TestClient, preset: str) -> None:
    answer = web.post("/rooms", data={"name": "Anna", "preset": preset, "seats": "3",
                                      "opt_exchange": "on", "opt_rassi": "on"})
    assert answer.status_code == 400
    text = answer.text.replace("&#34;", '"')
    assert BOTH in text and "both change cards before play. Untick one of them." in text
    assert "does not work here" not in text
    assert '<details class="options" open>' in text
    exchange, rassi = tag(text, "opt_exchange"), tag(text, "opt_rassi")
    for box in (exchange, rassi):
        assert 'aria-invalid="true"' in box and "checked" in box and "form-error" in box
    assert "autofocus" in exchange and "autofocus" not in rassi
    assert 'aria-invalid' not in tag(text, "opt_must_beat")
    assert web.app.state.rooms.rooms == {}


def test_a_refused_value_marks_its_own_field(web: TestClient) -> None:
    answer = web.post("/rooms", data={"name": "Bo", "preset": "gurka-night", "seats": "7", "opt_hand_sizes": "10"})
    assert answer.status_code == 400
    assert "House rule “Cards per deal”: 10 does not work here" in answer.text
    assert '<details class="options" open>' in answer.text
    field = tag(answer.text, "opt_hand_sizes")
    assert 'aria-invalid="true"' in field and "autofocus" in field
    assert 'aria-invalid' not in tag(answer.text, "opt_exchange")


def test_the_form_knows_the_pairs_before_it_is_sent(web: TestClient) -> None:
    form = web.get("/").text
    assert '<details class="options">' in form  # closed until there is something to show
    note = re.search(r'<p class="form-error" id="clash-exchange-rassi" data-clash="exchange rassi"[^>]*>([^<]*)</p>', form)
    assert note and " hidden" in note.group(0) and BOTH in note.group(1).replace("&#34;", '"')
    assert '<script src="/static/js/house_rules.js" defer></script>' in form
    assert "data-clash" in web.get("/new/options", params={"preset": "kurkku"}).text
    danish = web.get("/", headers={"accept-language": "da"}).text
    assert "data-clash" in danish and "Untick one of them" not in danish
