"""The game history file: one or more finished games as plain text (docs/history-format.md).

`write_game` writes a game from its log (deals as dealt, every action with its seat, each deal's
result); `read_games` reads a file back strictly: every deal must be a whole deck of the rule
set, every action legal in order when replayed through the rules core, every written result
equal to what the rules make of it. A problem is a `HistoryError` naming the line and what is
wrong (a `Text`, so the web layer can say it in the reader's language). Pure: stdlib only.
"""

from __future__ import annotations

import dataclasses
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from app.rules.actions import IllegalAction
from app.rules.cards import card_table
from app.rules.game import Game
from app.rules.ruleset import PRESETS, Ruleset, make_ruleset
from app.rules.scoring import DealResult
from app.rules.text import Text, text_of

FORMAT = "gurka-history 1"
# Tags a reader knows, in the order a writer writes them (after the Rule and Seat tags come
# Dealer, then the optional ones, then the result).
OPTIONAL_TAGS = ("Date", "Time", "Link", "Game", "Night", "Table", "Round")
RESULT_TAGS = ("Ranking", "Scores")
# Every Ruleset field but its name (the Preset tag) is written as a Rule tag.
RULE_FIELDS = tuple(f.name for f in dataclasses.fields(Ruleset) if f.name != "name")
_CARD_TUPLES = ("top_cards",)  # the other tuple rules are whole numbers
MAX_LINE = 2000
MAX_LINES = 200_000

_TAG = re.compile(r'\[([A-Z][A-Za-z]*)(?: ([A-Za-z0-9_]+))? "((?:[^"\\]|\\.)*)"\]\Z')
_ESCAPE = re.compile(r'\\(?:(["\\])|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8}))')
_UNSAFE = frozenset(("Cc", "Cf", "Zl", "Zp", "Cs", "Co", "Cn"))


class HistoryError(ValueError):
    """A history file that cannot be read: `line` (1-based, 0 for the whole file) and why."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(message)
        self.line = line
        self.message = message

    def __str__(self) -> str:
        return f"line {self.line}: {self.message}" if self.line else str(self.message)


@dataclass(frozen=True)
class HistoryGame:
    """One game read from a file: its tags, players by seat, and the game replayed to its end
    (`game.log` holds every deal and action, as a room's event log does)."""

    line: int  # where the game's first tag is
    tags: dict[str, str]
    names: tuple[str, ...]
    game: Game

    @property
    def preset(self) -> str:
        return self.game.ruleset.name


# ------------------------------------------------------------------ escaping


def escape(value: str) -> str:
    """A tag value's text inside its quotes: `"` and `\\` escaped, and every character that
    could end a line or hide itself (controls, format characters, line and paragraph
    separators, unassigned code points) written as `\\uXXXX` (or `\\UXXXXXXXX`)."""
    out: list[str] = []
    for ch in value:
        if ch in '"\\':
            out.append("\\" + ch)
        elif unicodedata.category(ch) in _UNSAFE:
            code = ord(ch)
            out.append(f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}")
        else:
            out.append(ch)
    return "".join(out)


def unescape(raw: str) -> str:
    """The value `escape` wrote (a backslash before anything else is refused by the tag pattern
    only when it ends the value; here every escape must be one of the three forms)."""
    pos = 0
    out: list[str] = []
    while True:
        i = raw.find("\\", pos)
        if i < 0:
            out.append(raw[pos:])
            return "".join(out)
        out.append(raw[pos:i])
        m = _ESCAPE.match(raw, i)
        if m is None:
            raise ValueError(raw[i:i + 2])
        quoted, short, long = m.groups()
        if quoted:
            out.append(quoted)
        else:
            code = int(short or long, 16)
            if code > 0x10FFFF or 0xD800 <= code <= 0xDFFF:
                raise ValueError(m.group(0))
            out.append(chr(code))
        pos = m.end()


# ------------------------------------------------------------------ writing


def rule_value(value: Any) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, tuple | list):
        return " ".join(str(v) for v in value)
    return str(value)


