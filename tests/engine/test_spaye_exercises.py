"""Späye exercises, the committee and the titleholders' bonuses (docs/rules/spaye.md)."""

from __future__ import annotations

from typing import Any

from bot.engine import SYSTEM
from bot.engine.spaye import SpayeGame
from tests.engine.test_spaye_support import (
    NK,
    A,
    B,
    C,
    D,
    E,
    challenge,
    daye,
    draws,
    exercise_of,
    illegal,
    ok,
    own,
    points,
    stacked,
    table,
    types,
)


def nikaye_against(card: str, size: int = 5, **options: Any) -> SpayeGame:
    """A däye between A and B already played: A drew a nikäye, B ``card``."""
    g = stacked(table(NK, card, size=size), [A, B], **options)
    daye(g, A, B)
    return g


def final(cards: list[str], seed: int = 0, **options: Any) -> SpayeGame:
    """The final däye already played by A, B and C, drawing ``cards`` in that order."""
    g = stacked(cards, [A, B, C], seed=seed, **options)
    daye(g, A, B, C)
    return g


# -- doing the exercise ----------------------------------------------------------------------


def test_rep_points_are_earned_on_confirmation_only() -> None:
    g = nikaye_against("QS")
    assert points(g, A)["reps"] == 0 and g.to_act() == [A]
    events = own(g, A, "exercise_done")
    assert events[0]["type"] == "exercise_done" and events[0]["points"] == {
        "victory": 0,
        "reps": 12,
    }
    assert points(g, A) == {"daye": 1, "victory": 0, "reps": 12}
    assert g.public_view()["exercises"] == [] and g.to_act() == []


def test_exercise_id_may_be_left_out_when_there_is_only_one() -> None:
    g = nikaye_against("QS")
    g.apply(A, {"type": "exercise_done"})
    assert points(g, A)["reps"] == 12


def test_giving_up_earns_no_rep_points() -> None:
    g = nikaye_against("QS")
    assert types(own(g, A, "give_up")) == ["exercise_given_up"]
    assert points(g, A) == {"daye": 1, "victory": 0, "reps": 0}


def test_only_the_nikaye_does_their_exercise() -> None:
    g = nikaye_against("QS")
    illegal(g, B, {"type": "exercise_done", "id": 1}, "spaye.not_your_exercise")
    illegal(g, B, {"type": "exercise_done"}, "spaye.no_exercise")
    illegal(g, A, {"type": "exercise_done", "id": 9}, "spaye.unknown_exercise")
    illegal(g, A, {"type": "exercise_done", "id": "1"}, "spaye.unknown_exercise")
    illegal(g, A, {"type": "give_up", "id": True}, "spaye.unknown_exercise")


def test_next_daye_may_start_while_an_exercise_is_pending() -> None:
    g = nikaye_against("QS", size=7)
    events = daye(g, C, D)
    assert "daye_over" in types(events)
    assert exercise_of(g, A)["reps"] == 12
    own(g, A, "exercise_done")
    assert points(g, A)["reps"] == 12


def test_several_exercises_pending_are_keyed_by_id() -> None:
    g = stacked(table(NK, "4S", NK, "6S", size=7), [A, B])
    daye(g, A, B)
    daye(g, A, B)
    ids = [e["id"] for e in g.public_view()["exercises"]]
    assert ids == [1, 2]
    illegal(g, A, {"type": "exercise_done"}, "spaye.which_exercise")
    ok(g, A, {"type": "exercise_done", "id": 2})
    assert points(g, A)["reps"] == 6
    ok(g, A, {"type": "exercise_done", "id": 1})
    assert points(g, A)["reps"] == 10


def test_exercise_not_confirmed_when_the_day_closes_earns_nothing() -> None:
    g = final([NK, "9S", "5H"])
    events = ok(g, SYSTEM, {"type": "close"})
    assert types(events) == ["exercise_lapsed", "day_finished"]
    assert points(g, A) == {"daye": 3, "victory": 0, "reps": 0}


# -- the committee ---------------------------------------------------------------------------


