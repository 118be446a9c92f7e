"""A night on real cards recorded from its tables' phones (issue 27): the same standings,
placement and Hall of Fame points as the same results typed on the night page; a result sent
twice recorded once; two phones at one table: one result and a conflict; a wrong or stale
link refused without a word about the night; taking a result back; elders stay in charge."""

from __future__ import annotations

import re
import threading
from typing import Any

from sqlmodel import select

from app.club import RoundResult
from app.store import members as member_store
from app.store import nights as night_store
from app.store import results as result_store
from app.store import table_phones as phone_store
from app.store.db import session_scope
from app.web.club import table_links as links_module

from .helpers import (
    NINE,
    add_members,
    become_elder,
    core,
    create_night,
    personal_link,
    setup_form,
    token,
)
from .phones import Phone, table_links

TABLE_ORDER = ["vinder", "mellan", "taber", "finale", "mellanfinale", "taberfinale"]


def result_for(stage: str, number: int, table: str, chairs: list[str]) -> RoundResult:
    """A result that varies by round and table: who goes out, bar røv, agurker."""
    k = (number + TABLE_ORDER.index(table) * (2 if stage == "finals" else 1)) % 3
    order = [chairs[(i + k) % 3] for i in range(3)]
    bar_rov = (number + TABLE_ORDER.index(table)) % 5 == 0
    agurker = {order[0]: 1} if number % 4 == 0 else {order[1]: 2} if number % 7 == 0 else {}
    took = {order[0], order[1]} | (set() if bar_rov else {order[2]})
    return RoundResult(out=[order[0], order[1]], winner=order[2], took_cards=took, agurker=agurker)


def hand_form(result: RoundResult, chairs: list[str]) -> dict[str, str]:
    data = {"first_out": result.first_out, "second_out": result.second_out, "winner": result.winner}
    if result.bar_rov:
        data["bar_rov"] = "yes"
    for i, name in enumerate(chairs):
        data[f"agurk_{i}"] = str(result.agurk(name))
    return data


def record_playoff(client: Any, night_id: int, csrf: str) -> None:
    group = core(client, night_id).playoffs[0]
    data = {"csrf": csrf, "group": "0", **{f"place_{i}": p for i, p in enumerate(group)}}
    assert client.post(f"/club/nights/{night_id}/playoff", data=data, follow_redirects=False).status_code == 303


def night_pair(client: Any) -> tuple[int, int]:
    """Two nights with the same players, seed and so the same lots: one for phones, one by hand."""
    become_elder(client)
    ids = add_members(client, NINE)
    by_phone = create_night(client, setup_form(ids, NINE))
    by_hand = create_night(client, setup_form(ids, NINE))
    with session_scope(client.app.state.engine) as session:
        seed = night_store.get_night(session, night_id=by_phone).seed  # type: ignore[union-attr]
        row = night_store.get_night(session, night_id=by_hand)
        assert row is not None
        row.seed = seed
        session.add(row)
    return by_phone, by_hand


