"""The club's pages: members and elders, Gurka Nights (set up, play online or record by hand,
correct), the date poll, the beer ledger and the Hall of Fame (RULES.md §7, issue 4).

Reading is open to everyone (members need no password; the board of a night too); changing
the club's records needs an elder's login, except what the rules give to every member: the
winner proposes the next dates, every member answers the date poll, every player takes their
seat at an online table, and at a night on real cards each table records its own results from
a phone through the table's link (`table_links`: the link is the credential).

One router per area, all under `/club`; this module puts them together (`/nights/new` before
`/nights/{night_id}`).
"""

from __future__ import annotations

from fastapi import APIRouter

from app.web.club import (
    beer,
    board,
    corrections,
    dates,
    duplicate_pages,
    hall_of_fame,
    login,
    member_links,
    members,
    night_results,
    night_setup,
    nights,
    overview,
    ratings,
    table_flow,
    table_links,
    table_phone,
)

router = APIRouter()
for area in (
    overview,
    login,
    member_links,
    members,
    night_setup,
    nights,
    night_results,
    duplicate_pages,
    corrections,
    dates,
    beer,
    hall_of_fame,
    ratings,
    table_flow,
    table_links,
    table_phone,
    board,
):
    router.include_router(area.router)
