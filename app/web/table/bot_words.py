"""Bot levels in the players' words: the names a host chooses from, a bot seat's tag, the tag of a
seat a bot took over (which level plays it), and the levels a form chose."""

from __future__ import annotations

from markupsafe import escape

from app.i18n import N_, _
from app.rooms.bot_levels import DEFAULT_LEVEL, LEVELS, parse_level
from app.rooms.seats import Refused
from app.rules.text import Text

# what a host picks from, weakest first (the rules core's "heuristic" is the medium level)
LEVEL_NAMES = {"easy": N_("Easy"), "heuristic": N_("Medium"), "strong": N_("Strong")}
TAGS = {"random": N_("Bot (random)"), "easy": N_("Bot (easy)"), "heuristic": N_("Bot (medium)"),
        "strong": N_("Bot (strong)")}
TAKEN = {"random": N_("random bot playing"), "easy": N_("easy bot playing"), "heuristic": N_("medium bot playing"),
         "strong": N_("strong bot playing")}


def level_choices() -> list[tuple[str, str]]:
    """(level, its name in the current language), weakest first."""
    return [(level, _(LEVEL_NAMES[level])) for level in LEVELS]


def bot_tag(level: str | None) -> str:
    """A bot seat's tag, "Bot (strong)", in the current language, escaped for HTML."""
    return str(escape(_(TAGS.get(level or DEFAULT_LEVEL, TAGS[DEFAULT_LEVEL]))))


def taken_tag(level: str | None) -> str:
    """The tag of a player's seat a bot took over, with the level that plays it ("strong bot
    playing"), in the current language, escaped for HTML."""
    return str(escape(_(TAKEN.get(level or DEFAULT_LEVEL, TAKEN[DEFAULT_LEVEL]))))


def form_levels(form: dict[str, str], bots: int) -> tuple[list[str], str]:
    """The new-room form's levels: each bot's (`level_1` … in seat order) and the host's
    (`bot_level`), all medium unless chosen. Refused: a level that is not one of `LEVELS`."""
    chosen = [form.get(f"level_{i}") or DEFAULT_LEVEL for i in range(1, bots + 1)]
    host = form.get("bot_level") or DEFAULT_LEVEL
    if any(parse_level(level) is None for level in [*chosen, host]):
        raise Refused(Text("Unknown bot level: choose easy, medium or strong."))
    return chosen, host
