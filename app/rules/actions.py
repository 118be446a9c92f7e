"""Actions and their notation (ARCHITECTURE.md "Rules core contract").

``play C [C ...]``, ``exchange [C ...]`` (alone: keep the hand), Rassi ``free``, ``double``,
``redouble``, ``pass``. ``str(action)`` is the notation; ``parse_action`` reads it back
(lower case and ``10`` for ``T`` accepted).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from app.rules.cards import normalize_card
from app.rules.text import Text

KINDS = ("play", "exchange", "free", "double", "redouble", "pass")
CARD_KINDS = ("play", "exchange")


class IllegalAction(ValueError):
    """An action refused by the rules; the message is for people and names the rule."""


@dataclass(frozen=True, slots=True)
class Action:
    """One move: ``kind`` and the cards it uses, in canonical order (height, then text)."""

    kind: str
    cards: tuple[str, ...] = ()
    text: str = field(default="", init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.cards, tuple):
            object.__setattr__(self, "cards", tuple(self.cards))
        text = " ".join((self.kind, *self.cards)) if self.cards else self.kind
        object.__setattr__(self, "text", text)

    def __str__(self) -> str:
        return self.text


def parse_action(notation: str) -> Action:
    """Read an action's notation; raises IllegalAction for unknown words.

    Card order is kept as written; the game puts the cards in canonical order.
    """
    words = notation.split()
    if not words:
        raise IllegalAction(Text("Empty action: use play, exchange, free, double, redouble or pass"))
    kind = words[0].lower()
    if kind not in KINDS:
        raise IllegalAction(
            Text("Unknown action %(word)s: use play, exchange, free, double, redouble or pass", word=repr(words[0]))
        )
    cards = tuple(normalize_card(w) for w in words[1:])
    if cards and kind not in CARD_KINDS:
        raise IllegalAction(f"'{kind}' takes no cards")
    return Action(kind, cards)
