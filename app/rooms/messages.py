"""A room's incoming messages: parse, check and dispatch one client frame; every problem
becomes a clear notice to its sender."""

from __future__ import annotations

from typing import Any

from app.parsing import BadFrame, parse_json_object, strict_int
from app.rooms import engine
from app.rooms.chat import ChatRefused
from app.rooms.hub import Connection
from app.rooms.news import NewsKind
from app.rooms.seat_changes import RoomSeatChanges
from app.rooms.seats import Refused
from app.rooms.talk import RoomTalk
from app.rules.text import Text, text_of

MAX_FRAME = 8 * 1024
MAX_DEPTH = 4  # a frame is a flat object; {"action": [...]} is the deepest anything needs


class RoomMessages(RoomTalk, RoomSeatChanges):
    def _seen_aid(self, aid: str) -> bool:
        if aid in self.recent_aids:
            return True
        self.recent_aids[aid] = self.version
        while len(self.recent_aids) > 512:
            self.recent_aids.popitem(last=False)
        return False

    async def handle(self, conn: Connection, text: str | bytes) -> None:
        """One client message: parse, check, dispatch; every problem becomes a clear notice."""
        try:
            msg = parse_json_object(text, max_bytes=MAX_FRAME, max_depth=MAX_DEPTH)
        except BadFrame as bad:
            self.tell(conn, text_of(bad))
            return
        do = msg.get("do", "act" if "action" in msg else None)
        seen = strict_int(msg.get("v"), lo=0)
        aid = msg.get("aid")
        if aid is not None and (not isinstance(aid, str) or len(aid) > 64):
            self.tell(conn, Text("That message had a bad action id; nothing was changed."))
            return
        if aid and self._seen_aid(f"{conn.token_hash}:{aid}"):
            self.tell(conn, Text("That action was already received; it was not applied twice."), "info")
            return
        seat = conn.seat
        try:
            if do == "act":
                action = msg.get("action")
                if isinstance(action, list):
                    action = " ".join(str(a) for a in action)
                if not isinstance(action, str) or not action.strip() or len(action) > 200:
                    raise Refused(Text("That message did not name an action."))
                if seat is not None and seat in self.seats and self.seats[seat].bot_controlled:
                    # the player is back and acts: they take their seat back from the bot
                    before = self.version
                    await self.take_back(seat)
                    seen = self.version if seen == before else seen
                await self.act(seat, action.strip(), seen)
            elif do == "sync":
                self.announce(NewsKind.WHOLE_TABLE, [conn])
                self.offer_chat(conn)
            elif do == "talk":  # a page just connected: what was said since it was rendered
                self.offer_chat(conn)
            elif do == "say":
                await self.say(conn, msg.get("text"))
            elif do == "react":
                await self.react(conn, msg.get("emoji"))
            elif do in ("mute", "unmute"):
                await self.set_muted(seat, _int(msg.get("seat")), do == "mute")
            elif do == "spectators":
                await self.set_spectators(seat, msg.get("allow") in (True, "on", "true", "1", ["on"]))
            elif do == "start":
                await self.start(seat)
            elif do == "add_bot":
                await self.add_bot(seat)
            elif do == "remove":
                await self.remove_seat(seat, _int(msg.get("seat")))
            elif do == "hand_to_bot":
                await self.hand_to_bot(seat, _int(msg.get("seat")))
            elif do == "take_back":
                await self.take_back(seat)
            elif do == "next_deal":
                await self.deal_next(seen, by=seat if seat is not None else -1)
            elif do == "rematch":
                await self.vote_rematch(seat)
            else:
                raise Refused(Text("Unknown request %(what)s; nothing was changed.", what=repr(str(do)[:40])))
        except Refused as refused:
            self.tell(conn, text_of(refused))
        except ChatRefused as refused:  # talk refusals leave the table alone
            self.tell(conn, text_of(refused), with_table=False)
        except engine.IllegalAction as illegal:  # the engine's own words
            self.tell(conn, text_of(illegal))


def _int(value: Any) -> int:
    seat = strict_int(value, lo=0, hi=63)
    if seat is None:
        raise Refused(Text("That message did not name a seat."))
    return seat
