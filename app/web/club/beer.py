"""The beer ledger: who owes a crate for breaking the agreed date (RULES.md §7.6)."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from app.i18n import _
from app.parsing import strict_int
from app.rules.text import text_of
from app.store import beer as beer_store
from app.store import members as member_store
from app.store import nights as night_store
from app.store.db import row_id, session_scope
from app.web.club import auth
from app.web.club.common import db_engine, nice_date, redirect, render, require_elder

router = APIRouter(prefix="/club", tags=["club"])


@router.get("/beer", response_class=HTMLResponse)
def beer_page(request: Request) -> Response:
    return _beer(request)


def _beer(request: Request, *, errors: list[str] | None = None, typed: dict[str, str] | None = None,
          status: int = 200) -> Response:
    with session_scope(db_engine(request)) as session:
        debts = beer_store.list_debts(session)
        members = member_store.list_public(session)
        nights = night_store.list_public(session)
    names = {m.id: m.name for m in members}
    owed: dict[str, int] = {}
    for debt in debts:
        if debt.is_owed:
            owed[names.get(debt.member_id, "?")] = owed.get(names.get(debt.member_id, "?"), 0) + debt.crates
    return render(
        request,
        "club/beer.html",
        {
            "debts": debts, "names": names, "owed": sorted(owed.items(), key=lambda kv: (-kv[1], kv[0])),
            "members": [m for m in members if m.active], "nights": nights, "errors": errors or [],
            "typed": typed or {}, "nice_date": nice_date,
        },
        status=status,
    )


@router.post("/beer", response_class=HTMLResponse)
def add_debt(request: Request, form: auth.CsrfForm) -> Response:
    who = require_elder(request)
    typed = {k: str(form.get(k) or "") for k in ("member", "reason", "crates", "night")}
    errors: list[str] = []
    reason = " ".join(typed["reason"].split())[:200]
    crates = strict_int(typed["crates"], lo=1, hi=10) or 0
    with session_scope(db_engine(request)) as session:
        member = next((m for m in member_store.list_members(session) if str(m.id) == typed["member"]), None)
        if member is None:
            errors.append(_("Choose who owes the crate."))
        if not reason:
            errors.append(_("Write why: which date was broken."))
        if not 1 <= crates <= 10:
            errors.append(_("A debt is 1 to 10 crates."))
        night_id = strict_int(typed["night"], lo=1)
        if night_id is not None and night_store.get_night(session, night_id=night_id) is None:
            night_id = None
        if member is not None and not errors:
            debt = beer_store.BeerDebtCreate(member_id=row_id(member), crates=crates, reason=reason, night_id=night_id)
            beer_store.add_debt(session, debt=debt, recorded_by=who.name or "")
    if errors:
        return _beer(request, errors=errors, typed=typed, status=422)
    return redirect("/club/beer", request)


@router.post("/beer/{debt_id}/settle")
def settle_debt(request: Request, debt_id: int, _form: auth.CsrfForm) -> Response:
    require_elder(request)
    with session_scope(db_engine(request)) as session:
        try:
            beer_store.settle_debt(session, debt_id=debt_id)
        except LookupError as exc:
            raise HTTPException(status_code=404, detail=_("No such debt")) from exc
    return redirect("/club/beer", request)


@router.post("/beer/{debt_id}/waive", response_class=HTMLResponse)
def waive_debt(request: Request, debt_id: int, form: auth.CsrfForm) -> Response:
    """An elder lets a crate go; the reason is kept on the ledger."""
    who = require_elder(request)
    reason = " ".join(str(form.get("waive_reason") or "").split())[:200]
    errors: list[str] = []
    if not reason:
        errors.append(_("Write why the crate is waived."))
    else:
        with session_scope(db_engine(request)) as session:
            try:
                beer_store.waive_debt(session, debt_id=debt_id, by=who.name or "", reason=reason)
            except LookupError as exc:
                raise HTTPException(status_code=404, detail=_("No such debt")) from exc
            except ValueError as exc:
                errors.append(text_of(exc))
    if errors:
        return _beer(request, errors=errors, status=422)
    return redirect("/club/beer", request)