def test_a_night_from_three_table_phones_ends_as_the_same_night_typed_on_the_night_page(client) -> None:
    by_phone, by_hand = night_pair(client)
    csrf = token(client, f"/club/nights/{by_hand}")
    phones = {table: Phone(client, link) for table, link in table_links(client, by_phone).items()}
    sent = 0
    offered = False
    for _ in range(200):
        night = core(client, by_phone)
        if night.phase == "done":
            break
        if night.stage == "finals" and not offered:  # the base table's phone goes on to its final table
            page = phones["vinder"].page()
            assert "The base rounds are over" in page and "Go on as the Finalevinderbord" in page
            assert f'href="{phones["finale"].link}"' in page
            offered = True
        if night.phase == "playoff":  # a playoff is an elder's, on both nights alike
            record_playoff(client, by_phone, csrf)
            continue
        for table in night.pending_tables:
            chairs = night.tables[table]
            status, answer = phones[table].send(result_for(night.stage, night.current.number, table, chairs),
                                                chairs=chairs)
            assert (status, answer["outcome"]) == (200, "saved"), answer
            sent += 1
    assert sent == 16 * 3 + 6 * 3

    for _ in range(200):
        night = core(client, by_hand)
        if night.phase == "done":
            break
        if night.phase == "playoff":
            record_playoff(client, by_hand, csrf)
            continue
        table = night.pending_tables[0]
        chairs = night.tables[table]
        data = {"csrf": csrf, "table": table, "phase": night.stage, "round": str(night.current.number),
                **hand_form(result_for(night.stage, night.current.number, table, chairs), chairs)}
        response = client.post(f"/club/nights/{by_hand}/results", data=data, follow_redirects=False)
        assert response.status_code == 303, response.text

    phone_night, hand_night = core(client, by_phone), core(client, by_hand)
    assert phone_night.phase == hand_night.phase == "done"
    assert phone_night.standings("base") == hand_night.standings("base")
    assert phone_night.standings("finals") == hand_night.standings("finals")
    assert phone_night.placement() == hand_night.placement()
    assert phone_night.hall_of_fame() == hand_night.hall_of_fame()
    with session_scope(client.app.state.engine) as session:
        rows = result_store.list_results(session, night_id=by_phone)
        states = [night_store.get_night(session, night_id=n).state for n in (by_phone, by_hand)]  # type: ignore[union-attr]
    assert {r.source for r in rows if r.phase != "playoff"} == {"phone"}
    assert states[0]["placement"] == states[1]["placement"] == phone_night.placement()
    # the Hall of Fame counts both nights alike: the winner has 9 + 9 points
    hof = client.get("/club/hall-of-fame").text
    first = re.search(r'<tbody>\s*<tr><td>1</td><th scope="row"><a[^>]*>([^<]+)</a>', hof)
    assert first and first.group(1) == phone_night.winner
    # and the board shows that placement
    board = client.get(f"/club/nights/{by_phone}/board").text
    assert f"{phone_night.winner} wins the night" in board and "9 HoF points" in board


def test_a_result_sent_twice_is_recorded_once(client) -> None:
    by_phone, _ = night_pair(client)
    phone = Phone(client, table_links(client, by_phone)["mellan"])
    chairs = core(client, by_phone).tables["mellan"]
    fields = phone.form()
    result = result_for("base", 1, "mellan", chairs)
    first = phone.send(result, fields=fields, chairs=chairs)
    again = phone.send(result, fields=fields, chairs=chairs)  # the answer was lost: the phone sends again
    assert first == again == (200, {"outcome": "saved", "message": "Saved: base round 1 at the Mellanbord."})
    with session_scope(client.app.state.engine) as session:
        rows = result_store.list_results(session, night_id=by_phone)
    assert [(r.phase, r.round, r.table, r.source) for r in rows] == [("base", 1, "mellan", "phone")]
    assert rows[0].result == result.to_dict()
    assert "Recorded: base round 1 at the Mellanbord" in phone.page()


