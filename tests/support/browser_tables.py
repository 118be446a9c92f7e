"""Tables made in a real browser (Playwright), through the home page's form as a player makes them."""

from __future__ import annotations

from typing import Any


def start_table_to_one_point(page: Any, server: str, *, bots: int, seats: int | None = None) -> None:
    """Anna makes a table with `bots` bots (`seats` seats, or the form's default) whose game ends
    as soon as someone has a point (target 1: a deal's loser is out), and starts it."""
    page.goto(server + "/")
    page.fill("#name", "Anna")
    if seats is not None:
        page.select_option("#seats", str(seats))
    page.select_option("#bots", str(bots))
    page.click("details.options summary")
    page.fill("#opt_target", "1")
    page.click("form.create button[type=submit]")
    page.wait_for_url("**/r/*")
    page.click("[data-key=start]")
