"""A player's own "Use another device" panel: their seat's rejoin code, its link and a QR code
of the link. Built from the player's own cookie token (nobody else can show it), rendered only
into that player's page, never into a pushed table."""

from __future__ import annotations

from typing import Any

from fastapi import Request

from app.i18n import _
from app.rooms.room import LiveRoom
from app.rooms.tokens import hash_code, rejoin_code
from app.web.table.qr import qr_svg


def rejoin_link(request: Request, slug: str, code: str) -> str:
    return f"{str(request.base_url).rstrip('/')}/r/{slug}/rejoin?code={code}"


def rejoin_panel(request: Request, room: LiveRoom, seat: int | None, token: str | None) -> dict[str, Any] | None:
    if seat is None or token is None:
        return None
    s = room.state.seats.get(seat)
    code = rejoin_code(token)
    if s is None or s.code_hash != hash_code(code):  # a seat from before rejoin codes existed
        return None
    link = rejoin_link(request, room.state.slug, code)
    return {"code": code, "link": link, "qr": qr_svg(link, title=_("QR code: rejoin link for %(name)s", name=s.name))}
