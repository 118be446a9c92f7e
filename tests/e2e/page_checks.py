"""What every page must be, checked in a real browser while a test walks through the app.

- **No wider than a phone**: `document.documentElement.scrollWidth` at most `limit` (360 px) at
  every moment: when the page has loaded and after every change of its DOM (a push, a swap, a
  countdown tick), watched by a MutationObserver the test adds to every page before it runs.
- **Nothing the Content-Security-Policy blocks**: every `securitypolicyviolation` event the page
  fires (an inline style, a style sheet htmx would add, an inline script) is a finding.
- **No serious or critical axe-core finding** (WCAG A/AA and axe's best practices), with the
  axe-core release vendored in tests/e2e/vendor/axe-core (scripts/vendor_axe.sh): the tests
  need no network. axe is put into the page by Playwright (DevTools evaluation, which the
  page's CSP does not govern), not by a <script> the CSP would refuse.

Findings are collected and reported together at the end (`Checks.assert_clean`), each with the
page it was seen on, so one run shows everything that is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

AXE_SOURCE = (Path(__file__).resolve().parent / "vendor" / "axe-core" / "axe.min.js").read_text()
PHONE_WIDTH = 360
SERIOUS = ("serious", "critical")

# Added to every page of the context before its own scripts run (a new document each navigation).
WATCH = """(() => {
  const seen = window.__pageChecks = { csp: [], widest: 0, when: "", wide: [] };
  const limit = %(limit)d;
  document.addEventListener("securitypolicyviolation", (e) => {
    seen.csp.push(`${e.effectiveDirective} blocked ${e.blockedURI || "(inline)"} at ${e.sourceFile || location.pathname}:${e.lineNumber}` +
                  (e.sample ? ` "${e.sample}"` : ""));
  }, true);
  const describe = (el) => {
    const r = el.getBoundingClientRect();
    const classes = el.classList && el.classList.length ? "." + Array.from(el.classList).join(".") : "";
    const text = (el.innerText || el.textContent || "").replace(/\\s+/g, " ").trim().slice(0, 50);
    return `${el.tagName.toLowerCase()}${el.id ? "#" + el.id : ""}${classes} (${Math.round(r.left)}..${Math.round(r.right)} px) "${text}"`;
  };
  const measure = (when) => {
    const width = document.documentElement.scrollWidth;
    if (width <= seen.widest) return;
    seen.widest = width;
    const table = document.getElementById("table");
    seen.when = when + (table ? ` (table version ${table.dataset.version}, ${table.dataset.mode})` : "");
    if (width > limit) {  // what sticks out (itself, or its content), innermost last
      const out = (el) => Math.max(el.getBoundingClientRect().right,
                                   el.getBoundingClientRect().left + el.scrollWidth) > limit + 0.5;
      seen.wide = Array.from(document.querySelectorAll("body *")).filter(out).slice(-6).map(describe);
    }
  };
  window.__measureWidth = measure;
  addEventListener("load", () => {
    measure("on load");
    new MutationObserver(() => measure("after a change of the page")).observe(
      document, { subtree: true, childList: true, attributes: true, characterData: true });
  });
})();"""

AXE_RUN = """async (impacts) => {
  const result = await axe.run(document, { resultTypes: ["violations"] });
  return result.violations.filter((v) => impacts.includes(v.impact)).map((v) => ({
    id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.slice(0, 6).map((n) => n.target.join(" ") + ": " + (n.failureSummary || "").replace(/\\s+/g, " ").trim()),
    more: Math.max(0, v.nodes.length - 6),
  }));
}"""


@dataclass
class Checks:
    """The findings of one walk through the app (one browser context: `watch` it first)."""

    limit: int = PHONE_WIDTH
    findings: list[str] = field(default_factory=list)
    looked: list[str] = field(default_factory=list)

    def watch(self, context: Any) -> Any:
        context.add_init_script(WATCH % {"limit": self.limit})
        return context

    def look(self, page: Any, what: str, *, axe: bool = True) -> None:
        """Check the page as it is now, and everything it went through since it was loaded."""
        where = f"{what} ({page.url.split('//', 1)[-1].split('/', 1)[-1] or '/'})"
        self.looked.append(what)
        page.evaluate("() => window.__measureWidth && window.__measureWidth('when looked at')")
        seen = page.evaluate("() => window.__pageChecks || null")
        if seen is None:
            self.findings.append(f"{where}: the page checks were not installed")
            return
        if seen["widest"] > self.limit:
            wide = "".join(f"\n      {w}" for w in seen["wide"])
            self.findings.append(f"{where}: {seen['widest']} px wide on a {self.limit} px screen, "
                                 f"{seen['when']}; sticking out:{wide}")
        for violation in seen["csp"]:
            self.findings.append(f"{where}: Content-Security-Policy: {violation}")
        # the findings are the page's: start again, so the next look reports only new ones
        page.evaluate("() => { const s = window.__pageChecks; s.csp = []; s.widest = 0; s.wide = []; }")
        if axe:
            self.axe(page, where)

    def axe(self, page: Any, where: str) -> None:
        if not page.evaluate("() => !!window.axe"):
            page.evaluate(AXE_SOURCE + "\n;0")
        for v in page.evaluate(AXE_RUN, list(SERIOUS)):
            nodes = "".join(f"\n      {n}" for n in v["nodes"])
            more = f"\n      … and {v['more']} more" if v["more"] else ""
            self.findings.append(f"{where}: axe {v['impact']} {v['id']}: {v['help']}{nodes}{more}")

    def visit(self, page: Any, url: str, what: str, *, axe: bool = True) -> None:
        page.goto(url)
        page.wait_for_load_state("load")
        self.look(page, what, axe=axe)

    def assert_clean(self) -> None:
        assert self.looked, "no page was looked at"
        assert not self.findings, (f"{len(self.findings)} finding(s) on {len(self.looked)} looks:\n  "
                                   + "\n  ".join(self.findings))

