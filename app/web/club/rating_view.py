"""The ratings as the club pages show them: rows of the ratings table, and each member's rating
history laid out as a chart (every coordinate worked out here; the markup is
templates/club/_rating_chart.html)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from app.i18n import _
from app.i18n.jinja import day
from app.ratings.engine import MU, SIGMA, Rated


@dataclass(frozen=True)
class RatingChart:
    """A member's estimate (mu, the line) with its uncertainty (mu ± 3 sigma, the band) after
    each result; the rating is the band's lower edge."""

    title: str
    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    rows: list[tuple[int, float]]  # (value, y) of each grid line
    band: str  # the uncertainty band, a closed path
    line: str  # mu
    rating: str  # mu - 3 sigma
    points: list[dict[str, Any]]  # each result: x, y, label, axis label (or "")


def rating_chart(rated: Rated, *, title: str) -> RatingChart | None:
    if not rated.history:
        return None
    width, height = 640, 240
    left, right, top, bottom = 40, 14, 14, 34
    values = [(MU, SIGMA)] + [(p.mu, p.sigma) for p in rated.history]
    low = math.floor(min(m - 3 * s for m, s in values) / 5) * 5
    high = math.ceil(max(m + 3 * s for m, s in values) / 5) * 5
    span = max(high - low, 5)
    n = len(values)
    inner_w, inner_h = width - left - right, height - top - bottom

    def x(i: int) -> float:
        return left + inner_w * i / (n - 1)

    def y(v: float) -> float:
        return top + inner_h * (high - v) / span

    step_v = 5 if span <= 30 else 10 if span <= 60 else 20
    upper = [f"{x(i):.1f},{y(m + 3 * s):.1f}" for i, (m, s) in enumerate(values)]
    lower = [f"{x(i):.1f},{y(m - 3 * s):.1f}" for i, (m, s) in reversed(list(enumerate(values)))]
    # the day under the first result of each day, at most about six of them
    days = [p.on.date() for p in rated.history]
    firsts = [i for i, d in enumerate(days, start=1) if i == 1 or d != days[i - 2]]
    keep = set(firsts[:: max(1, (len(firsts) + 5) // 6)])
    points = []
    for i, p in enumerate(rated.history, start=1):
        points.append({
            "x": x(i), "y": y(p.mu),
            "label": _("%(day)s: place %(place)s of %(players)s, rating %(rating)s (μ %(mu)s, σ %(sigma)s)",
                       day=day(p.on, "short"), place=p.place, players=p.players, rating=f"{p.rating:.1f}",
                       mu=f"{p.mu:.1f}", sigma=f"{p.sigma:.1f}"),
            "axis": day(p.on, "short") if i in keep else "",
        })
    return RatingChart(
        title=title, width=width, height=height, left=left, right=right, top=top, bottom=bottom,
        rows=[(v, y(v)) for v in range(int(low), int(high) + 1, step_v)],
        band="M" + " L".join(upper + lower) + " Z",
        line=" ".join(f"{'M' if i == 0 else 'L'}{x(i):.1f},{y(m):.1f}" for i, (m, _s) in enumerate(values)),
        rating=" ".join(f"{'M' if i == 0 else 'L'}{x(i):.1f},{y(m - 3 * s):.1f}" for i, (m, s) in enumerate(values)),
        points=points,
    )


def sparkline(rated: Rated, *, width: int = 120, height: int = 28) -> str:
    """The rating's path over its results, for a small chart in a table row."""
    values = [MU - 3 * SIGMA] + [p.rating for p in rated.history]
    low, high = min(values), max(values)
    span = (high - low) or 1.0
    n = len(values)
    return " ".join(f"{'M' if i == 0 else 'L'}{(width - 4) * i / max(n - 1, 1) + 2:.1f},"
                    f"{2 + (height - 4) * (high - v) / span:.1f}" for i, v in enumerate(values))
