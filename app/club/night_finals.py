"""Standings, playoffs and finals of a Gurka Night (RULES.md §7.4, §7.5): tie groups after a
stage, the playoff games that order them, the carry-over and seating of the finals, the
placement and the Hall of Fame points."""

# Wrong input types are people's mistakes too: ValueError, as the club contract says.
# ruff: noqa: TRY004

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from app.club.constants import (
    CARRY_OVER,
    FINAL_TABLES,
    HALL_OF_FAME_POINTS,
    Stage,
)
from app.club.hall_of_fame import NightSummary
from app.club.night_records import Event
from app.club.night_rounds import NightRounds
from app.club.seating import (
    final_groups,
)
from app.club.standings import StandingRow, order_rows, place_labels, tally, tie_groups


class NightFinals(NightRounds):
    """A night's standings and what follows its base rounds (see `app.club.night.Night`)."""

    @property
    def playoffs(self) -> list[list[str]]:
        """In ``"playoff"``: the groups still tied after every tie-break (best group first)."""
        return [list(g) for g in self._pending] if self._phase == "playoff" else []

    @property
    def carry_over(self) -> dict[str, int]:
        """Points carried into the finals (RULES.md §7.4); empty before the finals."""
        return dict(self._carry)

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
