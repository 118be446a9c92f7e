"""Client messages are parsed once, each into its own type; what names no valid request becomes
the words its sender is told."""

from __future__ import annotations

import json

import pytest

from app.parsing import BadFrame
from app.rooms.messages import (
    BAD_AID,
    NO_ACTION,
    NO_SEAT,
    UNKNOWN_LEVEL,
    Act,
    AddBot,
    HandToBot,
    Mute,
    NextDeal,
    React,
    RecentTalk,
    Rematch,
    Remove,
    Say,
    SeenActions,
    Spectators,
    Start,
    Sync,
    TakeBack,
    Unreadable,
    parse_message,
)
from app.rules.text import text_of


def parse(**fields: object) -> object:
    return parse_message(json.dumps(fields)).message


def test_each_request_is_its_own_message() -> None:
    assert parse(do="act", action="play 3H", v=7) == Act("play 3H", 7)
    assert parse(action=["play", "3H", "4H"], v="8") == Act("play 3H 4H", 8)  # "do" may be left out
    assert parse(do="sync") == Sync() and parse(do="talk") == RecentTalk()
    assert parse(do="say", text="hi") == Say("hi") and parse(do="react", emoji="🥒") == React("🥒")
    assert parse(do="mute", seat=2) == Mute(2, True) and parse(do="unmute", seat="2") == Mute(2, False)
    assert parse(do="spectators", allow="on") == Spectators(True)
    assert parse(do="spectators", allow="no") == Spectators(False)
    assert parse(do="start") == Start() and parse(do="add_bot") == AddBot()
    assert parse(do="remove", seat=1) == Remove(1) and parse(do="hand_to_bot", seat=3) == HandToBot(3)
    assert parse(do="take_back") == TakeBack() and parse(do="rematch") == Rematch()
    assert parse(do="next_deal", v=4) == NextDeal(4) and parse(do="next_deal") == NextDeal(None)


def test_add_a_bot_carries_the_level_the_host_picked() -> None:
    """Issue 37 item 6: the lobby's "Add a bot" may name the bot's level; none is the host's."""
    assert parse(do="add_bot", level="strong") == AddBot("strong")
    assert parse(do="add_bot", level="easy") == AddBot("easy") and parse(do="add_bot", level="") == AddBot()
    assert parse(do="add_bot", level="genius") == Unreadable(UNKNOWN_LEVEL)
    assert parse(do="add_bot", level=["strong"]) == Unreadable(UNKNOWN_LEVEL)
    assert parse(do="add_bot", level="random") == Unreadable(UNKNOWN_LEVEL)  # not a level a host picks


def test_what_names_no_valid_request_says_so_plainly() -> None:
    assert parse(do="act", action="  ") == Unreadable(NO_ACTION)
    assert parse(do="act", action="x" * 201) == Unreadable(NO_ACTION)
    assert parse(do="act") == Unreadable(NO_ACTION)
    assert parse(do="remove", seat="²") == Unreadable(NO_SEAT)
    assert parse(do="mute", seat=64) == Unreadable(NO_SEAT)
    unknown = parse(do="dance")
    assert isinstance(unknown, Unreadable) and unknown.reason == "Unknown request 'dance'; nothing was changed."
    assert parse().__class__ is Unreadable  # no "do" and no action


def test_a_frame_that_cannot_be_read_is_refused_before_it_is_a_message() -> None:
    for bad in ("not json", "[1, 2]", "{" * 50, json.dumps({"do": "say", "text": "x" * 9000})):
        with pytest.raises(BadFrame):
            parse_message(bad)
    with pytest.raises(BadFrame) as refused:
        parse_message(json.dumps({"do": "start", "aid": "x" * 65}))
    assert text_of(refused.value) == BAD_AID
    assert parse_message(json.dumps({"do": "start", "aid": "a1"})).aid == "a1"
    assert parse_message(json.dumps({"do": "start", "aid": ""})).aid is None


def test_an_action_id_is_taken_once_and_old_ones_are_forgotten() -> None:
    seen = SeenActions(keep=2)
    assert seen.first_time("a") and not seen.first_time("a")
    assert seen.first_time("b") and seen.first_time("c")
    assert seen.first_time("a")  # the oldest was forgotten
