"""The rules pages in a real browser in every language, on a phone and a laptop: the longer
Danish, Icelandic and Finnish words must not push the page wider than the screen (the wide
comparison tables scroll inside their own box), and each page is photographed for a look."""

from __future__ import annotations

from pathlib import Path

import pytest

pytestmark = pytest.mark.e2e

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}
LAPTOP = {"viewport": {"width": 1280, "height": 860}}

# One rule set in its home language, the overview in the fourth.
PAGES = [("da", "gurka-night", "Gået agurk"), ("is", "gurka-is", "Laufasexan"),
         ("fi", "kurkku", "Suomalainen kurkku"), ("fi", "rassi", "Vastakahdennukset"), ("en", "", "The rules of Gurka")]

# Anything wider than the viewport, outside the boxes that are meant to scroll sideways.
OVERFLOW = """() => {
  const width = document.documentElement.clientWidth;
  const wide = [];
  for (const el of document.querySelectorAll('.rules *')) {
    if (el.closest('.table-wrap')) continue;
    const r = el.getBoundingClientRect();
    if (r.right > width + 1) wide.push(el.tagName + ': ' + (el.textContent || '').trim().slice(0, 40));
  }
  return {scroll: document.documentElement.scrollWidth, width, wide: wide.slice(0, 5)};
}"""


@pytest.mark.parametrize("device", ["phone", "laptop"])
@pytest.mark.parametrize(("lang", "slug", "phrase"), PAGES)
def test_a_rules_page_fits_the_screen_in_every_language(browser, server: str, shots: Path, lang: str,  # type: ignore[no-untyped-def]
                                                       slug: str, phrase: str, device: str) -> None:
    context = browser.new_context(**(PHONE if device == "phone" else LAPTOP))
    try:
        page = context.new_page()
        page.goto(f"{server}/language/{lang}?next=/rules/{slug}")
        assert page.locator("html").get_attribute("lang") == lang
        assert phrase.casefold() in page.locator("article.rules").inner_text().casefold()
        found = page.evaluate(OVERFLOW)
        assert found["scroll"] <= found["width"], found
        assert not found["wide"], found
        page.screenshot(path=str(shots / f"rules-{lang}-{slug or 'index'}-{device}.png"), full_page=device == "laptop")
    finally:
        context.close()
