"""The one place the rooms talk to the rules engine (`app.rules`): a thin adapter."""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Mapping
from typing import Any

from app import rules
from app.rules import OPTION_HELP, PRESETS, IllegalAction, new_game
from app.rules.ruleset import CHOICES, CLASHES, CONVENIENCE_DEFAULTS, OPTION_PRESETS, clashes_for

Game = rules.Game

# What the rooms and the web layer reach the rules through (this module's own functions too).
__all__ = ["OPTION_HELP", "PRESETS", "Game", "IllegalAction", "new_game"]


def preset_names() -> list[str]:
    return list(PRESETS)


def make_game(preset: str, players: int, dealer: int, options: Mapping[str, Any]) -> Game:
    opts: dict[str, Any] = {k: tuple(v) if isinstance(v, list) else v for k, v in options.items()}
    return new_game(preset, players=players, dealer=dealer, **opts)


def deal(game: Game, rng: random.Random, deck: list[str] | None = None) -> dict[str, Any]:
    """Shuffle and deal the next deal (or deal `deck`, in its order: `deck_deal`); return the
    event payload that replays it exactly."""
    if deck is None:
        hands, stock = rules.shuffled_deal(game, rng)
    else:
        hands, stock = deck_deal(game, deck)
    hands = [list(h) for h in hands]
    stock = list(stock)
    game.deal(hands=hands, stock=stock)
    return {"hands": hands, "stock": stock}


def deck_deal(game: Game, deck: list[str]) -> tuple[list[list[str]], list[str]]:
    """A duplicate deal: `deck` (a whole deck in a fixed order) dealt as a shuffled deck is, the
    next hand size to each seat still in, clockwise from forhånd, so the p-th seat from forhånd
    gets the deck's p-th hand at every table. A table with seats out leaves their hands where
    they lie, under the stock: the stock is drawn in the same order as at a full table."""
    size = game.next_hand_size()
    n = game.players
    out = set(game.out)
    seats = [s for s in ((game.forehand + i) % n for i in range(n)) if s not in out]
    hands: list[list[str]] = [[] for _ in range(n)]
    for p, seat in enumerate(seats):
        hands[seat] = deck[p * size:(p + 1) * size]
    unused = deck[len(seats) * size:n * size]
    return hands, deck[n * size:] + unused


def shuffled_deck(preset: str, players: int, rng: random.Random) -> list[str]:
    """A whole deck of `preset` for `players`, shuffled with `rng`: the order `deck_deal` deals."""
    game = make_game(preset, players, 0, {})
    hands, stock = rules.shuffled_deal(game, rng)
    order = [(game.forehand + i) % players for i in range(players)]
    return [c for seat in order for c in hands[seat]] + list(stock)


def replay_deal(game: Game, payload: dict[str, Any]) -> None:
    game.deal(hands=payload["hands"], stock=payload["stock"])


def check(game: Game, action: str, seat: int) -> str | None:
    return game.check(action, seat=seat)


def apply(game: Game, action: str, seat: int) -> str:
    return str(game.apply(action, seat=seat))


def view(game: Game, seat: int | None) -> dict[str, Any]:
    return game.view(seat)


def bot_action(game: Game, seat: int, rng: random.Random, name: str = "heuristic") -> str:
    """What the bot would play for `seat` now (seat == game.to_act); bots see only that seat's view."""
    from app.rules import bots

    bot = bots.BOTS[name](rng.randrange(2**31))
    return str(bot.choose(game))


# ------------------------------------------------------------------ option fields


@dataclasses.dataclass(frozen=True)
class OptionField:
    name: str
    help: str
    kind: str  # "bool" | "int" | "choice" | "ints"
    default: Any
    choices: tuple[str, ...] = ()


def option_fields(preset: str) -> list[OptionField]:
    """The options a host may change for `preset`, with their type and the preset's default."""
    ruleset = PRESETS[preset]
    fields: list[OptionField] = []
    for name, text in OPTION_HELP.items():
        if preset not in OPTION_PRESETS.get(name, (preset,)):
            continue
        default = CONVENIENCE_DEFAULTS[name] if name in CONVENIENCE_DEFAULTS else getattr(ruleset, name)
        if name in CHOICES:
            fields.append(OptionField(name, text, "choice", default, CHOICES[name]))
        elif isinstance(default, bool):
            fields.append(OptionField(name, text, "bool", default))
        elif isinstance(default, int):
            fields.append(OptionField(name, text, "int", default))
        else:
            fields.append(OptionField(name, text, "ints", ",".join(map(str, default))))
    return fields


def option_clashes(preset: str) -> list[tuple[str, str, str]]:
    """The pairs of `preset`'s on/off options that cannot both be on, each with why."""
    switches = [f.name for f in option_fields(preset) if f.kind == "bool"]
    return [(a, b, CLASHES[(a, b)]) for a, b in clashes_for(switches)]


def clashing(preset: str, options: dict[str, Any]) -> tuple[str, str, str] | None:
    """The first pair of switches that `options` (as `parse_options` gives them) turn on together,
    with why; None when they all go together."""
    on = {f.name: bool(options.get(f.name, f.default)) for f in option_fields(preset) if f.kind == "bool"}
    return next(((a, b, why) for a, b, why in option_clashes(preset) if on[a] and on[b]), None)


def parse_options(preset: str, form: dict[str, Any]) -> dict[str, Any]:
    """Options that differ from the preset's defaults, typed from form values."""
    out: dict[str, Any] = {}
    for field in option_fields(preset):
        raw = form.get(f"opt_{field.name}")
        if field.kind == "bool":
            value: Any = raw in ("on", "true", "1", True)
        elif raw is None or str(raw).strip() == "":
            continue
        elif field.kind == "int":
            try:
                value = int(str(raw))
            except ValueError as exc:
                raise ValueError(f"{field.name}: a whole number, please") from exc
        elif field.kind == "ints":
            try:
                value = tuple(int(part) for part in str(raw).replace(" ", "").split(",") if part)
            except ValueError as exc:
                raise ValueError(f"{field.name}: whole numbers separated by commas") from exc
        else:
            value = str(raw)
            if field.choices and value not in field.choices:
                raise ValueError(f"{field.name}: one of {', '.join(field.choices)}")
        default = field.default
        if field.kind == "ints":
            default = tuple(int(x) for x in str(default).split(",") if x)
        if value != default:
            out[field.name] = list(value) if isinstance(value, tuple) else value
    return out


def player_limits(preset: str, options: dict[str, Any]) -> tuple[int, int]:
    ruleset = PRESETS[preset]
    lo, hi = ruleset.min_players, ruleset.max_players
    try:
        g = make_game(preset, max(lo, 2), 0, options)
        lo, hi = g.ruleset.min_players, g.ruleset.max_players
    except (ValueError, TypeError):
        pass
    return max(2, lo), min(8, hi)
