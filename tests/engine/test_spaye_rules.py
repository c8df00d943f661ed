"""Späye rules, one test per ruling of docs/rules/spaye.md: the deck, the day, the däye,
nikäye reinsertion and the final däye."""

from __future__ import annotations

from collections import Counter

from bot.engine import SYSTEM, new_game
from bot.engine.spaye import SpayeGame, card_value
from bot.engine.spaye.rules import spaye_deck
from tests.engine.test_spaye_support import (
    NK,
    A,
    B,
    C,
    D,
    challenge,
    daye,
    draws,
    exercise_of,
    illegal,
    of_type,
    ok,
    own,
    points,
    stacked,
    state,
    table,
    types,
)


def fresh(seed: int = 1, *players: str) -> SpayeGame:
    game = new_game("spaye", list(players), seed)
    assert isinstance(game, SpayeGame)
    return game


# -- deck ------------------------------------------------------------------------------------


def test_deck_is_52_cards_and_three_nikayes_spread_face_down() -> None:
    g = fresh()
    data = state(g)
    assert Counter(data["table"]) == Counter(spaye_deck())
    assert len(data["table"]) == 55 and data["table"].count(NK) == 3
    assert g.public_view()["table"] == 55
    assert "NK" not in str(g.public_view())


def test_card_values_two_to_ace_and_nikaye_twenty() -> None:
    assert [card_value(c) for c in ("2S", "10H", "JD", "QC", "KS", "AH")] == [2, 10, 11, 12, 13, 14]
    assert card_value(NK) == 20


def test_exactly_three_cards_remain_for_the_final_daye() -> None:
    g = stacked(table("9S", "2H", "8S", "3H", size=7), [A, B])
    daye(g, A, B)
    assert g.public_view()["table"] == 5
    daye(g, A, B)
    view = g.public_view()
    assert view["table"] == 3 and view["final_next"]


# -- the day ---------------------------------------------------------------------------------


def test_day_is_opened_with_an_exercise_push_ups_by_default() -> None:
    assert fresh().public_view()["exercise"] == "push-ups"
    g = new_game("spaye", [A], 1, {"exercise": "squats"})
    assert g.public_view()["exercise"] == "squats"


def test_day_ends_when_the_table_is_empty_and_exercises_are_settled() -> None:
    g = stacked([NK, "9S", "5H"])
    events = daye(g, A, B, C)
    assert g.public_view()["table"] == 0
    assert not g.is_over() and g.to_act() == [A]
    events = own(g, A, "exercise_done")
    assert g.is_over() and types(events)[-1] == "day_finished"
    assert g.result()["status"] == "finished"
    assert g.to_act() == [] and g.legal_actions(A) == []


def test_closing_time_with_cards_left_voids_the_day() -> None:
    g = stacked(table("9S", "2H", size=5), [A, B])
    daye(g, A, B)
    events = ok(g, SYSTEM, {"type": "void"})
    assert types(events) == ["day_voided"]
    res = g.result()
    assert res["status"] == "voided" and g.is_over()
    assert res["scores"] == {A: 0, B: 0} and res["timeline"] == []


def test_close_voids_when_cards_remain() -> None:
    g = stacked(table("9S", "2H", size=5), [A, B])
    ok(g, SYSTEM, {"type": "close"})
    assert g.result()["status"] == "voided"


def test_voided_day_can_never_be_reopened_or_played() -> None:
    g = fresh(3, A)
    ok(g, SYSTEM, {"type": "void"})
    for player, action in [
        (A, {"type": "challenge", "target": B}),
        (SYSTEM, {"type": "close"}),
        (SYSTEM, {"type": "void"}),
        (A, {"type": "draw"}),
        (A, {"type": "nonsense"}),
    ]:
        err = illegal(g, player, action, "spaye.over")
        assert str(err) == "this Späye is over"
    assert g.to_act() == [] and g.legal_actions(A) == [] and g.legal_actions(SYSTEM) == []


def test_finished_day_can_never_be_reopened() -> None:
    g = stacked([NK, "9S", "5H"])
    daye(g, A, B, C)
    own(g, A, "give_up")
    assert g.is_over()
    illegal(g, A, {"type": "challenge", "targets": [B, C]}, "spaye.over")
    illegal(g, SYSTEM, {"type": "void"}, "spaye.over")


