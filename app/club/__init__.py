"""Pure club core: Gurka Night (RULES.md §7). No I/O; stdlib only.

Contract: ARCHITECTURE.md, "Club core contract".
"""

from app.club.constants import BASE_TABLES, FINAL_TABLES
from app.club.dates import DatePoll
from app.club.hall_of_fame import (
    HallOfFameRow,
    NightSummary,
    hall_of_fame_by_year,
    hall_of_fame_points,
    hall_of_fame_table,
)
from app.club.night import Correction, CorrectionError, Night, PlayoffCorrection, RoundRecord
from app.club.reserves import start_tables
from app.club.results import RoundResult
from app.club.seating import Lot
from app.club.standings import StandingRow

__all__ = [
    "BASE_TABLES",
    "FINAL_TABLES",
    "Correction",
    "CorrectionError",
    "DatePoll",
    "HallOfFameRow",
    "Lot",
    "Night",
    "NightSummary",
    "PlayoffCorrection",
    "RoundRecord",
    "RoundResult",
    "StandingRow",
    "hall_of_fame_by_year",
    "hall_of_fame_points",
    "hall_of_fame_table",
    "start_tables",
]
