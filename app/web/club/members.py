"""The club's members: add, rename, retire and reinstate, make elders and set their passwords."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response
from starlette.datastructures import FormData

from app.club.hall_of_fame import hall_of_fame_table
from app.i18n import _
from app.store import members as member_store
from app.store import night_replay
from app.store.db import session_scope
from app.web.club import auth, elder_login
from app.web.club.common import (
    clean_name,
    db_engine,
    form_text,
    name_error,
    redirect,
    render,
    require_elder,
)

router = APIRouter(prefix="/club", tags=["club"])


@router.get("/members", response_class=HTMLResponse)
def members_page(request: Request) -> Response:
    return _members(request)


def _members(request: Request, *, errors: list[str] | None = None, typed: dict[str, Any] | None = None,
             status: int = 200) -> Response:
    with session_scope(db_engine(request)) as session:
        members = member_store.list_public(session)
        played = night_replay.played_nights(session)
    stats = {row.player: row for row in hall_of_fame_table([n.summary for n in played], None)}
    return render(
        request,
        "club/members.html",
        {"members": members, "stats": stats, "errors": errors or [], "typed": typed or {}},
        status=status,
    )


@router.post("/members", response_class=HTMLResponse)
def add_member(request: Request, form: auth.CsrfForm) -> Response:
    require_elder(request)
    name = clean_name(form_text(form, "name"))
    with session_scope(db_engine(request)) as session:
        error = name_error(session, name)
        if error is None:
            member_store.add_member(session, name=name)
    if error:
        return _members(request, errors=[error], typed={"name": name}, status=422)
    return redirect("/club/members#members", request)


@router.post("/members/{member_id}", response_class=HTMLResponse)
async def change_member(request: Request, member_id: int, form: auth.CsrfForm) -> Response:
    """argon2 runs under the hashing limit (only for an elder), the database work in a worker thread."""
    who = await asyncio.to_thread(require_elder, request)
    action = str(form.get("action") or "")
    password = str(form.get("password") or "")
    password_hash = None
    if action in ("elder", "password") and len(password) >= auth.MIN_PASSWORD:
        password_hash = await elder_login.hash_password(request, password)
    return await asyncio.to_thread(_change_member, request, member_id, form, who, password_hash)


def _change_member(request: Request, member_id: int, form: FormData, who: auth.Viewer,
                   password_hash: str | None) -> Response:
    action = str(form.get("action") or "")
    errors: list[str] = []
    new_gen = None
    with session_scope(db_engine(request)) as session:
        member = member_store.get_member(session, member_id=member_id)
        if member is None:
            raise HTTPException(status_code=404, detail=_("No such member"))
        if action == "rename":
            name = clean_name(form_text(form, "name"))
            error = name_error(session, name, member_id=member_id)
            if error:
                errors.append(error)
            else:
                member_store.update_member(session, member_id=member_id, name=name)
        elif action in ("retire", "reinstate"):
            if action == "retire" and member.is_elder and member_store.count_elders(session) <= 1:
                errors.append(_("The club needs at least one elder: make someone else an elder first."))
            else:
                member_store.update_member(session, member_id=member_id, active=action == "reinstate")
        elif action == "elder":
            if password_hash is None:
                errors.append(_(
                    "An elder logs in with a password of at least %(num)s characters: give %(name)s one.",
                    num=auth.MIN_PASSWORD, name=member.name,
                ))
            else:
                member_store.update_member(
                    session, member_id=member_id, is_elder=True, active=True, password_hash=password_hash,
                )
                new_gen = member_store.end_sessions(session, member_id=member_id)
        elif action == "unelder":
            if member_store.count_elders(session) <= 1 and member.is_elder:
                errors.append(_("The club needs at least one elder."))
            else:
                member_store.update_member(session, member_id=member_id, is_elder=False)
        elif action == "password":
            if not member.is_elder:
                errors.append(_("%(name)s is not an elder and needs no password.", name=member.name))
            elif password_hash is None:
                errors.append(_("The password needs at least %(num)s characters.", num=auth.MIN_PASSWORD))
            else:  # the old password's sessions end, everywhere
                member_store.update_member(session, member_id=member_id, password_hash=password_hash)
                new_gen = member_store.end_sessions(session, member_id=member_id)
        else:
            errors.append(_("Unknown change."))
    if errors:
        return _members(request, errors=errors, status=422)
    if member_id == who.member_id and action in ("retire", "unelder"):
        return redirect("/club/members", request)
    response = redirect(f"/club/members#m{member_id}", request)
    if member_id == who.member_id and new_gen is not None:  # who changed their own password stays in
        auth.set_cookie(request, response, auth.new_session(request, member_id, new_gen))
    return response
