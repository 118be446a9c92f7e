"""The table's quick reactions as the page draws them: each emoji (what a client sends and the
chat stores) has an icon of our own, drawn in `templates/table/_reactions.html`, and a name
said in the reader's language. Drawn, not typed: a phone or laptop without an emoji font
showed 👍 🥒 🎉 as empty boxes."""

from __future__ import annotations

from typing import NamedTuple

from app.i18n import N_
from app.rooms.chat import REACTIONS


class Reaction(NamedTuple):
    emoji: str
    icon: str  # the id of its symbol in the page's sprite, after "react-"
    name: str  # an English message id: say it in the reader's language


ICONS = {
    "👍": Reaction("👍", "thumbs-up", N_("thumbs up")),
    "😂": Reaction("😂", "laughing", N_("laughing")),
    "😮": Reaction("😮", "surprised", N_("surprised")),
    "😢": Reaction("😢", "sad", N_("sad")),
    "🥒": Reaction("🥒", "cucumber", N_("cucumber")),
    "🎉": Reaction("🎉", "party", N_("party")),
}
assert tuple(ICONS) == REACTIONS, "every quick reaction has an icon, in the order the buttons show"


def reaction_of(emoji: str) -> Reaction | None:
    """The reaction drawn for `emoji` (None: not one of the quick reactions)."""
    return ICONS.get(emoji)
