"""The Gurka Night state machine (RULES.md §7; ARCHITECTURE.md "Club core contract").

Phases: ``"base"`` (16 rounds at vinder/mellan/taber) → ``"playoff"`` if players are still
tied after every tie-break → ``"finals"`` (6 rounds at finale/mellanfinale/taberfinale) →
``"playoff"`` if players at one final table are still tied → ``"done"``.

Readings chosen (each cites the rule it settles):
- §7.1 A round is complete when all three tables of the stage are recorded; the tables may be
  recorded in any order; recording a table twice in one round is refused (use ``correct``).
- §7.3 Movement happens after base rounds 1..15. After round 16 nobody moves: the finals are
  seated from the standings (§7.4). Every base round draws a new first dealer per table.
- §7.4 ``night.round`` counts the complete rounds of the current stage (base or finals); it
  stays 16 (or 6) during the playoff that follows.
- §7.4 Base ties: every place 1..9 matters, so every fully tied group plays a playoff. Final
  ties: only ties inside one final table matter (the table fixes the place range).
- §7.4 A tie inside a final table cannot actually happen: with equal bar røv, places and
  agurker the final-round points are equal, and the three carry-overs at a table (0, 1, 2)
  differ. The finals playoff is kept for safety; in practice only the base playoff occurs.
- §7.4 Final round 1: chairs and first dealer by lot. Later final rounds: the player who was
  3rd (first out) in the previous round at that table has forhånd, so the dealer is the chair
  before them; no lot. Chairs stay the same through the six final rounds.
- §7.6 Corrections rebuild the night by replaying every recorded result from the seed with
  the corrected one in its place: lots are a pure function of (seed, stage, round, table), so
  unchanged rounds keep their lots. A later result that no longer fits (e.g. a player who is no
  longer at that table) makes the correction fail with a clear message, unless
  ``drop_later=True`` discards it and everything after it. A recorded playoff that no longer
  orders a tied group is dropped (its tie is gone or changed) and the drop is listed.
  Correcting the last recorded round never fails this way: nothing later depends on it (the
  open round is simply re-seated). ``correct_playoff`` re-orders a recorded playoff alike.
"""

# Wrong input types are people's mistakes too: ValueError, as the club contract says.
# ruff: noqa: TRY004
from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any, Literal, cast

from app.club.constants import (
    BASE_ROUNDS,
    BASE_TABLES,
    CARRY_OVER,
    FINAL_ROUNDS,
    FINAL_TABLES,
    HALL_OF_FAME_POINTS,
    PLAYERS,
    TABLE_SIZE,
    Phase,
    Stage,
)
from app.club.hall_of_fame import NightSummary
from app.club.results import RoundResult
from app.club.seating import (
    Lot,
    dealer_before,
    draw_chairs,
    draw_dealer,
    draw_start_tables,
    final_groups,
    move_after_base_round,
)
from app.club.standings import StandingRow, order_rows, place_labels, tally, tie_groups

FORMAT = "gurka-night/1"


class CorrectionError(ValueError):
    """A correction would make a later recorded result invalid."""


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

    def describe(self) -> str:
        if self.kind == "playoff":
            return f"the {self.stage} playoff ({', '.join(self.order)})"
        return f"{self.stage} round {self.round_no} at {self.table}"

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


def _correction_from_dict(data: Mapping[str, Any]) -> Correction | PlayoffCorrection:
    if data.get("kind") == "playoff":
        return PlayoffCorrection.from_dict(data)
    return Correction.from_dict(data)


def _check_players(players: Sequence[str]) -> tuple[str, ...]:
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


def _check_start(players: Sequence[str], start: Mapping[str, str]) -> dict[str, list[str]]:
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
            raise ValueError(
                f"the {table} table would have {len(names)} players"
                f"{' (' + ', '.join(names) + ')' if names else ''}; each table needs three"
            )
    return groups