def test_adjustment_approved_earns_the_reps_actually_done() -> None:
    g = nikaye_against("QS")
    events = own(g, A, "ask_committee", reps=8, exercise="squats")
    assert events[0]["approvers"] == [B] and events[0]["was"] == {
        "reps": 12,
        "exercise": "push-ups",
    }
    assert g.to_act() == [A, B]  # A may still give up
    events = ok(g, B, {"type": "approve", "id": 1})
    assert events[0]["reps"] == 8 and events[0]["exercise"] == "squats"
    ex = exercise_of(g, A)
    assert (ex["reps"], ex["exercise"], ex["adjusted"]) == (8, "squats", True)
    own(g, A, "exercise_done")
    assert points(g, A)["reps"] == 8


def test_adjustment_of_the_exercise_alone_keeps_the_reps() -> None:
    g = nikaye_against("QS")
    own(g, A, "ask_committee", exercise="sit-ups")
    g.apply(B, {"type": "approve"})  # the only adjustment waiting for B
    own(g, A, "exercise_done")
    assert points(g, A)["reps"] == 12


def test_adjustment_refused_keeps_the_exercise_as_drawn() -> None:
    g = nikaye_against("QS")
    own(g, A, "ask_committee", reps=5)
    assert types(ok(g, B, {"type": "refuse", "id": 1})) == ["adjustment_refused"]
    ex = exercise_of(g, A)
    assert (ex["reps"], ex["adjusted"], ex["request"]) == (12, False, None)
    own(g, A, "exercise_done")
    assert points(g, A)["reps"] == 12


def test_adjustment_lowers_the_reps_or_changes_the_exercise() -> None:
    g = nikaye_against("QS")
    act = {"type": "ask_committee", "id": 1}
    illegal(g, A, act, "spaye.no_change")
    illegal(g, A, {**act, "reps": 12, "exercise": "push-ups"}, "spaye.no_change")
    for bad in (0, 13, -1, "8", True, 2.5):
        illegal(g, A, {**act, "reps": bad}, "spaye.bad_reps")
    for name in ("", "   ", 7, "x" * 201):  # the neutral form, up to 2 × 100
        illegal(g, A, {**act, "exercise": name}, "spaye.bad_exercise_name")
    illegal(g, B, {**act, "reps": 3}, "spaye.not_your_exercise")


def test_committee_is_the_dayes_other_players_or_committee_members() -> None:
    g = nikaye_against("QS", committee=[E])
    own(g, A, "ask_committee", reps=6)
    assert g.to_act() == [A, B, E]
    err = illegal(g, C, {"type": "approve", "id": 1}, "spaye.not_approver")
    assert str(err) == f"only players {B} and {E} can answer this adjustment"
    illegal(g, A, {"type": "approve", "id": 1}, "spaye.own_adjustment")
    ok(g, E, {"type": "approve", "id": 1})
    illegal(g, B, {"type": "refuse", "id": 1}, "spaye.no_request")
    illegal(g, B, {"type": "refuse"}, "spaye.no_request")
    assert exercise_of(g, A)["reps"] == 6


def test_exercise_confirmation_waits_for_the_committee_but_giving_up_does_not() -> None:
    g = nikaye_against("QS")
    own(g, A, "ask_committee", reps=6)
    illegal(g, A, {"type": "exercise_done", "id": 1}, "spaye.adjustment_pending")
    illegal(g, A, {"type": "ask_committee", "id": 1, "reps": 5}, "spaye.adjustment_pending")
    assert {"type": "exercise_done", "id": 1} not in g.legal_actions(A)
    own(g, A, "give_up")
    assert g.public_view()["exercises"] == [] and g.to_act() == []


def test_adjusted_exercise_in_final_cancels_victory_points() -> None:
    g = final([NK, NK, "9S"])
    own(g, A, "ask_committee", reps=20)
    events = ok(g, C, {"type": "approve", "id": 1})
    assert events[0]["victory_cancelled"] == 6
    assert exercise_of(g, A)["stake"] == {"reps": 29, "victory": 0}
    own(g, A, "exercise_done")
    own(g, B, "exercise_done")
    assert points(g, A) == {"daye": 3, "victory": 0, "reps": 20}
    assert points(g, B) == {"daye": 3, "victory": 6, "reps": 29}


