"""What a client may send a room: one small type per message, parsed once (`parse_message`).

A client frame is a flat JSON object: `{"do": "<what>", ...}` (`{"action": ...}` alone is a move).
What cannot even be read (not JSON, too big, too deep, a bad action id) raises `BadFrame`; a
message that is read but names no valid request becomes `Unreadable`, with the words its sender
is told; the room dispatches the rest (`LiveRoom.handle`). `v` is the table version the sender
saw; `aid` an action id that makes a resent message harmless (`SeenActions`).
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from app.parsing import BadFrame, parse_json_object, strict_int
from app.rooms.bot_levels import parse_level
from app.rules.text import Text

MAX_FRAME = 8 * 1024
MAX_DEPTH = 4  # a frame is a flat object; {"action": [...]} is the deepest anything needs
MAX_ACTION = 200
MAX_AID = 64
YES = (True, "on", "true", "1", ["on"])  # how a form's switch says "on"


@dataclass(frozen=True, slots=True)
class Act:
    """A move (`action`: its words), made at table version `seen`."""

    action: str
    seen: int | None


@dataclass(frozen=True, slots=True)
class Sync:
    """The whole table again, and the recent talk (a page reconnecting)."""


@dataclass(frozen=True, slots=True)
class RecentTalk:
    """What was said since the page was rendered (a page just connected)."""


@dataclass(frozen=True, slots=True)
class Say:
    text: object  # checked by the room's talk (`chat.clean_text`)


@dataclass(frozen=True, slots=True)
class React:
    emoji: object  # checked by the room's talk (`chat.check_reaction`)


@dataclass(frozen=True, slots=True)
class Mute:
    seat: int
    muted: bool  # False: unmute


@dataclass(frozen=True, slots=True)
class Spectators:
    allowed: bool


@dataclass(frozen=True, slots=True)
class Start:
    pass


@dataclass(frozen=True, slots=True)
class AddBot:
    level: str | None = None  # the bot's level (`app.rooms.bot_levels.LEVELS`); None: the host's


@dataclass(frozen=True, slots=True)
class Remove:
    seat: int


@dataclass(frozen=True, slots=True)
class HandToBot:
    seat: int


@dataclass(frozen=True, slots=True)
class TakeBack:
    pass


@dataclass(frozen=True, slots=True)
class NextDeal:
    seen: int | None


@dataclass(frozen=True, slots=True)
class Rematch:
    pass


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A message that names no valid request: `reason` is what its sender is told."""

    reason: str


Message = (Act | Sync | RecentTalk | Say | React | Mute | Spectators | Start | AddBot | Remove | HandToBot
           | TakeBack | NextDeal | Rematch | Unreadable)


@dataclass(frozen=True, slots=True)
class Parsed:
    message: Message
    aid: str | None  # the sender's action id, if any


NO_SEAT = Text("That message did not name a seat.")
NO_ACTION = Text("That message did not name an action.")
BAD_AID = Text("That message had a bad action id; nothing was changed.")
UNKNOWN_LEVEL = Text("Unknown bot level: choose easy, medium or strong.")


def parse_message(text: str | bytes) -> Parsed:
    """One client frame as its message. Raises BadFrame (with the words for the sender) when
    the frame cannot be read at all."""
    msg = parse_json_object(text, max_bytes=MAX_FRAME, max_depth=MAX_DEPTH)
    aid = msg.get("aid")
    if aid is not None and (not isinstance(aid, str) or len(aid) > MAX_AID):
        raise BadFrame(BAD_AID)
    return Parsed(_message(msg), aid or None)


def _message(msg: dict[str, Any]) -> Message:
    do = msg.get("do", "act" if "action" in msg else None)
    seen = strict_int(msg.get("v"), lo=0)
    match do:
        case "act":
            return _act(msg.get("action"), seen)
        case "sync":
            return Sync()
        case "talk":
            return RecentTalk()
        case "say":
            return Say(msg.get("text"))
        case "react":
            return React(msg.get("emoji"))
        case "mute" | "unmute":
            return _with_seat(msg, lambda seat: Mute(seat, do == "mute"))
        case "spectators":
            return Spectators(msg.get("allow") in YES)
        case "start":
            return Start()
        case "add_bot":
            return _add_bot(msg.get("level"))
        case "remove":
            return _with_seat(msg, Remove)
        case "hand_to_bot":
            return _with_seat(msg, HandToBot)
        case "take_back":
            return TakeBack()
        case "next_deal":
            return NextDeal(seen)
        case "rematch":
            return Rematch()
    return Unreadable(Text("Unknown request %(what)s; nothing was changed.", what=repr(str(do)[:40])))


def _act(raw: object, seen: int | None) -> Message:
    action = " ".join(str(a) for a in raw) if isinstance(raw, list) else raw
    if not isinstance(action, str) or not action.strip() or len(action) > MAX_ACTION:
        return Unreadable(NO_ACTION)
    return Act(action.strip(), seen)


def _add_bot(raw: object) -> Message:
    """The lobby's "Add a bot", with the level the host picked for it (none: the host's level)."""
    if raw is None or raw == "":
        return AddBot()
    level = parse_level(raw)
    return AddBot(level) if level is not None else Unreadable(UNKNOWN_LEVEL)


def _with_seat(msg: dict[str, Any], make: Callable[[int], Message]) -> Message:
    seat = strict_int(msg.get("seat"), lo=0, hi=63)
    return Unreadable(NO_SEAT) if seat is None else make(seat)


class SeenActions:
    """The action ids a room received lately (each once: a resent message is not applied twice)."""

    def __init__(self, keep: int = 512) -> None:
        self.keep = keep
        self._ids: OrderedDict[str, None] = OrderedDict()

    def first_time(self, key: str) -> bool:
        """True the first time `key` is seen (it is remembered then)."""
        if key in self._ids:
            return False
        self._ids[key] = None
        while len(self._ids) > self.keep:
            self._ids.popitem(last=False)
        return True