def test_an_entry_id_sent_for_another_table_or_round_is_refused_and_records_nothing(both_client: Any) -> None:
    """Issue 37 item 8: an entry id is the same entry only at the same night, table, stage and
    round; sent for anything else it is refused with a clear message (the phone keeps it)."""
    client = both_client
    by_phone, _ = night_pair(client)
    links = table_links(client, by_phone)
    vinder, mellan = Phone(client, links["vinder"]), Phone(client, links["mellan"])
    tables = core(client, by_phone).tables
    fields = vinder.form()
    assert fields["phase"] == "base" and fields["round"] == "1"
    assert vinder.send(result_for("base", 1, "vinder", tables["vinder"]), fields=fields,
                       chairs=tables["vinder"])[0] == 200
    # the Vinderbord's entry id at the Mellanbord
    status, answer = mellan.send(result_for("base", 1, "mellan", tables["mellan"]), fields=fields,
                                 chairs=tables["mellan"])
    assert (status, answer["outcome"]) == (409, "mismatch"), answer
    assert answer["message"] == ("Not saved: this result's entry was already used for base round 1 at the "
                                 "Vinderbord, not base round 1 at the Mellanbord. It stays on this phone: "
                                 "show it to an elder, who can enter it on the night page.")
    # the same entry id at its own table for another round
    status, answer = vinder.send(result_for("base", 1, "vinder", tables["vinder"]),
                                 fields={**fields, "round": "2"}, chairs=tables["vinder"])
    assert (status, answer["outcome"]) == (409, "mismatch"), answer
    assert "base round 2 at the Vinderbord" in answer["message"]
    with session_scope(client.app.state.engine) as session:
        rows = result_store.list_results(session, night_id=by_phone)
    assert [(r.phase, r.round, r.table) for r in rows] == [("base", 1, "vinder")]
    assert "data-result-form" in mellan.page()  # the Mellanbord's round is still open
    # the same entry at the same slot is still the repeat it always was
    assert vinder.send(result_for("base", 1, "vinder", tables["vinder"]), fields=fields,
                       chairs=tables["vinder"]) == (200, {"outcome": "saved",
                                                          "message": "Saved: base round 1 at the Vinderbord."})


