"""A night's slots and results in the reader's words, for the pages and the use cases' answers."""

from __future__ import annotations

from typing import Any

from app.club import RoundResult
from app.club.constants import TABLE_NAMES
from app.i18n import N_, _


def describe_slot(phase: str, round_no: int, table: str) -> str:
    """A recorded slot in words, in the reader's language ("base round 3 at the Vinderbord")."""
    title = TABLE_NAMES.get(table, table)
    if phase == "playoff":
        return _("the playoff after the base rounds") if table == "base" else _("the playoff after the finals")
    if phase == "base":
        return _("base round %(number)s at the %(table)s", number=round_no, table=title)
    return _("final round %(number)s at the %(table)s", number=round_no, table=title)


def result_words(data: dict[str, Any]) -> str:
    """A recorded result in a plain sentence, in the reader's language."""
    result = RoundResult.from_dict(data)
    names = {"winner": result.winner, "second": result.second_out, "first": result.first_out}
    if result.bar_rov:
        said = _("%(winner)s won bar røv, %(second)s went out second, %(first)s first", **names)
    else:
        said = _("%(winner)s won, %(second)s went out second, %(first)s first", **names)
    agurker = ", ".join(f"{p} ×{n}" for p, n in result.agurker.items() if n)
    return _("%(result)s; agurker: %(agurker)s", result=said, agurker=agurker) if agurker else said


def upper_first(text: str) -> str:
    """The sentence with its first letter capital (a slot's words opening a sentence)."""
    return text[:1].upper() + text[1:]


ORDINALS = (N_("1st"), N_("2nd"), N_("3rd"), N_("4th"), N_("5th"), N_("6th"), N_("7th"), N_("8th"), N_("9th"))


def ordinal(n: int) -> str:
    """A place in words ("1st"), in the reader's language."""
    return _(ORDINALS[n - 1]) if 1 <= n <= len(ORDINALS) else f"{n}."