class Night:
    """One Gurka Night. Build with :meth:`new`; feed with :meth:`record` and
    :meth:`record_playoff`; read ``tables``, ``dealers``, ``phase``, ``round``, ``playoffs``,
    :meth:`standings`, :meth:`placement`, :meth:`hall_of_fame`, ``winner``."""

    players: tuple[str, ...]
    start: dict[str, str] | None
    seed: int | str
    lots: list[Lot]
    corrections: list[Correction | PlayoffCorrection]

    def __init__(
        self, players: Sequence[str], start: Mapping[str, str] | None, seed: int | str
    ) -> None:
        self.players = _check_players(players)
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
            groups = _check_start(self.players, self.start)
        self._open_round("base", 1, groups, draw=True)

    @classmethod
    def new(
        cls,
        players: Sequence[str],
        start: Mapping[str, str] | None = None,
        seed: int | str | None = None,
    ) -> Night:
        """Seat a new night. ``start`` maps each player to ``"vinder"``, ``"mellan"`` or
        ``"taber"`` (three each, RULES.md §7.1); ``None`` draws the tables by a fair lot.
        ``seed=None`` draws a fresh seed (kept in ``night.seed`` so the night replays)."""
        if seed is None:
            seed = secrets.randbits(63)
        return cls(players, start, seed)

    # ----------------------------------------------------------------- reading
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
    def playoffs(self) -> list[list[str]]:
        """In ``"playoff"``: the groups still tied after every tie-break (best group first)."""
        return [list(g) for g in self._pending] if self._phase == "playoff" else []

    @property
    def carry_over(self) -> dict[str, int]:
        """Points carried into the finals (RULES.md §7.4); empty before the finals."""
        return dict(self._carry)

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

    def _rows(self, stage: Stage) -> dict[str, StandingRow]:
        if stage == "base":
            results = [res for r in self._rounds["base"] for res in r.results.values()]
            return tally(self.players, results)
        rows: dict[str, StandingRow] = {}
        for table in FINAL_TABLES:
            rows.update(self._final_table_rows(table))
        return rows

    def _final_table_rows(self, table: str) -> dict[str, StandingRow]:
        rounds = self._rounds["finals"]
        results = [r.results[table] for r in rounds if table in r.results]
        return tally(rounds[0].seating[table], results, self._carry)

    def standings(self, stage: Stage | None = None) -> list[StandingRow]:
        """Rows ``(player, points, bar_rov, firsts, seconds, thirds, agurker)``, best first.

        Base (default until the finals start): all nine by the tie-break chain (§7.4).
        Finals: final table, then middle final, then loser final, each ordered by points with
        carry-over included and the counts of the final rounds only (§7.4) — i.e. the
        (provisional) placement order.
        """
        stage = stage or self._stage
        if stage == "base":
            return order_rows(self._rows("base").values(), self._playoffs["base"])
        if not self._rounds["finals"]:
            raise ValueError("the finals have not started yet")
        rows: list[StandingRow] = []
        for table in FINAL_TABLES:
            rows.extend(
                order_rows(self._final_table_rows(table).values(), self._playoffs["finals"])
            )
        return rows

    def place_labels(self, stage: Stage | None = None) -> list[str]:
        """The place shown beside each row of :meth:`standings`: players still level after
        every tie-break (no playoff yet) share it ("1=", "1="); in the finals, per final table."""
        stage = stage or self._stage
        rows = self.standings(stage)
        if stage == "base":
            return place_labels(rows, self._playoffs["base"])
        labels: list[str] = []
        for start in range(0, len(rows), 3):
            labels.extend(place_labels(rows[start:start + 3], self._playoffs["finals"], first=start + 1))
        return labels

    def placement(self) -> list[str]:
        """The nine players, 1st to 9th (RULES.md §7.4), once the night is done."""
        if self._phase != "done":
            raise ValueError(f"the night is not finished yet (phase {self._phase})")
        return [row.player for row in self.standings("finals")]

    def hall_of_fame(self) -> dict[str, int]:
        """Hall of Fame points of this night: 9, 8 … 1 for places 1 … 9 (RULES.md §7.5)."""
        return dict(zip(self.placement(), HALL_OF_FAME_POINTS, strict=True))

    @property
    def winner(self) -> str | None:
        """First at the final table (RULES.md §7.4), the next host; ``None`` until done."""
        return self.placement()[0] if self._phase == "done" else None

    def summary(self, on: date) -> NightSummary:
        """This finished night as a Hall of Fame input (bar røv and agurker over all rounds)."""
        counts = tally(self.players, [res for r in self.history() for res in r.results.values()])
        return NightSummary(
            on=on,
            placement=tuple(self.placement()),
            bar_rov={p: row.bar_rov for p, row in counts.items()},
            agurker={p: row.agurker for p, row in counts.items()},
        )

    # ----------------------------------------------------------------- recording
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
            raise ValueError(
                f"the {table} table is already recorded for {self._stage} round {rnd.number};"
                " an elder can correct it"
            )
        result.check_table(table, rnd.seating[table])
        rnd.results[table] = result
        self._events.append(Event("record", self._stage, rnd.number, table, result))
        if rnd.complete:
            self._close_round()

    def record_playoff(self, order: Sequence[str]) -> None:
        """Record one playoff game to 21: the tied players, best first (RULES.md §7.4)."""
        if self._phase != "playoff":
            raise ValueError(f"there is no playoff to record (phase {self._phase})")
        if isinstance(order, str):
            raise ValueError("record_playoff needs the list of players, best first")
        names = tuple(order)
        seen: set[str] = set()
        for name in names:
            if name in seen:
                raise ValueError(f"{name} is listed twice")
            seen.add(name)
        pending_names = {p for g in self._pending for p in g}
        for name in names:
            if name not in pending_names:
                raise ValueError(f"{name} is not in a pending playoff")
        group = next((g for g in self._pending if set(g) == seen), None)
        if group is None:
            options = "; ".join(", ".join(g) for g in self._pending)
            raise ValueError(f"a playoff orders exactly one tied group, all of it: {options}")
        self._playoffs[self._stage].append(names)
        self._events.append(Event("playoff", self._stage, self.round, order=names))
        self._pending = [g for g in self._pending if g is not group]
        if not self._pending:
            self._finish_stage()

    def _check_open(self) -> None:
        if self._phase == "playoff":
            groups = "; ".join(", ".join(g) for g in self._pending)
            raise ValueError(f"the night is waiting for a playoff first: {groups}")
        if self._phase == "done":
            raise ValueError("the night is over")

    # ----------------------------------------------------------------- progression
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
        if self._stage == "base":
            self._pending = tie_groups(self._rows("base").values(), self._playoffs["base"])
        else:
            self._pending = [
                g
                for table in FINAL_TABLES
                for g in tie_groups(
                    self._final_table_rows(table).values(), self._playoffs["finals"]
                )
            ]
        if self._pending:
            self._phase = "playoff"
        else:
            self._finish_stage()

    def _finish_stage(self) -> None:
        self._pending = []
        if self._stage == "finals":
            self._phase = "done"
            return
        order = [row.player for row in self.standings("base")]
        self._carry = dict(zip(order, CARRY_OVER, strict=True))
        self._stage = "finals"
        self._phase = "finals"
        self._open_round("finals", 1, final_groups(order), draw=True)

    # ----------------------------------------------------------------- corrections
    def _apply(self, event: Event) -> None:
        if event.kind == "playoff":
            self.record_playoff(event.order)
            return
        assert event.result is not None
        self._check_open()
        if (event.stage, event.round_no) != (self._stage, self.current.number):
            raise ValueError(
                f"{event.describe()} cannot be recorded now: the night is at"
                f" {self._stage} round {self.current.number}"
            )
        self.record(event.table, event.result)

    def correct(
        self,
        phase: Stage,
        round_no: int,
        table: str,
        result: RoundResult,
        *,
        reason: str = "",
        drop_later: bool = False,
    ) -> Correction:
        """Replace a recorded result and recompute everything after it (RULES.md §7.6).

        ``phase`` is ``"base"`` or ``"finals"``, ``round_no`` counts from 1. Raises
        :class:`CorrectionError` when a later recorded result no longer fits, unless
        ``drop_later`` (then that result and all after it are discarded and listed).
        """
        if phase not in ("base", "finals"):
            raise ValueError(f"phase must be 'base' or 'finals', got {phase!r}")
        index = next(
            (
                i
                for i, e in enumerate(self._events)
                if e.kind == "record" and (e.stage, e.round_no, e.table) == (phase, round_no, table)
            ),
            None,
        )
        if index is None:
            raise ValueError(f"{phase} round {round_no} at {table} is not recorded yet")
        before = self._events[index].result
        assert before is not None
        what = f"{phase} round {round_no} at {table}"
        new = Event("record", phase, round_no, table, result)
        fresh, dropped = self._replay_with(index, new, what, drop_later=drop_later)
        entry = Correction(phase, round_no, table, before, result, reason, dropped)
        fresh.corrections = [*self.corrections, entry]
        self.__dict__.update(fresh.__dict__)
        return entry

    def correct_playoff(
        self, phase: Stage, order: Sequence[str], *, reason: str = "", drop_later: bool = False
    ) -> PlayoffCorrection:
        """Replace a recorded playoff order (same players, new order) and recompute."""
        if phase not in ("base", "finals"):
            raise ValueError(f"phase must be 'base' or 'finals', got {phase!r}")
        names = tuple(order)
        index = next(
            (
                i
                for i, e in enumerate(self._events)
                if e.kind == "playoff" and e.stage == phase and set(e.order) == set(names)
            ),
            None,
        )
        if index is None:
            raise ValueError(f"no {phase} playoff between {', '.join(names)} is recorded")
        old = self._events[index]
        new = Event("playoff", phase, old.round_no, order=names)
        fresh, dropped = self._replay_with(
            index, new, f"the {phase} playoff", drop_later=drop_later
        )
        entry = PlayoffCorrection(phase, old.order, names, reason, dropped)
        fresh.corrections = [*self.corrections, entry]
        self.__dict__.update(fresh.__dict__)
        return entry

    def _replay_with(
        self, index: int, new: Event, what: str, *, drop_later: bool
    ) -> tuple[Night, tuple[str, ...]]:
        """A fresh night replaying every event, ``new`` in place of event ``index``."""
        events = list(self._events)
        events[index] = new
        fresh = Night(self.players, self.start, self.seed)
        dropped: list[str] = []
        for i, event in enumerate(events):
            try:
                fresh._apply(event)
            except ValueError as exc:
                if i == index:
                    raise ValueError(
                        f"the correction of {event.describe()} is invalid: {exc}"
                    ) from exc
                if event.kind == "playoff":
                    dropped.append(event.describe())
                    continue
                if drop_later:
                    dropped.extend(e.describe() for e in events[i:] if e.kind == "record")
                    break
                raise CorrectionError(
                    f"correcting {what} makes the later result of {event.describe()} invalid: {exc}"
                ) from exc
        return fresh, tuple(dropped)

    # ----------------------------------------------------------------- JSON
    def to_dict(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "players": list(self.players),
            "start": self.start,
            "seed": self.seed,
            "events": [e.to_dict() for e in self._events],
            "corrections": [c.to_dict() for c in self.corrections],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Night:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a saved Gurka Night (format {data.get('format')!r})")
        night = cls(data["players"], data["start"], cast("int | str", data["seed"]))
        for raw in data["events"]:
            night._apply(Event.from_dict(raw))
        night.corrections = [_correction_from_dict(c) for c in data.get("corrections", [])]
        return night

    @classmethod
    def from_json(cls, text: str) -> Night:
        return cls.from_dict(json.loads(text))

    def __repr__(self) -> str:
        return f"<Night {self._phase} {self._stage} round {self.round} seed={self.seed!r}>"
