"""Rulesets: the switches of RULES.md §3, the five presets and host option handling."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Literal

from app.rules.cards import build_deck, is_card_text
from app.rules.text import Text

LeadKind = Literal["single", "multi", "sets"]
DealEnd = Literal["final_trick", "show"]
PointsTable = Literal["face", "vidivellir"]
OutAt = Literal["reach", "exceed"]
GameEnd = Literal["one_left", "first_out", "target"]
NextDealer = Literal["left", "loser"]
DealSchedule = Literal["cycle", "zigzag"]

# Seed 001's zig-zag deal starts with six cards ("í byrjun eru gefin sex spil").
ZIGZAG_START = 6


@dataclass(frozen=True)
class Ruleset:
    """Every switch of a Gurka game (RULES.md §3). Field names are fixed (ENGINE_API)."""

    name: str
    min_players: int
    max_players: int
    decks: int
    jokers: int
    top_cards: tuple[str, ...]
    top_points: tuple[int, ...]
    hand_sizes: tuple[int, ...]
    exchange: bool
    rassi: bool
    lead: LeadKind
    beat_equal: bool
    must_beat: bool
    eight_led_lowest: bool
    soft_discard: bool
    deal_end: DealEnd
    points: PointsTable
    ace_low_final: bool
    target: int
    out_at: OutAt
    exact_clear: bool
    game_end: GameEnd
    next_dealer: NextDealer
    # Added after the first rooms were stored: a default keeps their ruleset JSON loading.
    deal_schedule: DealSchedule = "cycle"

    def hand_size(self, deal_index: int) -> int:
        """Hand size of the deal with 0-based index ``deal_index``: ``cycle`` deals
        ``hand_sizes`` in order and starts over; ``zigzag`` goes down and up from the largest
        hand size (see ``zigzag_schedule``), for as long as the game lasts."""
        sizes = self.hand_sizes
        if self.deal_schedule == "zigzag":
            sizes = zigzag_schedule(max(sizes))
        return sizes[deal_index % len(sizes)]

    def deck_size(self) -> int:
        return self.decks * (52 + self.jokers)

    def as_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        for key in ("top_cards", "top_points", "hand_sizes"):
            d[key] = list(d[key])
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Ruleset:
        values = dict(d)
        for key in ("top_cards", "top_points", "hand_sizes"):
            values[key] = tuple(values[key])
        return cls(**values)


@lru_cache(maxsize=16)
def zigzag_schedule(start: int) -> tuple[int, ...]:
    """One round of seed 001's zig-zag deal, repeated for as long as the game lasts.

    "First six cards, then five and so on; after one card, two, and up to five; then down,
    and up to four, and so on": down from ``start`` to 1, then each climb from 2 peaks one
    lower than the one before (start-1, start-2 … 2), back down to 1 after each peak. After
    the climb to 2 the climbs are used up, and the schedule begins again at ``start``, as
    the 10 … 1 countdown begins again at 10. start=6: 6 5 4 3 2 1, 2 3 4 5 4 3 2 1,
    2 3 4 3 2 1, 2 3 2 1, 2 1, then 6 5 … again.
    """
    sizes = list(range(start, 0, -1))
    for peak in range(start - 1, 1, -1):
        sizes += list(range(2, peak + 1)) + list(range(peak - 1, 0, -1))
    return tuple(sizes)


PRESETS: dict[str, Ruleset] = {
    "gurka-night": Ruleset(
        name="gurka-night", min_players=2, max_players=7, decks=1, jokers=2,
        top_cards=(), top_points=(), hand_sizes=(7,), exchange=False, rassi=False,
        lead="single", beat_equal=False, must_beat=False, eight_led_lowest=True,
        soft_discard=False, deal_end="final_trick", points="face", ace_low_final=False,
        target=21, out_at="reach", exact_clear=False, game_end="one_left", next_dealer="left",
    ),
    "gurka-is": Ruleset(
        name="gurka-is", min_players=2, max_players=5, decks=1, jokers=0,
        top_cards=("6C",), top_points=(21,), hand_sizes=(10, 9, 8, 7, 6, 5, 4, 3, 2, 1),
        exchange=False, rassi=False, lead="multi", beat_equal=True, must_beat=False,
        eight_led_lowest=False, soft_discard=False, deal_end="show", points="face",
        ace_low_final=False, target=21, out_at="exceed", exact_clear=True,
        game_end="one_left", next_dealer="left",
    ),
    "vidivellir": Ruleset(
        name="vidivellir", min_players=3, max_players=6, decks=1, jokers=0,
        top_cards=("7S", "7C"), top_points=(21, 22), hand_sizes=(7,), exchange=True,
        rassi=False, lead="sets", beat_equal=True, must_beat=False, eight_led_lowest=False,
        soft_discard=False, deal_end="final_trick", points="vidivellir", ace_low_final=False,
        target=21, out_at="exceed", exact_clear=False, game_end="first_out",
        next_dealer="loser",
    ),
    "kurkku": Ruleset(
        name="kurkku", min_players=2, max_players=8, decks=1, jokers=0,
        top_cards=(), top_points=(), hand_sizes=(6,), exchange=False, rassi=False,
        lead="single", beat_equal=True, must_beat=True, eight_led_lowest=False,
        soft_discard=False, deal_end="show", points="face", ace_low_final=False,
        target=30, out_at="reach", exact_clear=False, game_end="target", next_dealer="left",
    ),
    "rassi": Ruleset(
        name="rassi", min_players=2, max_players=8, decks=1, jokers=0,
        top_cards=(), top_points=(), hand_sizes=(6,), exchange=False, rassi=True,
        lead="single", beat_equal=True, must_beat=True, eight_led_lowest=False,
        soft_discard=False, deal_end="show", points="face", ace_low_final=True,
        target=50, out_at="reach", exact_clear=False, game_end="target", next_dealer="left",
    ),
}

OPTION_HELP: dict[str, str] = {
    "target": Text("Penalty points at which a player is out (or the game ends)."),
    "hand_sizes": Text("Cards dealt per deal; a schedule repeats (gurka-is: 10, 9 … 1)."),
    "deal_schedule": Text("gurka-is variant: cycle deals the hand sizes in order, again and again; "
                          "zigzag deals 6, 5 … 1, up to 5, down to 1, up to 4 … and over again."),
    "exchange": Text("Exchange cards with the stock before play."),
    "rassi": Text("Rassi free cards, double and redouble before play."),
    "soft_discard": Text("The player right after someone who discarded their lowest card may, "
                         "when they cannot beat, play any card above that discard."),
    "black_sevens": Text("gurka-is variant: 7♠ and 7♣ are the highest cards (7♠ < 7♣, 21 points each)."),
    "decks": Text("Play with two decks (vidivellir: 14 cards each, up to 7 players)."),
    "play_on": Text("vidivellir: play on after the first player is out until one is left."),
    "next_dealer": Text("Who deals next: the seat to the left, or the deal's loser."),
    "must_beat": Text("A player who can beat the trick must beat it."),
    "beat_equal": Text("An equal card beats the trick (otherwise only a higher card does)."),
    "eight_led_lowest": Text("gurka-night: when an 8 is led, everyone plays their lowest card."),
    "out_at": Text("Out when points reach the target (reach) or go over it (exceed)."),
    "exact_clear": Text("A pile worth exactly the target is thrown away (score back to 0)."),
    "game_end": Text("The game ends with one player left, at the first player out, or at the target."),
}

# Each preset's name as a player reads it (said in the reader's language where it has words to
# translate; Víðivellir is a place name, the same in every language).
PRESET_TITLES: dict[str, str] = {
    "gurka-night": Text("Gurka Night (Danish club)"),
    "gurka-is": Text("Gúrka (Icelandic)"),
    "vidivellir": "Víðivellir",
    "kurkku": Text("Kurkku (Finnish)"),
    "rassi": Text("Rassi (Finnish)"),
}


def preset_title(preset: str) -> str:
    """The preset's title (its slug when it has none)."""
    return PRESET_TITLES.get(preset, preset)


