"""The pure parts of table talk: cleaning a message, the sliding-window rate limit, the settings
replayed from stored rows."""

from __future__ import annotations

import pytest

from app.rooms.chat import (
    MAX_TEXT,
    MUTE,
    SAY,
    SPECTATORS,
    UNMUTE,
    ChatLine,
    ChatLog,
    ChatRefused,
    RateLimit,
    clean_text,
)


def test_clean_text_keeps_plain_text_on_one_line() -> None:
    assert clean_text("  hi\n\tthere \x00\x1b[31m ") == "hi there [31m"
    assert clean_text("<a href='x'>y</a>") == "<a href='x'>y</a>", "escaping is the template's job"
    with pytest.raises(ChatRefused):
        clean_text("\n \t")
    with pytest.raises(ChatRefused, match=str(MAX_TEXT)):
        clean_text("z" * (MAX_TEXT + 1))
    with pytest.raises(ChatRefused):
        clean_text(42)


def test_rate_limit_is_a_sliding_window_per_key() -> None:
    now = [0.0]
    limit = RateLimit(count=3, window=10.0, clock=lambda: now[0])
    assert [limit.wait("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limit.wait("a") == pytest.approx(10.0)
    assert limit.wait("b") == 0.0
    now[0] = 4.0
    assert limit.wait("a") == pytest.approx(6.0)
    now[0] = 10.0  # the three messages of t=0 left the window: three more may go, not four
    assert [limit.wait("a") for _ in range(3)] == [0.0, 0.0, 0.0]
    assert limit.wait("a") == pytest.approx(10.0)


def test_settings_come_back_from_the_stored_rows_in_order() -> None:
    log = ChatLog(keep=2)
    log.restore([
        ChatLine(MUTE, 1, "Bo", ""), ChatLine(MUTE, 2, "Cai", ""), ChatLine(UNMUTE, 1, "Bo", ""),
        ChatLine(SPECTATORS, None, "Anna", "on"), ChatLine(SAY, 0, "Anna", "hi"),
    ])
    assert log.muted == {2} and log.spectators_allowed
    assert [line.kind for line in log.lines] == [SPECTATORS, SAY], "only the recent lines are kept"
    assert log.may_talk(None) and not log.may_talk(2) and log.may_talk(1)
