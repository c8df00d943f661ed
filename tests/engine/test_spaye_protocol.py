"""Späye behind the engine protocol: options, refusals, the bot's own actions, views,
results and saving (:mod:`bot.engine.base`)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bot.engine import SYSTEM, load_game, new_game
from bot.engine.spaye import DEFAULT_OPTIONS, SpayeGame
from tests.engine.test_spaye_support import (
    NK,
    A,
    B,
    C,
    challenge,
    daye,
    illegal,
    ok,
    own,
    reload,
    stacked,
    table,
    types,
)


@pytest.mark.parametrize(
    "options",
    [
        {"exercise": ""},
        {"exercise": "   "},
        {"exercise": 5},
        {"bonuses": {"king": A}},
        {"bonuses": {"tikao": ""}},
        {"bonuses": {"tikao": SYSTEM}},
        {"bonuses": [A]},
        {"month_spayins": [1]},
        {"month_spayins": A},
        {"committee": [None]},
        {"colour": "red"},
    ],
)
def test_bad_options_raise_a_readable_value_error(options: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="spaye"):
        new_game("spaye", [A], 1, options)


def test_options_take_their_defaults_and_are_copied() -> None:
    assert DEFAULT_OPTIONS == {
        "exercise": "push-ups",
        "bonuses": {},
        "month_spayins": [],
        "committee": [],
    }
    mine = {"bonuses": {"mastaye": A}, "month_spayins": [B]}
    g = new_game("spaye", [A], 1, mine)
    mine["bonuses"]["tikao"] = B
    mine["month_spayins"].append(C)
    assert g.public_view()["bonuses"] == {"mastaye": A}


def test_the_bot_is_never_a_player() -> None:
    with pytest.raises(ValueError):
        new_game("spaye", [SYSTEM], 1)
    g = new_game("spaye", [A], 1)
    illegal(g, SYSTEM, {"type": "challenge", "target": A}, "spaye.system_cannot_play")
    illegal(g, A, {"type": "challenge", "target": SYSTEM}, "spaye.name_a_colleague")
    illegal(g, "", {"type": "draw"}, "spaye.bad_player")


def test_only_the_bot_expires_voids_or_closes() -> None:
    g = new_game("spaye", [A], 1)
    for kind in ("expire", "void", "close"):
        illegal(g, A, {"type": kind}, "spaye.system_only")
    assert g.legal_actions(SYSTEM) == [{"type": "void"}, {"type": "close"}]
    ok(g, A, {"type": "challenge", "target": B})
    assert g.legal_actions(SYSTEM)[0] == {"type": "expire"}


@pytest.mark.parametrize("action", [{}, {"type": "fly"}, {"type": 3}, "draw", None, ["draw"]])
def test_unknown_or_malformed_actions_are_refused(action: Any) -> None:
    g = new_game("spaye", [A], 1)
    illegal(g, A, action, "spaye.unknown_action")


def test_every_refusal_leaves_the_game_byte_for_byte_unchanged() -> None:
    g = stacked(table(NK, "QS", size=5), [A, B], committee=[C])
    challenge(g, A, B)
    ok(g, A, {"type": "draw"})
    refusals = [
        (A, {"type": "draw"}, "spaye.already_drawn"),
        (C, {"type": "draw"}, "spaye.not_in_daye"),
        (C, {"type": "challenge", "target": A}, "spaye.daye_under_way"),
        (B, {"type": "accept"}, "spaye.no_invitation"),
        (B, {"type": "recruit", "player": C}, "spaye.no_recruit"),
        (A, {"type": "exercise_done"}, "spaye.no_exercise"),
        (C, {"type": "approve", "id": 1}, "spaye.unknown_exercise"),
        (SYSTEM, {"type": "expire"}, "spaye.nothing_to_expire"),
    ]
    for player, action, key in refusals:
        illegal(g, player, action, key)
    ok(g, B, {"type": "draw"})
    illegal(g, A, {"type": "bonus_tyrant", "id": 1}, "spaye.not_bonus_holder")
    illegal(g, B, {"type": "approve", "id": 1}, "spaye.no_request")


def test_save_and_load_continues_identically() -> None:
    g = new_game("spaye", [A, B], 42)
    script = [(A, {"type": "challenge", "target": B}), (B, {"type": "accept"})]
    for player, action in script:
        g.apply(player, action)
    copy = reload(g)
    assert copy.dumps() == g.dumps()
    for _ in range(5):
        if g.public_view()["daye"] is None:
            for game in (g, copy):
                game.apply(A, {"type": "challenge", "target": B})
                game.apply(B, {"type": "accept"})
        for who in (A, B):
            assert g.apply(who, {"type": "draw"}) == copy.apply(who, {"type": "draw"})
            if g.public_view()["daye"] is None:
                break
    assert copy.dumps() == g.dumps()


def test_same_seed_same_draws_other_seed_other_draws() -> None:
    def play(seed: int) -> list[Any]:
        g = new_game("spaye", [A, B], seed)
        g.apply(A, {"type": "challenge", "target": B})
        g.apply(B, {"type": "accept"})
        g.apply(A, {"type": "draw"})
        return g.apply(B, {"type": "draw"})

    assert play(5) == play(5)
    assert any(play(5) != play(s) for s in range(6, 12))


def test_views_never_show_the_table_the_discard_or_a_face_down_card() -> None:
    g = stacked(table("KS", "2H", "9D", "QC", size=7), [A, B])
    daye(g, A, B)
    challenge(g, B, A)
    ok(g, B, {"type": "draw"})  # 9D, face down
    for v in (g.public_view(), g.view(A), g.view(B), g.view(C)):
        text = json.dumps(v)
        assert "9D" not in text and "QC" not in text
        assert "discard" not in v and v["table"] == 4
        assert v["daye"]["rounds"] == [] and v["daye"]["drawn"] == [B]
        assert v["last_daye"]["rounds"] == [
            [{"player": A, "card": "KS"}, {"player": B, "card": "2H"}]
        ]


def test_view_adds_what_the_player_may_do() -> None:
    g = stacked(table(NK, "QS", size=5), [A, B], bonuses={"mastaye": A})
    daye(g, A, B)
    you = g.view(A)["you"]
    assert you["id"] == A and you["to_act"] and you["exercises"] == [1]
    assert you["bonuses"] == ["mastaye"]
    assert {"type": "bonus_tyrant", "id": 1} in you["legal_actions"]
    assert g.view(C)["you"]["to_act"] is False


def test_public_view_keys() -> None:
    v = new_game("spaye", [A], 1).public_view()
    assert set(v) == {
        "kind",
        "status",
        "exercise",
        "players",
        "table",
        "final_next",
        "challenge",
        "daye",
        "last_daye",
        "dayes",
        "exercises",
        "points",
        "scores",
        "spayins",
        "bonuses",
        "bonuses_used",
        "proposal",
    }


def test_result_ranks_by_total_points_with_columns_and_timeline() -> None:
    g = stacked([NK, "9S", "5H"], [A, B, C])
    daye(g, A, B, C)
    own(g, A, "exercise_done")
    res = g.result()
    assert res["status"] == "finished"
    assert res["ranking"] == [[A], [B, C]]
    assert res["scores"] == {A: 3 + 3 + 14, B: 3, C: 3}
    assert res["points"][A] == {"daye": 3, "victory": 3, "reps": 14}
    assert [(t["player"], t["column"], t["points"]) for t in res["timeline"]] == [
        (A, "daye", 3),
        (B, "daye", 3),
        (C, "daye", 3),
        (A, "victory", 3),
        (A, "reps", 14),
    ]
    assert [t["seq"] for t in res["timeline"]] == [0, 1, 2, 3, 4]
    assert res["spayins"] == [A, B, C] and res["dayes"] == 1
    json.dumps(res)


def test_loaded_stacked_game_stays_stacked() -> None:
    g = stacked(table("KS", "2H", size=5), [A, B])
    copy = load_game(g.dumps())
    assert isinstance(copy, SpayeGame)
    events = daye(copy, A, B)
    assert types(events)[-1] == "daye_over" and events[-1]["winner"] == A