# Options that only make sense for some presets (RULES.md §3: variants of one game); every
# other option in OPTION_HELP can be changed for any preset.
OPTION_PRESETS: dict[str, tuple[str, ...]] = {
    "black_sevens": ("gurka-is",),
    "deal_schedule": ("gurka-is",),
    "decks": ("vidivellir",),
    "play_on": ("vidivellir",),
    "eight_led_lowest": ("gurka-night",),
}

# Conveniences of make_ruleset that are not Ruleset fields, with their value in every preset.
CONVENIENCE_DEFAULTS: dict[str, bool] = {"black_sevens": False, "play_on": False}

CHOICES: dict[str, tuple[str, ...]] = {
    "lead": ("single", "multi", "sets"),
    "deal_end": ("final_trick", "show"),
    "points": ("face", "vidivellir"),
    "out_at": ("reach", "exceed"),
    "game_end": ("one_left", "first_out", "target"),
    "next_dealer": ("left", "loser"),
    "deal_schedule": ("cycle", "zigzag"),
}

_FIELDS = {f.name for f in dataclasses.fields(Ruleset)}
_TUPLE_FIELDS = ("top_cards", "top_points", "hand_sizes")


def make_ruleset(preset: str | Ruleset, players: int, **options: Any) -> Ruleset:
    """Apply host options to a preset and check the combination (ValueError naming the option).

    Conveniences: ``black_sevens=True`` (top cards 7S<7C, 21 points each: seed 001),
    ``decks=2`` on vidivellir (hand_sizes (14,), max_players 7 unless given), ``play_on=True``
    (game_end one_left), ``deal_schedule="zigzag"`` (hand_sizes (6,) unless given: the
    zig-zag starts at the largest hand size).
    """
    if isinstance(preset, Ruleset):
        base = preset
    else:
        if preset not in PRESETS:
            raise ValueError(
                f"preset: unknown preset {preset!r}; choose one of {', '.join(PRESETS)}"
            )
        base = PRESETS[preset]
    changes: dict[str, Any] = {}
    black_sevens = options.pop("black_sevens", None)
    play_on = options.pop("play_on", None)
    if black_sevens:
        changes["top_cards"] = ("7S", "7C")
        changes["top_points"] = (21, 21)
    if play_on is not None:
        changes["game_end"] = "one_left" if play_on else "first_out"
    for key, value in options.items():
        if key not in _FIELDS:
            raise ValueError(f"{key}: not an option (options: {', '.join(sorted(_FIELDS))})")
        if key in _TUPLE_FIELDS:
            if isinstance(value, (str, int)):
                value = (value,)
            value = tuple(value)
        changes[key] = value
    if changes.get("deal_schedule") == "zigzag" and base.deal_schedule != "zigzag":
        changes.setdefault("hand_sizes", (ZIGZAG_START,))
    if base.name == "vidivellir" and changes.get("decks") == 2 and base.decks == 1:
        changes.setdefault("hand_sizes", (14,))
        changes.setdefault("max_players", 7)
    ruleset = dataclasses.replace(base, **changes) if changes else base
    validate_ruleset(ruleset, players)
    return ruleset


