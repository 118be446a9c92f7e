"""The base rounds of a Gurka Night (RULES.md §7.1–§7.3): seating by lot, recording a
table's result, moving players after each round; what ends a stage is decided by the layer on
top (`night_finals`)."""

# Wrong input types are people's mistakes too: ValueError, as the club contract says.
# ruff: noqa: TRY004

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from typing import Self

from app.club.constants import (
    BASE_ROUNDS,
    FINAL_ROUNDS,
    Phase,
    Stage,
)
from app.club.night_records import (
    Correction,
    Event,
    PlayoffCorrection,
    RoundRecord,
    check_players,
    check_start,
    describe_record,
)
from app.club.results import RoundResult
from app.club.seating import (
    Lot,
    dealer_before,
    draw_chairs,
    draw_dealer,
    draw_start_tables,
    move_after_base_round,
)
from app.rules.text import Text


class NightRounds:
    """The rounds of a night, recorded table by table (see `app.club.night.Night`)."""

    players: tuple[str, ...]
    start: dict[str, str] | None
    seed: int | str
    lots: list[Lot]
    corrections: list[Correction | PlayoffCorrection]


    def __init__(
        self, players: Sequence[str], start: Mapping[str, str] | None, seed: int | str
    ) -> None:
        self.players = check_players(players)
        if isinstance(seed, bool) or not isinstance(seed, int | str):
            raise ValueError(f"seed must be an int or a string, got {seed!r}")
        self.seed = seed
        self.start = dict(start) if start is not None else None
        self.lots = []
        self.corrections = []
        self._events: list[Event] = []
        self._rounds: dict[Stage, list[RoundRecord]] = {"base": [], "finals": []}
        self._playoffs: dict[Stage, list[tuple[str, ...]]] = {"base": [], "finals": []}
        self._carry: dict[str, int] = {}
        self._stage: Stage = "base"
        self._phase: Phase = "base"
        self._pending: list[list[str]] = []

        if self.start is None:
            draws = draw_start_tables(self.players, seed)
            self.lots.extend(draws)
            groups = {lot.table: list(lot.result) for lot in draws}
        else:
            groups = check_start(self.players, self.start)
        self._open_round("base", 1, groups, draw=True)

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        start: Mapping[str, str] | None = None,
        seed: int | str | None = None,
    ) -> Self:
        """Seat a new night. ``start`` maps each player to ``"vinder"``, ``"mellan"`` or
        ``"taber"`` (three each, RULES.md §7.1); ``None`` draws the tables by a fair lot.
        ``seed=None`` draws a fresh seed (kept in ``night.seed`` so the night replays)."""
        if seed is None:
            seed = secrets.randbits(63)
        return cls(players, start, seed)

    @property
    def phase(self) -> Phase:
        return self._phase

    @property
    def stage(self) -> Stage:
        """``"base"`` or ``"finals"``: the stage the current tables belong to."""
        return self._stage

    @property
    def round(self) -> int:
        """Complete rounds of the current stage (a round needs all three tables)."""
        return sum(1 for r in self._rounds[self._stage] if r.complete)

    @property
    def current(self) -> RoundRecord:
        """The round being played (or the last one, once the stage is over)."""
        return self._rounds[self._stage][-1]

    @property
    def tables(self) -> dict[str, list[str]]:
        """Current seating, chair order (clockwise) per table."""
        return {t: list(p) for t, p in self.current.seating.items()}

    @property
    def dealers(self) -> dict[str, str]:
        """First dealer per table in the current round."""
        return dict(self.current.dealers)

    @property
    def pending_tables(self) -> list[str]:
        """Tables still to be recorded in the current round."""
        if self._phase not in ("base", "finals"):
            return []
        return self.current.pending_tables

    @property
    def events(self) -> list[Event]:
        return list(self._events)

    def history(self, stage: Stage | None = None) -> list[RoundRecord]:
        """Rounds of a stage (default: all, base first), including the open one."""
        stages: tuple[Stage, ...] = (stage,) if stage else ("base", "finals")
        return [
            RoundRecord(r.stage, r.number, dict(r.seating), dict(r.dealers), dict(r.results))
            for s in stages
            for r in self._rounds[s]
        ]

    def record(self, table: str, result: RoundResult) -> None:
        """Record one table's result in the current round (RULES.md §7.1, §7.2)."""
        if not isinstance(result, RoundResult):
            raise ValueError("record needs a RoundResult")
        self._check_open()
        rnd = self.current
        if table not in rnd.seating:
            names = ", ".join(rnd.seating)
            raise ValueError(f"{table!r} is not a table in the {self._stage}: use {names}")
        if table in rnd.results:
            raise ValueError(Text(
                "%(what)s is already recorded; an elder can correct it",
                what=describe_record(self._stage, rnd.number, table),
            ))
        result.check_table(table, rnd.seating[table])
        rnd.results[table] = result
        self._events.append(Event("record", self._stage, rnd.number, table, result))
        if rnd.complete:
            self._close_round()

    def _check_open(self) -> None:
        if self._phase == "playoff":
            groups = "; ".join(", ".join(g) for g in self._pending)
            raise ValueError(Text("the night first needs a playoff between %(players)s", players=groups))
        if self._phase == "done":
            raise ValueError(Text("the night is over"))

    def _open_round(
        self,
        stage: Stage,
        number: int,
        groups: Mapping[str, Sequence[str]],
        *,
        draw: bool,
        forhand: Mapping[str, str] | None = None,
    ) -> None:
        seating: dict[str, tuple[str, ...]] = {}
        dealers: dict[str, str] = {}
        for table, names in groups.items():
            if draw:
                lot = draw_chairs(names, self.seed, stage, number, table)
                self.lots.append(lot)
                chairs = lot.result
            else:
                chairs = tuple(names)
            seating[table] = chairs
            if forhand is not None:
                dealers[table] = dealer_before(chairs, forhand[table])
            else:
                lot = draw_dealer(chairs, self.seed, stage, number, table)
                self.lots.append(lot)
                dealers[table] = lot.result[0]
        self._rounds[stage].append(RoundRecord(stage, number, seating, dealers))

    def _close_round(self) -> None:
        rnd = self.current
        if self._stage == "base" and rnd.number < BASE_ROUNDS:
            moved = move_after_base_round(rnd.seating, rnd.results)
            self._open_round("base", rnd.number + 1, moved, draw=False)
        elif self._stage == "finals" and rnd.number < FINAL_ROUNDS:
            forhand = {t: res.first_out for t, res in rnd.results.items()}
            self._open_round("finals", rnd.number + 1, rnd.seating, draw=False, forhand=forhand)
        else:
            self._end_stage()

    def _end_stage(self) -> None:
        """After the last round of a stage: playoffs, the finals or the end (`night_finals`)."""
        raise NotImplementedError
