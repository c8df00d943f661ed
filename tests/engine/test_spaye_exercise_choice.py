"""The day's exercise is chosen "with the agreement of the späyins" (docs/rules/spaye.md,
"The day"): the opener proposes it; until the first däye a colleague may propose another,
which replaces it once a second colleague agrees; from the first däye on it is fixed."""

from __future__ import annotations

from bot.engine.spaye import SpayeGame
from tests.engine.test_spaye_support import (
    NK,
    A,
    B,
    C,
    daye,
    illegal,
    of_type,
    ok,
    reload,
    stacked,
    table,
    types,
)


def fresh() -> SpayeGame:
    return stacked(table("KS", "2H", NK, "5D", size=7), [A], exercise="push-ups")


def test_the_opener_proposes_the_day_exercise() -> None:
    assert fresh().public_view()["exercise"] == "push-ups"
    assert fresh().public_view()["proposal"] is None


def test_another_exercise_replaces_it_once_a_second_colleague_agrees() -> None:
    g = fresh()
    events = ok(g, B, {"type": "propose_exercise", "exercise": "  squats "})
    assert events == [
        {"type": "exercise_proposed", "by": B, "exercise": "squats", "was": "push-ups"}
    ]
    assert g.public_view()["exercise"] == "push-ups"
    assert g.public_view()["proposal"] == {"by": B, "exercise": "squats"}
    g = reload(g)
    events = ok(g, C, {"type": "agree_exercise", "exercise": "squats"})
    assert types(events) == ["exercise_agreed"]
    assert g.public_view()["exercise"] == "squats" and g.public_view()["proposal"] is None
    daye(g, A, B)  # KS v 2H; then the nikäye's exercise uses the agreed one
    ok(g, A, {"type": "challenge", "target": C})
    ok(g, C, {"type": "accept"})
    events = ok(g, A, {"type": "draw"}) + ok(g, C, {"type": "draw"})
    assert of_type(events, "exercise_set")[0]["exercise"] == "squats"


def test_a_second_proposal_while_one_is_pending_is_refused() -> None:
    g = fresh()
    ok(g, B, {"type": "propose_exercise", "exercise": "squats"})
    illegal(g, C, {"type": "propose_exercise", "exercise": "plank"}, "spaye.proposal_pending")
    illegal(g, B, {"type": "propose_exercise", "exercise": "plank"}, "spaye.proposal_pending")


def test_agreeing_to_your_own_proposal_is_refused() -> None:
    g = fresh()
    ok(g, B, {"type": "propose_exercise", "exercise": "squats"})
    assert not [a for a in g.legal_actions(B) if a["type"] == "agree_exercise"]
    illegal(g, B, {"type": "agree_exercise"}, "spaye.own_proposal")


def test_a_proposal_after_the_first_daye_is_refused() -> None:
    g = fresh()
    daye(g, A, B)
    illegal(g, C, {"type": "propose_exercise", "exercise": "squats"}, "spaye.exercise_fixed")
    illegal(g, C, {"type": "agree_exercise"}, "spaye.exercise_fixed")
    assert not [a for a in g.legal_actions(C) if "exercise" in a["type"]]


def test_a_pending_proposal_lapses_when_the_first_daye_starts() -> None:
    g = fresh()
    ok(g, B, {"type": "propose_exercise", "exercise": "squats"})
    ok(g, A, {"type": "challenge", "target": C})
    events = ok(g, C, {"type": "accept"})
    assert types(events)[:3] == [
        "challenge_accepted",
        "exercise_proposal_lapsed",
        "daye_started",
    ]
    assert g.public_view()["exercise"] == "push-ups" and g.public_view()["proposal"] is None


def test_bad_proposals_change_nothing() -> None:
    g = fresh()
    illegal(g, B, {"type": "propose_exercise", "exercise": "push-ups"}, "spaye.same_exercise")
    illegal(g, B, {"type": "propose_exercise", "exercise": "   "}, "spaye.bad_exercise_name")
    illegal(g, B, {"type": "propose_exercise", "exercise": "x" * 201}, "spaye.bad_exercise_name")
    illegal(g, B, {"type": "agree_exercise"}, "spaye.no_proposal")
    ok(g, B, {"type": "propose_exercise", "exercise": "squats"})
    illegal(g, C, {"type": "agree_exercise", "exercise": "plank"}, "spaye.stale_proposal")
