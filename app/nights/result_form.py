"""A table's result from the fields a form sends (the night page's form for each table, a
correction, a table's phone): the result, or what is wrong in words a player understands, and
what was typed (to show the form again as it was)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from app.club import RoundResult
from app.i18n import N_, _
from app.parsing import strict_int

MAX_AGURKER = 30
Fields = Mapping[str, Any]  # a posted form (starlette's FormData is one)


def parse_result(form: Fields, chairs: list[str]) -> tuple[RoundResult | None, list[str], dict[str, Any]]:
    """A table's result from its form; errors in words a player understands."""
    typed: dict[str, Any] = {
        "first_out": str(form.get("first_out") or ""),
        "second_out": str(form.get("second_out") or ""),
        "winner": str(form.get("winner") or ""),
        "bar_rov": bool(form.get("bar_rov")),
        "agurker": {},
    }
    errors: list[str] = []
    picked: list[str] = []
    for key, missing in (("first_out", N_("Choose who went out first.")),
                         ("second_out", N_("Choose who went out second.")), ("winner", N_("Choose who won."))):
        name = typed[key]
        if not name:
            errors.append(_(missing))
        elif name not in chairs:
            errors.append(_("%(name)s is not at this table: choose one of %(chairs)s.", name=name,
                            chairs=", ".join(chairs)))
        else:
            picked.append(name)
    for name in sorted({n for n in picked if picked.count(n) > 1}):
        errors.append(_("%(name)s is chosen twice: each of the three players takes one place.", name=name))
    agurker: dict[str, int] = {}
    for i, name in enumerate(chairs):
        raw = str(form.get(f"agurk_{i}") or "0").strip() or "0"
        typed["agurker"][name] = raw
        count = strict_int(raw, lo=0, hi=MAX_AGURKER)
        if count is None:
            errors.append(_("Agurker for %(name)s must be a whole number from 0 to %(max)s.", name=name,
                            max=MAX_AGURKER))
        elif count:
            agurker[name] = count
    if errors:
        return None, errors, typed
    took = {typed["first_out"], typed["second_out"]}
    if not typed["bar_rov"]:
        took.add(typed["winner"])
    result = RoundResult(
        out=[typed["first_out"], typed["second_out"]], winner=typed["winner"], took_cards=took,
        agurker=agurker,
    )
    return result, [], typed


def with_winner(form: Fields, chairs: list[str]) -> dict[str, Any]:
    """A phone's form with its winner: the player who went out neither first nor second."""
    fields = {k: v for k, v in form.items() if k != "winner"}
    out = {str(form.get("first_out") or ""), str(form.get("second_out") or "")}
    rest = [p for p in chairs if p not in out]
    if len(out) == 2 and len(rest) == 1:
        fields["winner"] = rest[0]
    return fields
