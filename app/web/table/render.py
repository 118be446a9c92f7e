"""Rendering: a seat's view of a room becomes a table model, then HTML (named template blocks).

Everything here is built from `game.view(seat)` only (plus public seat names and presence), so
nothing hidden from that seat can reach its page: made once per look as `game.view(None)`, what
every viewer shares, with each seat's own part (`game.seat_view(seat)`: its hand, its legal
actions) laid over it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from typing import Any

from fastapi.templating import Jinja2Templates
from markupsafe import Markup

from app.i18n import N_, _, current_language, ngettext, say
from app.rooms.room import LiveRoom
from app.rules.cards import RANK_WORD, pretty, pretty_cards
from app.rules.ruleset import PRESET_TITLES
from app.rules.scoring import DealResult
from app.web.shared.frozen import Frozen, freeze
from app.web.table.bot_words import bot_tag
from app.web.table.house_rules import choice_label, option_help, option_label
from app.web.table.look import Look
from app.web.table.parts import part
from app.web.table.reactions import reaction_of
from app.web.table.spaces import CollapseSpaces
from app.web.table.words import HOW_TEXT, PHASE_TEXT, RASSI_TEXT, card_label, card_name

TABLE = "table/table.html"  # the table: one block per fragment (see `FRAGMENTS`)
PARTS = "table/_parts.html"  # the macros its blocks and the replay page share
# The table's fragments: a push sends the ones that changed, each the block of that name, one
# element with the id "table-<name>" (the order is the table's, top to bottom); the list of
# players goes row by row (the block "seat", each row's element "table-seat-<n>")
# The parts of a seat's table model made for that seat from lists and dicts (frozen: see `parts`)
SEAT_DATA = ("hand", "legal", "send_labels", "rassi_actions", "final_rows", "ready_names", "rematch_waits")
FRAGMENTS = ("club", "status", "banners", "result", "seats", "lobby", "felt", "over", "hand", "sheet")

RASSI_ADVICE = {
    "rassi_free": N_("You were dealt no picture card (J, Q, K): you may swap all six cards for a new hand, "
                     "free of charge, or keep these."),
    "rassi_double": N_("Double? You swap all six cards for a new hand, but if you lose this deal your "
                       "points count double (×2)."),
    "rassi_redouble": N_("You doubled and this is your new hand. Redouble? Swap all six once more; losing "
                         "this deal then counts ×4."),
}
# (what you did, what another player did)
RASSI_DONE = {
    "free": (N_("You took free cards"), N_("%(name)s took free cards")),
    "double": (N_("You doubled (×2)"), N_("%(name)s doubled (×2)")),
    "redouble": (N_("You redoubled (×4)"), N_("%(name)s redoubled (×4)")),
}


def setup_templates(templates: Jinja2Templates) -> None:
    env = templates.env
    env.add_extension(CollapseSpaces)  # (before the table's templates are compiled)
    # Templates are read once per process, with no file check on every render (a table is
    # rendered per seat on every push): a template change shows after a restart
    env.auto_reload = False
    env.globals.update(card_name=card_name, rank_word=RANK_WORD, how_text=HOW_TEXT, phase_text=PHASE_TEXT,
                       rassi_text=RASSI_TEXT, preset_title=PRESET_TITLES, reaction_of=reaction_of,
                       choice_label=choice_label, bot_tag=lambda level: Markup(bot_tag(level)), part=part)
    env.filters.update(card_label=card_label, card_short=pretty, option_label=option_label, option_help=option_help)
    env.globals["card"] = card_of(lambda: env.get_template(PARTS).module)  # (the module sees it)
    parts: Any = env.get_template(PARTS).module  # its macros, for every template
    env.globals.update(card_back=parts.card_back, plays=parts.plays, play_item=parts.play_item, deal_line=parts.deal_line, named=parts.named,
                       score_sheet_of=parts.score_sheet, sheet_summary=parts.sheet_summary,
                       sheet_head=parts.sheet_head, sheet_row=parts.sheet_row)


def card_of(parts: Callable[[], Any]) -> Callable[..., Markup]:
    """`card(code, size, extra, top)`: the macro `card_drawn` of `parts()` (_parts.html), called
    once per card, size and language (a table shows the same few dozen cards on every push)."""

    @functools.lru_cache(maxsize=4096)
    def in_language(lang: str, code: str, size: str, extra: str, top: bool) -> Markup:
        return Markup(parts().card_drawn(code, size, extra, top))

    def card(code: str, size: str = "", extra: str = "", top: bool = False) -> Markup:
        return in_language(current_language(), code, size, extra, bool(top))

    return card


def render_block(templates: Jinja2Templates, name: str, block: str, context: dict[str, Any]) -> str:
    """Render one named block of a template (the same block the whole page renders)."""
    template = templates.env.get_template(name)
    return "".join(template.blocks[block](template.new_context(context)))


# ------------------------------------------------------------------ the table model


def look_context(look: Look) -> dict[str, Any]:
    """What every viewer's table model shares, `look` under the names the templates read, in
    the current language (made once per look and language)."""
    room = look.room
    view, g = look.view, room.game  # (the blocks read the parts of it they show, frozen)
    names = freeze([name if name is not None else _("Seat %(n)s", n=i + 1) for i, name in enumerate(look.names)])
    trick = freeze(view.get("trick") or {}) if view is not None else Frozen()
    return {
        "room": room,
        "slug": room.slug,
        "preset": room.preset,
        "club_table": room.club_table,
        "in_game": view is not None,
        "deal_no": view.get("deal_no") if view is not None else None,
        "phase": view.get("phase") if view is not None else None,
        "stock_count": view.get("stock_count") if view is not None else None,
        "trick": trick,
        "game_over": view is not None and bool(view.get("over")),
        "last_deal": freeze(view.get("last_deal")) if view is not None else None,
        "last_trick": freeze(view.get("last_trick")) if view is not None else None,
        "to_act": view.get("to_act") if view is not None else None,
        "version": look.version,
        "status": look.status,
        "lobby": look.status == "lobby",
        "seats": freeze(look.rows),
        "stats": freeze(look.stats),
        "counts": freeze(look.counts),
        "public_view": view,
        "names": names,
        "limits": freeze(room.limits()) if look.status == "lobby" else None,  # the waiting room shows them
        "top_cards": freeze(look.top_cards),
        "time_note": look.time_note,
        "turn_seconds": look.turn_seconds,
        "turn_left": look.turn_left,
        "deal_waiting": look.deal_waiting,
        "target": view["target"] if view is not None else None,
        "lead_seat": _lead_seat(room, view),
        "before": freeze(before_first_trick(view, names)) if view is not None else Frozen(),
        # the last deal's result dims once a trick has been played since
        "result_old": view is not None and not view.get("over") and bool(view.get("last_trick") or trick.get("plays")),
        "score_rows": freeze(score_rows(g.deal_log, len(room.seats))) if g is not None and g.deal_log else (),
    }


def _lead_seat(room: LiveRoom, view: dict[str, Any] | None) -> int:
    """The seat whose player is told "Your lead." (-1: nobody; a bot playing for a seat leads
    under the seat's name)."""
    to_act = view.get("to_act") if view is not None else None
    seat = room.seats.get(to_act) if to_act is not None else None
    return -1 if to_act is None or seat is None or seat.bot_controlled else int(to_act)


def score_rows(deal_log: Sequence[DealResult], players: int) -> list[dict[str, Any]]:
    """Each finished deal as a row of the score sheet, with every seat's total after it."""
    totals = [0] * players
    rows: list[dict[str, Any]] = []
    for deal in deal_log:
        took = []
        for seat, card, points, mult in zip(deal.losers, deal.cards, deal.points, deal.multipliers):
            totals[seat] += points
            took.append({"seat": seat, "card": card, "points": points, "multiplier": mult})
        for seat in deal.cleared:
            totals[seat] = 0
        rows.append({"deal_no": deal.deal_no, "dealer": deal.dealer, "took": took, "agurk": list(deal.agurk),
                     "went_out": list(deal.went_out), "cleared": list(deal.cleared), "totals": list(totals)})
    return rows


def table_context(room: LiveRoom, seat: int | None, public: dict[str, Any]) -> dict[str, Any]:
    """All the table's blocks need to draw `room` for `seat` (None: a spectator), around `public`
    (`look_context`): the seat's model, its status line and the table section's attributes."""
    ctx = _seat_model(room, seat, public)
    ctx["status_text"] = status_line(ctx)
    mode = ctx["mode"]
    ctx["section"] = {
        "class": f"table mode-{mode}", "data-version": ctx["version"], "data-mode": mode,
        "data-my-turn": "true" if ctx["my_turn"] else "false", "data-turn-title": "● " + _("Your turn"),
        "data-announce": ctx["status_text"], "aria-label": _("Card table"),
    }
    if mode in ("select", "exchange"):  # the send button's words for 0, 1, 2... selected cards
        n = int(ctx["hand_n"])
        ctx["send_labels"] = ([ngettext("Play %(num)d card", "Play %(num)d cards", i) if i else _("Play")
                               for i in range(n + 1)] if mode == "select" else
                              [ngettext("Exchange %(num)d card", "Exchange %(num)d cards", i) if i else _("Exchange")
                               for i in range(n + 1)])
        most = ctx["exchange_max"]
        ctx["at_most"] = most if most is not None else 99
    for name in SEAT_DATA:  # plain data: a block that reads only plain data is rendered once for all
        ctx[name] = freeze(ctx.get(name))
    return ctx


def _seat_model(room: LiveRoom, seat: int | None, public: dict[str, Any]) -> dict[str, Any]:
    g = room.game
    view: dict[str, Any] | None = public["public_view"]  # what every viewer sees of the game
    # the seat's own part of its view: its hand, its legal actions and why the others are not
    own: dict[str, Any] = g.seat_view(seat) if view is not None and g is not None and seat is not None else {}
    me = seat if seat is not None and seat in room.seats else None
    ctx: dict[str, Any] = {
        **public,
        "me": me,
        "can_rematch": me is not None and not room.club_table,
        "is_host": me is not None and me == room.host,
        "view": view,
        "mode": "lobby",
        "hand": [],
        "legal": [],
        "my_turn": False,
        # (only while a game runs: after it, there is no seat to take back from a bot)
        "bot_playing_me": me is not None and room.seats[me].bot_controlled and room.status == "playing",
    }
    if view is None:
        return ctx

    legal: list[str] = own.get("legal") or []
    phase = view["phase"]
    my_turn = me is not None and view["to_act"] == me and not ctx["bot_playing_me"]
    singles = {a.split()[1] for a in legal if a.startswith("play ") and len(a.split()) == 2}
    multi = any(a.startswith("play ") and len(a.split()) > 2 for a in legal)
    why_not: dict[str, str] = own.get("why_not") or {}
    if view.get("over"):
        mode = "over"
    elif not my_turn:
        mode = "watch"
    elif phase == "play":
        mode = "select" if multi else "play"
    elif phase == "exchange":
        mode = "exchange"
    elif phase.startswith("rassi"):
        mode = "rassi"
    else:
        mode = "watch"
    playing = my_turn and phase == "play"
    in_plays = {c for a in legal for c in a.split()[1:]} if playing else set()  # the cards some play holds
    hand = [{"code": code, "playable": playing and code in singles, "in_set": code in in_plays,
             "why": why_not.get(code) if playing else None} for code in own.get("hand") or ()]
    if mode == "select" and len(legal) == 1 and legal[0].startswith("play "):
        # one possible play (a set to follow with your lowest cards, say): select it already
        wanted = legal[0].split()[1:]
        for h in hand:
            if h["code"] in wanted:
                wanted.remove(h["code"])
                h["preselect"] = True
    to_act = view["to_act"]
    names = ctx["names"]
    trick = view.get("trick") or {}
    leading = not trick.get("plays")
    ctx.update(
        leading=leading,
        hand_n=len(hand),
        advice=_advice(mode, phase, hand, legal, leading, view.get("exchange") or {}, view.get("preset", "")),
    )
    ctx.update(
        mode=mode,
        hand=hand,
        legal=legal if my_turn else [],
        my_turn=my_turn,
        phase=phase,
        to_act_name=ctx["names"][to_act] if to_act is not None and to_act < len(ctx["names"]) else None,
        rassi_actions=[a for a in legal if a.split()[0] in RASSI_TEXT] if my_turn else [],
        exchange_max=(view.get("exchange") or {}).get("max"),
        ranking=view.get("ranking"),
        last_deal=view.get("last_deal"),
        # anyone seated can open the sheet during the game (finished deals are public)
        score_sheet=g is not None and me is not None and bool(g.deal_log),
    )
    if view.get("over"):  # what the game-over panel shows
        by_going_out = g is not None and g.ruleset.game_end != "target"  # else by points
        ctx.update(
            final_rows=_final_rows(view, names, me, {s: d.deal_no for d in g.deal_log for s in d.went_out}
                                   if g is not None else {}, by_going_out),
            by_going_out=by_going_out and bool(view.get("out")),
            ready_names=[names[i] if i < len(names) else "?" for i in sorted(room.ready)],
            i_am_ready=me is not None and me in room.ready,
            rematch_waits=[names[i] for i in room.rematch_waits_for() if i < len(names)],
            free_seats=room.capacity - len(room.seats),
        )
    return ctx


def before_first_trick(view: dict[str, Any], names: Sequence[str]) -> dict[str, Any]:
    """Who swapped or kept cards, and who took free cards or doubled, in this deal: the felt
    says it until the first trick. Rassi's as (seat, as its own player reads it, as the others
    read it)."""
    exchange, rassi = view.get("exchange") or {}, view.get("rassi") or {}
    return {"exchange_done": [(d["seat"], d["count"]) for d in exchange.get("done") or []],
            "rassi_done": [(s, _(RASSI_DONE[k][0]), _(RASSI_DONE[k][1], name=names[s]))
                           for k in ("free", "double", "redouble") for s in rassi.get(k) or []]}


def _final_rows(view: dict[str, Any], names: list[str], me: int | None, out_in: dict[int, int],
                by_going_out: bool) -> list[dict[str, Any]]:
    """The final list, in the rules' order (`view["ranking"]`): when the game ends at the target,
    by points; else the players still in (fewest points first), then those who went out, the
    last one out first. Each row says in which deal its player went out (`out_in`: seat ->
    deal). Rows the rules do not tell apart share a place: equal points (among the players
    still in, when going out decides), or players who went out in the same deal."""
    ranking: list[int] = list(view.get("ranking") or [])
    scores: list[int] = list(view.get("scores") or [])
    rows: list[dict[str, Any]] = []
    for index, seat in enumerate(ranking):
        out_deal = out_in.get(seat)
        key = ("out", out_deal) if by_going_out and out_deal is not None else ("points", scores[seat])
        tied = index > 0 and key == rows[-1]["key"]
        place = rows[-1]["place"] if tied else index + 1
        rows.append({"seat": seat, "name": names[seat], "points": scores[seat], "place": place,
                     "me": seat == me, "out_deal": out_deal, "key": key})
    for row in rows:
        row["shared"] = sum(1 for r in rows if r["place"] == row["place"]) > 1
        row["winner"] = row["place"] == 1
    return rows


def _advice(mode: str, phase: str, hand: list[dict[str, Any]], legal: list[str], leading: bool,
            exchange: dict[str, Any], preset: str) -> str:
    """One sentence under the hand: what this turn asks of the player, and why cards are greyed."""
    if mode == "play":
        whys: list[str] = [h["why"] for h in hand if not h["playable"] and h["why"]]
        if leading and not whys:
            return _("You lead: play any card.")
        if whys:
            return say(max(set(whys), key=whys.count)) + "."
        return _("Play a highlighted card.")
    if mode == "select":
        if len(legal) == 1 and legal[0].startswith("play "):
            cards = pretty_cards(legal[0].split()[1:])
            return _("Only one play is possible: %(cards)s. It is selected for you: press Play.", cards=cards)
        if leading:
            if preset == "vidivellir":
                return _("You lead: select one card, or a pair, triple or quad of one rank, then press Play.")
            return _("You lead: select one card, or several of one rank (keep one card back), then press Play.")
        whys = [h["why"] for h in hand if h["why"]]
        if whys:
            return say(max(set(whys), key=whys.count)) + "."
        return _("Select the cards to play, then press Play.")
    if mode == "exchange":
        n = exchange.get("max")
        if n is None:
            return _("Choose cards to swap with the stock, or keep your hand.")
        if n == 0:
            return _("There is nothing left to swap: keep your hand.")
        return ngettext("Choose up to %(num)d card to swap face down for new ones from the stock, or keep your hand.",
                        "Choose up to %(num)d cards to swap face down for new ones from the stock, or keep your hand.",
                        n)
    if mode == "rassi":
        advice = RASSI_ADVICE.get(phase, N_("Swap your hand or keep it."))
        return _(advice)
    if mode == "watch" and phase == "play" and preset == "gurka-is" and len(hand) == 1:
        return _("This is your final card: you sit out while the others play on until everyone holds one.")
    return ""


def status_line(ctx: dict[str, Any]) -> str:
    """One sentence: whose turn it is (used by the template and by screen readers)."""
    view = ctx.get("view")
    if view is None:
        if ctx.get("is_host"):
            return _("You are the host: start when everyone is here.")
        return _("Waiting for the host to start the game.")
    if view.get("over"):
        ranking = view.get("ranking") or []
        if not ranking:
            return _("The game is over.")
        names, scores = ctx.get("names") or [], view.get("scores") or []
        first = [s for s in ranking if scores[s] == scores[ranking[0]]]
        if len(first) > 1:
            said = [_("you") if s == ctx.get("me") else names[s] for s in first]
            who = said[0]
            for other in said[1:]:
                who = _("%(first)s and %(second)s", first=who, second=other)
            return _("The game is over: %(names)s share first place.", names=who)
        if first[0] == ctx.get("me"):
            return _("The game is over: you win!")
        return _("The game is over: %(name)s wins!", name=names[first[0]])
    if ctx.get("my_turn"):
        if view["phase"] == "play":
            if ctx.get("leading"):
                return _("Your turn: lead.")
            sizes = {len(a.split()) - 1 for a in ctx.get("legal") or [] if a.startswith("play ")}
            k = sizes.pop() if len(sizes) == 1 else 1
            return _("Your turn: play a card.") if k == 1 else _("Your turn: play %(n)s cards.", n=k)
        asked = {
            "exchange": N_("Your turn: exchange cards or keep your hand."),
            "rassi_free": N_("Your turn: free cards or keep your hand?"),
            "rassi_double": N_("Your turn: double or keep your hand?"),
            "rassi_redouble": N_("Your turn: redouble or keep your hand?"),
        }.get(view["phase"], N_("Your turn."))
        return _(asked)
    name = ctx.get("to_act_name")
    waiting = _("Waiting for %(name)s.", name=name) if name else _("Dealing…")
    me = ctx.get("me")
    if me is not None and me in (view.get("out") or []):
        return _("You are out; the others play on. %(waiting)s", waiting=waiting)
    return waiting
