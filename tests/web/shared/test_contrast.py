"""WCAG AA contrast (4.5:1) for the text and tags the style sheets colour: every rule that sets
both a text colour and a background, and every text colour used on the page's paper.

A quick check of each sheet's own colour pairs, kept beside the browser walk that runs axe-core
on every page kind (tests/e2e/test_every_page_browser.py, test_every_club_page_browser.py):
that one sees colours as composed on the page (opacity, inherited grounds) but only in the
states the walk reaches; this one sees every rule, reached or not."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

STATIC = Path(__file__).resolve().parents[3] / "static" / "css"
CSS = STATIC / "app.css"  # its :root holds the colours every sheet uses
SHEETS = ["app.css", "club.css", "club_table.css", "talk.css", "rules.css", "home_night.css"]
AA = 4.5
# Text whose background comes from its container (or a gradient): the darkest/lightest stop
# it may sit on, by selector.
GROUND_OF = {".topbar a": "--felt-2", ".felt": "#2a7a50", ".programme li.now time": "--felt",
             ".programme li.now .actual": "--felt",
             # the board for a TV: light text on its dark ground, or on its lighter panels
             ".board h1, .board h2": "#1d4731", ".board-night": "#0f2419", ".board-clock": "#0f2419",
             ".board .dealer-notes": "#173a28", ".board-placement .hof-pts": "#173a28"}


def luminance(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    if len(h) == 3:
        h = "".join(c * 2 for c in h)
    channels = [int(h[i:i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def ratio(a: str, b: str) -> float:
    la, lb = sorted((luminance(a), luminance(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def rules(sheet: str = "app.css") -> tuple[dict[str, str], list[tuple[str, dict[str, str]]]]:
    text = re.sub(r"/\*.*?\*/", "", (STATIC / sheet).read_text(), flags=re.DOTALL)
    variables = dict(re.findall(r"(--[\w-]+)\s*:\s*(#[0-9a-fA-F]{3,6})\b", CSS.read_text()))
    variables.update(re.findall(r"(--[\w-]+)\s*:\s*(#[0-9a-fA-F]{3,6})\b", text))
    found = []
    for selector, body in re.findall(r"([^{}]+)\{([^{}]*)\}", text):
        props = {}
        for name, value in re.findall(r"(?:^|;)\s*(color|background(?:-color)?)\s*:\s*([^;]+)", body):
            value = value.strip()
            var = re.fullmatch(r"var\((--[\w-]+)(?:,\s*(#[0-9a-fA-F]{3,6}))?\)", value)
            if var:  # the variable's colour, else the fallback written beside it
                value = variables.get(var.group(1)) or var.group(2) or value
            if re.fullmatch(r"#[0-9a-fA-F]{3,6}", value):
                props["background" if name.startswith("background") else "color"] = value
        found.append((selector.strip(), props))
    return variables, found


@pytest.mark.parametrize("sheet", SHEETS)
def test_text_and_tags_meet_wcag_aa(sheet: str) -> None:
    variables, found = rules(sheet)
    paper, white = variables["--paper"], "#fff"
    checked, failures = 0, []
    for selector, props in found:
        if "color" not in props:
            continue
        if selector in GROUND_OF:
            ground_of = GROUND_OF[selector]
            grounds = [variables.get(ground_of, ground_of)]
        elif "background" in props:
            grounds = [props["background"]]
        else:
            grounds = [paper, white]
        for ground in grounds:
            checked += 1
            r = ratio(props["color"], ground)
            if r < AA:
                failures.append(f"{selector}: {props['color']} on {ground} is {r:.2f}:1")
    assert checked > (30 if sheet == "app.css" else 3)
    assert not failures, "\n".join(failures)


def test_the_ratio_formula_matches_known_values() -> None:
    assert round(ratio("#000", "#fff"), 1) == 21.0
    assert round(ratio("#777", "#fff"), 2) == 4.48  # the classic just-too-light grey
