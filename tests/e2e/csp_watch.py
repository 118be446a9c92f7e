"""Every browser test fails on a Content-Security-Policy violation (issue 37 item 9).

The `browser` fixture (tests/e2e/conftest.py) hands tests a `WatchedBrowser`: each context it makes
(`new_context`, and the one `new_page` makes) gets, before any page of it runs a script, a
listener for `securitypolicyviolation` that reports to Python through a binding. Whatever a test
did, an inline style set by a script, a style sheet htmx would add, an inline script, a violation
is kept (`SEEN`) and the autouse fixture `csp_violations` fails the test at its end, saying what
was blocked where. A test that causes one on purpose (to show the checks see it) takes it with
`csp_violations.take()`.

`tests/e2e/page_checks.py` reports violations too, but only on the pages a test looks at with it;
this watches every page of every browser test.
"""

from __future__ import annotations

from typing import Any

LISTEN = """(() => {
  document.addEventListener("securitypolicyviolation", (e) => {
    const where = `${e.sourceFile || location.pathname}:${e.lineNumber}:${e.columnNumber}`;
    const said = `${e.effectiveDirective} blocked ${e.blockedURI || "(inline)"} at ${where} on ${location.pathname}` +
                 (e.sample ? ` "${e.sample}"` : "");
    if (window.__gurkaCspViolation) window.__gurkaCspViolation(said);
  }, true);
})();"""

SEEN: list[str] = []


def _heard(_source: Any, said: str) -> None:
    SEEN.append(str(said))


def watch(context: Any) -> Any:
    """Listen for violations on every page of `context` (call before its pages load anything)."""
    context.expose_binding("__gurkaCspViolation", _heard)
    context.add_init_script(LISTEN)
    return context


class WatchedBrowser:
    """A Playwright browser whose every context is `watch`ed; anything else goes to the browser."""

    def __init__(self, browser: Any) -> None:
        self._browser = browser

    def new_context(self, **options: Any) -> Any:
        return watch(self._browser.new_context(**options))

    def new_page(self, **options: Any) -> Any:
        context = watch(self._browser.new_context(**options))
        page = context.new_page()
        page.on("close", lambda _page: context.close())  # as Browser.new_page's own context goes
        return page

    def __getattr__(self, name: str) -> Any:
        return getattr(self._browser, name)


class Violations:
    """What the watched pages reported during one test."""

    def take(self) -> list[str]:
        """The violations seen so far, claimed by the test (they no longer fail it)."""
        taken = list(SEEN)
        SEEN.clear()
        return taken