def test_final_victory_points_are_lost_on_giving_up() -> None:
    g = final(["9S", NK, "5H"])
    own(g, B, "give_up")
    assert points(g, B) == {"daye": 3, "victory": 0, "reps": 0}
    assert g.result()["status"] == "finished"


# -- bonuses ---------------------------------------------------------------------------------


def test_grand_spayin_shares_ceil_and_floor_with_a_spayin_of_the_month() -> None:
    g = nikaye_against("KS", bonuses={"grand_spayin": A}, month_spayins=[E])
    shares = [a for a in g.legal_actions(A) if a["type"] == "bonus_share"]
    assert shares == [
        {"type": "bonus_share", "id": 1, "with": E},
        {"type": "bonus_share", "id": 1, "with": B},
    ]
    events = ok(g, A, {"type": "bonus_share", "id": 1, "with": E})
    assert types(events) == ["bonus_used", "exercise_changed", "exercise_set"]
    assert exercise_of(g, A)["reps"] == 7
    assert exercise_of(g, E)["reps"] == 6 and exercise_of(g, E)["origin"] == "share"
    assert E in g.public_view()["players"] and g.to_act() == [A, E]


def test_bonus_holder_keeps_points_at_stake() -> None:
    g = nikaye_against("KS", bonuses={"grand_spayin": A})
    ok(g, A, {"type": "bonus_share", "id": 1, "with": B})
    own(g, A, "exercise_done")
    own(g, B, "exercise_done")
    assert points(g, A)["reps"] == 13  # the 13 at stake, for 7 done
    assert points(g, B)["reps"] == 0  # the partner earns nothing from it
    assert g.result()["bonuses_used"] == {"grand_spayin": A}  # provisional: cards are left
    assert g.public_view()["bonuses_used"] == {"grand_spayin": A}
    assert g.public_view()["bonuses"] == {}


def test_grand_spayin_partner_must_have_played_this_month() -> None:
    g = nikaye_against("KS", bonuses={"grand_spayin": A}, month_spayins=[E])
    err = illegal(g, A, {"type": "bonus_share", "id": 1, "with": D}, "spaye.bad_partner")
    assert str(err) == f"player {D} has not played Späye this month"
    illegal(g, A, {"type": "bonus_share", "id": 1, "with": A}, "spaye.share_self")
    illegal(g, A, {"type": "bonus_share", "id": 1, "with": None}, "spaye.name_a_colleague")


def test_mastaye_lazy_tyrant_every_spayin_of_today_does_all_reps() -> None:
    g = stacked(table("KS", "2S", NK, "9H", size=7), [A, B], bonuses={"mastaye": A})
    daye(g, C, D)
    daye(g, A, B)
    assert {"type": "bonus_tyrant", "id": 1} in g.legal_actions(A)
    events = ok(g, A, {"type": "bonus_tyrant", "id": 1})
    assert events[0] == {
        "type": "bonus_used",
        "title": "mastaye",
        "player": A,
        "id": 1,
        "players": [C, D, B],
    }
    assert points(g, A)["reps"] == 9  # the points at stake, for no rep at all
    for p in (B, C, D):
        ex = exercise_of(g, p)
        assert (ex["reps"], ex["origin"], ex["stake"]["reps"]) == (9, "tyrant", 0)
    assert [e["player"] for e in g.public_view()["exercises"]] == [C, D, B]
    own(g, C, "exercise_done")
    assert points(g, C)["reps"] == 0


def _tikao(double: bool) -> tuple[SpayeGame, list[dict[str, Any]]]:
    """A final where A (the Tikäo) drew the nikäye and used the bonus; the seed decides."""
    for seed in range(100):
        g = final([NK, "9S", "5H"], seed=seed, bonuses={"tikao": A})
        events = ok(g, A, {"type": "bonus_double", "id": 1})
        if events[0]["double"] is double:
            return g, events
    raise AssertionError("no seed gave that redraw")


