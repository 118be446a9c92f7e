"""Recording a night's table results: the club's use cases, in one place.

- `take_phone_result`: a table's phone sends a result under the entry id its form was drawn
  with; recorded once, a repeat of that entry gets the stored answer, never a second result.
- `take_back`: the phone takes its last result back while its round is open.
- `record_by_hand`: an elder types a table's result on the night page (`record_playoff`: a
  playoff's order).
- `correct`: an elder corrects a recorded result, with a reason.

Each locks the night first (`nights.lock_night`: one change at a time in every app process,
so two phones entering one round at one table get one result and a conflict that names it),
then loads it, checks what was sent, lets the club core decide (`app.club.Night`), stores,
and says how it went with a typed outcome. The pages and the phones turn that outcome into
their answers (an HTTP status, a page, JSON); nothing here knows of requests.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, cast

from sqlmodel import Session

from app.club import CorrectionError, Night, RoundResult
from app.club.constants import TABLE_NAMES, Stage
from app.club.night_records import reason_of
from app.i18n import _, say
from app.nights.result_form import Fields, parse_result, with_winner
from app.nights.words import describe_slot, ordinal, result_words, upper_first
from app.parsing import strict_int
from app.store import night_replay
from app.store import nights as night_store
from app.store import results as result_store
from app.store import table_phones as phone_store
from app.store.db import row_id
from app.store.night_replay import Loaded

ENTRY_ID = re.compile(r"[A-Za-z0-9_-]{16,64}", re.ASCII)
PLAYING = ("base", "finals")  # the phases in which a table's result is taken


class Missing(LookupError):
    """No such night or result (the page answers 404 with this message)."""


def _locked(session: Session, night_id: int) -> Loaded:
    """Lock the night, then load it (what is read is what the others committed)."""
    night_store.lock_night(session, night_id=night_id)
    return _load(session, night_id)


def _load(session: Session, night_id: int) -> Loaded:
    loaded = night_replay.load(session, night_id=night_id)
    if loaded is None:
        raise Missing(_("No such night"))
    return loaded


# ------------------------------------------------------------------ a table's phone


class Said(StrEnum):
    """How a phone's result (or taking it back) went."""

    SAVED = "saved"  # recorded now, or a repeat of an entry recorded before
    TAKEN_BACK = "taken_back"
    CONFLICT = "conflict"  # the slot holds another result (another phone's, an elder's)
    CLOSED = "closed"  # the slot is not open (not yet, or any more)
    INVALID = "invalid"  # the result is incomplete or does not fit the night
    UNDONE = "undone"  # a repeat of an entry that was taken back
    GONE = "gone"  # nothing (any more) to take back
    MISMATCH = "mismatch"  # an entry id used before for another table, stage or round


@dataclass(frozen=True)
class PhoneAnswer:
    kind: Said
    message: str


