"""The table as data, once per push: what every viewer sees alike, and what one seat sees of its own.

A table is a tree of pieces, each one element with an id (`Piece`): the template macro that
draws it, the plain data it is drawn from (compared with `==` from one push to the next), and
the ids of the pieces right inside it. A piece's data never holds its kids' data, so a kid that
changes alone (a seat's card count, a play added to the trick) is sent alone.

- `public_table(room)`: what every viewer sees alike, in no language: the seats, the trick, the
  last deal, the score sheet, the status facts; and the section's public attributes (whose turn
  it is, whose play holds the trick, the clock). Words that differ by viewer ("you", "your
  turn", the host's buttons) are all written into it and the page shows its own by the
  section's `data-me` and `data-role` (static/css/app.css).
- `private_table(room, seat, public)`: the seat's own: its hand, what it may play and why not,
  the advice under the hand, the club's panel for it, and the section's `data-me`, `data-role`,
  `data-mode`.

Built from `game.view(None)` and `game.seat_view(seat)` only, so nothing hidden from a seat can
reach its page, and nothing of any hand reaches the public table.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, NamedTuple

from app.rooms.room import LiveRoom
from app.rules.cards import pretty_cards
from app.rules.scoring import DealResult
from app.rules.text import Text
from app.web.table.places import final_rows

BOT_SUFFIX = " (bot)"
RASSI_KINDS = ("free", "double", "redouble")
# What the advice under the hand says for each of rassi's questions
RASSI_ADVICE = {
    "rassi_free": Text("You were dealt no picture card (J, Q, K): you may swap all six cards for a new hand, "
                       "free of charge, or keep these."),
    "rassi_double": Text("Double? You swap all six cards for a new hand, but if you lose this deal your "
                         "points count double (×2)."),
    "rassi_redouble": Text("You doubled and this is your new hand. Redouble? Swap all six once more; losing "
                           "this deal then counts ×4."),
}
RASSI_ASKS = Text("Swap your hand or keep it.")

# The club's panel on a table, for a seat (None: a spectator): HTML from the club's template
Panel = Callable[[LiveRoom, "int | None"], str]


class Piece(NamedTuple):
    """One element of the table: drawn by the macro `macro` of templates/table/table.html from
    `data` and its kids (drawn first); `listing`: its kids are its element's children, in
    order, so kids added at the end are sent as such: "keyed", each kid drawn with its id (a
    kid taken away is deleted, a kid changed is sent alone), or "appended", kids drawn without
    one (any other change sends the whole list: a trick's plays). (A named tuple, not a frozen
    dataclass: a push makes some sixty, and a frozen dataclass sets each field through
    `object.__setattr__`.)"""

    macro: str
    data: Any
    kids: tuple[str, ...] = ()
    listing: Literal["", "keyed", "appended"] = ""


Pieces = dict[str, Piece]


@dataclass(slots=True)
class Table:
    """A table's pieces by id (`roots`: the outermost, in the page's order) and its section's
    attributes."""

    pieces: Pieces
    attrs: dict[str, str]
    roots: tuple[str, ...]


PUBLIC_ROOTS = ("table-pills", "table-say", "table-banners", "table-result", "table-seats", "table-lobby",
                "table-felt", "table-over", "table-sheet")
PRIVATE_ROOTS = ("table-club", "table-mine", "table-hand")


def display_name(name: str, is_bot: bool, taken: frozenset[str] = frozenset()) -> str:
    """A bot's name without the "(bot)" suffix (the seat carries a "bot" tag instead), unless a
    player in `taken` has that very name."""
    if is_bot and name.endswith(BOT_SUFFIX) and len(name) > len(BOT_SUFFIX):
        short = name[: -len(BOT_SUFFIX)]
        return name if short in taken else short
    return name


# ------------------------------------------------------------------ public


def top_cards(room: LiveRoom) -> tuple[str, ...]:
    """The preset's cards above the ace (drawn with a gold corner)."""
    g = room.state.game
    return tuple(c for c in g.ruleset.top_cards if not c.startswith("X")) if g is not None else ()


class SeatRow(NamedTuple):
    """A seat as its row in the list of players shows it (its card count and its score are pieces
    of their own; who deals, who leads first and who is out, the section says: `data-dealer`,
    `data-forehand`, `data-out`)."""

    seat: int
    empty: bool
    name: str | None
    is_bot: bool = False
    bot_controlled: bool = False
    present: bool = False
    is_host: bool = False
    can_hand_to_bot: bool = False
    bot_level: str | None = None
    lobby: bool = False
    in_game: bool = False  # (a latecomer sits out until the next game; who is out, the section says: `data-out`)
    multiplier: int = 1


