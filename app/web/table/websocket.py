"""The room websocket: one receive loop per connection; the room's hub does all the sending.

Before a socket is served: the Origin must be this site (scheme, host and port) or an allowed
one, and the room and the address must be under their connection caps. While it is served,
it may send only so many messages per 20 s (`app.web.shared.ws_budgets`); beyond that it is closed with
1008 and the reason.
"""

from __future__ import annotations

import contextlib
import logging

from fastapi import APIRouter, FastAPI, WebSocket
from starlette.websockets import WebSocketDisconnect

from app.rooms.hub import Connection
from app.rooms.room import MAX_FRAME
from app.rooms.tokens import hash_token
from app.web.shared.security import origin_allowed, seat_token
from app.web.shared.ws_budgets import ConnectionCaps, MessageBudget
from app.web.state import manager_of

log = logging.getLogger("gurka.web.ws")
router = APIRouter(tags=["room websocket"])

MESSAGE_WINDOW = 20.0
CONNECT_WINDOW = 10.0


def caps_of(app: FastAPI) -> ConnectionCaps:
    caps: ConnectionCaps | None = getattr(app.state, "ws_caps", None)
    if caps is None:
        settings = app.state.settings
        caps = app.state.ws_caps = ConnectionCaps(
            per_room=settings.ws_per_room, per_address=settings.ws_per_address,
            connects_per_address=settings.ws_connects_per_address, connect_window=CONNECT_WINDOW,
        )
    return caps


def _decode(raw: bytes) -> str | bytes:
    if len(raw) > MAX_FRAME:
        return raw  # handle() refuses it by size
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


@router.websocket("/r/{slug}/ws")
async def room_socket(websocket: WebSocket, slug: str) -> None:
    settings = websocket.app.state.settings
    if not origin_allowed(websocket, list(getattr(settings, "allowed_origins", []) or [])):
        await websocket.close(code=1008, reason="origin not allowed")
        return
    manager = manager_of(websocket.app)
    room = await manager.find(slug) if len(slug) <= 64 else None
    if room is None:
        await websocket.close(code=1008, reason="no such room")
        return
    caps = caps_of(websocket.app)
    address = websocket.client.host if websocket.client else "unknown"
    refused = caps.acquire(room.id, address)
    if refused is not None:
        await websocket.accept()
        await websocket.close(code=1008, reason=refused)
        return
    conn: Connection | None = None
    try:
        token = seat_token(websocket, slug)
        await websocket.accept()
        conn = Connection(websocket.send_text, lambda code: websocket.close(code=code),
                          token_hash=hash_token(token) if token else None)
        room.attach(conn)
        room.schedule_bot()
        budgets = {
            True: MessageBudget(settings.ws_player_messages, MESSAGE_WINDOW),
            False: MessageBudget(settings.ws_spectator_messages, MESSAGE_WINDOW),
        }
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            data = message.get("text")
            if data is None and message.get("bytes") is not None:
                data = _decode(message["bytes"])
            if data is None:
                continue
            if conn.closed:
                break
            if not budgets[conn.seat is not None].allow():
                limit = budgets[conn.seat is not None].limit
                await conn.stop()
                await websocket.close(code=1008, reason=f"more than {limit} messages in 20 s")
                break
            await room.handle(conn, data)
    except WebSocketDisconnect:
        pass
    except Exception:
        log.exception("room %s: websocket loop failed", room.id)
    finally:
        caps.release(room.id, address)
        if conn is not None:
            room.detach(conn)
            await conn.stop()
        with contextlib.suppress(Exception):
            await websocket.close()
