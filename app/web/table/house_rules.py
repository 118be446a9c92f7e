"""The house rules as the new-room form shows them to players: a name and a one-line explanation
for each option, and words for each choice, in the reader's language.

The rules core names its options for code (`eight_led_lowest`, `out_at: reach`) and explains
them for developers (`app.rules.OPTION_HELP`, with the rule book's section numbers); a player
reads these instead.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from app.i18n import N_, say
from app.rooms import engine as rules_engine
from app.rules.text import Text


class HouseRule(NamedTuple):
    label: str  # English message ids: said in the reader's language
    help: str


HOUSE_RULES: dict[str, HouseRule] = {
    "target": HouseRule(N_("Target"), N_("The penalty points at which a player is out (or, in some games, the game ends).")),
    "hand_sizes": HouseRule(N_("Cards per deal"), N_(
        "How many cards each player gets. Several numbers take turns from deal to deal, for example 10, 9, 8 … 1.")),
    "deal_schedule": HouseRule(N_("Order of the hand sizes"), N_(
        "In order: the sizes one after another, again and again. Zigzag: 6 down to 1, up to 5, down to 1, up to 4 …")),
    "exchange": HouseRule(N_("Exchange with the stock"), N_(
        "Before play, each player may swap some cards for new ones from the stock.")),
    "rassi": HouseRule(N_("Rassi: free cards and doubling"), N_(
        "Before play, a hand with no picture card may be swapped for free, and anyone may swap theirs and double the stakes.")),
    "soft_discard": HouseRule(N_("Soft discard"), N_(
        "Right after someone threw their lowest card, a player who cannot beat may play any card above that card.")),
    "black_sevens": HouseRule(N_("Black sevens on top"), N_(
        "7♠ and 7♣ are the highest cards (7♣ above 7♠), worth 21 points each.")),
    "decks": HouseRule(N_("Two decks"), N_("Play with two decks: 14 cards each, for up to 7 players.")),
    "play_on": HouseRule(N_("Play on to the last player"), N_(
        "After the first player is out, the others play on until one is left.")),
    "next_dealer": HouseRule(N_("Next dealer"), N_("Who deals the next deal.")),
    "must_beat": HouseRule(N_("Must beat"), N_("A player who can beat the trick has to.")),
    "beat_equal": HouseRule(N_("An equal card beats"), N_(
        "A card as high as the trick's beats it; otherwise only a higher card does.")),
    "eight_led_lowest": HouseRule(N_("An eight led calls for the lowest"), N_(
        "When an 8 is led, everyone plays their lowest card.")),
    "out_at": HouseRule(N_("Out at the target"), N_(
        "Whether a player is out on reaching the target, or only on going over it.")),
    "exact_clear": HouseRule(N_("Exactly the target clears"), N_(
        "Points that add up to exactly the target are thrown away: the score goes back to 0.")),
    "game_end": HouseRule(N_("The game ends"), N_("When the game is over, and so who wins.")),
}

CHOICES: dict[str, dict[str, str]] = {
    "deal_schedule": {"cycle": N_("in order"), "zigzag": N_("zigzag")},
    "next_dealer": {"left": N_("the player to the left"), "loser": N_("the deal's loser")},
    "out_at": {"reach": N_("on reaching it"), "exceed": N_("on going over it")},
    "game_end": {"one_left": N_("when one player is left"), "first_out": N_("when the first player is out"),
                 "target": N_("at the target: fewest points wins")},
}


def option_label(name: str) -> str:
    """The option's name for players (an unknown one: its code name, spaced)."""
    rule = HOUSE_RULES.get(name)
    return say(rule.label) if rule else name.replace("_", " ")


def option_help(name: str) -> str:
    rule = HOUSE_RULES.get(name)
    return say(rule.help) if rule else ""


def choice_label(name: str, value: str) -> str:
    """The words for choice `value` of option `name`."""
    words = CHOICES.get(name, {}).get(value)
    return say(words) if words else value.replace("_", " ")


class FormProblem(NamedTuple):
    """What the new-room form is told: the message, and the house rules it is about (the first is
    focused; each is marked invalid)."""

    message: str
    options: tuple[str, ...]


def clash_message(first: str, second: str, why: str) -> Text:
    return Text("House rules “%(first)s” and “%(second)s” do not go together: %(why)s. Untick one of them.",
                first=option_label(first), second=option_label(second), why=say(why))


def form_problem(preset: str, form: dict[str, Any], reason: str) -> FormProblem | None:
    """The house rules a refusal of the form is about, and how to say it: two switches that do not
    go together (both named, and why), or one value the rules refused ("hand_sizes: 3 players ×
    99 cards need 297 cards…": named for players, with what was typed). None: not about a house
    rule."""
    try:
        clash = rules_engine.clashing(preset, rules_engine.parse_options(preset, form))
    except ValueError:
        clash = None
    if clash is not None:
        first, second, why = clash
        return FormProblem(clash_message(first, second, why), (first, second))
    name = reason.split(":", 1)[0]
    if name not in HOUSE_RULES:
        return None
    message = Text("House rule “%(rule)s”: %(value)s does not work here. Please choose another value.",
                   rule=option_label(name), value=form.get(f"opt_{name}", "").strip() or "—")
    return FormProblem(message, (name,))