@dataclass(frozen=True, slots=True)
class Public:
    """What the public pieces are made of, kept for the seats' private tables."""

    view: dict[str, Any] | None
    names: tuple[str | None, ...]
    table: Table
    top: tuple[str, ...]  # the preset's cards above the ace (drawn with a gold corner)


def seat_names(room: LiveRoom) -> tuple[str | None, ...]:
    """Each seat's name as the table shows it (None: a free seat)."""
    humans = frozenset(s.name for s in room.state.seats.values() if not s.is_bot)
    return tuple(display_name(s.name, s.is_bot, humans) if (s := room.state.seats.get(i)) is not None else None
                 for i in range(len(room.state.seats)))


def public_table(room: LiveRoom) -> Public:
    """`room` as every viewer sees it now."""
    g = room.state.game
    view: dict[str, Any] | None = g.view(None) if g is not None else None
    names = seat_names(room)
    pieces: Pieces = {}
    lobby = room.state.status == "lobby"
    in_game = view is not None
    over = bool(view and view.get("over"))
    target = view["target"] if view is not None else None
    to_act = view.get("to_act") if view is not None else None
    trick = (view.get("trick") or {}) if view is not None else {}
    phase = view["phase"] if view is not None else None

    pieces["table-pills"] = Piece("pills", (in_game, view and view["deal_no"], phase, over, target))
    _say(pieces, room, view, names)
    pieces["table-banners"] = Piece("banners", (room.state.time_note, room.deal_due() is not None))
    last_deal = view.get("last_deal") if view is not None else None
    pieces["table-result"] = Piece("result", (last_deal, names, target))
    _seats(pieces, room, view, names, lobby)
    if lobby:
        filled = sum(1 for s in room.state.seats.values())
        pieces["table-lobby"] = Piece("lobby", (room.state.slug, room.state.preset, filled, room.state.capacity, room.limits(),
                                                room.state.bot_levels.host))
    else:
        pieces["table-lobby"] = Piece("lobby", None)
    _felt(pieces, room, view, names)
    _over(pieces, room, view, names)
    _sheet(pieces, room, names)

    deadline = room.turn_deadline()
    attrs = {
        "data-to-act": "" if to_act is None else str(to_act),
        "data-dealer": "" if view is None else str(view["dealer"]),
        "data-forehand": "" if view is None else str(view["forehand"]),
        "data-out": "" if view is None else " ".join(map(str, view["out"])),  # the seats out of the game
        # whose play holds the trick on the felt; whether that trick is taken already (it shows dimmed)
        "data-winning": _winning(view),
        "data-leading": "true" if view is not None and phase == "play" and not trick.get("plays") else "",
        "data-trick-done": "true" if view is not None and not trick.get("plays") and view.get("last_trick") else "",
        # which trick the folded "Previous trick" shows when it is opened
        "data-previous": trick_key(view["deal_no"], view["last_trick"]["plays"])
        if view is not None and view.get("last_trick") else "",
        # the last deal's result dims once a card has been played in the next deal (not in the pause
        # after it, which shows its final cards: issue 37 item 2)
        "data-result-old": "true" if view is not None and phase == "play" and any(
            m["action"].startswith("play") for m in view["moves"]) else "",
    }
    if deadline is not None:
        attrs["data-turn-left"] = str(max(0, math.ceil(deadline - room.manager.clock.now())))
    return Public(view, names, Table(pieces, attrs, PUBLIC_ROOTS), top_cards(room))


def _winning(view: dict[str, Any] | None) -> str:
    if view is None:
        return ""
    trick = view.get("trick") or {}
    held = trick if trick.get("plays") else view.get("last_trick") or {}
    return "" if held.get("winner") is None else str(held["winner"])


def _say(pieces: Pieces, room: LiveRoom, view: dict[str, Any] | None, names: tuple[str | None, ...]) -> None:
    """The status line: whose turn it is, what the game waits for (each viewer reads its own)."""
    if view is None:
        pieces["table-say"] = Piece("say", ("lobby",))
        return
    if view.get("over"):
        ranking = view.get("ranking") or []
        scores = view.get("scores") or []
        first = tuple(s for s in ranking if scores[s] == scores[ranking[0]]) if ranking else ()
        pieces["table-say"] = Piece("say", ("over", first, names))
        return
    # whose turn it is the section says (`data-to-act`): the line is written for each seat, and a
    # seat reads "your turn" in its own (not while a bot plays for it: it moves under its name)
    turns, humans = _turns(room, view)
    trick = view.get("trick") or {}
    plays = trick.get("plays") or []
    follow = len(plays[0]["cards"]) if plays else 1  # how many cards a follower plays
    # (between deals nobody is to act, so no seat reads its turn in the phase's words: the line
    # stays as the next deal's first trick will need it, and is not sent twice per deal)
    phase = "play" if view["phase"] == "waiting" else view["phase"]
    pieces["table-say"] = Piece("say", ("play", phase, turns, humans, follow, tuple(view.get("out") or ()), names))


