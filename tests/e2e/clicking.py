"""A player's move made as a person makes it: by clicking the page."""

from __future__ import annotations

import json
from typing import Any


def move(page: Any) -> bool:
    """One legal move by clicking, if it is this player's turn (True when one was sent): the
    first playable card, a single card of a set (or the only set), or keep the hand."""
    mode = page.locator("#table").get_attribute("data-mode")
    if mode == "play":
        page.locator(".hand button.cardbtn.playable").first.click()
    elif mode == "select":
        legal = json.loads(page.locator("#table-move").get_attribute("data-legal") or "[]")
        singles = [a for a in legal if len(a.split()) == 2]
        for code in (singles or legal)[0].split()[1:]:  # (the only possible play comes selected already)
            card = page.locator(f'.hand .cardbtn[data-code="{code}"][aria-pressed=false]').first
            if card.count():
                card.click()
        page.locator("[data-send-selection]:visible").click()
    elif mode == "exchange":
        page.locator("[data-key=keep]").click()
    elif mode == "rassi":
        page.locator("[data-key=rassi-pass]").click()
    else:
        return False
    return True
