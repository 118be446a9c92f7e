"""The status bar at the top of a seat's table: the deal, the phase between tricks, the target
and whose turn it is, drawn in Python (a seat's table is drawn on every push)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from markupsafe import Markup, escape

from app.i18n import N_, _, say

PHASE_TEXT = {
    "waiting": N_("Between deals"),
    "exchange": N_("Exchange"),
    "rassi_free": N_("Rassi: free cards"),
    "rassi_double": N_("Rassi: double"),
    "rassi_redouble": N_("Rassi: redouble"),
    "play": N_("Play"),
    "over": N_("Game over"),
}


def status_bar(ctx: Mapping[str, Any]) -> Markup:
    """The bar for the seat of the table model `ctx` (its `status_text` said already)."""
    view = ctx["view"]
    if view:
        phase = view["phase"]
        shown = (f'\n      <span class="pill phase">{escape(say(PHASE_TEXT.get(phase, phase)))}</span>'
                 if phase != "play" and not view["over"] else "")
        pills = (f'\n      <span class="pill">{escape(_("Deal %(n)s", n=view["deal_no"]))}</span>{shown}'
                 f'\n      <span class="pill">{escape(_("Target %(n)s", n=view["target"]))}</span>')
    else:
        pills = f'\n      <span class="pill">{escape(_("Waiting room"))}</span>'
    yours = " yours" if ctx["my_turn"] else ""
    return Markup(f'\n  <div class="statusbar" data-reconnecting="{escape(_("reconnecting…"))}">{pills}'
                  f'\n    <strong class="status{yours}">{escape(ctx["status_text"])}</strong>\n  </div>\n')