def _turns(room: LiveRoom, view: dict[str, Any]) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The seats still in the game (whose turn it may be), and those of them a person plays (not
    while a bot plays for them: it moves under their name)."""
    turns = tuple(i for i in range(len(view["scores"])) if i not in (view.get("out") or ()))
    humans = tuple(i for i in turns if (s := room.state.seats.get(i)) is not None and not s.bot_controlled)
    return turns, humans


def _seats(pieces: Pieces, room: LiveRoom, view: dict[str, Any] | None, names: tuple[str | None, ...],
           lobby: bool) -> None:
    state = room.state
    present = room.present()
    handovers = room.handovers()
    n = state.capacity if view is None else len(state.seats)
    playing = len(view["scores"]) if view is not None else 0
    kids: list[str] = []
    for i in range(n):
        key = f"table-seat-{i}"
        kids.append(key)
        s = state.seats.get(i)
        if s is None:
            pieces[key] = Piece("seat", SeatRow(i, True, None, lobby=lobby))
            continue
        name = names[i] if i < len(names) else s.name
        in_game = i < playing
        row = SeatRow(i, False, name, s.is_bot, s.bot_controlled, s.is_bot or i in present, i == state.host,
                      i in handovers, room.bot_level(i) if s.is_bot or s.bot_controlled else None, lobby,
                      in_game, view["multipliers"][i] if view is not None and in_game else 1)
        if view is not None and in_game:
            count, stats = f"table-count-{i}", f"table-stats-{i}"
            pieces[count] = Piece("count", (i, view["hand_counts"][i]))
            pieces[stats] = Piece("stats", (i, name, view["scores"][i], view["target"], view["agurk"][i],
                                            tuple(view["penalty_cards"][i])))
            pieces[key] = Piece("seat", row, (count, stats))
        else:
            pieces[key] = Piece("seat", row)
    pieces["table-seats"] = Piece("seats", None, tuple(kids), listing="keyed")


def _felt(pieces: Pieces, room: LiveRoom, view: dict[str, Any] | None, names: tuple[str | None, ...]) -> None:
    """The felt: the trick's plays (a list: a play adds one at its end; once the trick is taken
    its plays stay there, dimmed, until the next lead), the line under them (who took it, who
    leads, what the phase waits for) and the previous trick, folded."""
    if view is None or view.get("over"):
        pieces["table-felt"] = Piece("felt", False)
        return
    trick = view.get("trick") or {}
    plays = trick.get("plays") or []
    last = view.get("last_trick")
    phase = view["phase"]
    top = top_cards(room)
    shown = plays or (last["plays"] if last and phase in ("play", "waiting") else [])
    play_ids = []
    if shown:
        key = f"table-play-{trick_key(None, shown)}"
        for i, p in enumerate(shown):
            play_ids.append(f"{key}-{i}")
            pieces[play_ids[-1]] = Piece("play", (p["seat"], tuple(p["cards"]), p["how"], names[p["seat"]], top))
    pieces["table-plays"] = Piece("plays_now", None, tuple(play_ids), listing="appended")
    # under the plays: the phase's words or the final trick's warning; who took the last trick and
    # who leads, written for every seat and picked by the section's attributes (shown while a
    # trick is led, `data-leading`), so a trick taken or led sends none of it; the exchanges
    # made before the first trick
    if phase != "play":
        pieces["table-note"] = Piece("note", ("phase", phase, view.get("stock_count")))
    else:
        pieces["table-note"] = Piece("note", ("final",) if trick.get("final") else ())
    pieces["table-who"] = Piece("who", (*_turns(room, view), names))
    exchange, rassi = view.get("exchange") or {}, view.get("rassi") or {}
    before = () if last or phase != "play" else (
        tuple((d["seat"], d["count"]) for d in exchange.get("done") or ()),
        tuple((k, s) for k in RASSI_KINDS for s in rassi.get(k) or ()))
    pieces["table-before"] = Piece("before", (names, before))
    pieces["table-lead"] = Piece("lead", None, ("table-note", "table-who", "table-before"))
    # (there all game, shown once a trick was taken while the next one is played: the section's
    # `data-previous` names it, and while its plays are still the last trick's it is hidden,
    # `data-trick-done`; an open one stays open from trick to trick)
    pieces["table-previous"] = Piece("previous", room.state.slug)
    pieces["table-felt"] = Piece("felt", True, ("table-plays", "table-lead", "table-previous"))


def trick_key(deal_no: int | None, plays: list[dict[str, Any]]) -> str:
    """A trick's name on the table: who led it with which card (in deal `deal_no`)."""
    lead = plays[0]
    return ("" if deal_no is None else f"{deal_no}-") + f"{lead['seat']}{lead['cards'][0].lower()}"


