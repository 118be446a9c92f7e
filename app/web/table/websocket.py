"""The room websocket: one receive loop per connection; the room's hub does all the sending.

Before a socket is served: the Origin must be this site (scheme, host and port) or an allowed
one, and the room and the address must be under their connection caps. While it is served,
it may send only so many messages per 20 s (`app.web.shared.ws_budgets`); beyond that it is closed with
1008 and the reason. A socket the hub drops (its reader fell behind) is let go at once and closed
with 1013 and the reason (the page reconnects on it), and after a burst of closed sockets their
memory is handed back to the system (`app.web.shared.memory`).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging

from fastapi import APIRouter, FastAPI, WebSocket
from starlette.websockets import WebSocketDisconnect

from app.i18n import current_language
from app.rooms.room import MAX_FRAME, LiveRoom
from app.rooms.tokens import hash_token
from app.web.shared.address import client_address
from app.web.shared.memory import MemoryReturn
from app.web.shared.security import origin_allowed, seat_token
from app.web.shared.ws_budgets import ConnectionCaps, MessageBudget
from app.web.state import manager_of
from app.web.table.hub import CLOSE_WAIT, Connection
from app.web.table.watching import WATCH_LATER_CLOSE, held_back

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


def memory_of(app: FastAPI) -> MemoryReturn:
    found: MemoryReturn | None = getattr(app.state, "memory_return", None)
    if found is None:
        found = app.state.memory_return = MemoryReturn()
    return found


async def _close_quietly(websocket: WebSocket, conn: Connection | None) -> None:
    """Close the socket if it is still open, with the code and reason the connection was given
    (a reader that fell behind: 1013, which the page reconnects on; the hub's own close may still
    be on its way, and whichever reaches the socket first says the same). A failure ends here:
    raised through `wait_for`, it would tie this handler's frames (and the connection's objects)
    into a reference cycle that only a full garbage collection frees."""
    code, reason = (conn.close_code, conn.close_reason) if conn is not None else (1000, "")
    with contextlib.suppress(Exception):  # closed already, by either side
        await websocket.close(code=code, reason=reason)


def _decode(raw: bytes) -> str | bytes:
    if len(raw) > MAX_FRAME:
        return raw  # handle() refuses it by size
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw


async def _serve_until_gone(websocket: WebSocket, room: LiveRoom, conn: Connection) -> None:
    """Serve the socket's messages until it disconnects, or the hub drops it (a reader that fell
    behind): then the handler ends at once, even though a silent client never sends again."""
    serving = asyncio.ensure_future(_serve(websocket, room, conn))
    serving.add_done_callback(lambda _: conn.gone.set())  # one wait for both ends
    try:
        await conn.gone.wait()
    finally:
        if not serving.done():
            serving.cancel()
    if serving.done() and not serving.cancelled():
        serving.result()  # its error, if any, is the handler's


async def _serve(websocket: WebSocket, room: LiveRoom, conn: Connection) -> None:
    settings = websocket.app.state.settings
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
            conn.drop(code=1008, reason=f"more than {limit} messages in 20 s")  # a refusal: the page does not retry
            break
        await room.handle(conn, data)


@router.websocket("/r/{slug}/ws")
async def room_socket(websocket: WebSocket, slug: str) -> None:
    settings = websocket.app.state.settings
    if not origin_allowed(websocket, list(getattr(settings, "allowed_origins", []) or [])):
        await websocket.close(code=1008, reason="origin not allowed")
        return
    manager = manager_of(websocket.app)
    room = await manager.find(slug)
    if room is None:
        await websocket.close(code=1008, reason="no such room")
        return
    caps = caps_of(websocket.app)
    address = client_address(websocket)
    refused = caps.acquire(room.state.id, address)
    if refused is not None:
        await websocket.accept()
        await websocket.close(code=1008, reason=refused)
        return
    conn: Connection | None = None
    try:
        token = seat_token(websocket, slug)
        await websocket.accept()
        if await held_back(manager, room, token):
            await websocket.close(code=1008, reason=WATCH_LATER_CLOSE)  # a refusal: the page does not retry
            return
        conn = Connection(websocket.send_text, lambda code, reason: websocket.close(code=code, reason=reason),
                          token_hash=hash_token(token) if token else None, lang=current_language())
        conn.start()
        room.attach(conn)
        room.schedule_bot()
        await _serve_until_gone(websocket, room, conn)
    except WebSocketDisconnect:
        pass
    except Exception:
        log.exception("room %s: websocket loop failed", room.state.id)
    finally:
        caps.release(room.state.id, address)
        if conn is not None:
            room.detach(conn)
            await conn.stop()
            memory_of(websocket.app).socket_closed()
        with contextlib.suppress(TimeoutError):  # a reader that never reads cannot take it: bounded
            await asyncio.wait_for(_close_quietly(websocket, conn), CLOSE_WAIT)
