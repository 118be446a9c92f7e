"""A bare websocket fan-out server: the floor that bench/ws_load.py compares the app against.

    python bench/fanout_server.py --port 8766 [--frame-bytes 6000]

Same framing as the app's room socket (`/r/<slug>/ws`, the seat from the `gurka_seat_<slug>`
cookie, `{"do": "act", "action": ..., "v": ...}` in, `{"kind": "table", "version": ...,
"content": ...}` out), but no rules, no database and no rendering: a room is a version
counter, the seat to act is `version % 3`, and "content" is a fixed padding of the app's
fixed size (1,500 bytes unless told) with the move (`data-legal`) for the seat whose turn it is. Every accepted
message bumps the version and sends each seat of the room its frame without awaiting any
socket (websockets' `broadcast`, which skips a client whose buffer is full).

Loopback only: it refuses to listen anywhere else.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import signal
from dataclasses import dataclass, field
from http.cookies import SimpleCookie

from websockets.asyncio.server import ServerConnection, broadcast, serve

SEATS = 3
COOKIE_PREFIX = "gurka_seat_"


@dataclass
class Room:
    version: int = 1
    conns: dict[int, set[ServerConnection]] = field(default_factory=dict)


class FanOut:
    def __init__(self, frame_bytes: int) -> None:
        self.rooms: dict[str, Room] = {}
        self.padding = "x" * max(0, frame_bytes - 200)

    def frame(self, room: Room, seat: int | None) -> str:
        turn = room.version % SEATS
        button = ""
        if seat == turn:
            button = """<div id="table-move" data-legal='["play 7C"]'></div>"""
        content = f'<section id="table" data-version="{room.version}">{button}<p>{self.padding}</p></section>'
        return json.dumps(
            {
                "kind": "table",
                "version": room.version,
                "content": content,
                "target": "#table",
                "swap": "outerHTML",
            }
        )

    def publish(self, room: Room) -> None:
        for seat, conns in room.conns.items():
            if conns:
                broadcast(conns, self.frame(room, seat))

    async def handler(self, ws: ServerConnection) -> None:
        path = ws.request.path if ws.request is not None else ""
        parts = path.split("/")
        if len(parts) != 4 or parts[1] != "r" or parts[3] != "ws":
            await ws.close(1008, "no such room")
            return
        slug = parts[2]
        seat = self.seat_of(ws, slug)
        room = self.rooms.setdefault(slug, Room())
        room.conns.setdefault(seat, set()).add(ws)  # type: ignore[arg-type]
        broadcast([ws], self.frame(room, seat))
        try:
            async for message in ws:
                try:
                    msg = json.loads(message)
                except ValueError:
                    continue
                do = msg.get("do", "act")
                if do == "sync":
                    broadcast([ws], self.frame(room, seat))
                    continue
                if do == "act" and msg.get("v") != room.version:
                    notice = json.dumps(
                        {
                            "kind": "notice",
                            "level": "error",
                            "message": "stale",
                            "version": room.version,
                        }
                    )
                    broadcast([ws], notice)
                    broadcast([ws], self.frame(room, seat))
                    continue
                room.version += 1
                self.publish(room)
        finally:
            room.conns.get(seat, set()).discard(ws)  # type: ignore[arg-type]

    @staticmethod
    def seat_of(ws: ServerConnection, slug: str) -> int | None:
        raw = ws.request.headers.get("Cookie", "") if ws.request is not None else ""
        cookie = SimpleCookie()
        cookie.load(raw)
        morsel = cookie.get(COOKIE_PREFIX + slug)
        try:
            return int(morsel.value) if morsel is not None else None
        except ValueError:
            return None


async def main(host: str, port: int, frame_bytes: int) -> None:
    if host not in ("127.0.0.1", "::1", "localhost"):
        raise SystemExit("fanout_server listens on loopback only")
    fan = FanOut(frame_bytes)
    loop = asyncio.get_running_loop()
    stop = loop.create_future()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, lambda: stop.done() or stop.set_result(None))
    async with serve(
        fan.handler,
        host,
        port,
        compression=None,
        max_size=64 * 1024,
        ping_interval=None,
        backlog=4096,
    ):
        print(f"fanout_server listening on ws://{host}:{port}", flush=True)
        await stop


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8766)
    parser.add_argument(
        "--frame-bytes", type=int, default=6000, help="size of each table frame (match the app's)"
    )
    args = parser.parse_args()
    asyncio.run(main(args.host, args.port, args.frame_bytes))
