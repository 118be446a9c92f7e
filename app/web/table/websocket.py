"""The room websocket: one receive loop per connection; the room's hub does all the sending."""

from __future__ import annotations

import contextlib
import logging

from fastapi import APIRouter, WebSocket
from starlette.websockets import WebSocketDisconnect

from app.rooms.hub import Connection
from app.rooms.room import MAX_FRAME
from app.rooms.tokens import hash_token
from app.web.shared.security import origin_allowed, seat_token
from app.web.state import manager_of

log = logging.getLogger("gurka.web.ws")
router = APIRouter(tags=["room websocket"])


@router.websocket("/r/{slug}/ws")
async def room_socket(websocket: WebSocket, slug: str) -> None:
    settings = websocket.app.state.settings
    if not origin_allowed(websocket, list(getattr(settings, "allowed_origins", []) or [])):
        await websocket.close(code=1008, reason="origin not allowed")
        return
    manager = manager_of(websocket.app)
    room = manager.get(slug) if len(slug) <= 64 else None
    if room is None:
        await websocket.close(code=1008, reason="no such room")
        return
    token = seat_token(websocket, slug)
    await websocket.accept()
    conn = Connection(websocket.send_text, lambda code: websocket.close(code=code),
                      token_hash=hash_token(token) if token else None)
    room.attach(conn)
    room.schedule_bot()
    try:
        while True:
            message = await websocket.receive()
            if message["type"] == "websocket.disconnect":
                break
            data = message.get("text")
            if data is None and message.get("bytes") is not None:
                raw = message["bytes"]
                if len(raw) > MAX_FRAME:
                    data = raw  # handle() refuses it by size
                else:
                    try:
                        data = raw.decode("utf-8")
                    except UnicodeDecodeError:
                        data = raw
            if data is None:
                continue
            if conn.closed:
                break
            await room.handle(conn, data)
    except WebSocketDisconnect:
        pass
    except Exception:
        log.exception("room %s: websocket loop failed", room.id)
    finally:
        room.detach(conn)
        await conn.stop()
        with contextlib.suppress(Exception):
            await websocket.close()