# Switches that cannot both be on, and why (a phrase said to players after "they do not go
# together:"). A form that knows these can say so before it is sent.
CLASHES: dict[tuple[str, str], str] = {
    ("exchange", "rassi"): Text("both change cards before play"),
}


class OptionClash(ValueError):
    """Two switches that cannot both be on (`options`, in CLASHES order), and `why`."""

    def __init__(self, options: tuple[str, str], why: str) -> None:
        super().__init__(f"{options[0]}: cannot be combined with {options[1]} ({why})")
        self.options = options
        self.why = why


def clashes_for(names: list[str] | tuple[str, ...]) -> list[tuple[str, str]]:
    """The clashing pairs among the switches `names` (the options a form offers)."""
    return [pair for pair in CLASHES if pair[0] in names and pair[1] in names]


def validate_ruleset(r: Ruleset, players: int) -> None:
    """Refuse impossible combinations with a message naming the option and the limit."""
    for key, choices in CHOICES.items():
        if getattr(r, key) not in choices:
            raise ValueError(f"{key}: must be one of {', '.join(choices)}, not {getattr(r, key)!r}")
    if r.decks not in (1, 2):
        raise ValueError(f"decks: 1 or 2 decks, not {r.decks}")
    if not 0 <= r.jokers <= 2:
        raise ValueError(f"jokers: 0 to 2 jokers per deck, not {r.jokers}")
    if not 2 <= r.min_players <= r.max_players <= 8:
        raise ValueError(
            f"min_players/max_players: need 2 <= min <= max <= 8, got {r.min_players}..{r.max_players}"
        )
    if not isinstance(players, int) or not r.min_players <= players <= r.max_players:
        raise ValueError(
            f"players: {r.name} is for {r.min_players}–{r.max_players} players, not {players}"
        )
    if not r.hand_sizes or any(not isinstance(n, int) or n < 1 for n in r.hand_sizes):
        raise ValueError(f"hand_sizes: every hand size must be at least 1, got {list(r.hand_sizes)}")
    deck = build_deck(r.decks, r.jokers)
    biggest = max(r.hand_sizes)
    if players * biggest > len(deck):
        raise ValueError(
            f"hand_sizes: {players} players × {biggest} cards need {players * biggest} cards, "
            f"but the deck has {len(deck)} (decks={r.decks}, jokers={r.jokers})"
        )
    if len(r.top_points) != len(r.top_cards):
        raise ValueError("top_points: give one point value per top card")
    if len(set(r.top_cards)) != len(r.top_cards):
        raise ValueError("top_cards: a top card is listed twice")
    for card in r.top_cards:
        if not is_card_text(card, r.jokers) or card[0] == "X":
            raise ValueError(f"top_cards: {card!r} is not a card of the deck (jokers are always top)")
    for pair, why in CLASHES.items():
        if getattr(r, pair[0]) and getattr(r, pair[1]):
            raise OptionClash(pair, why)
    if not isinstance(r.target, int) or r.target < 1:
        raise ValueError(f"target: must be a positive number of points, not {r.target!r}")