def take_phone_result(session: Session, *, night_id: int, table: str, entry_id: str, phase: str, round_no: str,
                      fields: Fields) -> PhoneAnswer:
    """Record the phone's result once: a repeat of its entry id (at the same night, table,
    stage and round) gets the stored answer; that entry id anywhere else, a round that is not
    open or a slot already recorded a clear refusal, never a second result."""
    number = strict_int(round_no, lo=1, hi=99)
    if not ENTRY_ID.fullmatch(entry_id) or phase not in PLAYING or number is None:
        return PhoneAnswer(Said.INVALID, _("This result is incomplete: reload the page and enter it again."))
    stage = cast(Stage, phase)
    slot = describe_slot(stage, number, table)
    night_store.lock_night(session, night_id=night_id)
    known = phone_store.get_table_entry(session, night_id=night_id, entry_id=entry_id)
    if known is not None and (known.table, known.phase, known.round) != (table, stage, number):
        return PhoneAnswer(Said.MISMATCH, _(
            "Not saved: this result's entry was already used for %(used)s, not %(slot)s. It stays on this "
            "phone: show it to an elder, who can enter it on the night page.",
            used=describe_slot(known.phase, known.round, known.table), slot=slot))
    if known is not None:
        if known.undone_at is not None:
            return PhoneAnswer(Said.UNDONE, _("This result for %(slot)s was taken back at the table, so it is not "
                                              "recorded again.", slot=slot))
        return PhoneAnswer(Said.SAVED, _("Saved: %(slot)s.", slot=slot))
    row, _results, night = _load(session, night_id)
    seating = next((r.seating for r in night.history(stage) if r.number == number), None)
    if seating is None or table not in seating:
        return PhoneAnswer(Said.CLOSED, _("%(slot)s is not open: nothing was saved. The page shows where the "
                                          "night is now.", slot=slot))
    chairs = list(seating[table])
    result, errors, _typed = parse_result(with_winner(fields, chairs), chairs)
    if result is None:
        return PhoneAnswer(Said.INVALID, " ".join(errors))
    recorded = result_store.get_result(session, night_id=night_id, phase=stage, round_no=number, table=table)
    if recorded is not None:
        if recorded.result == result.to_dict():
            phone_store.add_table_entry(session, night_id=night_id, entry_id=entry_id, table=table, phase=stage,
                                        round_no=number, result=result.to_dict(), result_id=None)
            return PhoneAnswer(Said.SAVED, _("%(slot)s was already recorded with this same result.",
                                             slot=upper_first(slot)))
        return PhoneAnswer(Said.CONFLICT, _(
            "Not saved: %(slot)s is already recorded, from another phone or by an elder: %(result)s. "
            "If that is wrong, take it back on this page or ask an elder to correct it.",
            slot=slot, result=result_words(recorded.result)))
    if night.phase not in PLAYING or (stage, number) != (night.stage, night.current.number):
        return PhoneAnswer(Said.CLOSED, _("%(slot)s cannot be recorded now: nothing was saved. The page shows "
                                          "where the night is now.", slot=upper_first(slot)))
    try:
        saved = night_replay.add_table_result(session, row, night, table=table, result=result,
                                              by=TABLE_NAMES[table], source="phone")
    except ValueError as exc:
        return PhoneAnswer(Said.INVALID, say(reason_of(exc)))
    phone_store.add_table_entry(session, night_id=night_id, entry_id=entry_id, table=table, phase=stage,
                                round_no=number, result=result.to_dict(), result_id=saved.id)
    return PhoneAnswer(Said.SAVED, _("Saved: %(slot)s.", slot=slot))


def take_back(session: Session, *, night_id: int, table: str, entry_id: str) -> PhoneAnswer:
    """Undo the phone's last result while its round is still open (no other table's result
    completed it) and no elder has corrected it."""
    night_store.lock_night(session, night_id=night_id)
    entry = (phone_store.get_table_entry(session, night_id=night_id, entry_id=entry_id)
             if ENTRY_ID.fullmatch(entry_id) else None)
    if entry is None or entry.table != table or entry.undone_at is not None or entry.result_id is None:
        return PhoneAnswer(Said.GONE, _("There is no result from this table to take back."))
    slot = describe_slot(entry.phase, entry.round, table)
    _row, _results, night = _load(session, night_id)
    if night.phase not in PLAYING or (entry.phase, entry.round) != (night.stage, night.current.number):
        return PhoneAnswer(Said.GONE, _("Too late to take back %(slot)s: the next round has begun. An elder can "
                                        "correct it on the night page.", slot=slot))
    if any(c.result_id == entry.result_id for c in result_store.list_corrections(session, night_id=night_id)):
        return PhoneAnswer(Said.GONE, _("An elder has corrected %(slot)s, so it cannot be taken back here.",
                                        slot=slot))
    result_store.undo_table_entry(session, entry=entry)
    reloaded = night_replay.load(session, night_id=night_id)
    assert reloaded is not None  # locked, and a night is never deleted while locked
    night_replay.save_state(session, reloaded[0], reloaded[2])
    return PhoneAnswer(Said.TAKEN_BACK, _("Taken back: %(slot)s can be entered again.", slot=slot))


def undoable_entry(session: Session, *, night_id: int, night: Night, table: str) -> str | None:
    """The entry id of this round's result at `table` when it came from a phone and no elder
    has corrected it: it can be taken back until the round is complete."""
    recorded = result_store.get_result(session, night_id=night_id, phase=night.stage,
                                       round_no=night.current.number, table=table)
    if recorded is None or recorded.source != "phone" or recorded.id is None:
        return None
    if any(c.result_id == recorded.id for c in result_store.list_corrections(session, night_id=night_id)):
        return None
    entry = phone_store.entries_for_results(session, night_id=night_id).get(recorded.id)
    return entry.entry_id if entry else None


# ------------------------------------------------------------------ an elder's hand


@dataclass
class Typed:
    """How an elder's form went: nothing wrong (`ok`), or what is wrong and what was typed (to
    show the form again), with the night as it was loaded."""

    loaded: Loaded
    errors: list[str] = field(default_factory=list)
    typed: dict[str, Any] = field(default_factory=dict)
    offer_drop: bool = False  # a correction that would discard later results: ask first

    @property
    def ok(self) -> bool:
        return not self.errors


