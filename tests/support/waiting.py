"""Bounded waits on conditions, for tests that drive real servers, sockets and browsers.

No test sleeps a fixed time and hopes: it waits until something the page or the server exposes
(a table version, a selector, a log line, an HTTP answer) says the moment has come. Every wait
has a limit, and a wait that runs out fails saying what it saw: the page's status line and table
version, and the tail of the server log (`watching` names the log of the server under test).
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import subprocess
import time
import urllib.request
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

POLL = 0.02  # seconds between two looks at a condition nothing can signal

_server_logs: list[Path] = []


@contextlib.contextmanager
def watching(log: Path) -> Iterator[Path]:
    """Name the log of the server under test while in this block: failed waits print its tail."""
    _server_logs.append(Path(log))
    try:
        yield Path(log)
    finally:
        _server_logs.remove(Path(log))


def log_tail(path: Path | None = None, lines: int = 40) -> str:
    path = path or (_server_logs[-1] if _server_logs else None)
    if path is None:
        return "(no server log)"
    try:
        return "\n".join(Path(path).read_text(errors="replace").splitlines()[-lines:])
    except OSError as exc:
        return f"(server log unreadable: {exc})"


def _fail(what: str, timeout: float, seen: str) -> None:
    pytest.fail(
        f"waited {timeout:g} s for {what}, in vain.\nlast seen: {seen}\n"
        f"server log (tail):\n{log_tail()}",
        pytrace=False,
    )


def _looker(check: Callable[[], Any], what: str, timeout: float,
            seen: Callable[[], object] | None) -> Callable[[], Any]:
    """A look at `check()` each call, returning its result; a falsy one `timeout` s after the
    looker was made fails the test, saying what `seen()` (or the result) was."""
    deadline = time.monotonic() + timeout

    def look() -> Any:
        result = check()
        if not result and time.monotonic() >= deadline:
            _fail(what, timeout, str(seen() if seen else result))
        return result

    return look


def wait_until(check: Callable[[], Any], *, what: str, timeout: float = 15.0,
               seen: Callable[[], object] | None = None) -> Any:
    """Look at `check()` until it is truthy (and return it); else fail with `seen()`."""
    look = _looker(check, what, timeout, seen)
    while not (result := look()):
        time.sleep(POLL)
    return result


async def await_until(check: Callable[[], Any], *, what: str, timeout: float = 15.0,
                      seen: Callable[[], object] | None = None) -> Any:
    """`wait_until` for the event loop: looks between other tasks' steps, never blocks."""
    look = _looker(check, what, timeout, seen)
    while not (result := look()):
        await asyncio.sleep(POLL)
    return result


async def await_event(waiting: Awaitable[Any], *, what: str, timeout: float = 15.0,
                      seen: Callable[[], object] | None = None) -> Any:
    """Await something that signals by itself (an event, a future) for at most `timeout` s."""
    try:
        return await asyncio.wait_for(waiting, timeout)
    except TimeoutError:
        _fail(what, timeout, str(seen() if seen else "nothing"))


def answers(base: str, proc: subprocess.Popen[bytes]) -> bool:
    """True once the server at `base` answers /healthz; a server that exited fails at once."""
    if proc.poll() is not None:
        pytest.fail(f"the server exited with {proc.returncode}:\n{log_tail()}", pytrace=False)
    try:
        with urllib.request.urlopen(base + "/healthz", timeout=1) as answer:
            return bool(answer.status == 200)
    except OSError:
        return False


# ------------------------------------------------------------------ pages (Playwright)

PAGE_STATE = """() => {
  const t = document.getElementById('table');
  const bar = document.querySelector('.statusbar');
  const root = document.documentElement;
  return {
    url: location.pathname,
    ready: document.readyState,
    htmx: !!window.htmx,
    version: t ? t.dataset.version : null,
    mode: t ? t.dataset.mode : null,
    status: bar ? bar.innerText.replace(/\\s+/g, ' ').trim().slice(0, 160) : null,
    offline: root.classList.contains('offline'),
    closeCode: root.dataset.closeCode || null,
    notice: (document.getElementById('notice') || {}).innerText || null,
  };
}"""


_page_events: dict[int, collections.deque[str]] = {}


def watch_page(page: Any) -> Any:
    """Keep the page's last console messages, errors and websocket events, for `page_state`."""
    seen: collections.deque[str] = collections.deque(maxlen=30)
    _page_events[id(page)] = seen

    def note(text: str) -> None:
        seen.append(f"{time.monotonic():.3f} {text}")

    def on_socket(ws: Any) -> None:
        note(f"websocket opened {ws.url}")
        ws.on("close", lambda _ws: note("websocket closed"))
        ws.on("socketerror", lambda error: note(f"websocket error {error}"))

    page.on("console", lambda m: note(f"console.{m.type}: {m.text}"))
    page.on("pageerror", lambda e: note(f"page error: {e}"))
    page.on("websocket", on_socket)
    page.on("close", lambda _p: _page_events.pop(id(page), None))
    return page


def page_state(page: Any) -> str:
    """What the page shows now: its table version and mode, status line, connection, notice,
    and (for a watched page) its last console messages and websocket events."""
    events = _page_events.get(id(page))
    tail = ("\nits last events:\n  " + "\n  ".join(events)) if events else ""
    try:
        visible = page.evaluate(PAGE_STATE)
        visible["hidden"] = page.evaluate("() => document.visibilityState")
        return f"{visible}{tail}"
    except Exception as exc:  # noqa: BLE001  (a closed or navigating page: say so)
        return f"(page state unreadable: {exc.__class__.__name__}: {exc}){tail}"


def wait_page(page: Any, expression: str, arg: Any = None, *, what: str, timeout: float = 10.0) -> None:
    """Wait until the JS `expression` (a function of `arg`) holds in the page, else fail with
    the page's state and the server log tail."""
    from playwright.sync_api import TimeoutError as PageTimeout

    # Look on a timer, not on animation frames (Playwright's default): a page whose parser waits
    # on a script in <head> is render-blocked and runs no frames, so a condition that came true
    # after the first look (htmx ran while hx-ws.min.js was still held) was never looked at again.
    try:
        page.wait_for_function(expression, arg=arg, timeout=timeout * 1000, polling=POLL * 1000)
    except PageTimeout:
        _fail(what, timeout, page_state(page))


def wait_selector(page: Any, selector: str, *, what: str | None = None, timeout: float = 10.0) -> None:
    from playwright.sync_api import TimeoutError as PageTimeout

    try:
        page.wait_for_selector(selector, timeout=timeout * 1000)
    except PageTimeout:
        _fail(what or f"{selector!r} on the page", timeout, page_state(page))


def wait_version_above(page: Any, before: int, *, timeout: float = 10.0) -> None:
    """Wait for a push that moves the page's table past version `before`."""
    wait_page(
        page,
        "v => { const t = document.getElementById('table'); return t && +t.dataset.version > v; }",
        before,
        what=f"a table above version {before}",
        timeout=timeout,
    )