def test_void_needs_cards_left_close_finishes_an_empty_table() -> None:
    g = stacked([NK, "9S", "5H"])
    daye(g, A, B, C)
    illegal(g, SYSTEM, {"type": "void"}, "spaye.nothing_to_void")
    events = ok(g, SYSTEM, {"type": "close"})
    assert types(events) == ["exercise_lapsed", "day_finished"]
    assert g.result()["status"] == "finished"


# -- the däye --------------------------------------------------------------------------------


def test_anyone_challenges_a_colleague_who_joins_the_roster() -> None:
    g = fresh(1, A)
    assert g.legal_actions(D) == [
        {"type": "challenge", "target": None},
        {"type": "propose_exercise", "exercise": None},
    ]
    events = ok(g, D, {"type": "challenge", "target": B})
    assert events == [{"type": "challenge", "by": D, "targets": [B], "final": False}]
    assert g.public_view()["players"] == [A, D, B]
    assert g.to_act() == [B]


def test_only_the_challenged_colleague_can_accept() -> None:
    g = fresh(1)
    ok(g, A, {"type": "challenge", "target": B})
    err = illegal(g, C, {"type": "accept"}, "spaye.not_challenged")
    assert str(err) == f"only player {B} can accept this challenge"
    illegal(g, A, {"type": "accept"}, "spaye.not_challenged")
    illegal(g, A, {"type": "draw"}, "spaye.not_accepted_yet")


def test_accepting_makes_both_spayins() -> None:
    g = fresh(1)
    challenge(g, A, B)
    assert g.public_view()["spayins"] == [A, B]
    assert g.public_view()["daye"]["players"] == [A, B]


def test_declined_challenge_makes_nobody_spayin() -> None:
    g = fresh(1)
    ok(g, A, {"type": "challenge", "target": B})
    events = ok(g, B, {"type": "decline"})
    assert types(events) == ["challenge_declined"]
    assert g.public_view()["spayins"] == [] and g.public_view()["challenge"] is None
    ok(g, C, {"type": "challenge", "target": A})


def test_challenge_expires_only_through_the_bot() -> None:
    g = fresh(1)
    ok(g, A, {"type": "challenge", "target": B})
    illegal(g, A, {"type": "expire"}, "spaye.system_only")
    assert {"type": "expire"} in g.legal_actions(SYSTEM)
    events = ok(g, SYSTEM, {"type": "expire"})
    assert types(events) == ["challenge_expired"]
    illegal(g, B, {"type": "accept"}, "spaye.no_invitation")
    illegal(g, SYSTEM, {"type": "expire"}, "spaye.nothing_to_expire")


def test_one_daye_at_a_time_second_challenge_names_the_two_in_it() -> None:
    g = fresh(1)
    challenge(g, A, B)
    err = illegal(g, C, {"type": "challenge", "target": D}, "spaye.daye_under_way")
    assert str(err) == f"a däye is under way between players {A} and {B}"
    assert err.params == {"players": [A, B]}
    assert g.legal_actions(C) == []


def test_second_challenge_while_one_awaits_its_answer() -> None:
    g = fresh(1)
    ok(g, A, {"type": "challenge", "target": B})
    illegal(g, C, {"type": "challenge", "target": D}, "spaye.challenge_pending")


def test_nobody_may_challenge_themself() -> None:
    g = fresh(1)
    err = illegal(g, A, {"type": "challenge", "target": A}, "spaye.self_challenge")
    assert str(err) == "you cannot challenge yourself"
    illegal(g, A, {"type": "challenge", "target": None}, "spaye.name_a_colleague")
    illegal(g, A, {"type": "challenge", "target": SYSTEM}, "spaye.name_a_colleague")
    illegal(g, A, {"type": "challenge"}, "spaye.name_a_colleague")


