"""The links of a night's table phones: `/club/nights/<id>/table/<table>/<secret>`.

A night played on real cards gives each of its tables (vinder, mellan, taber, then the three
final tables) a link that records that table's results from any phone: the link is the only
credential, no login and no cookie. Its secret is an HMAC of the night, the table and the
link's generation under a key derived from the app's secret key for this purpose only, cut to
144 bits: it cannot be guessed, works for that night and table only, and nothing secret is kept
in the database (only the generation), so an elder can show the codes again at any time. An
elder's "New link" raises the generation: the old link stops working at once, on every device.

A link is checked in constant time. Every wrong one counts against the address it came from
(`app.web.shared.throttle`, `client_address`); past the free allowance that address waits before
any further link is checked. (No club-wide count as for personal links: guessing 144 bits is
hopeless anyway, and a count everyone shares would let anyone lock the night's phones out.) A
wrong, stale or mistyped link, an unknown night and an unknown table all get the very same
refusal, which names nothing: not the night, not its players.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from dataclasses import dataclass
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from sqlmodel import Session

from app.club import BASE_TABLES, FINAL_TABLES
from app.club.constants import FINAL_TO_BASE, TABLE_NAMES
from app.i18n import _
from app.store import nights as night_store
from app.store import table_phones as phone_store
from app.store.db import session_scope
from app.web.club import auth
from app.web.club.common import db_engine, redirect, require_elder
from app.web.shared.address import client_address
from app.web.shared.throttle import Throttle, app_clock, throttle_of
from app.web.table.qr import qr_svg

router = APIRouter(prefix="/club", tags=["club"])

PHONE_TABLES = (*BASE_TABLES, *FINAL_TABLES)
SECRET_CHARS = 24  # 144 bits of the HMAC, URL-safe base64
WRONG_FREE = 30  # wrong links from one address (a home's phones share one) before it must wait
FINAL_OF_BASE = {base: final for final, base in FINAL_TO_BASE.items()}


class TableRefused(Exception):
    """The link does not open the table (`wait` > 0: this address must wait that long first)."""

    def __init__(self, wait: float = 0.0) -> None:
        super().__init__(wait)
        self.wait = wait


def _key(request: Request) -> bytes:
    return hashlib.sha256(f"{request.app.state.settings.secret_key}/club-table-phone".encode()).digest()


def secret_for(request: Request, night_id: int, table: str, generation: int) -> str:
    mac = hmac.new(_key(request), f"{night_id}|{table}|{generation}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(mac).decode("ascii")[:SECRET_CHARS]


def phone_path(night_id: int, table: str, secret: str) -> str:
    return f"/club/nights/{night_id}/table/{table}/{secret}"


def wrong_links(request: Request) -> Throttle:
    app = request.app
    return throttle_of(app, "table_link_throttle", lambda: Throttle(free=WRONG_FREE, clock=app_clock(app)))


def admit(request: Request, session: Session, night_id: int, table: str, secret: str) -> None:
    """Let the request through when `secret` is the table's current link; else raise
    `TableRefused` (and count the wrong link against its address)."""
    throttle = wrong_links(request)
    where = f"addr:{client_address(request)}"
    wait = throttle.wait(where)
    if wait:
        raise TableRefused(wait)
    row = night_store.get_night(session, night_id=night_id)
    known = table in PHONE_TABLES and row is not None and row.mode == "hand"
    generation = phone_store.table_link_generation(session, night_id=night_id, table=table) if known else 0
    expected = secret_for(request, night_id, table if known else PHONE_TABLES[0], generation)
    given = secret.encode("ascii", "replace")[:64]
    if not (hmac.compare_digest(expected.encode("ascii"), given) and known):
        throttle.attempt([where])
        raise TableRefused()


@dataclass(frozen=True)
class TableLink:
    table: str
    path: str
    url: str
    qr: Any  # Markup: the QR code as inline SVG
    made_by: str
    made_at: Any


def links_of(request: Request, session: Session, row: night_store.Night) -> dict[str, TableLink]:
    """Every table's current link, for the elders' view of the night page."""
    assert row.id is not None
    made = phone_store.table_link_generations(session, night_id=row.id)
    base = str(request.base_url).rstrip("/")
    found: dict[str, TableLink] = {}
    for table in PHONE_TABLES:
        kept = made.get(table)
        path = phone_path(row.id, table, secret_for(request, row.id, table, kept.generation if kept else 0))
        title = _("QR code: the %(table)s's phone link", table=TABLE_NAMES[table])
        found[table] = TableLink(table, path, base + path, qr_svg(base + path, title=title),
                                 kept.made_by if kept else "", kept.made_at if kept else None)
    return found


def links_for_page(request: Request, row: night_store.Night, stage: str) -> dict[str, Any]:
    """The night page's table phones section: the links of `stage`'s tables first."""
    with session_scope(db_engine(request)) as session:
        links = links_of(request, session, row)
    now, later = (BASE_TABLES, FINAL_TABLES) if stage == "base" else (FINAL_TABLES, BASE_TABLES)
    return {"links": links, "now": now, "later": later, "stage": stage}


def phone_of(request: Request, session: Session, night_id: int, table: str) -> str:
    """The current link of another table of the same night (a base table's phone goes on to its
    final table, `FINAL_OF_BASE`)."""
    generation = phone_store.table_link_generation(session, night_id=night_id, table=table)
    return phone_path(night_id, table, secret_for(request, night_id, table, generation))


@router.post("/nights/{night_id}/table-links", response_class=HTMLResponse)
def new_links(request: Request, night_id: int, form: auth.CsrfForm) -> Response:
    """An elder makes a new link for one table (`table`) or for all of them (`table=all`): the
    old ones stop working; phones that had them must scan the new codes."""
    who = require_elder(request)
    chosen = str(form.get("table") or "")
    tables = PHONE_TABLES if chosen == "all" else (chosen,) if chosen in PHONE_TABLES else ()
    if not tables:
        raise HTTPException(status_code=422, detail=_("Choose a table for the new link."))
    with session_scope(db_engine(request)) as session:
        row = night_store.get_night(session, night_id=night_id)
        if row is None or row.mode != "hand":
            raise HTTPException(status_code=404, detail=_("No such night"))
        for table in tables:
            phone_store.new_table_link(session, night_id=night_id, table=table, made_by=who.name or "")
    return redirect(f"/club/nights/{night_id}#phones", request)
