"""A seat at a room's table, the names it may carry, and the refusal every room check raises."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from app.names import display_name

MAX_NAME = 24
BOT_NAMES = ("Bodil", "Egon", "Frida", "Gunnar", "Hulda", "Ivar", "Jonna", "Kalle")


class Refused(Exception):
    """A request the room turns down; its text (a `Text`: said in the sender's language) goes back to
    the sender."""


class SeatStatus(StrEnum):
    """Who plays a seat (stored as the seat's two flags, `is_bot` and `bot_controlled`)."""

    PLAYER = "player"  # its player
    BOT = "bot"  # a bot's own seat
    HANDED = "handed"  # a bot, for its player, until they act again


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    token_hash: str | None = None
    is_bot: bool = False
    bot_controlled: bool = False
    code_hash: str | None = None  # the hash of the seat's rejoin code

    @property
    def status(self) -> SeatStatus:
        if self.is_bot:
            return SeatStatus.BOT
        return SeatStatus.HANDED if self.bot_controlled else SeatStatus.PLAYER

    @property
    def botted(self) -> bool:
        """A bot plays it (its own seat, or one handed to it)."""
        return self.is_bot or self.bot_controlled

    def row(self) -> dict[str, Any]:
        return {
            "seat": self.seat,
            "name": self.name,
            "token_hash": self.token_hash,
            "is_bot": self.is_bot,
            "bot_controlled": self.bot_controlled,
            "code_hash": self.code_hash,
        }


def clean_name(name: str) -> str:
    return display_name(name, max_len=MAX_NAME)
