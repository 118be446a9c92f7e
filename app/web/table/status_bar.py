"""The status bar at the top of a seat's table: the deal, the phase between tricks, the target
and whose turn it is, drawn in Python (a seat's table is drawn on every push)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup, escape

from app.i18n import N_, _, current_language, say
from app.web.table.words import said

PHASE_TEXT = {
    "waiting": N_("Between deals"),
    "exchange": N_("Exchange"),
    "rassi_free": N_("Rassi: free cards"),
    "rassi_double": N_("Rassi: double"),
    "rassi_redouble": N_("Rassi: redouble"),
    "play": N_("Play"),
    "over": N_("Game over"),
}


WORDS = (N_("Waiting room"), N_("reconnecting…"))


def status_key(ctx: Mapping[str, Any]) -> tuple[Any, ...]:
    """Everything `status_bar(ctx)` shows (in the current language)."""
    view = ctx["view"]
    shown = (view["phase"], view["over"], view["deal_no"], view["target"]) if view else None
    return ("bar", current_language(), shown, ctx["my_turn"], ctx["status_text"])


def status_bar(ctx: Mapping[str, Any]) -> Markup:
    """The bar for the seat of the table model `ctx` (its `status_text` said already)."""
    view, w = ctx["view"], said(WORDS)
    if view:
        phase = view["phase"]
        shown = (f'\n      <span class="pill phase">{escape(say(PHASE_TEXT.get(phase, phase)))}</span>'
                 if phase != "play" and not view["over"] else "")
        deal, target = escape(_("Deal %(n)s", n=view["deal_no"])), escape(_("Target %(n)s", n=view["target"]))
        pills = (f'\n      <span class="pill">{deal}</span>{shown}'
                 f'\n      <span class="pill">{target}</span>')
    else:
        pills = f'\n      <span class="pill">{w["Waiting room"]}</span>'
    yours = " yours" if ctx["my_turn"] else ""
    return Markup(f'\n  <div class="statusbar" data-reconnecting="{w["reconnecting…"]}">{pills}'
                  f'\n    <strong class="status{yours}">{escape(ctx["status_text"])}</strong>\n  </div>\n')