def _tag(name: str, value: str, key: str | None = None) -> str:
    return f'[{name}{" " + key if key is not None else ""} "{escape(value)}"]'


def _cards(cards: Sequence[str]) -> str:
    return " ".join(cards) if cards else "-"


def result_line(result: DealResult, scores: Sequence[int]) -> str:
    takes = " ".join(f"{s}:{c}:{p}" for s, c, p in zip(result.losers, result.cards, result.points))
    return f"result {takes} scores {' '.join(str(s) for s in scores)}"


def write_game(game: Game, names: Sequence[str], tags: Mapping[str, str] | None = None) -> str:
    """The history of a finished `game` (replayed from its log) with the players' names by seat
    and optional tags (Date, Time, Link, Game, Night, Table, Round)."""
    if not game.over or game.ranking is None:
        raise ValueError("write_game: only a finished game has a history file")
    if len(names) != game.players:
        raise ValueError("write_game: one name per seat")
    extra = dict(tags or {})
    unknown = set(extra) - set(OPTIONAL_TAGS)
    if unknown:
        raise ValueError(f"write_game: unknown tags {sorted(unknown)}")
    rules = game.ruleset
    lines = [_tag("Format", FORMAT), _tag("Preset", rules.name)]
    lines += [_tag("Rule", rule_value(getattr(rules, f)), f) for f in RULE_FIELDS]
    lines += [_tag("Seat", name, str(seat)) for seat, name in enumerate(names)]
    lines.append(_tag("Dealer", str(game.first_dealer)))
    lines += [_tag(t, extra[t]) for t in OPTIONAL_TAGS if t in extra]
    lines.append(_tag("Ranking", " ".join(map(str, game.ranking))))
    lines.append(_tag("Scores", " ".join(map(str, game.scores))))
    lines.append("")
    # scores after each deal: replay the deal results in order
    scores = [0] * game.players
    results = iter(game.deal_log)
    deal_no = 0
    for entry in game.log:
        if "deal" in entry:
            if deal_no:
                lines.append(_written_result(next(results), scores))
            deal_no += 1
            if deal_no > 1:
                lines.append("")
            lines.append(f"deal {deal_no}")
            for seat, hand in enumerate(entry["deal"]["hands"]):
                lines.append(f"hand {seat} {_cards(hand)}")
            lines.append(f"stock {_cards(entry['deal']['stock'])}")
        else:
            lines.append(f"{entry['seat']} {entry['action']}")
    lines.append(_written_result(next(results), scores))
    return "\n".join(lines) + "\n"


def _written_result(result: DealResult, scores: list[int]) -> str:
    for seat, points in zip(result.losers, result.points):
        scores[seat] += points
    for seat in result.cleared:
        scores[seat] = 0
    return result_line(result, scores)


def write_games(parts: Sequence[str]) -> str:
    """Several games' histories as one file (a blank line between games)."""
    return "\n".join(parts)


# ------------------------------------------------------------------ reading


def read_games(text: str) -> list[HistoryGame]:
    """Every game in a history file, each replayed to its end; HistoryError otherwise."""
    text = text.removeprefix("\ufeff")
    lines = text.split("\n")
    if len(lines) > MAX_LINES:
        raise HistoryError(0, Text("The file is too long: at most %(n)s lines.", n=MAX_LINES))
    reader = _Reader()
    for number, raw in enumerate(lines, start=1):
        line = raw.removesuffix("\r")
        reader.feed(number, line)
    return reader.finish(len(lines))