def previous_trick(room: LiveRoom) -> tuple[str, dict[str, Any], tuple[str | None, ...], tuple[str, ...]] | None:
    """The trick taken last in the deal being played, for everybody: (its key, as the section's
    `data-previous` names it, its plays and winner, the seats' names, the preset's cards above
    the ace); None between deals or before a trick is taken."""
    g = room.state.game
    view = g.view(None) if g is not None else None
    last = view.get("last_trick") if view is not None else None
    if view is None or last is None or view.get("over") or view["phase"] != "play":
        return None
    return trick_key(view["deal_no"], last["plays"]), last, seat_names(room), top_cards(room)


def _over(pieces: Pieces, room: LiveRoom, view: dict[str, Any] | None, names: tuple[str | None, ...]) -> None:
    if view is None or not view.get("over"):
        pieces["table-over"] = Piece("over", None)
        return
    g = room.state.game
    by_going_out = g is not None and g.ruleset.game_end != "target"  # else by points
    out_in = {s: d.deal_no for d in g.deal_log for s in d.went_out} if g is not None else {}
    rows = tuple(final_rows(view.get("ranking") or [], view.get("scores") or [], [n or "?" for n in names], None,
                            out_in, by_going_out))
    ready = tuple(sorted(room.state.ready))
    pieces["table-over"] = Piece("over", (
        room.state.slug, rows, by_going_out and bool(view.get("out")), room.state.club_table, ready,
        tuple(names[i] or "?" for i in ready if i < len(names)),
        tuple(names[i] or "?" for i in room.rematch_waits_for() if i < len(names)),
        room.state.capacity - len(room.state.seats)))


def _sheet(pieces: Pieces, room: LiveRoom, names: tuple[str | None, ...]) -> None:
    """The score sheet, seated players' (finished deals are public): a row per deal."""
    g = room.state.game
    if g is None or not g.deal_log:
        pieces["table-sheet"] = Piece("sheet", None)
        return
    rows = score_rows(g.deal_log, len(room.state.seats))
    row_ids = []
    for row in rows:
        key = f"table-sheetrow-{row['deal_no']}"
        row_ids.append(key)
        pieces[key] = Piece("sheetrow", (row, names))
    pieces["table-sheetsum"] = Piece("sheetsum", len(rows))
    pieces["table-sheetrows"] = Piece("sheetrows", None, tuple(row_ids), listing="keyed")
    pieces["table-sheet"] = Piece("sheet", names, ("table-sheetsum", "table-sheetrows"))


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


# ------------------------------------------------------------------ private


def private_table(room: LiveRoom, seat: int | None, public: Public, panel: str = "") -> Table:
    """What `seat` (None: a spectator) sees of its own, beside `public`."""
    view = public.view
    me = seat if seat is not None and seat in room.state.seats else None
    g = room.state.game
    bot_playing_me = me is not None and room.state.seats[me].bot_controlled and room.state.status == "playing"
    pieces: Pieces = {"table-club": Piece("club", panel),
                      "table-mine": Piece("mine", bot_playing_me)}
    role = "watcher" if me is None else "host" if me == room.state.host else "player"
    mode = "lobby"
    if view is None:
        pieces["table-hand"] = Piece("hand", None)
    elif me is None:
        pieces["table-hand"] = Piece("hand", "watching")
        mode = "over" if view.get("over") else "watch"
    else:
        assert g is not None
        own = g.seat_view(me)
        mode = _hand(pieces, view, own, public.top, my_turn=view["to_act"] == me and not bot_playing_me)
    # (whether it is the seat's turn, the mode says: play, select, exchange or rassi; the page marks
    # it as `data-my-turn` for its styles)
    attrs = {"data-me": "" if me is None else str(me), "data-role": role, "data-mode": mode}
    return Table(pieces, attrs, PRIVATE_ROOTS)


