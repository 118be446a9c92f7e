"""Drawing: the table's pieces (app/web/table/model.py) become HTML by the macros of
templates/table/table.html, in the current language; and the helpers every table template reads.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable, Sequence
from typing import Any

from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from app.i18n import N_, _, current_language, ngettext
from app.rules.cards import RANK_WORD, pretty
from app.rules.ruleset import PRESET_TITLES
from app.web.table.bot_words import bot_tag, level_choices, taken_tag
from app.web.table.house_rules import choice_label, option_help, option_label
from app.web.table.model import Piece, Pieces, Table
from app.web.table.reactions import reaction_of
from app.web.table.spaces import CollapseSpaces
from app.web.table.words import HOW_TEXT, PHASE_TEXT, RASSI_TEXT, card_label, card_name

TABLE = "table/table.html"  # the table: one macro per piece
NO_KIDS: dict[str, Markup] = {}
PARTS = "table/_parts.html"  # the macros the table and the replay page share
# Rassi's answers before the first trick: (as its own player reads it, as the others read it)
RASSI_DONE = {
    "free": (N_("You took free cards"), N_("%(name)s took free cards")),
    "double": (N_("You doubled (×2)"), N_("%(name)s doubled (×2)")),
    "redouble": (N_("You redoubled (×4)"), N_("%(name)s redoubled (×4)")),
}


def setup_templates(templates: Jinja2Templates) -> None:
    env = templates.env
    env.add_extension(CollapseSpaces)  # (before the table's templates are compiled)
    # Templates are read once per process, with no file check on every render: a template
    # change shows after a restart
    env.auto_reload = False
    # `tojson` (hx-vals, the move's data-legal and data-why) without spaces, and letters as
    # themselves (still escaped for HTML attributes by Jinja)
    env.policies["json.dumps_kwargs"] = {"sort_keys": True, "separators": (",", ":"), "ensure_ascii": False}
    env.globals.update(card_name=card_name, rank_word=RANK_WORD, how_text=HOW_TEXT, phase_text=PHASE_TEXT,
                       rassi_text=RASSI_TEXT, rassi_done=RASSI_DONE, preset_title=PRESET_TITLES,
                       reaction_of=reaction_of, choice_label=choice_label, together=together,
                       send_labels=send_labels, level_choices=level_choices,
                       bot_tag=lambda level: Markup(bot_tag(level)), taken_tag=lambda level: Markup(taken_tag(level)))
    env.filters.update(card_label=card_label, card_short=pretty, option_label=option_label, option_help=option_help)

    @functools.lru_cache(maxsize=2048)
    def drawn(lang: str, code: str, size: str, extra: str, top: bool, named: bool) -> Markup:
        return Markup(parts.card_drawn(code, size, extra, top, named))

    def card(code: str, size: str = "", extra: str = "", top: bool = False, named: bool = True) -> Markup:
        """A card drawn by the macro `card_drawn` of _parts.html (whose own macros call it too)."""
        return drawn(current_language(), code, size, extra, bool(top), named)

    env.globals["card"] = card  # (before the module is made: its macros see the globals as they are then)
    parts: Any = env.get_template(PARTS).module  # its macros, for every template
    env.globals.update(card_back=parts.card_back, plays=parts.plays,
                       play_item=parts.play_item, deal_line=parts.deal_line, named=parts.named,
                       score_sheet_of=parts.score_sheet, sheet_summary=parts.sheet_summary,
                       sheet_head=parts.sheet_head, sheet_row=parts.sheet_row)


def render_block(templates: Jinja2Templates, name: str, block: str, context: dict[str, Any]) -> str:
    """Render one named block of a template (the same block the whole page renders)."""
    template = templates.env.get_template(name)
    return "".join(template.blocks[block](template.new_context(context)))


class Drawer:
    """Draws a table's pieces with the macros of table.html, in the current language."""

    def __init__(self, templates: Jinja2Templates) -> None:
        self.macros: Any = templates.env.get_template(TABLE).module

    def piece(self, pieces: Pieces, id_: str) -> str:
        """Piece `id_` of `pieces` and everything inside it."""
        piece: Piece = pieces[id_]
        kids = {kid: Markup(self.piece(pieces, kid)) for kid in piece.kids} if piece.kids else NO_KIDS
        return str(getattr(self.macros, piece.macro)(piece.data, kids))

    def pieces(self, pieces: Pieces, ids: Iterable[str]) -> str:
        return "".join(self.piece(pieces, id_) for id_ in ids)

    def table(self, public: Table, own: Table, seq: int, version: int) -> str:
        """The whole `#table` section: the public table and a seat's own laid together, at `seq`
        (what the page's next push starts from) and the room's `version` (what its actions say
        they saw)."""
        html: dict[str, Markup] = {}
        attrs: dict[str, str] = {"data-version": str(version), "data-seq": str(seq)}
        for t in (public, own):
            attrs.update(t.attrs)
            html.update((id_, Markup(self.piece(t.pieces, id_))) for id_ in t.roots)
        return str(self.macros.table(attrs, html))


def together(seats: Sequence[int], names: Sequence[str | None], me: int | None) -> str:
    """`seats` named one after the other ("Ann and Bo and you"; `me`'s own seat reads "you")."""
    said = [_("you") if s == me else (names[s] or "?") for s in seats]
    who = said[0]
    for other in said[1:]:
        who = _("%(first)s and %(second)s", first=who, second=other)
    return who


def send_labels(mode: str, held: int) -> list[str]:
    """The send button's words for 0, 1, 2... cards selected (`mode`: "select" or "exchange")."""
    if mode == "select":
        return [ngettext("Play %(num)d card", "Play %(num)d cards", i) if i else _("Play") for i in range(held + 1)]
    return [ngettext("Exchange %(num)d card", "Exchange %(num)d cards", i) if i else _("Exchange")
            for i in range(held + 1)]

