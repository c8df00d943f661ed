"""Spit (docs/rules/spit.md): one test per rule and per ruling, on hand-built positions.

Positions are built from a state dict: stock piles are listed bottom first (the last card
is face up), spit cards with the next to turn last, and every card not named goes to the
bottom of one spit pile so the 52 cards are all there.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from bot.engine import IllegalAction, load_game, new_game
from bot.engine.spit import DECK, FITS, FITS_ALT, MAX_LAYOUTS, Spit, _lay_out
from bot.i18n import CATALOGS
from tests.engine.spit_support import A, B, make


def state(game: Spit) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(game.dumps())
    return data


def all_cards(game: Spit) -> Counter[str]:
    data = state(game)
    cards = [c for s in data["stocks"] for p in s for c in p]
    cards += [c for s in data["spit_cards"] for c in s] + [c for p in data["spits"] for c in p]
    return Counter(cards)


def refused(game: Spit, player: str, action: dict[str, Any], key: str) -> IllegalAction:
    before = game.dumps()
    with pytest.raises(IllegalAction) as err:
        game.apply(player, action)
    assert err.value.key == key, (err.value.key, str(err.value))
    assert str(err.value)
    assert game.dumps() == before, "a refused action changed the game"
    return err.value


def play(pile: int, card: str, spit: int, onto: str) -> dict[str, Any]:
    return {"type": "play", "pile": pile, "card": card, "spit": spit, "onto": onto}


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def blocked_position(
    spit_cards: tuple[list[str], list[str]], options: dict[str, Any] | None = None
) -> Spit:
    """A plays 2H onto 3C and then nobody can move (7D, 9S, 6C fit nowhere)."""
    return make(
        [[["2H"], ["7D"]], [["9S"], ["6C"]]],
        [["3C"], ["JD"]],
        spit_cards,
        options=options,
    )


# ------------------------------------------------------------------ setup


def test_new_game_lays_five_piles_of_one_to_five_and_eleven_spit_cards() -> None:
    game = new_game("spit", [A, B], 3, {})
    assert isinstance(game, Spit)
    assert Spit.min_players == Spit.max_players == 2
    data = state(game)
    for seat in (0, 1):
        assert [len(p) for p in data["stocks"][seat]] == [1, 2, 3, 4, 5]
        assert len(data["spit_cards"][seat]) == 11
    assert all_cards(game) == Counter(DECK)
    view = game.public_view()
    assert view["phase"] == "spit" and view["to_act"] == [A, B]
    assert [p["down"] for p in view["stocks"][A]] == [0, 1, 2, 3, 4]
    assert view["spit_piles"] == [{"top": None, "size": 0}, {"top": None, "size": 0}]
    assert view["options"] == {"piles": 5, "alternate_colors": False, "no_slap": False}


def test_four_piles_lay_one_to_four_and_sixteen_spit_cards() -> None:
    game = new_game("spit", [A, B], 3, {"piles": 4})
    data = state(game)
    for seat in (0, 1):
        assert [len(p) for p in data["stocks"][seat]] == [1, 2, 3, 4]
        assert len(data["spit_cards"][seat]) == 16


def test_bad_options_and_seats_are_refused_in_plain_words() -> None:
    with pytest.raises(ValueError, match="piles must be 5 or 4, not 3"):
        new_game("spit", [A, B], 1, {"piles": 3})
    with pytest.raises(ValueError, match="exactly 2 players, not 3"):
        new_game("spit", [A, B, "333"], 1, {})
    with pytest.raises(ValueError, match="unknown option"):
        new_game("spit", [A, B], 1, {"jokers": True})
    with pytest.raises(ValueError, match="must be a bool"):
        new_game("spit", [A, B], 1, {"no_slap": 1})


def test_stock_is_dealt_row_by_row_and_a_short_stock_has_as_many_piles_as_it_can() -> None:
    cards = list(DECK[:20])
    stock, spit_cards = _lay_out(cards, 5)
    assert [len(p) for p in stock] == [1, 2, 3, 4, 5] and spit_cards == cards[15:]
    assert [len(p) for p in _lay_out(cards[:7], 5)[0]] == [1, 2, 2, 1, 1]
    assert [len(p) for p in _lay_out(cards[:3], 5)[0]] == [1, 1, 1, 0, 0]
    assert _lay_out(cards[:15], 5)[1] == []
    assert [len(p) for p in _lay_out(cards[:12], 4)[0]] == [1, 2, 3, 4]


# ------------------------------------------------------------------ the spit


def test_ready_the_spit_cards_turn_when_the_second_player_spits() -> None:
    game = new_game("spit", [A, B], 3, {})
    tops = [state(game)["spit_cards"][s][-1] for s in (0, 1)]
    assert game.apply(B, {"type": "spit"}) == [{"type": "ready", "player": B}]
    assert game.to_act() == [A]
    assert game.public_view()["ready"] == [B]
    assert game.legal_actions(B) == []
    refused(game, B, {"type": "spit"}, "spit.already_ready")
    refused(game, B, play(0, "AS", 0, "2S"), "spit.not_now.spit")
    events = game.apply(A, {"type": "spit"})
    assert events[0] == {
        "type": "spit",
        "cards": [
            {"player": A, "pile": 0, "card": tops[0]},
            {"player": B, "pile": 1, "card": tops[1]},
        ],
    }
    view = game.public_view()
    assert [p["top"] for p in view["spit_piles"]] == tops
    assert view["spit_cards"] == {A: 10, B: 10}
    assert view["ready"] == []


def test_each_player_spits_onto_their_own_pile() -> None:
    game = new_game("spit", [A, B], 3, {})
    refused(game, A, {"type": "spit", "pile": 1}, "spit.own_pile")
    refused(game, A, {"type": "spit", "pile": 2}, "spit.bad_spit")
    game.apply(A, {"type": "spit", "pile": 0})


# ------------------------------------------------------------------ moves


def test_wrap_ace_fits_on_king_and_on_two() -> None:
    assert {"KH", "2D", "KS", "2C"} <= FITS["AS"]
    assert "AH" in FITS["KS"] and "AH" in FITS["2S"]
    assert "AH" not in FITS["QS"] and "AH" not in FITS["3S"] and "AD" not in FITS["AS"]
    assert all(len(fits) == 8 for fits in FITS.values())
    game = make([[["AS"]], [["9S"]]], [["KH"], ["2D"]])
    assert game.legal_actions(A) == [play(0, "AS", 0, "KH"), play(0, "AS", 1, "2D")]
    game = make([[["KC"], ["2C"], ["5C"]], [["9S"]]], [["AH"], ["7D"]])
    assert game.legal_actions(A) == [play(0, "KC", 0, "AH"), play(1, "2C", 0, "AH")]
    refused(game, A, play(2, "5C", 0, "AH"), "spit.no_fit")


def test_uncover_the_next_card_is_turned_at_once() -> None:
    game = make([[["9C", "5H"], ["KD"]], [["9S"]]], [["6S"], ["QS"]], (["2S"], ["3S"]))
    events = game.apply(A, play(0, "5H", 0, "6S"))
    assert events == [
        {"type": "play", "player": A, "pile": 0, "card": "5H", "spit": 0, "onto": "6S"},
        {"type": "turned", "player": A, "pile": 0, "card": "9C"},
    ]
    view = game.view(A)
    assert view["stocks"][A][0] == {"top": "9C", "down": 0}
    assert view["you"]["hand"] == ["9C", "KD"]
    assert view["last_move"] == events[0]
    assert view["spit_piles"][0]["top"] == "5H"


def test_fill_only_when_it_uncovers_a_face_down_card() -> None:
    game = make(
        [[[], ["4C", "KD"], ["QH"], ["8S", "9H"]], [["9S"]]],
        [["6S"], ["2D"]],
        (["2S"], ["3S"]),
    )
    fills = [a for a in game.legal_actions(A) if a["type"] == "fill"]
    assert fills == [
        {"type": "fill", "pile": 1, "card": "KD", "to": 0},
        {"type": "fill", "pile": 1, "card": "KD", "to": 4},
        {"type": "fill", "pile": 3, "card": "9H", "to": 0},
        {"type": "fill", "pile": 3, "card": "9H", "to": 4},
    ]
    refused(game, A, {"type": "fill", "pile": 2, "card": "QH", "to": 0}, "spit.uncovers_nothing")
    refused(game, A, {"type": "fill", "pile": 1, "card": "KD", "to": 2}, "spit.place_taken")
    refused(game, A, {"type": "fill", "pile": 1, "card": "KD", "to": 5}, "spit.bad_pile")
    refused(game, A, {"type": "fill", "pile": 1, "card": "QH", "to": 0}, "spit.card_moved")
    events = game.apply(A, {"type": "fill", "pile": 1, "card": "KD", "to": 0})
    assert events == [
        {"type": "fill", "player": A, "pile": 1, "card": "KD", "to": 0},
        {"type": "turned", "player": A, "pile": 1, "card": "4C"},
    ]
    assert state(game)["stocks"][0][:2] == [["KD"], ["4C"]]


def test_real_time_both_players_act_whenever_both_may_move() -> None:
    game = make([[["2H"], ["KH"]], [["4C"], ["9S"]]], [["3C"], ["QD"]], (["2S"], ["3S"]))
    assert game.to_act() == [A, B]
    game = make([[["2H"], ["KH"]], [["9S"]]], [["3C"], ["QD"]], (["2S"], ["3S"]))
    assert game.to_act() == [A]
    assert game.legal_actions(B) == []


def test_a_move_aimed_at_an_older_board_is_refused() -> None:
    game = make([[["2H"], ["KH"], ["5D"]], [["4C"], ["9S"]]], [["3C"], ["QD"]], (["2S"], ["3S"]))
    stale = play(0, "2H", 0, "3C")
    assert stale in game.legal_actions(A)
    game.apply(B, play(0, "4C", 0, "3C"))
    err = refused(game, A, stale, "spit.spit_changed")
    assert err.params == {"number": 1, "onto": "3C", "top": "4C"}
    game.apply(A, play(1, "KH", 1, "QD"))
    refused(game, A, play(1, "KH", 1, "QD"), "spit.card_moved")


def test_alternate_colours_black_on_red_and_red_on_black() -> None:
    assert FITS_ALT["10S"] == {"9H", "9D", "JH", "JD"}
    game = make(
        [[["10S"], ["10H"]], [["4C"]]],
        [["9C"], ["JD"]],
        (["2S"], ["3S"]),
        options={"alternate_colors": True},
    )
    assert game.legal_actions(A) == [play(0, "10S", 1, "JD"), play(1, "10H", 0, "9C")]
    refused(game, A, play(0, "10S", 0, "9C"), "spit.no_fit_colour")
    refused(game, A, play(1, "10H", 1, "JD"), "spit.no_fit_colour")
    game.apply(A, play(0, "10S", 1, "JD"))


def test_four_piles_have_four_places() -> None:
    game = make(
        [[[], ["4C", "KD"], ["QH"], ["8S"]], [["9S"]]],
        [["6S"], ["2D"]],
        (["2S"], ["3S"]),
        options={"piles": 4},
    )
    assert [a["to"] for a in game.legal_actions(A) if a["type"] == "fill"] == [0]
    refused(game, A, {"type": "fill", "pile": 1, "card": "KD", "to": 4}, "spit.bad_pile")


# ------------------------------------------------------------------ blocks


def test_block_and_respit_both_turn_their_next_spit_card() -> None:
    game = blocked_position((["KS", "8C"], ["QS", "KD"]))
    assert game.to_act() == [A]
    events = game.apply(A, play(0, "2H", 0, "3C"))
    assert types(events) == ["play", "blocked"]
    assert events[1] == {"type": "blocked", "spitters": [A, B], "lone": None, "pile": None}
    assert game.public_view()["phase"] == "spit" and game.to_act() == [A, B]
    refused(game, A, play(1, "7D", 0, "2H"), "spit.not_now.spit")
    game.apply(B, {"type": "spit"})
    events = game.apply(A, {"type": "spit"})
    assert types(events) == ["spit"]
    assert [p["top"] for p in game.public_view()["spit_piles"]] == ["8C", "KD"]
    assert game.to_act() == [A, B]
    assert play(1, "7D", 0, "8C") in game.legal_actions(A)


def test_block_right_after_a_spit_spits_again_then_no_spit_cards_is_a_new_layout() -> None:
    game = blocked_position((["KS", "4S"], ["QS", "4D"]))
    game.apply(A, play(0, "2H", 0, "3C"))
    game.apply(A, {"type": "spit"})
    events = game.apply(B, {"type": "spit"})
    assert types(events) == ["spit", "blocked"]
    game.apply(A, {"type": "spit"})
    events = game.apply(B, {"type": "spit"})
    assert events[-1] == {"type": "blocked", "spitters": [], "lone": None, "pile": None}
    view = game.public_view()
    assert view["phase"] == "slap" and view["to_act"] == [A, B] and view["emptied"] is None
    assert game.legal_actions(B) == [{"type": "slap", "pile": 0}, {"type": "slap", "pile": 1}]


def test_both_out_of_spit_cards_play_goes_on_until_the_block() -> None:
    game = make([[["2H"], ["3H"]], [["9S"]]], [["3C"], ["JD"]])
    game.apply(A, play(0, "2H", 0, "3C"))
    assert game.public_view()["phase"] == "play"
    events = game.apply(A, play(1, "3H", 0, "2H"))
    assert types(events) == ["play", "stock_empty"]


def test_lone_spitter_chooses_a_pile_and_keeps_it_until_a_new_layout() -> None:
    game = blocked_position(([], ["KS", "4D", "4S"]))
    events = game.apply(A, play(0, "2H", 0, "3C"))
    assert events[-1] == {"type": "blocked", "spitters": [B], "lone": B, "pile": None}
    assert game.to_act() == [B]
    assert game.public_view()["lone_spitter"] == B
    assert game.legal_actions(A) == []
    assert game.legal_actions(B) == [{"type": "spit", "pile": 0}, {"type": "spit", "pile": 1}]
    refused(game, A, {"type": "spit"}, "spit.no_spit_cards")
    refused(game, B, {"type": "spit"}, "spit.choose_pile")
    size0 = game.public_view()["spit_piles"][0]["size"]
    events = game.apply(B, {"type": "spit", "pile": 1})
    assert events == [
        {"type": "spit", "cards": [{"player": B, "pile": 1, "card": "4S"}]},
        {"type": "blocked", "spitters": [B], "lone": B, "pile": 1},
    ]
    assert game.public_view()["lone_pile"] == 1
    assert game.legal_actions(B) == [{"type": "spit"}]
    err = refused(game, B, {"type": "spit", "pile": 0}, "spit.fixed_pile")
    assert err.params == {"number": 2}
    game.apply(B, {"type": "spit", "pile": 1})
    events = game.apply(B, {"type": "spit"})
    assert events[0]["cards"] == [{"player": B, "pile": 1, "card": "KS"}]
    assert game.public_view()["spit_piles"][0]["size"] == size0
    assert game.public_view()["phase"] == "slap"
    game.apply(A, {"type": "slap", "pile": 0})
    assert state(game)["lone_pile"] is None


# ------------------------------------------------------------------ new layout


def slap_position(options: dict[str, Any] | None = None) -> Spit:
    """A empties their stock with 2H; pile 0 then holds 2 cards, pile 1 the other 44."""
    return make(
        [[["2H"]], [["9S"], ["6C"]]],
        [["3C"], ["JD"]],
        (["KS", "4S"], ["QS", "4D"]),
        options=options,
        filler=1,
    )


def test_stock_empty_starts_the_slap() -> None:
    game = slap_position()
    events = game.apply(A, play(0, "2H", 0, "3C"))
    assert events[-1] == {"type": "stock_empty", "player": A}
    view = game.public_view()
    assert view["phase"] == "slap" and view["to_act"] == [A, B] and view["emptied"] == A
    refused(game, A, play(0, "9S", 0, "2H"), "spit.not_now.slap")
    refused(game, A, {"type": "spit"}, "spit.not_now.slap")
    refused(game, A, {"type": "take", "pile": 0}, "spit.slap_instead")
    refused(game, A, {"type": "slap", "pile": 2}, "spit.bad_spit")


def test_slap_race_first_arrival_takes_the_pile_other_player_slapped_first() -> None:
    game = slap_position()
    game.apply(A, play(0, "2H", 0, "3C"))
    events = game.apply(B, {"type": "slap", "pile": 0})
    assert events[0] == {"type": "slap", "player": B, "pile": 0}
    layout = events[1]
    assert layout["type"] == "layout" and layout["reason"] == "stock_empty"
    assert layout["taken"] == {B: 2, A: 44}
    # The late slap of the same pile finds the game laid out again.
    refused(game, A, {"type": "slap", "pile": 0}, "spit.not_now.spit")
    # B: 9S, 6C, QS, 4D, 3C, 2H = 6 cards, short: a stock of 6 and no spit cards.
    assert layout["stocks"][B] == [1, 2, 1, 1, 1] and layout["spit_cards"][B] == 0
    assert layout["stocks"][A] == [1, 2, 3, 4, 5] and layout["spit_cards"][A] == 46 - 15
    assert all_cards(game) == Counter(DECK)


def test_slap_race_first_arrival_takes_the_pile_emptier_slapped_first() -> None:
    game = slap_position()
    game.apply(A, play(0, "2H", 0, "3C"))
    events = game.apply(A, {"type": "slap", "pile": 0})
    assert events[1]["taken"] == {A: 2, B: 44}
    refused(game, B, {"type": "slap", "pile": 0}, "spit.not_now.spit")


def test_slap_different_piles_each_takes_their_own() -> None:
    game = slap_position()
    game.apply(A, play(0, "2H", 0, "3C"))
    events = game.apply(A, {"type": "slap", "pile": 1})
    assert events[1]["taken"] == {A: 44, B: 2}


def test_new_layout_shuffles_the_pile_with_stock_and_spit_cards() -> None:
    game = slap_position()
    game.apply(A, play(0, "2H", 0, "3C"))
    before = state(game)
    game.apply(A, {"type": "slap", "pile": 1})
    after = state(game)
    mine = sorted([*before["spit_cards"][0], *before["spits"][1]])
    theirs = sorted(
        [c for p in before["stocks"][1] for c in p] + before["spit_cards"][1] + before["spits"][0]
    )
    for seat, cards in ((0, mine), (1, theirs)):
        held = [c for p in after["stocks"][seat] for c in p] + after["spit_cards"][seat]
        assert sorted(held) == cards
    assert after["spits"] == [[]] and after["layouts"] == 1
    assert game.public_view()["last_move"]["type"] == "layout"


def test_no_slap_the_player_who_emptied_their_stock_takes_a_pile() -> None:
    game = slap_position({"no_slap": True})
    game.apply(A, play(0, "2H", 0, "3C"))
    assert game.to_act() == [A]
    assert game.legal_actions(A) == [{"type": "take", "pile": 0}, {"type": "take", "pile": 1}]
    assert game.legal_actions(B) == []
    err = refused(game, B, {"type": "take", "pile": 0}, "spit.not_your_choice")
    assert err.params == {"player": A}
    refused(game, A, {"type": "slap", "pile": 0}, "spit.no_slapping")
    events = game.apply(A, {"type": "take", "pile": 0})
    assert events[0] == {"type": "take", "player": A, "pile": 0}
    assert events[1]["taken"] == {A: 2, B: 44}


def test_no_slap_after_a_block_the_player_with_fewer_stock_cards_chooses() -> None:
    game = make(
        [[["2H"], ["7D"]], [["9S"], ["6C"]]],
        [["3C"], ["JD"]],
        options={"no_slap": True},
    )
    game.apply(A, play(0, "2H", 0, "3C"))
    assert game.public_view()["phase"] == "slap"
    assert game.to_act() == [A]
    game = make(
        [[["2H"], ["7D"]], [["9S"]]],
        [["3C"], ["JD"]],
        options={"no_slap": True},
    )
    game.apply(A, play(0, "2H", 0, "3C"))
    assert game.to_act() == [A, B]
    game.apply(B, {"type": "take", "pile": 0})
    refused(game, A, {"type": "take", "pile": 1}, "spit.not_now.spit")


def test_short_relayout_the_other_player_spits_alone_onto_one_pile() -> None:
    game = slap_position()
    game.apply(A, play(0, "2H", 0, "3C"))
    game.apply(B, {"type": "slap", "pile": 0})
    view = game.public_view()
    assert view["one_pile"] and view["spit_piles"] == [{"top": None, "size": 0}]
    assert view["lone_spitter"] == A and view["lone_pile"] == 0
    assert game.to_act() == [A]
    assert game.legal_actions(A) == [{"type": "spit"}]
    refused(game, B, {"type": "spit"}, "spit.no_spit_cards")
    refused(game, A, {"type": "spit", "pile": 1}, "spit.bad_spit")
    events = game.apply(A, {"type": "spit"})
    assert events[0]["cards"][0]["pile"] == 0
    assert game.public_view()["spit_piles"][0]["size"] == 1


def test_a_full_stock_and_no_spit_cards_counts_as_short() -> None:
    spit_cards = ["2C", "3D", "4H", "5S", "6D", "7C", "8D", "9H", "10S", "JC", "QH", "KC", "AC"]
    game = make([[["2H"]], [["9S"]]], [["3C"], ["JD"]], (spit_cards, ["QS"]), filler=1)
    game.apply(A, play(0, "2H", 0, "3C"))
    events = game.apply(A, {"type": "slap", "pile": 0})
    assert events[-1]["stocks"][A] == [1, 2, 3, 4, 5] and events[-1]["spit_cards"][A] == 0
    assert events[-1]["spit_piles"] == 1
    assert game.to_act() == [B]


def test_two_piles_emptying_the_stock_with_no_spit_cards_is_not_a_win() -> None:
    game = make([[["2H"]], [["9S"]]], [["3C"], ["JD"]], ([], ["QS"]), filler=1)
    game.apply(A, play(0, "2H", 0, "3C"))
    assert not game.is_over() and game.public_view()["phase"] == "slap"
    game.apply(A, {"type": "slap", "pile": 0})
    assert game.public_view()["cards_left"][A] == 2


# ------------------------------------------------------------------ one pile


def test_one_pile_end_game_the_short_player_empties_first_and_wins() -> None:
    game = make([[["2H"]], [["9S"], ["6C"]]], [["3C"]], ([], ["KD"]), phase="play", spitter=1)
    events = game.apply(A, play(0, "2H", 0, "3C"))
    assert types(events) == ["play", "stock_empty", "pile_left", "game_over"]
    assert events[2] == {"type": "pile_left", "player": A, "to": B, "size": 52 - 3}
    assert events[3]["winner"] == A
    assert game.is_over() and game.to_act() == [] and game.legal_actions(A) == []
    assert game.result() == {"ranking": [[A], [B]], "scores": {A: 0, B: 52}}
    assert game.public_view()["winner"] == A
    refused(game, A, {"type": "spit"}, "spit.game_over")
    with pytest.raises(IllegalAction):
        game.auto_action(B)


def test_one_pile_end_game_the_spitter_empties_first_and_leaves_the_pile() -> None:
    diamonds = [c for c in DECK if c[-1] == "D"]
    spit_cards = [*diamonds, "2C", "4C", "5C", "7C", "8C", "10C", "JC"]
    game = make([[["9S"], ["6S"]], [["2H"]]], [["3C"]], ([], spit_cards), spitter=1)
    events = game.apply(B, play(0, "2H", 0, "3C"))
    assert types(events) == ["play", "stock_empty", "pile_left", "layout"]
    assert events[2]["to"] == A
    layout = events[3]
    assert layout["reason"] == "pile_left"
    pile = 52 - 2 - 20
    assert layout["taken"] == {A: pile, B: 0}
    assert layout["stocks"][B] == [1, 2, 3, 4, 5] and layout["spit_cards"][B] == 5
    assert layout["spit_cards"][A] == 2 + pile - 15
    assert layout["spit_piles"] == 2
    assert all_cards(game) == Counter(DECK)


def test_one_pile_blocked_without_spit_cards_the_pile_goes_to_more_stock() -> None:
    game = make([[["2H"], ["7D"]], [["9S"], ["6C"], ["10C"]]], [["3C"]], spitter=1)
    events = game.apply(A, play(0, "2H", 0, "3C"))
    assert types(events) == ["play", "blocked", "pile_left", "layout"]
    assert events[2] == {"type": "pile_left", "player": A, "to": B, "size": 52 - 4}
    assert events[3]["taken"] == {A: 0, B: 48}


@pytest.mark.parametrize(("spitter", "taker"), [(0, A), (1, B)])
def test_one_pile_blocked_tie_the_spitter_takes_the_pile(spitter: int, taker: str) -> None:
    game = make([[["2H"], ["7D"]], [["9S"]]], [["3C"]], spitter=spitter)
    events = game.apply(A, play(0, "2H", 0, "3C"))
    assert events[2]["to"] == taker


def test_max_layouts_ends_the_game_fewest_cards_wins() -> None:
    game = slap_position()
    data = state(game)
    data["layouts"] = MAX_LAYOUTS - 1
    game = load_game(json.dumps({"kind": "spit", **data}))
    game.apply(A, play(0, "2H", 0, "3C"))
    events = game.apply(A, {"type": "slap", "pile": 0})
    assert types(events) == ["slap", "layout", "game_over"]
    assert events[-1]["winner"] == A
    assert game.result()["ranking"] == [[A], [B]]
    assert game.is_over()


# ------------------------------------------------------------------ auto_action


def test_auto_action_plays_first_then_fills_then_spits_slaps_and_takes_the_smaller() -> None:
    game = make([[["2H"], ["KH"]], [["4C"], ["9S"]]], [["3C"], ["QD"]], (["2S"], ["3S"]))
    assert game.auto_action(A) == play(0, "2H", 0, "3C")
    game = make([[[], ["4C", "KD"]], [["9S"]]], [["6S"], ["2D"]], (["2S"], ["3S"]))
    assert game.auto_action(A) == {"type": "fill", "pile": 1, "card": "KD", "to": 0}
    assert game.to_act() == [A]
    with pytest.raises(IllegalAction) as err:
        game.auto_action(B)
    assert err.value.key == "spit.nothing_to_do"
    with pytest.raises(IllegalAction) as err:
        game.auto_action("999")
    assert err.value.key == "spit.not_a_player"
    game = new_game("spit", [A, B], 1, {})
    assert game.auto_action(A) == {"type": "spit"}
    game = slap_position()
    game.apply(A, play(0, "2H", 0, "3C"))
    assert game.auto_action(B) == {"type": "slap", "pile": 0}
    game = slap_position({"no_slap": True})
    game.apply(A, play(0, "2H", 0, "3C"))
    assert game.auto_action(A) == {"type": "take", "pile": 0}
    game = blocked_position(([], ["KS", "4D", "4S"]))
    game.apply(A, play(0, "2H", 0, "3C"))
    assert game.auto_action(B) == {"type": "spit", "pile": 0}  # the larger pile


# ------------------------------------------------------------------ refusals, views


def test_refusals_change_nothing_and_say_why() -> None:
    game = make([[["2H"], ["KH"]], [["4C"], ["9S"]]], [["3C"], ["QD"]], (["2S"], ["3S"]))
    cases = [
        ("999", play(0, "2H", 0, "3C"), "spit.not_a_player"),
        (A, {"type": "dance"}, "spit.bad_action"),
        (A, ["play"], "spit.bad_action"),
        (A, {"type": "play", "pile": 0, "card": "2H", "spit": 0}, "spit.bad_action"),
        (A, {"type": "play", "pile": 0, "card": "ZZ", "spit": 0, "onto": "3C"}, "spit.bad_action"),
        (A, play(7, "2H", 0, "3C"), "spit.bad_pile"),
        (A, {**play(0, "2H", 0, "3C"), "pile": True}, "spit.bad_pile"),
        (A, play(0, "2H", 2, "3C"), "spit.bad_spit"),
        (A, play(0, "2H", 1, "QD"), "spit.no_fit"),
        (A, play(0, "KH", 0, "3C"), "spit.card_moved"),
        (A, play(2, "KH", 1, "QD"), "spit.card_moved"),
        (A, play(0, "2H", 1, "3C"), "spit.spit_changed"),
        (A, {"type": "spit"}, "spit.not_now.play"),
        (A, {"type": "slap", "pile": 0}, "spit.not_now.play"),
        (A, {"type": "fill", "pile": 0, "card": "2H", "to": 2}, "spit.uncovers_nothing"),
    ]
    for player, action, key in cases:
        refused(game, player, action, key)  # type: ignore[arg-type]


def test_every_refusal_key_has_english_and_french_texts() -> None:
    source = Path("bot/engine/spit.py").read_text(encoding="utf-8")
    keys = set(re.findall(r'"(spit\.[a-z_]+(?:\.[a-z_]+)?)"', source))
    keys |= {f"spit.not_now.{phase}" for phase in ("spit", "play", "slap")}
    keys.discard("spit.not_now.")
    assert len(keys) >= 20
    for lang in ("en", "fr"):
        missing = sorted(k for k in keys if k not in CATALOGS[lang])
        assert not missing, (lang, missing)


def test_views_show_face_up_cards_only() -> None:
    game = new_game("spit", [A, B], 5, {})
    data = state(game)
    face_down = {c for s in data["stocks"] for p in s for c in p[:-1]}
    face_down |= {c for s in data["spit_cards"] for c in s}
    for who in (A, B, "999"):
        text = json.dumps(game.view(who))
        assert not [c for c in face_down if f'"{c}"' in text]
    you = game.view(A)["you"]
    assert you == {
        "id": A,
        "hand": [p[-1] for p in data["stocks"][0]],
        "legal_actions": [{"type": "spit"}],
    }
    assert "you" not in game.view("999")
    assert game.view("999") == game.public_view()


def test_one_pile_end_game_a_spitter_out_of_spit_cards_who_empties_first_wins() -> None:
    game = make([[["9S"], ["6S"]], [["2H"]]], [["3C"]], ([], []), spitter=1)
    events = game.apply(B, play(0, "2H", 0, "3C"))
    assert types(events) == ["play", "stock_empty", "pile_left", "game_over"]
    assert game.result()["ranking"] == [[B], [A]]
