"""The one throttle (`app.web.shared.throttle`) behind elder login, personal links and rejoin
codes: capped exponential back-off per key, a right answer taken back alone, on a fake clock (no
test sleeps)."""

from __future__ import annotations

import threading

from app.rooms.clock import FakeClock
from app.web.shared.throttle import Throttle, wait_message


def test_back_off_doubles_after_the_free_tries_and_never_exceeds_the_cap() -> None:
    clock = FakeClock(start=1000.0)
    throttle = Throttle(free=3, base=2.0, cap=60.0, clock=clock)
    for _ in range(3):
        assert throttle.attempt(["k"]) == 0.0
    waits = []
    for _ in range(8):
        wait = throttle.attempt(["k"])
        assert wait > 0  # refused, and not counted: the wait does not grow while refused
        assert throttle.attempt(["k"]) == wait
        waits.append(wait)
        clock.advance(wait)
        assert throttle.attempt(["k"]) == 0.0
    assert waits[:5] == [2.0, 4.0, 8.0, 16.0, 32.0]
    assert waits[5:] == [60.0, 60.0, 60.0]  # capped: the real user is never locked out for longer


def test_other_keys_are_never_slowed_and_a_refused_try_counts_for_nobody() -> None:
    clock = FakeClock(start=0.0)
    throttle = Throttle(free=2, base=10.0, clock=clock)
    throttle.attempt(["name:elsa", "addr:1.2.3.4"])
    throttle.attempt(["name:elsa", "addr:1.2.3.4"])
    assert throttle.wait("name:elsa") == 10.0 and throttle.wait("addr:1.2.3.4") == 10.0
    assert throttle.attempt(["addr:5.6.7.8"]) == 0.0  # another address goes ahead
    assert throttle.attempt(["name:elsa", "addr:5.6.7.8"]) == 10.0  # one waiting key is enough
    assert throttle.wait("addr:5.6.7.8") == 0.0  # ... and the refused try counted for nobody


def test_a_right_answer_takes_back_only_its_own_try() -> None:
    """The reset trick: a guesser who knows one right answer (its own seat's code) types it
    between guesses. Each right answer is taken back, the wrong guesses stay counted: it gets
    exactly as many wrong guesses as it would without the trick."""
    clock = FakeClock(start=0.0)
    throttle = Throttle(free=3, base=10.0, clock=clock)
    keys = ["addr:1.2.3.4", "room:x"]
    for _ in range(2):
        assert throttle.attempt(keys) == 0.0  # two wrong guesses
    assert throttle.attempt(keys) == 0.0  # the right one ...
    throttle.refund(keys)  # ... is taken back
    assert throttle.attempt(keys) == 0.0  # a third wrong guess: still free
    assert throttle.attempt(keys) == 10.0  # but no fourth: the right answer reset nothing
    clock.advance(10.0)
    assert throttle.attempt(keys) == 0.0  # the right answer after the wait ...
    throttle.refund(keys)
    assert throttle.wait("addr:1.2.3.4") == 10.0  # ... and the next guess still waits (3 wrong counted)
    clock.advance(10.0)
    assert throttle.attempt(keys) == 0.0
    assert throttle.wait("room:x") == 20.0  # the fourth wrong guess doubled the wait, as without the trick
    throttle.refund(["addr:never-counted"])  # a key never counted: nothing happens, nothing goes negative
    assert throttle.wait("addr:never-counted") == 0.0


def test_forget_starts_a_proved_key_afresh_and_leaves_the_others() -> None:
    clock = FakeClock(start=0.0)
    throttle = Throttle(free=2, base=10.0, clock=clock)
    for _ in range(2):
        throttle.attempt(["name:elsa", "addr:1.2.3.4"])
    throttle.forget(["name:elsa"])  # Elsa's password was right: her name's count is proved
    assert throttle.wait("name:elsa") == 0.0
    assert throttle.wait("addr:1.2.3.4") == 10.0  # the address still counts its guesses


def test_old_keys_are_forgotten_and_the_table_stays_bounded() -> None:
    clock = FakeClock(start=0.0)
    throttle = Throttle(free=1, base=5.0, forget_after=100.0, clock=clock, max_keys=50)
    assert throttle.attempt(["a"]) == 0.0
    assert throttle.wait("a") == 5.0
    clock.advance(101.0)
    assert throttle.wait("a") == 0.0  # unused for longer than forget_after: gone
    for i in range(500):  # a flood of addresses
        clock.advance(0.01)
        throttle.attempt([f"addr:{i}"])
    assert len(throttle) == 50
    assert throttle.wait("addr:499") == 5.0 and throttle.wait("addr:450") > 0  # the newest are kept
    assert throttle.wait("addr:449") == 0.0  # the least recently used went first


def test_parallel_attempts_are_all_counted() -> None:
    """Guesses sent at once from many threads cannot all slip through: exactly `free` pass."""
    clock = FakeClock(start=0.0)
    throttle = Throttle(free=5, base=30.0, clock=clock)
    start = threading.Barrier(20)
    allowed: list[bool] = []

    def guess() -> None:
        start.wait()
        allowed.append(throttle.attempt(["name:elsa"]) == 0.0)

    threads = [threading.Thread(target=guess) for _ in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert len(allowed) == 20 and allowed.count(True) == 5


def test_the_wait_message_rounds_up_and_says_what_happened() -> None:
    assert wait_message(39.2) == "Too many attempts; try again in 40 s."
    assert wait_message(0.1, "Too many wrong codes") == "Too many wrong codes; try again in 1 s."
