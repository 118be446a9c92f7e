"""Authoritative game rooms: one lock per room, seats bound to hashed tokens, bots, fan-out."""

from app.rooms.hub import Connection
from app.rooms.manager import RoomManager
from app.rooms.room import LiveRoom, Refused, Seat
from app.rooms.state import RoomStatus

__all__ = ["Connection", "LiveRoom", "Refused", "RoomManager", "RoomStatus", "Seat"]
