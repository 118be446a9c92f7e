"""A seat's whole table, the `#table` section every push sends, put together in Python.

The section places parts made elsewhere: the status bar and the hand (drawn in Python per
seat), the board every seat shares (rendered once per look), the panels other areas add, and
the lobby or the game's ranking, which show before and after a game only (template blocks in
`templates/table/seat_panels.html`). A push puts one section together per seat and language;
as a template block that alone was about a fifth of the rendering.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from markupsafe import escape

from app.i18n import N_, say
from app.web.table.words import said

PANELS = "table/seat_panels.html"

WORDS = (N_("Your turn"), N_("Card table"), N_("The deal is over: here are its final cards."),
         N_("Deal on now"), N_("A bot is playing your seat while you were away."), N_("Take my seat back"))


def table_section(ctx: Mapping[str, Any], panel: Callable[[str], str], board: Mapping[str, str],
                  own: Mapping[str, str], encode: Callable[[str], str] = str) -> str:
    """The section for the seat of the table model `ctx` (its status text made already);
    `panel(name)` renders a block of `PANELS` for it; `board`: the shared parts as this seat
    reads them (`SharedParts.for_viewer`), and `own` its status bar and hand (`status_bar`,
    `hand_panel`); for a push, all three escaped for a JSON string (`json_for_viewer`), and
    `encode=json_escaped` escapes the rest: the section escaped for a JSON string."""
    w, view, mode, version = said(WORDS), ctx["view"], escape(ctx["mode"]), int(ctx["version"])
    time_note = ctx["time_note"]
    note = f'<p class="banner timenote" role="status">{escape(say(time_note))}</p>' if time_note else ""
    next_deal = (f'\n  <div class="banner nextdeal">'
                 f'\n    <span>{w["The deal is over: here are its final cards."]}</span>'
                 f'\n    <button class="btn" data-key="next-deal" hx-ws:send'
                 f' hx-vals=\'{{"do": "next_deal", "v": {version}}}\'>{w["Deal on now"]}</button>'
                 f'\n  </div>\n  ') if ctx["deal_waiting"] and ctx["me"] is not None else ""
    take_back = (f'\n  <div class="banner warn">'
                 f'\n    <span>{w["A bot is playing your seat while you were away."]}</span>'
                 f'\n    <button class="btn primary" data-key="take-back" hx-ws:send'
                 f' hx-vals=\'{{"do": "take_back", "v": {version}}}\'>{w["Take my seat back"]}</button>'
                 f'\n  </div>\n  ') if ctx["bot_playing_me"] else ""
    lobby = panel("lobby") if not view else ""
    game_over = panel("game_over") if view and view.get("over") else ""
    return "".join([
        encode(f'\n<section id="table" class="table mode-{mode}" data-version="{version}" data-mode="{mode}"'
               f'\n         data-my-turn="{"true" if ctx["my_turn"] else "false"}" data-turn-title="● {w["Your turn"]}"'
               f'\n         data-announce="{escape(ctx["status_text"])}" aria-label="{w["Card table"]}">'
               f'\n  {ctx.get("extra_panels") or ""}\n  \n'),
        own["status_bar"],
        encode(f'\n  {note}\n  {next_deal}\n  {take_back}\n\n  \n  '),
        board["deal_result"],
        encode("\n\n  \n  "),
        board["seat_list"],
        encode(f"\n\n  \n  {lobby}\n\n  \n  "),
        board["felt"],
        encode(f'\n\n  \n  {game_over}\n\n  \n  '),
        own["hand_panel"],
        encode("\n  "),
        board["score_sheet"] if ctx.get("score_sheet") else "",
        encode("\n</section>\n"),
    ])
