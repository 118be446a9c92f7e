"""Authoritative game rooms: one lock per room, seats bound to hashed tokens, bots; what changed
is told to the host's audience as news (the web side draws it and owns the connections)."""

from app.rooms.manager import RoomManager
from app.rooms.room import LiveRoom, Refused, Seat
from app.rooms.state import RoomStatus

__all__ = ["LiveRoom", "Refused", "RoomManager", "RoomStatus", "Seat"]