def test_two_phones_racing_on_one_table_give_one_result_and_a_conflict(client) -> None:
    by_phone, _ = night_pair(client)
    link = table_links(client, by_phone)["taber"]
    chairs = core(client, by_phone).tables["taber"]
    ann, bo = Phone(client, link), Phone(client, link)
    forms = [ann.form(), bo.form()]
    assert forms[0]["entry"] != forms[1]["entry"]  # each drawn form is its own entry
    results = [result_for("base", 1, "taber", chairs), result_for("base", 2, "taber", chairs)]
    assert results[0].to_dict() != results[1].to_dict()
    start = threading.Barrier(2)
    answers: list[tuple[int, dict[str, Any]]] = [(0, {})] * 2

    def send(i: int, phone: Phone) -> None:
        start.wait()
        answers[i] = phone.send(results[i], fields=forms[i], chairs=chairs)

    threads = [threading.Thread(target=send, args=(i, p)) for i, p in enumerate((ann, bo))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    outcomes = sorted((status, answer["outcome"]) for status, answer in answers)
    assert outcomes == [(200, "saved"), (409, "conflict")], answers
    loser = next(answer for status, answer in answers if status == 409)
    assert "already recorded" in loser["message"] and "Not saved" in loser["message"]
    with session_scope(client.app.state.engine) as session:
        rows = result_store.list_results(session, night_id=by_phone)
    assert len(rows) == 1
    winner = answers.index(next(a for a in answers if a[0] == 200))
    assert rows[0].result == results[winner].to_dict()
    # the conflict names the result that stands
    standing = results[winner]
    assert f"{standing.winner} won" in loser["message"]


def test_a_wrong_or_stale_table_link_is_refused_and_says_nothing_of_the_night(client) -> None:
    by_phone, _ = night_pair(client)
    links = table_links(client, by_phone)
    good = links["vinder"]
    secret = good.rsplit("/", 1)[1]
    wrong = good[:-1] + ("A" if good[-1] != "A" else "B")
    csrf = token(client, f"/club/nights/{by_phone}")
    assert client.post(f"/club/nights/{by_phone}/table-links", data={"csrf": csrf, "table": "vinder"},
                       follow_redirects=False).status_code == 303
    fresh = table_links(client, by_phone)
    assert fresh["vinder"] != good and fresh["mellan"] == links["mellan"]  # only that table's link is new
    online = create_night(client, {**setup_form({m: i for m, i in _ids(client).items()}, NINE), "mode": "online"})
    refusals = {
        "wrong": wrong,
        "stale": good,
        "another table": f"/club/nights/{by_phone}/table/mellan/{secret}",
        "no such table": f"/club/nights/{by_phone}/table/kitchen/{secret}",
        "no such night": f"/club/nights/999/table/vinder/{secret}",
        "an online night": f"/club/nights/{online}/table/vinder/{secret}",
        "too long": f"/club/nights/{by_phone}/table/vinder/{'x' * 500}",
    }
    night_words = [*NINE, "Gurka Night", "Vinderbord", "Base round"]
    bodies = set()
    for what, link in refusals.items():
        page = client.get(link)
        assert page.status_code == 404, what
        for word in night_words:
            assert not re.search(rf"\b{word}\b", page.text), (what, word)
        bodies.add(re.sub(r'\?next=[^"]*"', "", page.text))  # the language switch leads back to the link typed
        posted = client.post(link + "/results", data={"entry": "a" * 24, "phase": "base", "round": "1",
                                                      "first_out": NINE[0], "second_out": NINE[1]},
                             headers={"Accept": "application/json"})
        assert posted.status_code == 404 and posted.json()["outcome"] == "refused", what
        assert not any(re.search(rf"\b{word}\b", posted.text) for word in night_words), what
        polled = client.get(link + "/fresh?v=x")
        assert polled.status_code == 404 and "does not work" in polled.text
        assert 'hx-trigger' not in polled.text  # the refusal takes the page's place and the polling ends
    assert len(bodies) == 1, "every refusal is the same page"
    with session_scope(client.app.state.engine) as session:
        assert result_store.list_results(session, night_id=by_phone) == []
    assert client.get(fresh["vinder"]).status_code == 200  # the new link works


def test_wrong_table_links_are_throttled_per_address(client) -> None:
    by_phone, _ = night_pair(client)
    good = table_links(client, by_phone)["taber"]
    for i in range(links_module.WRONG_FREE):
        assert client.get(good[:-3] + f"{i:03d}").status_code == 404
    throttled = client.get(good[:-3] + "zzz")
    assert throttled.status_code == 429 and "Too many wrong table links" in throttled.text
    assert client.get(good).status_code == 429  # while it waits, no link is checked at all
    assert client.get(good + "/fresh?v=x").status_code == 204  # an open phone keeps polling quietly


def test_a_phone_takes_its_result_back_until_the_round_is_complete(client) -> None:
    by_phone, _ = night_pair(client)
    links = table_links(client, by_phone)
    night = core(client, by_phone)
    phone = Phone(client, links["vinder"])
    chairs = night.tables["vinder"]
    fields = phone.form()
    wrong = result_for("base", 1, "vinder", chairs)
    assert phone.send(wrong, fields=fields, chairs=chairs)[0] == 200
    assert phone.take_back() == (200, {"outcome": "taken_back",
                                       "message": "Taken back: base round 1 at the Vinderbord can be entered again."})
    assert core(client, by_phone).pending_tables == ["vinder", "mellan", "taber"]
    # the taken-back entry, sent again by a phone that kept it, stays taken back
    status, answer = phone.send(wrong, fields=fields, chairs=chairs)
    assert (status, answer["outcome"]) == (409, "undone")
    right = result_for("base", 2, "vinder", chairs)
    assert phone.send(right, chairs=chairs)[0] == 200
    for table in ("mellan", "taber"):
        Phone(client, links[table]).send(result_for("base", 1, table, night.tables[table]),
                                         chairs=night.tables[table])
    # the round is complete: the next round is seated, the moves are shown, nothing to take back
    page = phone.page()
    assert "Base round 1 is complete: the moves" in page and "Base round 2 of 16" in page
    assert "data-undo-form" not in page
    with session_scope(client.app.state.engine) as session:
        rows = result_store.list_results(session, night_id=by_phone)
    assert next(r for r in rows if r.table == "vinder").result == right.to_dict()


def test_an_elders_result_is_not_the_phones_to_take_back_and_a_late_phone_gets_a_conflict(client) -> None:
    by_phone, _ = night_pair(client)
    phone = Phone(client, table_links(client, by_phone)["mellan"])
    fields = phone.form()  # the phone's form is drawn before the elder types the result
    chairs = core(client, by_phone).tables["mellan"]
    csrf = token(client, f"/club/nights/{by_phone}")
    typed = result_for("base", 1, "mellan", chairs)
    response = client.post(f"/club/nights/{by_phone}/results", follow_redirects=False,
                           data={"csrf": csrf, "table": "mellan", "phase": "base", "round": "1",
                                 **hand_form(typed, chairs)})
    assert response.status_code == 303
    page = phone.page()
    assert "Recorded: base round 1 at the Mellanbord" in page and "data-undo-form" not in page
    assert "an elder can correct it" in page
    status, answer = phone.send(result_for("base", 2, "mellan", chairs), fields=fields, chairs=chairs)
    assert (status, answer["outcome"]) == (409, "conflict")
    same = phone.send(typed, fields=phone_form_like(fields), chairs=chairs)
    assert same[0] == 200 and "already recorded with this same result" in same[1]["message"]


def phone_form_like(fields: dict[str, str]) -> dict[str, str]:
    return {**fields, "entry": fields["entry"][::-1]}


def test_phone_results_are_marked_for_the_elders_who_can_correct_them(client) -> None:
    by_phone, _ = night_pair(client)
    phone = Phone(client, table_links(client, by_phone)["vinder"])
    chairs = core(client, by_phone).tables["vinder"]
    assert phone.send(result_for("base", 1, "vinder", chairs), chairs=chairs)[0] == 200
    page = client.get(f"/club/nights/{by_phone}").text
    assert page.count("table phone") >= 2  # the table's card and the recorded results
    with session_scope(client.app.state.engine) as session:
        row = result_store.list_results(session, night_id=by_phone)[0]
    correct = client.get(f"/club/nights/{by_phone}/results/{row.id}/correct").text
    assert "This result was sent from the Vinderbord's phone." in correct
    fixed = result_for("base", 2, "vinder", chairs)
    response = client.post(f"/club/nights/{by_phone}/results/{row.id}/correct", follow_redirects=False,
                           data={"csrf": token(client, f"/club/nights/{by_phone}"), "reason": "Swapped names",
                                 **hand_form(fixed, chairs)})
    assert response.status_code == 303, response.text
    log = client.get("/club/corrections").text
    assert "table phone" in log and "Swapped names" in log
    assert "table phone" in client.get(f"/club/nights/{by_phone}").text.split('id="corrections"')[1]
    # corrected by an elder: the phone can no longer take it back
    undo = client.post(phone.link + "/undo", data={"entry": _entry_of(client, by_phone)},
                       headers={"Accept": "application/json"})
    assert undo.status_code == 409 and "An elder has corrected" in undo.json()["message"]
    assert "data-undo-form" not in phone.page()
    assert core(client, by_phone).history("base")[0].results["vinder"].to_dict() == fixed.to_dict()


def _entry_of(client: Any, night_id: int) -> str:
    with session_scope(client.app.state.engine) as session:
        entry = session.exec(select(phone_store.TableEntry).where(phone_store.TableEntry.night_id == night_id)).first()
        assert entry is not None
        return entry.entry_id


def _ids(client: Any) -> dict[str, int]:
    with session_scope(client.app.state.engine) as session:
        return {m.name: m.id for m in member_store.list_members(session)}  # type: ignore[misc]


def test_bad_input_from_a_phone_gets_a_clear_message_and_changes_nothing(client) -> None:
    by_phone, _ = night_pair(client)
    phone = Phone(client, table_links(client, by_phone)["vinder"])
    chairs = core(client, by_phone).tables["vinder"]
    fields = phone.form()
    post = phone.link + "/results"
    cases = {
        "no second": ({**fields, "first_out": chairs[0]}, "Choose who went out second."),
        "twice": ({**fields, "first_out": chairs[0], "second_out": chairs[0]}, "is chosen twice"),
        "stranger": ({**fields, "first_out": chairs[0], "second_out": "Mallory"}, "is not at this table"),
        "agurker": ({**fields, "first_out": chairs[0], "second_out": chairs[1], "agurk_0": "lots"},
                    "must be a whole number"),
        "no entry": ({**fields, "entry": "", "first_out": chairs[0], "second_out": chairs[1]}, "incomplete"),
        "future round": ({**fields, "round": "5", "first_out": chairs[0], "second_out": chairs[1]}, "not open"),
    }
    for what, (data, said) in cases.items():
        response = client.post(post, data=data, headers={"Accept": "application/json"})
        assert response.status_code in (409, 422), what
        assert said in response.json()["message"], (what, response.json())
    with session_scope(client.app.state.engine) as session:
        assert result_store.list_results(session, night_id=by_phone) == []
    # without the page's script: the same page again, with the message
    plain = client.post(post, data=cases["twice"][0])
    assert plain.status_code == 422 and "is chosen twice" in plain.text and "data-result-form" in plain.text


def test_the_board_and_the_phone_answer_204_until_something_changes(client) -> None:
    by_phone, _ = night_pair(client)
    links = table_links(client, by_phone)
    board = client.get(f"/club/nights/{by_phone}/board")
    assert board.status_code == 200
    stamp = re.search(r'board/fresh\?v=([\w-]+)"', board.text).group(1)  # type: ignore[union-attr]
    assert client.get(f"/club/nights/{by_phone}/board/fresh?v={stamp}").status_code in (200, 204)
    phone = Phone(client, links["vinder"])
    page = phone.page()
    phone_stamp = re.search(r'/fresh\?v=([\w-]+)"', page).group(1)  # type: ignore[union-attr]
    assert client.get(f"{phone.link}/fresh?v={phone_stamp}").status_code == 204
    night = core(client, by_phone)
    other = Phone(client, links["mellan"])
    assert other.send(result_for("base", 1, "mellan", night.tables["mellan"]), chairs=night.tables["mellan"])[0] == 200
    changed = client.get(f"{phone.link}/fresh?v={phone_stamp}")
    assert changed.status_code == 200 and 'id="phone-live"' in changed.text
    after = client.get(f"/club/nights/{by_phone}/board/fresh?v={stamp}")
    assert after.status_code == 200 and 'id="board"' in after.text
    assert after.text.count('class="tag ok"') == 1  # the Mellanbord is in


def test_every_answer_at_a_secret_address_says_no_referrer(client) -> None:
    """A table phone's link and a member's personal link are credentials: no answer at them,
    whatever its kind, lets the address leave in a Referer header."""
    by_phone, _ = night_pair(client)
    links = table_links(client, by_phone)
    phone = Phone(client, links["vinder"])
    page = client.get(phone.link)
    stamp = re.search(r'/fresh\?v=([\w-]+)"', page.text).group(1)  # type: ignore[union-attr]
    chairs = core(client, by_phone).tables["vinder"]
    fields = phone.form()
    json = {"Accept": "application/json"}
    answers = {
        "the page": page,
        "nothing new": client.get(f"{phone.link}/fresh?v={stamp}"),
        "the live part": client.get(f"{phone.link}/fresh?v=old"),
        "a result": client.post(phone.link + "/results", headers=json,
                                data={**fields, "first_out": chairs[0], "second_out": chairs[1]}),
        "an incomplete result": client.post(phone.link + "/results", data={"entry": ""}, headers=json),
        "a result without script": client.post(phone.link + "/results", data={"entry": ""}),
        "taking nothing back": client.post(phone.link + "/undo", data={"entry": ""}, headers=json),
        "a wrong link": client.get(phone.link[:-3] + "xyz"),
        "a wrong link's result": client.post(phone.link[:-3] + "xyz/results", data={"entry": ""}, headers=json),
        "a personal link": client.get(personal_link(client, NINE[0])),
        "a wrong personal link": client.get("/club/me/" + "x" * 30),
    }
    kinds = {name: (response.status_code, response.headers.get("referrer-policy"))
             for name, response in answers.items()}
    assert {name: policy for name, (_status, policy) in kinds.items()} == dict.fromkeys(answers, "no-referrer"), kinds
    assert {status for status, _policy in kinds.values()} >= {200, 204, 404, 409, 422}, kinds
    assert client.get("/club").headers["referrer-policy"] == "same-origin"  # elsewhere as before