def record_by_hand(session: Session, *, night_id: int, table: str, phase: str, round_no: str, fields: Fields,
                   by: str) -> Typed:
    """A table's result typed on the night page for the round that is open there."""
    done = Typed(_locked(session, night_id))  # a table's phone may be sending this very result
    row, _results, night = done.loaded
    if night.phase not in PLAYING:
        done.errors.append(_("This night is not waiting for a table's result."))
    elif (phase, round_no) != (night.stage, str(night.current.number)) or table not in night.pending_tables:
        done.errors.append(_(
            "%(slot)s is already recorded or not open: the page has moved on, see below.",
            slot=upper_first(describe_slot(phase, strict_int(round_no, lo=0) or 0, table)),
        ))
    else:
        chairs = list(night.current.seating[table])
        result, done.errors, done.typed = parse_result(fields, chairs)
        if result is not None:
            try:
                night_replay.add_table_result(session, row, night, table=table, result=result, by=by,
                                              source="hand")
            except ValueError as exc:
                done.errors.append(reason_of(exc))
    return done


def record_playoff(session: Session, *, night_id: int, group_no: str, fields: Fields, by: str) -> Typed:
    """A playoff's order typed on the night page (RULES.md §7.2-7.4): one place each."""
    done = Typed(_locked(session, night_id))  # not while an online table's room records it
    row, results, night = done.loaded
    groups = night.playoffs
    group_at = strict_int(group_no, lo=0, hi=len(groups) - 1) if groups else None
    if not groups:
        done.errors.append(_("There is no playoff to record now."))
    elif group_at is None:
        done.errors.append(_("That playoff is already recorded: see below."))
    else:
        group = groups[group_at]
        order = [str(fields.get(f"place_{i}") or "") for i in range(len(group))]
        done.typed = {"order": order}
        for i, name in enumerate(order, start=1):
            if not name:
                done.errors.append(_("Choose who came %(place)s in the playoff.", place=ordinal(i)))
            elif name not in group:
                done.errors.append(_("%(name)s is not in this playoff.", name=name))
        for name in sorted({n for n in order if n and order.count(n) > 1}):
            done.errors.append(_("%(name)s is chosen twice: each player takes one place.", name=name))
        if done.ok:
            try:
                night_replay.add_playoff(session, row, night, order=order, by=by,
                                         count=sum(1 for r in results if r.phase == "playoff"))
            except ValueError as exc:
                done.errors.append(str(exc))
    return done


def correctable(results: list[result_store.NightResult], night: Night,
                result_id: int) -> tuple[result_store.NightResult, list[str]]:
    """The recorded (non-playoff) result `result_id` and its table's chairs (Missing if none)."""
    target = next((r for r in results if r.id == result_id), None)
    if target is None or target.phase == "playoff":
        raise Missing(_("No such result"))
    stage = cast(Stage, target.phase)  # not a playoff (refused above): base or finals
    rnd = next(r for r in night.history(stage) if r.number == target.round)
    return target, list(rnd.seating[target.table])


def correct(session: Session, *, night_id: int, result_id: int, fields: Fields, reason: str, drop_later: bool,
            who: str) -> Typed:
    """Replace a recorded result, with the reason kept on the record; later results that no
    longer fit are discarded only when the elder said so (`drop_later`)."""
    done = Typed(_locked(session, night_id))  # not while a table's phone changes the night
    row, results, night = done.loaded
    target, chairs = correctable(results, night, result_id)
    result, done.errors, done.typed = parse_result(fields, chairs)
    done.typed["reason"] = reason
    if not reason:
        done.errors.append(_("Write the reason for the correction: it stays on the record."))
    if result is not None and result.to_dict() == RoundResult.from_dict(target.result).to_dict():
        done.errors.append(_("Nothing changed: this is the result already recorded."))
    if done.errors or result is None:
        return done
    try:
        night.correct(cast(Stage, target.phase), target.round, target.table, result, reason=reason,
                      drop_later=drop_later)
    except CorrectionError as exc:
        done.errors.append(_("%(error)s. Tick the box below to discard the later results that no longer fit"
                             " and record them again.", error=reason_of(exc)))
        done.offer_drop = True
    except ValueError as exc:
        done.errors.append(reason_of(exc))
    else:
        result_store.correct_result(session, result_id=row_id(target), after=result.to_dict(), who=who,
                                    reason=reason)
        night_replay.sync_rows(session, row, night)
        night_replay.save_state(session, row, night)
    return done
