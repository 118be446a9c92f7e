"""A whole Gurka Night recorded by hand through the forms, to the Hall of Fame, and a
correction by an elder that changes the night's winner."""

from __future__ import annotations

import itertools
import re

from app.club import RoundResult
from tests.support.club_nights import new_night

from .helpers import (
    core,
    play_by_hand,
    token,
)


def test_whole_night_by_hand_then_a_correction_changes_the_winner(client) -> None:
    night_id = new_night(client)

    page = client.get(f"/club/nights/{night_id}")
    assert page.status_code == 200
    assert "Base round 1 of 16" in page.text
    assert "15:00" in page.text and "Night food" in page.text
    assert page.text.count('class="tag dealer"') == 3  # a first dealer drawn at each table
    assert f'hx-get="/club/nights/{night_id}/fresh?v=' in page.text  # the whole page stays live
    assert page.text.count(f'action="/club/nights/{night_id}/results"') == 3

    night = play_by_hand(client, night_id, shift_of=lambda stage, rnd, table: rnd % 3)
    assert night.phase == "done"
    winner = night.winner
    page = client.get(f"/club/nights/{night_id}").text
    assert f"{winner} wins and hosts the next night" in page
    assert "Placement" in page and "9 HoF points" in page
    stamp = re.search(r'/fresh\?v=([0-9a-f]+)"', page)
    assert stamp and client.get(f"/club/nights/{night_id}/fresh?v={stamp.group(1)}").status_code == 204

    hof = client.get("/club/hall-of-fame").text
    first_row = re.search(r'<tbody>\s*<tr><td>1</td><th scope="row"><a[^>]*>([^<]+)</a>', hof)
    assert first_row and first_row.group(1) == winner

    # the elders find that the last final round at the final table went otherwise
    finale = [p for p in night.placement()[:3]]
    target = None
    for order in itertools.permutations(night.tables["finale"]):
        for bar_rov in (True, False):
            result = RoundResult(out=[order[0], order[1]], winner=order[2],
                                 took_cards={order[0], order[1]} | (set() if bar_rov else {order[2]}),
                                 agurker={})
            trial = core(client, night_id)
            trial.correct("finals", 6, "finale", result)
            if trial.winner != winner:
                target = (order, bar_rov, trial.winner)
                break
        if target:
            break
    assert target, f"no correction of the last final changes the winner among {finale}"
    order, bar_rov, new_winner = target
    page = client.get(f"/club/nights/{night_id}").text
    result_id = re.search(
        rf'/club/nights/{night_id}/results/(\d+)/correct', page[page.index("Final round 6"):]
    ).group(1)
    form_url = f"/club/nights/{night_id}/results/{result_id}/correct"
    assert "Correct final round 6 at the Finalevinderbord" in client.get(form_url).text
    data = {"csrf": token(client, form_url), "first_out": order[0], "second_out": order[1],
            "winner": order[2], "reason": "Miscounted the last deal"}
    if bar_rov:
        data["bar_rov"] = "yes"
    no_reason = client.post(form_url, data={**data, "reason": " "})
    assert no_reason.status_code == 422 and "Write the reason" in no_reason.text
    response = client.post(form_url, data=data, follow_redirects=False)
    assert response.status_code == 303, response.text

    page = client.get(f"/club/nights/{night_id}").text
    assert f"{new_winner} wins and hosts the next night" in page
    assert "Miscounted the last deal" in page and "corrected by Elsa" in page
    assert "Miscounted the last deal" in client.get("/club/corrections").text
    hof = client.get("/club/hall-of-fame").text
    first_row = re.search(r'<tbody>\s*<tr><td>1</td><th scope="row"><a[^>]*>([^<]+)</a>', hof)
    assert first_row.group(1) == new_winner
    # the winner hosts the next night: the setup form proposes them
    assert f'value="{new_winner}"' in client.get("/club/nights/new").text


def test_a_correction_that_moves_players_offers_to_discard_later_results(client) -> None:
    night_id = new_night(client)
    csrf = token(client, f"/club/nights/{night_id}")
    for _ in range(6):  # two base rounds by chair order
        night = core(client, night_id)
        table = night.pending_tables[0]
        client.post(f"/club/nights/{night_id}/results", data={
            "csrf": csrf, "table": table, "phase": "base", "round": str(night.current.number),
            "first_out": night.tables[table][0], "second_out": night.tables[table][1],
            "winner": night.tables[table][2]})
    night = core(client, night_id)
    assert night.round == 2
    first = night.history("base")[0]
    chairs = list(first.seating["vinder"])
    page = client.get(f"/club/nights/{night_id}").text
    start = page.index("Base round 1</summary>")
    result_id = re.search(rf"/club/nights/{night_id}/results/(\d+)/correct", page[start:]).group(1)
    url = f"/club/nights/{night_id}/results/{result_id}/correct"
    swapped = {"csrf": csrf, "first_out": chairs[1], "second_out": chairs[0], "winner": chairs[2],
               "reason": "The first two went out the other way round"}
    refused = client.post(url, data=swapped)
    assert refused.status_code == 422
    assert 'name="drop_later"' in refused.text
    # a proper sentence with the tables' names, no internal words
    assert re.search(r"With this change to base round 1 at the Vinderbord, the result recorded later for base round 2"
                     r" at the (Vinderbord|Mellanbord|Taberbord) no longer fits \(\w+ is not at the"
                     r" (Vinderbord|Mellanbord|Taberbord) this round\)\. Tick the box below", refused.text), refused.text
    assert not re.search(r"\bat (vinder|mellan|taber)\b", refused.text)
    assert core(client, night_id).round == 2  # nothing changed
    done = client.post(url, data={**swapped, "drop_later": "yes"}, follow_redirects=False)
    assert done.status_code == 303, done.text
    night = core(client, night_id)
    assert night.round == 1 and night.history("base")[0].results["vinder"].first_out == chairs[1]
    page = client.get(f"/club/nights/{night_id}").text
    assert "The first two went out the other way round" in page
    assert "Base round 2 of 16" in page
