"""A seat at a room's table, the names it may carry, and the refusal every room check raises."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.names import display_name

MAX_NAME = 24
BOT_NAMES = ("Bodil", "Egon", "Frida", "Gunnar", "Hulda", "Ivar", "Jonna", "Kalle")


class Refused(Exception):
    """A request the room turns down; its text (a `Text`: said in the sender's language) goes back to
    the sender."""


@dataclass(frozen=True)
class Seat:
    seat: int
    name: str
    token_hash: str | None = None
    is_bot: bool = False
    bot_controlled: bool = False
    code_hash: str | None = None  # the hash of the seat's rejoin code

    @property
    def botted(self) -> bool:
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