def test_first_card_drawn_stays_hidden_until_both_have_drawn() -> None:
    g = stacked(table("KS", "2H", size=5), [A, B])
    challenge(g, A, B)
    events = ok(g, A, {"type": "draw"})
    assert events == [{"type": "card_drawn", "daye": 1, "player": A, "waiting": [B], "table": 4}]
    for who in (A, B, C):
        assert "KS" not in str(g.view(who))
    assert "KS" not in str(g.public_view())
    assert g.public_view()["daye"]["drawn"] == [A]
    illegal(g, A, {"type": "draw"}, "spaye.already_drawn")


def test_both_cards_are_revealed_together() -> None:
    g = stacked(table("KS", "2H", size=5), [A, B])
    events = daye(g, A, B)
    (reveal,) = of_type(events, "reveal")
    assert reveal["cards"] == [{"player": A, "card": "KS"}, {"player": B, "card": "2H"}]
    assert g.public_view()["last_daye"]["rounds"] == [reveal["cards"]]


def test_higher_value_wins_a_victory() -> None:
    g = stacked(table("2H", "KS", size=5), [A, B])
    events = daye(g, A, B)
    assert of_type(events, "daye_over")[0]["winner"] == B
    assert points(g, A) == {"daye": 1, "victory": 0, "reps": 0}
    assert points(g, B) == {"daye": 1, "victory": 1, "reps": 0}


def test_ace_is_worth_fourteen_and_beats_a_king() -> None:
    g = stacked(table("AS", "KS", size=5), [A, B])
    daye(g, A, B)
    assert points(g, A)["victory"] == 1


def test_equal_values_are_drawn_again_as_one_participation() -> None:
    g = stacked(table("5S", "5H", "QS", "QH", "3C", "9D", size=9), [A, B])
    events = daye(g, A, B)
    assert types(events)[-1] == "tie"
    assert g.public_view()["daye"]["waiting"] == [A, B]
    events = draws(g, B, A)
    assert types(events)[-1] == "tie"
    events = draws(g, A, B)
    assert of_type(events, "daye_over")[0]["winner"] == B
    assert points(g, A) == {"daye": 1, "victory": 0, "reps": 0}
    assert points(g, B) == {"daye": 1, "victory": 1, "reps": 0}
    assert len(g.public_view()["last_daye"]["rounds"]) == 3


def test_drawn_cards_go_to_the_discard_nobody_can_consult() -> None:
    g = stacked(table("5S", "9H", size=7), [A, B])
    daye(g, A, B)
    assert {"5S", "9H"} <= set(state(g)["discard"])
    for v in (g.public_view(), g.view(A)):
        assert "discard" not in v
        assert isinstance(v["table"], int)


def test_one_nikaye_no_winner_the_nikaye_does_the_opponents_value() -> None:
    g = stacked(table(NK, "QS", size=5), [A, B])
    events = daye(g, A, B)
    over = of_type(events, "daye_over")[0]
    assert over["winner"] is None and over["nikayes"] == [A]
    ex = exercise_of(g, A)
    assert ex["reps"] == 12 and ex["exercise"] == "push-ups"
    assert points(g, A) == {"daye": 1, "victory": 0, "reps": 0}
    assert points(g, B) == {"daye": 1, "victory": 0, "reps": 0}


def test_two_nikayes_each_does_twenty() -> None:
    g = stacked(table(NK, NK, size=5), [A, B])
    daye(g, A, B)
    assert exercise_of(g, A)["reps"] == 20 and exercise_of(g, B)["reps"] == 20
    assert set(g.to_act()) == {A, B}


def test_only_spayins_of_the_daye_draw() -> None:
    g = fresh(1)
    challenge(g, A, B)
    err = illegal(g, C, {"type": "draw"}, "spaye.not_in_daye")
    assert str(err) == f"you are not in this däye: it is between players {A} and {B}"
    illegal(fresh(1), A, {"type": "draw"}, "spaye.no_daye")


# -- nikäye reinsertion ----------------------------------------------------------------------


def test_nikaye_reinsertion_when_all_three_drawn() -> None:
    g = stacked([NK, "5S", NK, "6S", NK, "7S", "8S", "9S", "10S"], [A, B])
    for _ in range(2):
        events = daye(g, A, B)
        assert "nikaye_reinserted" not in types(events)
    events = daye(g, A, B)
    assert of_type(events, "nikaye_reinserted") == [{"type": "nikaye_reinserted", "table": 3}]
    data = state(g)
    assert data["table"] == ["8S", "9S", NK]  # the replaced card went to the discard
    assert "10S" in data["discard"] and data["discard"].count(NK) == 2
    assert g.public_view()["table"] == 3


