"""The night as its pages show it (the night page, the board, the tables' phones): the tables'
notes and suits, the round in words, the current round's tables with dealer and forhånd."""

from __future__ import annotations

from typing import Any

from app.club import Night
from app.club.constants import BASE_ROUNDS, FINAL_ROUNDS, TABLE_NAMES
from app.i18n import N_, _

TABLE_NOTE = {
    "vinder": N_("winner table"),
    "mellan": N_("middle table"),
    "taber": N_("loser table"),
    "finale": N_("final, places 1–3"),
    "mellanfinale": N_("middle final, places 4–6"),
    "taberfinale": N_("loser final, places 7–9"),
}
TABLE_SUIT = {
    "vinder": "♥", "mellan": "♦", "taber": "♣",
    "finale": "♠", "mellanfinale": "♦", "taberfinale": "♣",
}  # fmt: skip


def round_label(night: Night) -> str:
    if night.phase == "done":
        return _("The night is over")
    if night.phase == "playoff":
        return _("Playoff after the base rounds") if night.stage == "base" else _("Playoff after the finals")
    if night.stage == "base":
        return _("Base round %(number)s of %(total)s", number=night.current.number, total=BASE_ROUNDS)
    return _("Final round %(number)s of %(total)s", number=night.current.number, total=FINAL_ROUNDS)


def tables_view(night: Night) -> list[dict[str, Any]]:
    """The current round's tables, chairs clockwise, with dealer and forhånd marked."""
    rnd = night.current
    out = []
    for table, chairs in rnd.seating.items():
        dealer = rnd.dealers.get(table)
        forhand = chairs[(chairs.index(dealer) + 1) % len(chairs)] if dealer in chairs else None
        out.append(
            {
                "key": table,
                "title": TABLE_NAMES[table],
                "note": TABLE_NOTE[table],
                "suit": TABLE_SUIT[table],
                "chairs": list(chairs),
                "dealer": dealer,
                "forhand": forhand,
                "done": table in rnd.results,
                "result": rnd.results.get(table),
            }
        )
    return out
