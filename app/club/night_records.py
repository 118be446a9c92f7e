"""What a Gurka Night keeps: its rounds, its event log and its corrections, each with its
JSON form (the night's saved state is its event log; see `night_state`), and the checks of a
new night's players and start tables."""

# Wrong input types are people's mistakes too: ValueError, as the club contract says.
# ruff: noqa: TRY004

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from app.club.constants import (
    BASE_TABLES,
    PLAYERS,
    TABLE_NAMES,
    TABLE_SIZE,
    Stage,
)
from app.club.results import RoundResult
from app.rules.text import Text

FORMAT = "gurka-night/1"


class CorrectionError(ValueError):
    """A correction would make a later recorded result invalid."""


def describe_round(stage: str, number: int) -> Text:
    """A round in words ("base round 3", "final round 2")."""
    if stage == "base":
        return Text("base round %(number)s", number=number)
    return Text("final round %(number)s", number=number)


def describe_record(stage: str, round_no: int, table: str) -> Text:
    """One recorded table result, in words ("base round 3 at the Vinderbord")."""
    name = TABLE_NAMES.get(table, table)
    if stage == "base":
        return Text("base round %(number)s at the %(table)s", number=round_no, table=name)
    return Text("final round %(number)s at the %(table)s", number=round_no, table=name)


def reason_of(exc: Exception) -> str:
    """What an exception says to a reader: its `Text` when it has one (said again per reader)."""
    first = exc.args[0] if exc.args else ""
    return first if isinstance(first, Text) else str(exc)


@dataclass
class RoundRecord:
    """One round of one stage: the seating it was played in, its first dealers and results."""

    stage: Stage
    number: int
    seating: dict[str, tuple[str, ...]]
    dealers: dict[str, str]
    results: dict[str, RoundResult] = field(default_factory=dict)

    @property
    def complete(self) -> bool:
        return len(self.results) == len(self.seating)

    @property
    def pending_tables(self) -> list[str]:
        return [t for t in self.seating if t not in self.results]


@dataclass(frozen=True)
class Event:
    """One recorded input, in order: a table result or a playoff order."""

    kind: Literal["record", "playoff"]
    stage: Stage
    round_no: int
    table: str = ""
    result: RoundResult | None = None
    order: tuple[str, ...] = ()

    def describe(self) -> Text:
        players = ", ".join(self.order)
        if self.kind == "playoff" and self.stage == "base":
            return Text("the playoff after the base rounds (%(players)s)", players=players)
        if self.kind == "playoff":
            return Text("the playoff after the finals (%(players)s)", players=players)
        return describe_record(self.stage, self.round_no, self.table)

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"kind": self.kind, "stage": self.stage, "round": self.round_no}
        if self.kind == "record":
            assert self.result is not None
            data["table"] = self.table
            data["result"] = self.result.to_dict()
        else:
            data["order"] = list(self.order)
        return data

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Event:
        kind = data["kind"]
        if kind == "record":
            return cls(
                "record",
                data["stage"],
                int(data["round"]),
                data["table"],
                RoundResult.from_dict(data["result"]),
            )
        if kind == "playoff":
            return cls("playoff", data["stage"], int(data["round"]), order=tuple(data["order"]))
        raise ValueError(f"unknown event kind {kind!r}")


@dataclass(frozen=True)
class Correction:
    """An elder's correction (RULES.md §7.6): kept visible, never silently applied."""

    stage: Stage
    round_no: int
    table: str
    before: RoundResult
    after: RoundResult
    reason: str = ""
    dropped: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "record",
            "stage": self.stage,
            "round": self.round_no,
            "table": self.table,
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
            "reason": self.reason,
            "dropped": list(self.dropped),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Correction:
        return cls(
            data["stage"],
            int(data["round"]),
            data["table"],
            RoundResult.from_dict(data["before"]),
            RoundResult.from_dict(data["after"]),
            data.get("reason", ""),
            tuple(data.get("dropped", ())),
        )


@dataclass(frozen=True)
class PlayoffCorrection:
    """An elder's correction of a playoff order (RULES.md §7.6)."""

    stage: Stage
    before: tuple[str, ...]
    after: tuple[str, ...]
    reason: str = ""
    dropped: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": "playoff",
            "stage": self.stage,
            "before": list(self.before),
            "after": list(self.after),
            "reason": self.reason,
            "dropped": list(self.dropped),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> PlayoffCorrection:
        return cls(
            data["stage"],
            tuple(data["before"]),
            tuple(data["after"]),
            data.get("reason", ""),
            tuple(data.get("dropped", ())),
        )


def correction_from_dict(data: Mapping[str, Any]) -> Correction | PlayoffCorrection:
    if data.get("kind") == "playoff":
        return PlayoffCorrection.from_dict(data)
    return Correction.from_dict(data)


def check_players(players: Sequence[str]) -> tuple[str, ...]:
    if isinstance(players, str):
        raise ValueError("players must be a list of nine names")
    names = tuple(players)
    for name in names:
        if not isinstance(name, str) or not name.strip():
            raise ValueError(f"every player needs a name, got {name!r}")
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise ValueError(f"{name} is listed twice")
        seen.add(name)
    if len(names) != PLAYERS:
        raise ValueError(f"a Gurka Night needs exactly {PLAYERS} players, got {len(names)}")
    return names


def check_start(players: Sequence[str], start: Mapping[str, str]) -> dict[str, list[str]]:
    groups: dict[str, list[str]] = {t: [] for t in BASE_TABLES}
    for name in start:
        if name not in players:
            raise ValueError(f"{name} is not one of tonight's players")
    for name in players:
        if name not in start:
            raise ValueError(f"{name} has no start table")
        table = start[name]
        if table not in groups:
            raise ValueError(
                f"{table!r} is not a start table for {name}: use vinder, mellan or taber"
            )
        groups[table].append(name)
    for table, names in groups.items():
        if len(names) != TABLE_SIZE:
            raise ValueError(Text(
                "the %(table)s would have %(count)s players (%(names)s); each table needs three",
                table=TABLE_NAMES[table], count=len(names), names=", ".join(names),
            ))
    return groups
