"""A Gurka Night's state is its event log: the JSON round trip and corrections (RULES.md
§7.6) both replay it on a fresh night."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, Self, cast

from app.club.constants import (
    Stage,
)
from app.club.night_finals import NightFinals
from app.club.night_records import (
    FORMAT,
    Correction,
    CorrectionError,
    Event,
    PlayoffCorrection,
    correction_from_dict,
    describe_record,
    describe_round,
    reason_of,
)
from app.club.results import RoundResult
from app.rules.text import Text


class NightState(NightFinals):
    """A night replayed from its events: corrections and the saved form."""

    def _apply(self, event: Event) -> None:
        if event.kind == "playoff":
            self.record_playoff(event.order)
            return
        assert event.result is not None
        self._check_open()
        if (event.stage, event.round_no) != (self._stage, self.current.number):
            raise ValueError(Text(
                "%(what)s cannot be recorded now: the night is at %(now)s",
                what=event.describe(), now=describe_round(self._stage, self.current.number),
            ))
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
        what = describe_record(phase, round_no, table)
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
            index, new,
            Text("the playoff after the base rounds") if phase == "base" else Text("the playoff after the finals"),
            drop_later=drop_later,
        )
        entry = PlayoffCorrection(phase, old.order, names, reason, dropped)
        fresh.corrections = [*self.corrections, entry]
        self.__dict__.update(fresh.__dict__)
        return entry

    def _replay_with(
        self, index: int, new: Event, what: Text, *, drop_later: bool
    ) -> tuple[Self, tuple[str, ...]]:
        """A fresh night replaying every event, ``new`` in place of event ``index``."""
        events = list(self._events)
        events[index] = new
        fresh = type(self)(self.players, self.start, self.seed)
        dropped: list[str] = []
        for i, event in enumerate(events):
            try:
                fresh._apply(event)
            except ValueError as exc:
                if i == index:
                    raise ValueError(Text(
                        "This result for %(what)s does not fit (%(why)s)", what=event.describe(), why=reason_of(exc)
                    )) from exc
                if event.kind == "playoff":
                    dropped.append(event.describe())
                    continue
                if drop_later:
                    dropped.extend(e.describe() for e in events[i:] if e.kind == "record")
                    break
                raise CorrectionError(Text(
                    "With this change to %(what)s, the result recorded later for %(later)s no longer fits"
                    " (%(why)s)", what=what, later=event.describe(), why=reason_of(exc),
                )) from exc
        return fresh, tuple(dropped)

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
    def from_dict(cls, data: Mapping[str, Any]) -> Self:
        if data.get("format") != FORMAT:
            raise ValueError(f"not a saved Gurka Night (format {data.get('format')!r})")
        night = cls(data["players"], data["start"], cast("int | str", data["seed"]))
        for raw in data["events"]:
            night._apply(Event.from_dict(raw))
        night.corrections = [correction_from_dict(c) for c in data.get("corrections", [])]
        return night

    @classmethod
    def from_json(cls, text: str) -> Self:
        return cls.from_dict(json.loads(text))