def _hand(pieces: Pieces, view: dict[str, Any], own: dict[str, Any], top: tuple[str, ...], *,
          my_turn: bool) -> str:
    """The seat's hand (its cards a list: a card played is taken away), its move (what it may do
    now, why a card is not allowed) and the advice above it; the seat's mode."""
    legal: list[str] = own.get("legal") or [] if my_turn else []
    phase = view["phase"]
    singles = {a.split()[1] for a in legal if a.startswith("play ") and len(a.split()) == 2}
    multi = any(a.startswith("play ") and len(a.split()) > 2 for a in legal)
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
    hand: list[str] = list(own.get("hand") or ())
    if not hand and (view.get("over") or own.get("seat") in (view.get("out") or ())):
        pieces["table-hand"] = Piece("hand", None)
        return mode
    card_ids = []
    for i, code in enumerate(hand):
        copy = hand[:i].count(code)
        key = f"card-{code.lower()}" + (f"-{copy + 1}" if copy else "")
        card_ids.append(key)
        pieces[key] = Piece("hand_card", (key, code, code in top))
    pieces["table-cards"] = Piece("cards", len(hand) > 10, tuple(card_ids), listing="keyed")
    trick = view.get("trick") or {}
    leading = not trick.get("plays")
    why_not: dict[str, str] = own.get("why_not") or {} if phase == "play" and my_turn else {}
    in_plays = {c for a in legal for c in a.split()[1:]} if mode in ("play", "select") else set()
    blocked: dict[str, list[str]] = {}  # why -> the cards it keeps back
    for code in dict.fromkeys(hand):
        if mode == "play" and code not in singles or mode == "select" and code not in in_plays:
            blocked.setdefault(why_not.get(code) or "", []).append(code)
    preselect: tuple[str, ...] = ()
    if mode == "select" and len(legal) == 1 and legal[0].startswith("play "):
        preselect = tuple(legal[0].split()[1:])  # one possible play: it is selected already
    exchange_max = (view.get("exchange") or {}).get("max")
    # (playing one card: why the greyed ones wait; selecting: why any card alone would not do)
    whys = ([why for why, codes in blocked.items() for _ in codes] if mode == "play" else
            [why_not.get(code, "") for code in hand] if mode == "select" else [])
    advice = _advice(mode, phase, whys, legal, leading, view.get("preset", ""), len(hand))
    # (a reason the advice says already is not written twice: None, the page reads the advice)
    said = advice.params.get("reason") if advice is not None and advice.msgid == "%(reason)s." else None
    pieces["table-move"] = Piece("move", (
        mode, advice, tuple(legal),
        tuple((None if said is not None and why == said else why, tuple(codes)) for why, codes in blocked.items()),
        preselect, exchange_max if mode == "exchange" else None))
    # (the send buttons' words for 0, 1, 2... cards selected: up to a whole hand of the deal; between
    # deals the hand stays, empty, so a deal sends only its cards)
    pieces["table-hand"] = Piece("hand", max(len(hand), int(view.get("hand_size") or 0)),
                                 ("table-move", "table-cards"))
    return mode


def _advice(mode: str, phase: str, whys: list[str], legal: list[str], leading: bool,
            preset: str, held: int) -> Text | None:
    """One sentence above the hand: what this turn asks of the player, and why cards are greyed
    (`whys`: the reasons the cards of the hand give, one per card)."""
    reasons = [Text(why) if not isinstance(why, Text) else why for why in whys if why]
    common = max(reasons, key=reasons.count) if reasons else None
    if mode == "play":
        if common is not None:
            return Text("%(reason)s.", reason=common)
        return Text("You lead: play any card.") if leading else Text("Play a highlighted card.")
    if mode == "select":
        if len(legal) == 1 and legal[0].startswith("play "):
            return Text("Only one play is possible: %(cards)s. It is selected for you: press Play.",
                        cards=pretty_cards(legal[0].split()[1:]))
        if leading:
            if preset == "vidivellir":
                return Text("You lead: select one card, or a pair, triple or quad of one rank, then press Play.")
            return Text("You lead: select one card, or several of one rank (keep one card back), then press Play.")
        if common is not None:
            return Text("%(reason)s.", reason=common)
        return Text("Select the cards to play, then press Play.")
    if mode == "exchange":
        return None  # (its words depend on a number: the template says them)
    if mode == "rassi":
        return RASSI_ADVICE.get(phase, RASSI_ASKS)
    if mode == "watch" and phase == "play" and preset == "gurka-is" and held == 1:
        return Text("This is your final card: you sit out while the others play on until everyone holds one.")
    return None