def test_reinsertion_waits_for_the_reveal_of_a_hidden_nikaye() -> None:
    g = stacked([NK, "5S", NK, "6S", NK, "7S", "8S", "9S", "10S"], [A, B])
    daye(g, A, B)
    daye(g, A, B)
    challenge(g, A, B)
    events = ok(g, A, {"type": "draw"})  # the last nikäye, face down
    assert types(events) == ["card_drawn"]
    assert NK not in state(g)["table"]
    events = ok(g, B, {"type": "draw"})
    assert "nikaye_reinserted" in types(events)
    assert state(g)["table"].count(NK) == 1


def test_reinsertion_in_a_random_table_replaces_a_random_card() -> None:
    tables = set()
    for seed in range(20):
        data = state(SpayeGame.with_table([NK, "5S", "6S", "7S", "8S", "9S", "10S"], seed=seed))
        data["stacked"] = False  # draws and the replaced card come from the seed
        g = SpayeGame.from_dict({k: v for k, v in data.items() if k != "kind"})
        events: list[dict[str, object]] = []
        while "nikaye_reinserted" not in types(events):
            if g.public_view()["final_next"]:
                break
            events = daye(g, A, B)
        else:
            tables.add(tuple(sorted(state(g)["table"])))
        after = state(g)
        assert Counter(after["table"] + after["discard"]) == Counter(spaye_deck())
        assert after["table"].count(NK) == 1
    assert len(tables) > 1


# -- the final däye --------------------------------------------------------------------------


def test_three_cards_left_the_final_needs_two_colleagues() -> None:
    g = stacked([NK, "9S", "5H"], [A])
    assert g.legal_actions(A)[0] == {"type": "challenge", "targets": [None, None]}
    illegal(g, A, {"type": "challenge", "target": B}, "spaye.final_needs_two")
    illegal(g, A, {"type": "challenge", "targets": [B, B]}, "spaye.same_target")
    illegal(g, A, {"type": "challenge", "targets": [A, B]}, "spaye.self_challenge")
    illegal(g, A, {"type": "challenge", "targets": [B]}, "spaye.final_needs_two")
    g2 = stacked(table("9S", size=5), [A])
    illegal(g2, A, {"type": "challenge", "targets": [B, C]}, "spaye.not_final")


def test_final_daye_waits_for_both_challenged_colleagues() -> None:
    g = stacked([NK, "9S", "5H"], [A])
    ok(g, A, {"type": "challenge", "targets": [B, C]})
    assert g.to_act() == [B, C]
    events = ok(g, C, {"type": "accept"})
    assert types(events) == ["challenge_accepted"]
    illegal(g, C, {"type": "accept"}, "spaye.already_accepted")
    assert g.to_act() == [B]
    events = ok(g, B, {"type": "accept"})
    assert of_type(events, "daye_started")[0]["players"] == [A, B, C]
    assert of_type(events, "daye_started")[0]["final"] is True


def test_final_daye_declined_by_one_is_off() -> None:
    g = stacked([NK, "9S", "5H"], [A])
    ok(g, A, {"type": "challenge", "targets": [B, C]})
    ok(g, B, {"type": "accept"})
    ok(g, C, {"type": "decline"})
    assert g.public_view()["challenge"] is None and g.public_view()["daye"] is None
    assert g.public_view()["spayins"] == []


def test_final_daye_each_draws_one_card_revealed_when_all_three_drew() -> None:
    g = stacked(["9S", NK, "5H"])
    challenge(g, A, B, C)
    assert types(ok(g, C, {"type": "draw"})) == ["card_drawn"]
    assert types(ok(g, A, {"type": "draw"})) == ["card_drawn"]
    assert "9S" not in str(g.public_view()) and "NK" not in str(g.public_view())
    events = ok(g, B, {"type": "draw"})
    reveal = of_type(events, "reveal")[0]
    assert reveal["cards"] == [
        {"player": C, "card": "9S"},
        {"player": A, "card": NK},
        {"player": B, "card": "5H"},
    ]


