"""What a push message says, in the language of the device it goes to. A message is a title, a
line, the page a click opens and a tag (a newer message with the same tag replaces the older
one on the device). Nothing secret is ever in one: no cards, no hands, no seat tokens."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import date
from typing import Any

from babel.dates import format_date

from app.club.constants import TABLE_NAMES
from app.i18n import N_, current_language, gettext, use_language


@dataclass(frozen=True, slots=True)
class Message:
    """A message before it is said: `title` and `body` are catalog messages, filled in per reader
    with `params` (dates are formatted in the reader's language)."""

    title: str
    body: str
    url: str
    tag: str
    params: tuple[tuple[str, Any], ...] = ()

    def said(self, lang: str) -> bytes:
        """The JSON the device's service worker turns into a notification."""
        with use_language(lang):
            params = {k: _word(v) for k, v in self.params}
            payload = {"title": gettext(self.title), "body": gettext(self.body, **params),
                       "url": self.url, "tag": self.tag}
        return json.dumps(payload, ensure_ascii=False).encode()


def _word(value: Any) -> Any:
    if isinstance(value, date):
        return format_date(value, format="EEE d MMM", locale=current_language())
    return value


def your_turn(slug: str) -> Message:
    return Message(N_("Your turn"), N_("Your table is waiting for your move."), f"/r/{slug}", f"turn-{slug}")


def night_first_round(night_id: int, table: str) -> Message:
    return Message(N_("Gurka Night has begun"),
                   N_("The first round is open: you play at the %(table)s. Press Play next to your name."),
                   f"/club/nights/{night_id}", f"night-{night_id}", (("table", TABLE_NAMES.get(table, table)),))


def night_next_round(night_id: int, table: str) -> Message:
    return Message(N_("Your next round is ready"), N_("You play at the %(table)s. Press Play next to your name."),
                   f"/club/nights/{night_id}", f"night-{night_id}", (("table", TABLE_NAMES.get(table, table)),))


def night_result(night_id: int, winner: str) -> Message:
    return Message(N_("The night's result is in"), N_("%(winner)s won the night. See the placement and the points."),
                   f"/club/nights/{night_id}", f"night-{night_id}", (("winner", winner),))


def poll_opened(night_id: int, proposer: str, a: date, b: date, by: date) -> Message:
    return Message(N_("The next night: choose a date"),
                   N_("%(name)s proposes %(a)s or %(b)s. Answer by %(by)s."),
                   f"/club/nights/{night_id}#next-night", f"poll-{night_id}",
                   (("name", proposer), ("a", a), ("b", b), ("by", by)))


def poll_closes_tomorrow(night_id: int, a: date, b: date) -> Message:
    return Message(N_("The date poll closes tomorrow"), N_("You have not answered yet: %(a)s or %(b)s?"),
                   f"/club/nights/{night_id}#next-night", f"poll-{night_id}", (("a", a), ("b", b)))


def poll_result(night_id: int, chosen: date) -> Message:
    return Message(N_("The next night's date is set"), N_("The next Gurka Night is on %(day)s."),
                   f"/club/nights/{night_id}#next-night", f"poll-{night_id}", (("day", chosen),))
