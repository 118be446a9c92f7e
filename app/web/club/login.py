"""Elders: the first elder's setup, logging in and out. Members need no password (RULES.md §7.6:
elders settle disputes and keep the records)."""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from app.i18n import _
from app.store import members as member_store
from app.store.db import row_id, session_scope
from app.web.club import auth, elder_login
from app.web.club.common import clean_name, db_engine, form_text, redirect, render

router = APIRouter(prefix="/club", tags=["club"])


@router.get("/setup", response_class=HTMLResponse)
def setup_form(request: Request) -> Response:
    with session_scope(db_engine(request)) as session:
        if member_store.count_elders(session):
            return redirect("/club/login", request)
    return render(request, "club/setup.html", {"errors": [], "typed": {}})


@router.post("/setup", response_class=HTMLResponse)
async def setup_submit(request: Request, form: auth.CsrfForm) -> Response:
    """argon2 runs under the hashing limit (and only while the club has no elder), the database
    work in a worker thread."""
    if await asyncio.to_thread(_has_elders, request):
        return redirect("/club/login", request)
    name = clean_name(form_text(form, "name"))
    password = str(form.get("password") or "")
    errors = _password_errors(name, password, str(form.get("password2") or ""))
    password_hash = "" if errors else await elder_login.hash_password(request, password)
    return await asyncio.to_thread(_set_up, request, name, password_hash, errors)


def _has_elders(request: Request) -> bool:
    with session_scope(db_engine(request)) as session:
        return bool(member_store.count_elders(session))


def _set_up(request: Request, name: str, password_hash: str, errors: list[str]) -> Response:
    with session_scope(db_engine(request)) as session:
        if member_store.count_elders(session):
            return redirect("/club/login", request)
        if not errors:
            existing = member_store.get_member_by_name(session, name=name)
            if existing is None:
                member = member_store.add_member(session, name=name, is_elder=True, password_hash=password_hash)
            else:
                member = member_store.update_member(
                    session, member_id=row_id(existing), is_elder=True, active=True,
                    password_hash=password_hash,
                )
            member_id, gen = member.id, member.session_gen or 0
    if errors:
        return render(request, "club/setup.html", {"errors": errors, "typed": {"name": name}}, status=422)
    response = redirect("/club/members")
    auth.set_cookie(request, response, auth.new_session(request, member_id, gen))
    elder_login.remember_device(request, response, name)
    return response


def _password_errors(name: str, password: str, again: str) -> list[str]:
    errors = []
    if not name:
        errors.append(_("Write the elder's name."))
    if len(password) < auth.MIN_PASSWORD:
        errors.append(_("The password needs at least %(num)s characters.", num=auth.MIN_PASSWORD))
    elif password != again:
        errors.append(_("The two passwords are not the same."))
    return errors


def _safe_next(raw: str | None) -> str:
    target = (raw or "").strip()
    if not target.startswith("/club") or target.startswith("//") or "\\" in target:
        return "/club"
    return target


@router.get("/login", response_class=HTMLResponse)
def login_form(request: Request, next: str = "/club") -> Response:
    with session_scope(db_engine(request)) as session:
        if member_store.count_elders(session) == 0:
            return redirect("/club/setup", request)
    return render(request, "club/login.html", {"next": _safe_next(next), "error": None, "name": ""})


@router.post("/login", response_class=HTMLResponse)
async def login_submit(request: Request, form: auth.CsrfForm) -> Response:
    name = clean_name(form_text(form, "name"))
    found = await elder_login.log_in(request, name=name, password=str(form.get("password") or ""))
    target = _safe_next(form_text(form, "next"))
    if found.member_id is None:
        return await asyncio.to_thread(
            render, request, "club/login.html", {"next": target, "error": found.error, "name": name},
            status=found.status,
        )
    response = redirect(target)
    auth.set_cookie(request, response, auth.new_session(request, found.member_id, found.gen))
    elder_login.remember_device(request, response, name)
    return response


@router.post("/logout")
def logout(request: Request, _form: auth.CsrfForm) -> Response:
    who = auth.viewer(request)
    if who.member_id is not None:  # every session of this elder ends, on every device
        with session_scope(db_engine(request)) as session:
            member_store.end_sessions(session, member_id=who.member_id)
    response = redirect("/club")
    auth.set_cookie(request, response, auth.new_session(request, None))
    return response