def test_final_daye_seed_example_29_reps_6_victory() -> None:
    g = stacked([NK, NK, "9S"])
    events = daye(g, A, B, C)
    for p in (A, B):
        ex = exercise_of(g, p)
        assert ex["reps"] == 29 and ex["stake"] == {"reps": 29, "victory": 6}
    assert [e["player"] for e in of_type(events, "points")] == [A, B, C]
    for p in (A, B):
        own(g, p, "exercise_done")
    assert points(g, A) == {"daye": 3, "victory": 6, "reps": 29}
    assert points(g, B) == {"daye": 3, "victory": 6, "reps": 29}
    assert points(g, C) == {"daye": 3, "victory": 0, "reps": 0}
    assert g.result()["status"] == "finished"


def test_final_daye_one_nikaye_wins_three_and_sums_the_two_other_cards() -> None:
    g = stacked(["QS", NK, "AH"])
    daye(g, A, B, C)
    ex = exercise_of(g, B)
    assert ex["reps"] == 12 + 14 and ex["stake"]["victory"] == 3
    own(g, B, "exercise_done")
    assert points(g, B) == {"daye": 3, "victory": 3, "reps": 26}
    assert points(g, C) == {"daye": 3, "victory": 0, "reps": 0}


def test_final_daye_three_nikayes_each_win_nine() -> None:
    g = stacked([NK, NK, NK])
    daye(g, A, B, C)
    for p in (A, B, C):
        assert exercise_of(g, p)["stake"] == {"reps": 40, "victory": 9}


def test_tie_leaving_three_cards_recruits_third_player() -> None:
    g = stacked(["5S", "5H", NK, NK, "9S"], [A, B])
    events = daye(g, A, B)
    assert types(events)[-1] == "recruit_needed"
    assert g.public_view()["table"] == 3 and g.public_view()["daye"]["recruiting"]
    assert g.to_act() == [A, B]
    assert g.legal_actions(A) == [{"type": "recruit", "player": None}]
    illegal(g, A, {"type": "draw"}, "spaye.must_recruit")
    illegal(g, C, {"type": "challenge", "targets": [A, D]}, "spaye.daye_under_way")
    illegal(g, A, {"type": "recruit", "player": B}, "spaye.already_in_daye")
    events = ok(g, B, {"type": "recruit", "player": C})
    assert types(events) == ["recruit_offered"] and g.to_act() == [C]
    illegal(g, A, {"type": "recruit", "player": D}, "spaye.recruit_pending")
    illegal(g, D, {"type": "accept"}, "spaye.not_invited")
    events = ok(g, C, {"type": "accept"})
    assert events[0]["players"] == [A, B, C] and events[0]["final"] is True
    events = draws(g, A, B, C)
    # the final's +3 for all three, with no extra +1 for the tied däye
    assert [(e["player"], e["points"]) for e in of_type(events, "points")] == [
        (A, 3),
        (B, 3),
        (C, 3),
    ]
    assert exercise_of(g, A)["reps"] == 29 and exercise_of(g, A)["stake"]["victory"] == 6
    assert g.public_view()["dayes"] == 1 and g.public_view()["spayins"] == [A, B, C]


def test_tied_spayins_cannot_leave_a_declined_recruit_is_replaced() -> None:
    g = stacked(["5S", "5H", NK, "2C", "9S"], [A, B])
    daye(g, A, B)
    ok(g, A, {"type": "recruit", "player": C})
    events = ok(g, C, {"type": "decline"})
    assert types(events) == ["recruit_declined"]
    ok(g, B, {"type": "recruit", "player": D})
    assert types(ok(g, SYSTEM, {"type": "expire"})) == ["recruit_expired"]
    ok(g, A, {"type": "recruit", "player": C})
    ok(g, C, {"type": "accept"})
    draws(g, B, C, A)
    assert points(g, B) == {"daye": 3, "victory": 0, "reps": 0}
    assert exercise_of(g, B)["reps"] == 2 + 9