def test_tikao_double_or_nothing_nikaye_again_means_twice() -> None:
    g, events = _tikao(double=True)
    assert events[0]["card"] == NK
    ex = exercise_of(g, A)
    assert (ex["reps"], ex["sets"], ex["bonus"]) == (14, 2, "tikao")
    assert points(g, A) == {"daye": 3, "victory": 0, "reps": 0}
    own(g, A, "exercise_done")
    assert points(g, A) == {"daye": 3, "victory": 3, "reps": 14}  # the stake, not 28
    assert points(g, B) == points(g, C) == {"daye": 3, "victory": 0, "reps": 0}


def test_tikao_double_or_nothing_anything_else_exempts() -> None:
    g, events = _tikao(double=False)
    assert events[0]["card"] in ("9S", "5H")
    assert types(events)[:2] == ["bonus_used", "exercise_exempted"]
    assert points(g, A) == {"daye": 3, "victory": 3, "reps": 14}
    assert g.result()["status"] == "finished"
    assert g.result()["bonuses_used"] == {"tikao": A}


def test_bonuses_are_offered_only_to_the_holder_and_only_when_they_apply() -> None:
    holders = {"grand_spayin": A, "mastaye": A, "tikao": B}
    g = nikaye_against("KS", bonuses=holders)
    kinds = {a["type"] for a in g.legal_actions(A)}
    assert {"bonus_share", "bonus_tyrant"} <= kinds and "bonus_double" not in kinds
    illegal(g, A, {"type": "bonus_double", "id": 1}, "spaye.not_bonus_holder")
    g = nikaye_against("KS", bonuses={"tikao": A})
    illegal(g, A, {"type": "bonus_double", "id": 1}, "spaye.bonus_not_applicable")
    g = final([NK, "9S", "5H"], bonuses={"grand_spayin": A, "mastaye": A})
    assert not [a for a in g.legal_actions(A) if a["type"].startswith("bonus")]
    illegal(g, A, {"type": "bonus_tyrant", "id": 1}, "spaye.bonus_not_applicable")
    illegal(g, A, {"type": "bonus_share", "id": 1, "with": B}, "spaye.bonus_not_applicable")


def test_no_bonus_on_an_adjusted_exercise_or_someone_elses_share() -> None:
    g = nikaye_against("KS", bonuses={"mastaye": A, "grand_spayin": B})
    own(g, A, "ask_committee", reps=5)
    assert "bonus_tyrant" not in {a["type"] for a in g.legal_actions(A)}
    illegal(g, A, {"type": "bonus_tyrant", "id": 1}, "spaye.bonus_not_applicable")
    ok(g, B, {"type": "approve", "id": 1})
    illegal(g, A, {"type": "bonus_tyrant", "id": 1}, "spaye.bonus_not_applicable")


def test_a_bonus_is_used_once() -> None:
    g = stacked(table(NK, "4S", NK, "6S", size=7), [A, B], bonuses={"mastaye": A})
    daye(g, A, B)
    ok(g, A, {"type": "bonus_tyrant", "id": 1})
    daye(g, A, B)
    assert "bonus_tyrant" not in {a["type"] for a in g.legal_actions(A)}
    illegal(g, A, {"type": "bonus_tyrant", "id": 3}, "spaye.bonus_used")


def test_bonus_used_in_a_voided_day_is_given_back() -> None:
    g = nikaye_against("KS", bonuses={"mastaye": A})
    ok(g, A, {"type": "bonus_tyrant", "id": 1})
    events = ok(g, SYSTEM, {"type": "void"})
    assert events[0]["bonuses_returned"] == {"mastaye": A}
    res = g.result()
    assert res["bonuses_used"] == {} and res["bonuses_returned"] == {"mastaye": A}


def test_bonus_used_in_a_finished_day_is_spent() -> None:
    g = stacked(table(NK, "4S", size=5), [A, B], bonuses={"mastaye": A})
    daye(g, A, B)
    ok(g, A, {"type": "bonus_tyrant", "id": 1})
    own(g, B, "give_up")
    challenge(g, A, B, C)
    draws(g, A, B, C)
    ok(g, SYSTEM, {"type": "close"})
    res = g.result()
    assert res["status"] == "finished"
    assert res["bonuses_used"] == {"mastaye": A} and res["bonuses_returned"] == {}