class _Reader:
    """A line-by-line state machine: tags, then deals (deal, hands, stock, actions, result)."""

    def __init__(self) -> None:
        self.games: list[HistoryGame] = []
        self._reset()

    def _reset(self) -> None:
        self.start = 0
        self.tags: dict[str, str] = {}
        self.rules: dict[str, str] = {}
        self.seats: dict[int, str] = {}
        self.game: Game | None = None
        self.names: tuple[str, ...] = ()
        self.expect = "tag"  # tag | deal | hand | stock | play | result
        self.deal_hands: list[list[str]] = []

    # one line
    def feed(self, number: int, line: str) -> None:
        if len(line) > MAX_LINE:
            raise HistoryError(number, Text("The line is too long (at most %(n)s characters).", n=MAX_LINE))
        bad = next((ch for ch in line if unicodedata.category(ch) in ("Cc", "Zl", "Zp") and ch != "\t"), None)
        if bad is not None:
            code = format(ord(bad), "04X")
            raise HistoryError(number, Text("The line holds a control character (U+%(code)s): "
                                            "names must be escaped.", code=code))
        stripped = line.strip()
        if not stripped or stripped.startswith(";"):
            return
        if stripped.startswith("["):
            if self.expect not in ("tag", "deal"):
                raise HistoryError(number, Text("A tag in the middle of a deal: finish the deal "
                                                "with its result line first."))
            if self.expect == "deal" and self.game is not None:
                self._close(number)
            self._tag(number, stripped)
            return
        if self.expect == "tag":
            if not self.tags:
                raise HistoryError(number, Text('A history file begins with its tags: [Format "%(format)s"].',
                                                format=FORMAT))
            self._begin(number)
        self._body(number, stripped.split())

    def _tag(self, number: int, line: str) -> None:
        m = _TAG.match(line)
        if m is None:
            raise HistoryError(number, Text('A tag is written [Name "value"] or [Name key "value"], '
                                            'with \\" and \\\\ inside the quotes.'))
        name, key, raw = m.groups()
        try:
            value = unescape(raw)
        except ValueError as exc:
            raise HistoryError(number, Text("Unknown escape %(escape)s in the tag's value.",
                                            escape=str(exc))) from None
        if not self.tags and name != "Format":
            raise HistoryError(number, Text('A game begins with the tag [Format "%(format)s"].', format=FORMAT))
        if name == "Format":
            if self.tags:
                raise HistoryError(number, Text("The Format tag is given twice in one game."))
            if value != FORMAT:
                raise HistoryError(number, Text('This reader knows the format "%(format)s", not %(value)s.',
                                                format=FORMAT, value=repr(value)))
            self.start = number
        if name == "Rule":
            self._keyed(number, self.rules, key, value, RULE_FIELDS)
            self.tags.setdefault(name, "")
            return
        if name == "Seat":
            if key is None or not key.isdigit() or len(key) > 1:
                raise HistoryError(number, Text("A Seat tag names its seat: [Seat 0 \"name\"]."))
            seat = int(key)
            if seat in self.seats:
                raise HistoryError(number, Text("Seat %(seat)s is named twice.", seat=seat))
            if not value.strip():
                raise HistoryError(number, Text("Seat %(seat)s has no name.", seat=seat))
            self.seats[seat] = value
            self.tags.setdefault(name, "")
            return
        if key is not None:
            raise HistoryError(number, Text("The %(tag)s tag takes no key.", tag=name))
        if name in self.tags:
            raise HistoryError(number, Text("The %(tag)s tag is given twice in one game.", tag=name))
        self.tags[name] = value

    def _keyed(self, number: int, into: dict[str, str], key: str | None, value: str,
               allowed: Sequence[str]) -> None:
        if key is None or key not in allowed:
            raise HistoryError(number, Text("Unknown rule %(rule)s (rules: %(rules)s).", rule=repr(key),
                                            rules=", ".join(allowed)))
        if key in into:
            raise HistoryError(number, Text("The rule %(rule)s is given twice.", rule=key))
        into[key] = value

    # the end of the tags: the game can be set up
    def _begin(self, number: int) -> None:
        preset = self.tags.get("Preset")
        if preset is None:
            raise HistoryError(number, Text("The game has no Preset tag."))
        if preset not in PRESETS:
            raise HistoryError(number, Text("Unknown preset %(preset)s: one of %(presets)s.", preset=repr(preset),
                                            presets=", ".join(PRESETS)))
        players = len(self.seats)
        if sorted(self.seats) != list(range(players)) or players < 2:
            raise HistoryError(number, Text("The Seat tags must name seats 0, 1, 2 … without a gap "
                                            "(at least two seats)."))
        for tag in ("Dealer", *RESULT_TAGS):
            if tag not in self.tags:
                raise HistoryError(number, Text("The game has no %(tag)s tag.", tag=tag))
        base = PRESETS[preset]
        options: dict[str, Any] = {}
        for field, raw in self.rules.items():
            try:
                options[field] = _rule_from_text(field, getattr(base, field), raw)
            except ValueError:
                raise HistoryError(number, Text("The rule %(rule)s has a bad value: %(value)s.", rule=field,
                                                value=repr(raw))) from None
        try:
            ruleset = make_ruleset(preset, players, **options)
        except ValueError as exc:
            raise HistoryError(number, Text("The rules cannot be played: %(why)s.", why=str(exc))) from None
        dealer = _whole(self.tags["Dealer"])
        if dealer is None or dealer >= players:
            raise HistoryError(number, Text("Dealer: a seat from 0 to %(last)s.", last=players - 1))
        self.game = Game(ruleset, players, dealer=dealer)
        self.names = tuple(self.seats[s] for s in range(players))
        self.expect = "deal"

    # the moves
    def _body(self, number: int, words: list[str]) -> None:
        game = self.game
        assert game is not None
        head = words[0]
        if self.expect == "deal":
            if game.over:
                raise HistoryError(number, Text("The game is over: nothing may follow its last result line."))
            if head != "deal":
                raise HistoryError(number, Text("Deal %(n)s should begin here with the line \"deal %(n)s\".",
                                                n=game.deal_no + 1))
            if len(words) != 2 or words[1] != str(game.deal_no + 1):
                raise HistoryError(number, Text("The next deal is number %(n)s: \"deal %(n)s\".", n=game.deal_no + 1))
            self.deal_hands = []
            self.expect = "hand"
            return
        if self.expect == "hand":
            seat = len(self.deal_hands)
            if head != "hand" or len(words) < 3 or words[1] != str(seat):
                raise HistoryError(number, Text("Seat %(seat)s's hand should be here: \"hand %(seat)s\" and its "
                                                "cards (\"-\" for a seat that is out).", seat=seat))
            self.deal_hands.append(self._card_list(number, words[2:]))
            if len(self.deal_hands) == game.players:
                self.expect = "stock"
            return
        if self.expect == "stock":
            if head != "stock" or len(words) < 2:
                raise HistoryError(number, Text("The stock should be here: \"stock\" and its cards "
                                                "(\"-\" when there is none)."))
            self._deal(number, self._card_list(number, words[1:]))
            return
        if head == "result":
            self._result(number, words)
            return
        if self.expect == "result":
            raise HistoryError(number, Text("Deal %(n)s is over: its result line comes next.", n=game.deal_no))
        self._action(number, words)

    def _card_list(self, number: int, words: list[str]) -> list[str]:
        if words == ["-"]:
            return []
        game = self.game
        assert game is not None
        valid = card_table(game.ruleset).valid
        for word in words:
            if word not in valid:
                raise HistoryError(number, Text("%(card)s is not a card of this game (rank 2-9 T J Q K A + "
                                                "suit C D H S, jokers X1 X2).", card=repr(word)))
        return words

    def _deal(self, number: int, stock: list[str]) -> None:
        game = self.game
        assert game is not None
        size = game.next_hand_size()
        out = set(game.out)
        for seat, hand in enumerate(self.deal_hands):
            want = 0 if seat in out else size
            if len(hand) != want:
                raise HistoryError(number, Text("In deal %(n)s seat %(seat)s holds %(got)s cards, but should "
                                                "hold %(want)s.", n=game.deal_no + 1, seat=seat, got=len(hand),
                                                want=want))
        dealt = Counter(c for h in self.deal_hands for c in h) + Counter(stock)
        deck = Counter(card_table(game.ruleset).deck)
        if dealt != deck:
            extra = sorted((dealt - deck).elements())
            missing = sorted((deck - dealt).elements())
            raise HistoryError(number, Text("The hands and the stock of deal %(n)s are not one deck of this game "
                                            "(too many: %(extra)s; missing: %(missing)s).", n=game.deal_no + 1,
                                            extra=" ".join(extra) or "-", missing=" ".join(missing) or "-"))
        try:
            game.deal(hands=self.deal_hands, stock=stock)
        except (ValueError, IllegalAction) as exc:
            raise HistoryError(number, Text("The deal cannot be dealt: %(why)s.", why=text_of(exc))) from None
        self.expect = "play" if game.to_act is not None else "result"

    def _action(self, number: int, words: list[str]) -> None:
        game = self.game
        assert game is not None
        seat = _whole(words[0])
        if seat is None or len(words) < 2:
            raise HistoryError(number, Text("An action line is a seat and an action: \"0 play 7C\"."))
        if seat != game.to_act:
            raise HistoryError(number, Text("It is seat %(turn)s's turn here, not seat %(seat)s's.",
                                            turn=game.to_act, seat=seat))
        action = " ".join(words[1:])
        try:
            game.apply(action, seat=seat)
        except IllegalAction as exc:
            raise HistoryError(number, Text("Seat %(seat)s cannot play %(action)s: %(why)s.", seat=seat,
                                            action=repr(action), why=text_of(exc))) from None
        if game.phase in ("waiting", "over"):
            self.expect = "result"

    def _result(self, number: int, words: list[str]) -> None:
        game = self.game
        assert game is not None
        if self.expect != "result":
            raise HistoryError(number, Text("Deal %(n)s is not over: seat %(seat)s is still to act.",
                                            n=game.deal_no, seat=game.to_act))
        done = game.deal_log[-1]
        want = result_line(done, game.scores)
        if " ".join(words) != want:
            raise HistoryError(number, Text("The result of deal %(n)s is wrong: the rules make it \"%(want)s\".",
                                            n=game.deal_no, want=want))
        self.expect = "deal"

    def _close(self, number: int) -> None:
        """The game's moves end here (at a new game's tag or the end of the file)."""
        game = self.game
        assert game is not None
        if self.expect != "deal" or not game.over:
            raise HistoryError(number, Text("The game stops here before it is over."))
        ranking = " ".join(map(str, game.ranking or []))
        scores = " ".join(map(str, game.scores))
        if self.tags["Ranking"] != ranking:
            raise HistoryError(self.start, Text("The Ranking tag says %(said)s, but the game ends %(real)s.",
                                                said=repr(self.tags["Ranking"]), real=repr(ranking)))
        if self.tags["Scores"] != scores:
            raise HistoryError(self.start, Text("The Scores tag says %(said)s, but the game ends %(real)s.",
                                                said=repr(self.tags["Scores"]), real=repr(scores)))
        tags = {k: v for k, v in self.tags.items() if k not in ("Rule", "Seat")}
        self.games.append(HistoryGame(self.start, tags, self.names, game))
        self._reset()

    def finish(self, last: int) -> list[HistoryGame]:
        if self.expect == "tag":
            if self.tags:
                raise HistoryError(last, Text("The file ends before the game is over."))
            if not self.games:
                raise HistoryError(0, Text("The file holds no game."))
            return self.games
        self._close(last)
        return self.games


def _whole(word: str) -> int | None:
    return int(word) if word.isdigit() and len(word) <= 6 and word.isascii() else None


def _rule_from_text(field: str, default: Any, raw: str) -> Any:
    """A Rule tag's value typed as the preset's own value of that rule."""
    if isinstance(default, bool):
        if raw not in ("yes", "no"):
            raise ValueError(raw)
        return raw == "yes"
    if isinstance(default, int):
        n = _whole(raw)
        if n is None:
            raise ValueError(raw)
        return n
    if isinstance(default, tuple):
        parts = raw.split()
        if field in _CARD_TUPLES:
            return tuple(parts)
        values = [_whole(p) for p in parts]
        if any(v is None for v in values):
            raise ValueError(raw)
        return tuple(values)
    return raw
