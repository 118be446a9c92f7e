"""Personal links: an elder makes one for a member and sends it; opening it on a device makes
the device remember the member (see `identity`). The member can forget a device; an elder can
make a new link, which also makes every device that remembered the member forget them."""

from __future__ import annotations

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse, Response

from app.i18n import _
from app.store import members as member_store
from app.store.db import session_scope
from app.web.club import auth, identity
from app.web.club.common import db_engine, redirect, render, require_elder
from app.web.shared.address import client_address
from app.web.shared.headers import SecretAddressRoute
from app.web.shared.throttle import wait_message

router = APIRouter(prefix="/club", tags=["club"], route_class=SecretAddressRoute)  # personal links

MAX_SECRET = 100


@router.get("/me/{secret}", response_class=HTMLResponse)
def open_personal_link(request: Request, secret: str) -> Response:
    """A member's personal link: this device remembers them from now on."""
    throttle, wrong = identity.link_throttle(request), identity.wrong_links(request)
    keys = [f"addr:{client_address(request)}"]
    everywhere = wrong.wait(identity.ANY_ADDRESS)
    if everywhere:
        return render(request, "club/me.html", {"member": None, "error":
                      wait_message(everywhere, _("Too many wrong links have been tried"))}, status=429)
    wait = throttle.attempt(keys)
    if wait:
        return render(request, "club/me.html", {"member": None, "error":
                      wait_message(wait, _("Too many wrong links from here"))}, status=429)
    member = None
    if len(secret) <= MAX_SECRET:
        with session_scope(db_engine(request)) as session:
            member = member_store.get_member_by_link(session, link_hash=identity.link_hash(secret))
            found = (member.id, member.name, member.device_epoch) if member and member.active else None
    else:
        found = None
    if found is None:
        # counted once known to be wrong, so right links never use up the club's allowance
        # (wrong ones sent in parallel overshoot it by the worker threads at most)
        wrong.attempt([identity.ANY_ADDRESS])
        return render(request, "club/me.html", {"member": None, "error":
                      _("This personal link does not work (any more): an elder may have made a new one."
                        " Ask an elder for your link.")}, status=404)
    throttle.refund(keys)  # a working link is no guess; wrong ones stay counted
    member_id, name, epoch = found
    assert member_id is not None
    response = render(request, "club/me.html", {"member": name, "error": None})
    response.headers["Cache-Control"] = "no-store"
    identity.remember(request, response, member_id=member_id, epoch=epoch)
    return response


@router.post("/me/forget")
def forget_device(request: Request, _form: auth.CsrfForm) -> Response:
    """This device stops remembering its member."""
    response = redirect("/club", request)
    identity.forget(request, response)
    return response


@router.post("/members/{member_id}/link", response_class=HTMLResponse)
def make_personal_link(request: Request, member_id: int, form: auth.CsrfForm) -> Response:
    """An elder makes a member's personal link (a new one replaces the old: devices forget)."""
    require_elder(request)
    forget_only = form.get("action") == "forget"
    secret, hashed = identity.new_link_secret()
    with session_scope(db_engine(request)) as session:
        member = member_store.get_member(session, member_id=member_id)
        if member is None:
            raise HTTPException(status_code=404, detail=_("No such member"))
        member_store.set_member_link(session, member_id=member_id, link_hash=None if forget_only else hashed)
        name = member.name
    if forget_only:
        return redirect(f"/club/members#m{member_id}", request)
    link = str(request.base_url).rstrip("/") + f"/club/me/{secret}"
    response = render(request, "club/member_link.html", {"name": name, "link": link})
    response.headers["Cache-Control"] = "no-store"
    return response
