"""Ratings for the club, from results typed in by hand: after round 1 every table's winner has
the hand-worked rating of a first result (see tests/ratings/test_engine.py), an elder's
correction moves them, the next round moves them again, and `gurka ratings` prints the same."""

from __future__ import annotations

import re
from typing import Any

from app.main import print_ratings
from app.ratings.engine import MU, SIGMA
from tests.support.club_nights import new_night
from tests.web.club.helpers import (
    NINE,
    core,
    token,
)

WINNER, SECOND, THIRD = (27.869, 8.205), (25.717, 8.058), (21.414, 8.058)


def row_of(page: str, name: str) -> tuple[float, float, float, int]:
    """(rating, mu, sigma, results) of `name`'s row in the ratings table."""
    m = re.search(rf'>{re.escape(name)}</a></th><td class="num pts">(-?[\d.]+)</td>\s*<td class="num">(-?[\d.]+)</td>'
                  rf'<td class="num">([\d.]+)</td><td class="num">(\d+)</td>', page)
    assert m, f"no row for {name}"
    return float(m[1]), float(m[2]), float(m[3]), int(m[4])


def record_round(client: Any, night_id: int, csrf: str, order: dict[str, tuple[int, int, int]]) -> None:
    """Each table's chairs (first out, second out, winner) by chair index."""
    night = core(client, night_id)
    for table, (first, second, winner) in order.items():
        chairs = night.tables[table]
        response = client.post(f"/club/nights/{night_id}/results", data={
            "csrf": csrf, "table": table, "phase": "base", "round": str(night.current.number),
            "first_out": chairs[first], "second_out": chairs[second], "winner": chairs[winner],
            **({"bar_rov": "yes"} if table == "taber" else {}), "agurk_0": "1"}, follow_redirects=False)
        assert response.status_code == 303, response.text


def test_ratings_move_with_each_round_and_with_a_correction(client: Any, capsys: Any) -> None:
    night_id = new_night(client)
    csrf = token(client, f"/club/nights/{night_id}")
    assert "No results yet" in client.get("/club/ratings").text

    record_round(client, night_id, csrf, {t: (0, 1, 2) for t in ("vinder", "mellan", "taber")})
    seating = core(client, night_id).history("base")[0].seating
    page = client.get("/club/ratings").text
    for table, chairs in seating.items():
        for name, (mu, sigma) in zip(chairs[::-1], (WINNER, SECOND, THIRD)):
            rating, shown_mu, shown_sigma, results = row_of(page, name)
            assert (shown_mu, shown_sigma, results) == (round(mu, 1), round(sigma, 2), 1), (table, name)
            assert rating == round(mu - 3 * sigma, 1)
    # per rule set: the winners' win, the first out's place 3, agurker (chair 0), bar røv at the Taberbord
    stats = re.search(r"<h2>Gurka Night \(Danish club\)</h2>(.*?)</table>", page, re.DOTALL)[1]  # type: ignore[index]
    taber_winner = seating["taber"][2]
    assert re.search(rf">{taber_winner}</a></th><td class=\"num\">1</td><td class=\"num\">1</td>"
                     r"<td class=\"num\">1.00</td><td class=\"num\">0</td><td class=\"num\">1</td>", stats)
    first_out = seating["vinder"][0]
    assert re.search(rf">{first_out}</a></th><td class=\"num\">1</td><td class=\"num\">0</td>"
                     r"<td class=\"num\">3.00</td><td class=\"num\">1</td><td class=\"num\">0</td>", stats)

    # an elder corrects the Vinderbord: the first out really won; the ratings follow
    night_page = client.get(f"/club/nights/{night_id}").text
    start = night_page.index("Base round 1</summary>")
    result_ids = re.findall(rf"/club/nights/{night_id}/results/(\d+)/correct", night_page[start:])
    chairs = seating["vinder"]
    for result_id in result_ids:
        form = client.get(f"/club/nights/{night_id}/results/{result_id}/correct").text
        if chairs[0] in form and chairs[1] in form:
            break
    done = client.post(f"/club/nights/{night_id}/results/{result_id}/correct", data={
        "csrf": csrf, "first_out": chairs[2], "second_out": chairs[1], "winner": chairs[0],
        "reason": "The scorer swapped the winner and the first out"}, follow_redirects=False)
    assert done.status_code == 303, done.text
    page = client.get("/club/ratings").text
    assert row_of(page, chairs[0])[1:3] == (round(WINNER[0], 1), round(WINNER[1], 2))
    assert row_of(page, chairs[2])[1:3] == (round(THIRD[0], 1), round(THIRD[1], 2))

    after_one = {name: row_of(page, name) for name in NINE}

    # round 2: every player has two results, and the table is ordered by rating
    record_round(client, night_id, csrf, {t: (0, 1, 2) for t in ("vinder", "mellan", "taber")})
    page = client.get("/club/ratings").text
    rows = {name: row_of(page, name) for name in NINE}
    assert all(r[3] == 2 for r in rows.values())
    assert all(rows[n][2] < after_one[n][2] for n in NINE)  # more sure of everyone
    shown = [float(x) for x in re.findall(r'<td class="num pts">(-?[\d.]+)</td>', page)]
    assert shown == sorted(shown, reverse=True) and len(shown) == 9
    assert page.count('class="rating-spark"') == 9

    # the player page: rating, uncertainty, the chart and the stats per rule set
    name = chairs[0]
    player = client.get(f"/club/players/{name}").text
    assert 'id="rating"' in player and 'class="rating-chart"' in player
    assert f"{rows[name][0]:.1f}" in player and player.count('<circle class="pt"') == 2
    assert "Gurka Night (Danish club)" in player.split('id="rating"', 1)[1]

    # the command prints the same table, the same each time
    print_ratings(client.app.state.settings)
    once = capsys.readouterr().out
    print_ratings(client.app.state.settings)
    assert capsys.readouterr().out == once
    assert once.startswith("6 results, 9 players")
    best = max(rows.items(), key=lambda kv: kv[1][0])
    top = once.splitlines()[1].split()
    assert top[0] == "1" and top[-1] == best[0]
    assert abs(float(top[1]) - best[1][0]) <= 0.05 and abs(float(top[3]) - best[1][1]) <= 0.05
    assert MU - 3 * SIGMA == 0
