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

from __future__ import annotations

from app.club.night_records import (
    Correction,
    CorrectionError,
    Event,
    PlayoffCorrection,
    RoundRecord,
)
from app.club.night_state import NightState

__all__ = ["Correction", "CorrectionError", "Event", "Night", "PlayoffCorrection", "RoundRecord"]


class Night(NightState):
    """One Gurka Night. Build with :meth:`new`; feed with :meth:`record` and
    :meth:`record_playoff`; read ``tables``, ``dealers``, ``phase``, ``round``, ``playoffs``,
    :meth:`standings`, :meth:`placement`, :meth:`hall_of_fame`, ``winner``.

    Built in layers, one job each: `night_rounds` (base rounds), `night_finals` (standings,
    playoffs, finals), `night_state` (corrections and the saved form, by replay)."""

    def __repr__(self) -> str:
        return f"<Night {self._phase} {self._stage} round {self.round} seed={self.seed!r}>"
