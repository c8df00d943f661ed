"""Speahx rules, one test per rule and ruling (docs/rules/speahx.md), and every refusal."""

from __future__ import annotations

import json
import random
import re
from collections import Counter
from typing import Any

import pytest

from bot.engine import IllegalAction, load_game, new_game
from bot.engine.speahx import (
    HAND,
    TABLE,
    Speahx,
    auto_coins,
    decks_for,
    full_deck,
    sort_cards,
)

PLAYERS = [str(100 + i) for i in range(14)]
COINS = {
    "plain": lambda c: c & 6 and c & 24 and not c & 1,
    "second": lambda c: not c & 6 and c & 24,
    "single": lambda c: c & 6 and not c & 24,
    "two": lambda c: c & 1,
}
A, B, C, D = PLAYERS[:4]
FILLER = ["9C", "9C", "9C", "9C", "9C"]
"""Face-down table cards of crafted games (codes may repeat: nobody checks the deck)."""


def start(n: int = 4, seed: int = 1, **options: Any) -> Speahx:
    game = new_game("speahx", PLAYERS[:n], seed, options)
    assert isinstance(game, Speahx)
    return game


def crafted(
    hands: list[list[str]],
    *,
    pile: list[str] | None = None,
    stock: list[str] | None = None,
    table: list[list[str | None]] | None = None,
    named: str = "",
    turn: int = 0,
    jokers: bool = False,
    out: list[int] | None = None,
    players: int | None = None,
    coins: str = "plain",
) -> Speahx:
    """A game in play with the given hands, pile (top last), stock (drawn from the end),
    face-down table cards, named suit on a top 2, seat to act and finished seats.

    ``coins`` picks a turn count whose ``auto_coins`` give the plain timer move ("plain"),
    or the second-lowest rank ("second"), a single card ("single"), a 2 ("two")."""
    n = players or len(hands)
    data = json.loads(start(n, jokers=jokers).dumps())
    data.update(
        hands=[sort_cards(h) for h in hands],
        pile=list(pile or []),
        stock=list(stock or []),
        table=table if table is not None else [list(FILLER) for _ in hands],
        named=named,
        turn=turn,
        out=list(out or []),
        turns=next(t for t in range(1000) if COINS[coins](auto_coins(data["rng"], t))),
    )
    game = load_game(json.dumps({"kind": "speahx", **data}))
    assert isinstance(game, Speahx)
    return game


def state(game: Speahx) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(game.dumps())
    return data


def play(game: Speahx, player: str, *cards: str) -> list[dict[str, Any]]:
    return game.apply(player, {"type": "play", "cards": list(cards)})


def types(events: list[dict[str, Any]]) -> list[str]:
    return [e["type"] for e in events]


def refused(game: Speahx, player: str, action: Any, key: str) -> IllegalAction:
    before = game.dumps()
    with pytest.raises(IllegalAction) as err:
        game.apply(player, action)
    assert err.value.key == f"speahx.{key}", str(err.value)
    assert str(err.value)
    assert game.dumps() == before, "a refused action changed the game"
    return err.value


def hand(game: Speahx, player: str) -> list[str]:
    cards: list[str] = game.view(player)["you"]["hand"]
    return cards


# --------------------------------------------------------------------- the deal


@pytest.mark.parametrize(("n", "decks"), [(2, 1), (3, 1), (4, 1), (5, 2), (9, 2), (10, 3), (14, 3)])
@pytest.mark.parametrize("jokers", [False, True])
def test_decks_by_player_count_and_two_jokers_in_total(n: int, decks: int, jokers: bool) -> None:
    assert decks_for(n) == decks
    game = start(n, jokers=jokers)
    data = state(game)
    cards = [c for h in data["hands"] for c in h] + data["stock"]
    cards += [c for t in data["table"] for c in t]
    assert Counter(cards) == Counter(full_deck(n, jokers))
    assert len(cards) == 52 * decks + (2 if jokers else 0)
    assert cards.count("JK") == (2 if jokers else 0)
    assert game.public_view()["decks"] == decks


def test_deal_five_table_cards_five_hand_cards_rest_is_the_stock() -> None:
    game = start(4)
    view = game.public_view()
    assert view["hand_sizes"] == dict.fromkeys(PLAYERS[:4], HAND)
    assert view["table_cards"] == {p: list(range(TABLE)) for p in PLAYERS[:4]}
    assert view["stock"] == 52 - 4 * (HAND + TABLE)
    assert view["pile"] == [] and view["burned"] == 0 and view["out"] == []


def test_random_dealer_and_the_player_on_the_dealers_left_starts() -> None:
    dealers = set()
    for seed in range(30):
        game = start(5, seed)
        view = game.public_view()
        seat = PLAYERS.index(view["dealer"])
        dealers.add(seat)
        assert view["turn"] == PLAYERS[(seat + 1) % 5]
        assert game.to_act() == [view["turn"]]
        assert game.deal_event()["dealer"] == view["dealer"]
    assert len(dealers) > 1


def test_player_counts_and_options_are_checked() -> None:
    with pytest.raises(ValueError, match="2 to 14"):
        new_game("speahx", PLAYERS[:1], 1)
    with pytest.raises(ValueError, match="2 to 14"):
        new_game("speahx", [*PLAYERS, "999"], 1)
    with pytest.raises(ValueError, match="jokers"):
        new_game("speahx", PLAYERS[:2], 1, {"jokers": "yes"})
    with pytest.raises(ValueError, match="unknown option"):
        new_game("speahx", PLAYERS[:2], 1, {"rounds": 2})
    assert Speahx.min_players == 2 and Speahx.max_players == 14


def test_same_seed_same_game_and_load_goes_on_identically() -> None:
    one, two = start(6, 9), start(6, 9)
    assert one.dumps() == two.dumps()
    for _ in range(40):
        if one.is_over():
            break
        player = one.to_act()[0]
        action = one.auto_action(player)
        copy = load_game(one.dumps())
        assert one.apply(player, action) == copy.apply(player, action)
        assert one.dumps() == copy.dumps()


# --------------------------------------------------------------------- plays


def test_any_card_on_an_empty_pile() -> None:
    game = crafted([["5H", "KS"], ["3C"]], stock=["4D"] * 10)
    assert {tuple(a["cards"]) for a in game.legal_actions(A) if a["type"] == "play"} == {
        ("5H",),
        ("KS",),
    }
    events = play(game, A, "KS")
    assert events[0] == {"type": "play", "player": A, "cards": ["KS"], "source": "hand"}
    assert game.public_view()["pile"] == ["KS"]
    assert game.public_view()["suit"] == "S"


def test_a_card_of_the_top_cards_suit_or_rank() -> None:
    game = crafted([["5H", "7S", "8C"], ["3C"]], pile=["7H"], stock=["4D"] * 10)
    plays = {a["cards"][0] for a in game.legal_actions(A) if a["type"] == "play"}
    assert plays == {"5H", "7S"}
    refused(game, A, {"type": "play", "cards": ["8C"]}, "no_match")
    play(game, A, "7S")
    assert game.public_view()["suit"] == "S"


def test_several_cards_of_one_rank_legal_if_any_one_matches_in_any_order() -> None:
    game = crafted([["5S", "5C", "5D", "9H"], ["3C"]], pile=["8D"], stock=["4D"] * 10)
    play(game, A, "5S", "5D", "5C")
    assert game.public_view()["pile"] == ["8D", "5S", "5D", "5C"]
    assert game.public_view()["suit"] == "C"


def test_cards_of_different_ranks_together_are_refused() -> None:
    game = crafted([["5S", "6S"], ["3C"]], pile=["8S"], stock=["4D"] * 10)
    refused(game, A, {"type": "play", "cards": ["5S", "6S"]}, "mixed_ranks")


def test_a_card_not_in_your_hand_is_refused() -> None:
    game = crafted([["5S", "5H"], ["3C"]], pile=["8S"], stock=["4D"] * 10)
    refused(game, A, {"type": "play", "cards": ["3C"]}, "not_in_hand")
    refused(game, A, {"type": "play", "cards": ["5S", "5S"]}, "not_in_hand")
    refused(game, A, {"type": "play", "cards": ["ZZ"]}, "not_in_hand")
    refused(game, A, {"type": "play", "cards": []}, "empty_play")
    refused(game, A, {"type": "play", "cards": "5S"}, "bad_action")


@pytest.mark.parametrize("card", ["2C", "10C", "JK"])
def test_special_cards_play_on_anything(card: str) -> None:
    game = crafted(
        [[card, "3D"], ["3C", "4C"], ["4S"]], pile=["8H", "9H"], stock=["4D"] * 10, jokers=True
    )
    assert {"type": "play", "cards": [card]} in game.legal_actions(A)
    play(game, A, card)


def test_after_a_two_the_announced_suit_or_a_two() -> None:
    game = crafted([["5H", "2S", "QC", "2H"], ["3C"]], pile=["9H", "2H"], named="C")
    plays = {a["cards"][0] for a in game.legal_actions(A) if a["type"] == "play"}
    assert plays == {"2S", "2H", "QC"}
    refused(game, A, {"type": "play", "cards": ["5H"]}, "no_match")
    assert game.public_view()["suit"] == "C" and game.public_view()["named"] == "C"


def test_the_two_names_a_suit_before_the_turn_goes_on() -> None:
    game = crafted([["2D", "4D"], ["3C", "4C"]], pile=["9H"], stock=["5S"] * 10)
    events = play(game, A, "2D")
    assert types(events) == ["play"]
    assert game.public_view()["phase"] == "suit" and game.to_act() == [A]
    assert game.legal_actions(A) == [{"type": "suit", "suit": s} for s in "SHDC"]
    refused(game, A, {"type": "collect"}, "pending_suit")
    refused(game, A, {"type": "suit", "suit": "X"}, "bad_suit")
    events = game.apply(A, {"type": "suit", "suit": "C"})
    assert events[0] == {"type": "suit_named", "player": A, "suit": "C"}
    assert "speah" not in types(events)
    assert game.public_view()["suit"] == "C" and game.to_act() == [B]


def test_speah_when_a_two_switches_to_spades() -> None:
    game = crafted([["2D", "4D"], ["3C"]], pile=["9H"], stock=["5S"] * 10)
    play(game, A, "2D")
    events = game.apply(A, {"type": "suit", "suit": "S"})
    assert {"type": "speah", "player": A} in events
    assert game.public_view()["announcements"] == [{"type": "speah", "player": A}]


def test_speah_on_a_same_rank_switch_to_spades() -> None:
    game = crafted([["9S", "4D"], ["3C"]], pile=["9H"], stock=["5S"] * 10)
    events = play(game, A, "9S")
    assert types(events)[:2] == ["play", "speah"]


def test_no_speah_from_spades_to_spades_nor_on_an_empty_pile() -> None:
    game = crafted([["9S", "4D"], ["KS", "3C"], ["3H"]], pile=["8S"], stock=["5S"] * 10)
    assert "speah" not in types(play(game, A, "9S"))
    game = crafted([["9S", "4D"], ["KS", "3C"]], stock=["5S"] * 10)
    assert "speah" not in types(play(game, A, "9S"))


def test_torkel_when_the_jack_of_spades_is_played() -> None:
    game = crafted([["JS", "JH"], ["3C"]], pile=["9H"], stock=["5S"] * 10)
    events = play(game, A, "JH", "JS")
    assert {"type": "torkel", "player": A} in events
    assert {"type": "torkel", "player": A} in game.public_view()["announcements"]


# --------------------------------------------------------------------- refill, collect


def test_refill_to_five_at_the_end_of_every_turn_while_the_stock_lasts() -> None:
    game = crafted([["5H", "5S", "6H"], ["3C"]], pile=["9H"], stock=["KD", "QD", "JD", "AD"])
    events = play(game, A, "5H", "5S")
    refill = next(e for e in events if e["type"] == "refill")
    assert refill == {"type": "refill", "player": A, "count": 4, "stock": 0}
    assert hand(game, A) == sort_cards(["6H", "KD", "QD", "JD", "AD"])
    assert game.to_act() == [B], "drawn cards cannot be used that turn"


def test_no_refill_above_five() -> None:
    game = crafted([["5H", "5S", "6H", "7H", "8H", "9H", "10H"], ["3C"]], stock=["KD"] * 5)
    events = play(game, A, "5H")
    assert "refill" not in types(events)
    assert len(hand(game, A)) == 6


def drawn(game: Speahx, player: str) -> list[str]:
    cards: list[str] = game.view(player)["you"]["drawn"]
    return cards


def test_the_cards_a_refill_drew_are_in_the_drawers_view_alone_until_their_turn() -> None:
    game = crafted(
        [["5H", "5S", "6H", "7H"], ["3S", "4C"]], pile=["9H"], stock=["2S", "KD", "QD", "JD"]
    )
    play(game, A, "5H", "5S")
    assert drawn(game, A) == sort_cards(["KD", "QD", "JD"]) == ["JD", "QD", "KD"]
    assert drawn(game, B) == []
    public = json.dumps(game.public_view())
    assert all(f'"{c}"' not in public for c in ("KD", "QD", "JD"))
    for player in (B, PLAYERS[5]):  # another player, a spectator
        assert "KD" not in json.dumps(game.view(player))
    # saved and loaded
    again = load_game(game.dumps())
    assert isinstance(again, Speahx) and drawn(again, A) == ["JD", "QD", "KD"]
    # B's turn leaves A's cards; B's refill is B's alone; A's turn starts: A's go
    assert drawn(game, B) == []
    play(game, B, "3S")
    assert game.to_act() == [A]
    assert drawn(game, A) == [] and drawn(game, B) == ["2S"]
    game.apply(A, {"type": "collect"})
    assert drawn(game, A) == [] and drawn(game, B) == []


def test_a_turn_that_draws_nothing_and_an_older_save_have_no_drawn_cards() -> None:
    game = crafted([["5H", "6H", "7H", "8H", "9H", "10H"], ["3C"]], stock=["KD"] * 5)
    play(game, A, "5H")
    assert drawn(game, A) == []
    game = crafted([["5H", "6H"], ["3H", "4C"]], pile=["9H"], stock=["KD"] * 9)
    play(game, A, "5H")
    data = state(game)
    assert data["refilled"] == [["KD"] * 4, []]
    del data["refilled"]  # a game saved before the field
    old = load_game(json.dumps({"kind": "speahx", **data}))
    assert isinstance(old, Speahx)
    assert drawn(old, A) == [] and drawn(old, B) == []
    play(old, B, "3H")
    assert drawn(old, B) == ["KD"] * 4


@pytest.mark.parametrize("seed", [3, 11])
def test_drawn_cards_are_exactly_the_cards_the_refill_took(seed: int) -> None:
    game = start(4, seed)
    rnd = random.Random(seed)
    for _ in range(400):
        if game.is_over():
            break
        (player,) = game.to_act()
        before = state(game)
        others = {p: drawn(game, p) for p in PLAYERS[:4] if p != player}
        events = game.apply(player, rnd.choice(game.legal_actions(player)))
        refill = next((e for e in events if e["type"] == "refill"), None)
        stock = before["stock"]
        expected = sort_cards(stock[len(stock) - refill["count"] :]) if refill else []
        assert drawn(game, player) == expected
        assert not Counter(expected) - Counter(hand(game, player))
        for nxt in game.to_act():  # a turn starts: its player has nothing drawn left
            assert drawn(game, nxt) == []
            if nxt in others:
                others[nxt] = []
        assert {p: drawn(game, p) for p in others} == others
        public = json.dumps(game.public_view())  # one deck: a drawn card is nowhere else
        assert all(f'"{c}"' not in public for c in expected)


def test_collect_takes_the_whole_pile_and_ends_the_turn() -> None:
    game = crafted([["5C"], ["3C"]], pile=["9H", "9D", "KD"], stock=["4S"] * 10)
    events = game.apply(A, {"type": "collect"})
    assert events[0] == {"type": "collect", "player": A, "cards": ["9H", "9D", "KD"]}
    assert hand(game, A) == sort_cards(["5C", "9H", "9D", "KD", "4S"])
    assert game.public_view()["pile"] == [] and game.to_act() == [B]


def test_collect_is_impossible_on_an_empty_pile() -> None:
    game = crafted([["5C"], ["3C"]], stock=["4S"] * 10)
    assert all(a["type"] != "collect" for a in game.legal_actions(A))
    refused(game, A, {"type": "collect"}, "empty_pile")


# --------------------------------------------------------------------- chance cards


def test_chance_card_drawn_and_played_when_legal() -> None:
    game = crafted([["3C", "4C"], ["3D"]], pile=["9H"], stock=["KS", "5H"])
    events = game.apply(A, {"type": "chance"})
    assert events == [{"type": "chance_drawn", "player": A, "number": 1, "stock": 1}]
    assert game.view(A)["you"]["chance"] == ["5H"]
    assert game.view(B)["you"]["chance"] == []
    assert "5H" not in json.dumps(game.public_view())
    assert game.legal_actions(A)[0] == {"type": "play", "cards": ["5H"]}
    events = play(game, A, "5H")
    assert events[0] == {"type": "play", "player": A, "cards": ["5H"], "source": "chance"}
    assert game.to_act() == [B]


def test_hand_cards_cannot_be_played_after_drawing_a_chance_card() -> None:
    game = crafted([["10C", "9D"], ["3D"]], pile=["9H"], stock=["KS", "5C"])
    game.apply(A, {"type": "chance"})
    assert all(a["cards"] == ["5C"] for a in game.legal_actions(A) if a["type"] == "play")
    refused(game, A, {"type": "play", "cards": ["10C"]}, "after_chance")
    refused(game, A, {"type": "play", "cards": ["9D"]}, "after_chance")
    refused(game, A, {"type": "play", "cards": ["5C"]}, "no_match")
    refused(game, A, {"type": "table", "position": 0}, "table_chance")


def test_only_the_latest_chance_card_may_be_played() -> None:
    game = crafted([["3C"], ["3D"]], pile=["9H"], stock=["KS", "5C", "6H"])
    game.apply(A, {"type": "chance"})
    game.apply(A, {"type": "chance"})
    assert game.view(A)["you"]["chance"] == ["6H", "5C"]
    refused(game, A, {"type": "play", "cards": ["6H"]}, "not_the_chance")


def test_a_fourth_chance_card_is_refused() -> None:
    game = crafted([["3C"], ["3D"]], pile=["9H"], stock=["4S", "5S", "6S", "7S"])
    for number in (1, 2, 3):
        assert game.apply(A, {"type": "chance"})[0]["number"] == number
    assert {"type": "chance"} not in game.legal_actions(A)
    refused(game, A, {"type": "chance"}, "chance_limit")


def test_no_chance_card_from_an_empty_stock() -> None:
    game = crafted([["3C"], ["3D"]], pile=["9H"], stock=[])
    assert {"type": "chance"} not in game.legal_actions(A)
    refused(game, A, {"type": "chance"}, "stock_empty")


def test_unplayed_chance_cards_join_the_hand_at_the_end_of_the_turn() -> None:
    game = crafted([["3C"], ["3D"]], pile=["9H"], stock=["4S", "5S", "6S", "7S"])
    for _ in range(3):
        game.apply(A, {"type": "chance"})
    events = game.apply(A, {"type": "collect"})
    assert {"type": "chance_kept", "player": A, "count": 3} in events
    assert not {"7S", "6S", "5S"} & set(json.dumps(events).replace('"', " ").split())
    assert hand(game, A) == sort_cards(["3C", "9H", "7S", "6S", "5S"])
    assert "refill" not in types(events), "the chance cards count towards the five"
    assert game.to_act() == [B]


def test_chance_ten_then_playing_again_with_every_card() -> None:
    game = crafted([["4C", "9D"], ["3D"]], pile=["9H", "KH"], stock=["AS", "10S", "5C"])
    game.apply(A, {"type": "chance"})  # 5C, not playable on KH
    game.apply(A, {"type": "chance"})  # 10S
    events = play(game, A, "10S")
    assert types(events) == ["play", "burn", "chance_kept"]
    assert events[1] == {
        "type": "burn",
        "player": A,
        "why": "ten",
        "cards": ["9H", "KH", "10S"],
        "again": True,
    }
    assert game.to_act() == [A] and game.public_view()["pile"] == []
    assert hand(game, A) == sort_cards(["4C", "9D", "5C"])
    plays = {a["cards"][0] for a in game.legal_actions(A) if a["type"] == "play"}
    assert plays == {"4C", "9D", "5C"}
    assert {"type": "chance"} in game.legal_actions(A), "a third chance card is left"
    play(game, A, "5C")
    assert game.to_act() == [B]


def test_chance_card_completing_four_of_a_kind_with_hand_cards() -> None:
    game = crafted([["7S", "7D", "KC"], ["3D"]], pile=["4H", "7H"], stock=["AS", "7C"])
    game.apply(A, {"type": "chance"})
    assert {"type": "play", "cards": ["7S", "7D", "7C"]} in game.legal_actions(A)
    events = play(game, A, "7D", "7S", "7C")
    assert events[0]["source"] == "chance"
    assert events[1]["type"] == "burn" and events[1]["why"] == "four" and events[1]["again"]
    assert game.to_act() == [A] and hand(game, A) == ["KC"]


def test_chance_card_with_hand_cards_short_of_four_is_refused() -> None:
    game = crafted([["7S", "7D", "KC"], ["3D"]], pile=["4H", "5H"], stock=["AS", "7H"])
    game.apply(A, {"type": "chance"})
    refused(game, A, {"type": "play", "cards": ["7S", "7H"]}, "after_chance")
    refused(game, A, {"type": "play", "cards": ["7S", "7D", "7H"]}, "after_chance")
    play(game, A, "7H")


# --------------------------------------------------------------------- table cards


def test_table_cards_only_when_hand_and_stock_are_empty() -> None:
    game = crafted([["3C"], ["3D"]], pile=["9H"], stock=["4S"])
    assert all(a["type"] != "table" for a in game.legal_actions(A))
    refused(game, A, {"type": "table", "position": 0}, "table_hand")
    game = crafted([[], ["3D"]], pile=["9H"], stock=["4S"], turn=0)
    refused(game, A, {"type": "table", "position": 0}, "table_stock")


def test_table_card_played_when_legal_position_chosen_blind() -> None:
    table: list[list[str | None]] = [["KS", "5H", None, "AD", "2C"], list(FILLER)]
    game = crafted([[], ["3D"]], pile=["9H"], table=table)
    assert [a for a in game.legal_actions(A) if a["type"] == "table"] == [
        {"type": "table", "position": p} for p in (0, 1, 3, 4)
    ]
    assert game.view(A)["you"]["table_positions"] == [0, 1, 3, 4]
    refused(game, A, {"type": "table", "position": 2}, "no_table_card")
    refused(game, A, {"type": "table", "position": 7}, "no_table_card")
    refused(game, A, {"type": "play", "cards": ["5H"]}, "hand_empty")
    events = game.apply(A, {"type": "table", "position": 1})
    assert events[0] == {
        "type": "play",
        "player": A,
        "cards": ["5H"],
        "source": "table",
        "position": 1,
    }
    assert game.public_view()["table_cards"][A] == [0, 3, 4]
    assert game.to_act() == [B]


def test_unplayable_table_card_goes_to_hand_with_the_pile() -> None:
    table: list[list[str | None]] = [["KS", "5D", None, None, None], list(FILLER)]
    game = crafted([[], ["3D"]], pile=["8C", "9H"], table=table)
    events = game.apply(A, {"type": "table", "position": 0})
    assert events == [{"type": "table_failed", "player": A, "position": 0, "cards": ["8C", "9H"]}]
    assert hand(game, A) == sort_cards(["KS", "8C", "9H"])
    assert game.public_view()["pile"] == [] and game.public_view()["phase"] == "show"
    assert game.view(A)["you"]["turned"] == "KS"
    assert "KS" not in json.dumps(game.public_view()) and "KS" not in json.dumps(game.view(B))
    assert game.legal_actions(A) == [
        {"type": "show", "show": False},
        {"type": "show", "show": True},
    ]
    refused(game, A, {"type": "show", "show": "no"}, "bad_show")
    refused(game, A, {"type": "collect"}, "pending_show")
    events = game.apply(A, {"type": "show", "show": False})
    assert events[0] == {"type": "table_hidden", "player": A}
    assert "KS" not in json.dumps(events)
    assert "KS" not in json.dumps(game.public_view()) and "KS" not in json.dumps(game.view(B))
    assert game.to_act() == [B]


def test_the_player_may_show_the_unplayable_table_card() -> None:
    table: list[list[str | None]] = [["KS", None, None, None, None], list(FILLER)]
    game = crafted([[], ["3D"]], pile=["9H"], table=table)
    game.apply(A, {"type": "table", "position": 0})
    events = game.apply(A, {"type": "show", "show": True})
    assert events[0] == {"type": "table_shown", "player": A, "card": "KS"}


def test_a_player_out_of_hand_cards_may_still_collect() -> None:
    game = crafted([[], ["3D"]], pile=["9H"])
    assert {"type": "collect", "cards": ["9H"]} in game.legal_actions(A)


# --------------------------------------------------------------------- burns


def test_ten_burns_the_pile_and_the_same_player_plays_again() -> None:
    game = crafted([["10D", "4C"], ["3D"]], pile=["9H", "KH"], stock=["5S"] * 10)
    events = play(game, A, "10D")
    assert events[1]["type"] == "burn" and events[1]["why"] == "ten"
    assert game.to_act() == [A] and game.public_view()["burned"] == 3
    assert game.public_view()["pile"] == []
    refused(game, A, {"type": "collect"}, "empty_pile")
    play(game, A, "4C")
    assert game.to_act() == [B]


def test_the_last_card_being_a_ten_puts_the_player_out() -> None:
    game = crafted(
        [["10D"], ["3D"], ["4D"]], pile=["9H"], table=[[None] * 5, list(FILLER), list(FILLER)]
    )
    events = play(game, A, "10D")
    assert {"type": "out", "player": A, "place": 1} in events
    assert game.to_act() == [B] and game.public_view()["out"] == [A]


def test_the_last_hand_card_a_ten_goes_on_with_a_table_card() -> None:
    game = crafted([["10D"], ["3D"]], pile=["9H"])
    play(game, A, "10D")
    assert game.to_act() == [A]
    assert {a["type"] for a in game.legal_actions(A)} == {"table"}


def test_after_a_burn_with_no_hand_card_while_the_stock_lasts_the_turn_ends() -> None:
    game = crafted([["10D"], ["3D"]], pile=["9H"], stock=["5S"] * 10)
    events = play(game, A, "10D")
    assert types(events) == ["play", "burn", "refill", "turn"]
    assert game.to_act() == [B] and len(hand(game, A)) == 5


def test_four_of_a_kind_on_top_burns_whoever_played_them() -> None:
    game = crafted([["7C", "4C"], ["3D"]], pile=["3H", "7H", "7S", "7D"], stock=["5S"] * 10)
    events = play(game, A, "7C")
    assert events[1] == {
        "type": "burn",
        "player": A,
        "why": "four",
        "cards": ["3H", "7H", "7S", "7D", "7C"],
        "again": True,
    }
    assert game.to_act() == [A] and game.public_view()["pile"] == []


def test_four_twos_burn_without_naming_a_suit() -> None:
    game = crafted([["2C", "2D", "4C"], ["3D"]], pile=["2H", "2S"], named="H", stock=["5S"] * 9)
    events = play(game, A, "2C", "2D")
    assert events[1]["why"] == "four"
    assert game.public_view()["phase"] == "play" and game.to_act() == [A]


def test_five_equal_cards_on_top_with_two_decks() -> None:
    hands = [["7C", "7D", "4C"], ["3D"], ["3S"], ["3H"], ["3C"]]
    game = crafted(hands, pile=["KH", "7H", "7S", "7S"], stock=["5S"] * 10)
    assert game.public_view()["decks"] == 2
    events = play(game, A, "7D", "7C")
    assert events[1] == {
        "type": "burn",
        "player": A,
        "why": "four",
        "cards": ["KH", "7H", "7S", "7S", "7D"],
        "again": False,
    }
    assert game.public_view()["pile"] == ["7C"]
    assert game.public_view()["suit"] == "C"
    assert game.to_act() == [B]


def test_a_two_left_on_top_after_a_partial_burn_names_a_suit() -> None:
    hands = [["2C", "2D", "4C"], ["3D"], ["3S"], ["3H"], ["3C"]]
    game = crafted(hands, pile=["2H", "2S", "2S"], named="H", stock=["5S"] * 10)
    play(game, A, "2D", "2C")
    assert game.public_view()["pile"] == ["2C"]
    assert game.public_view()["phase"] == "suit"


# --------------------------------------------------------------------- joker, Terminator


def test_joker_gives_the_rest_of_the_pile_to_a_chosen_player() -> None:
    game = crafted(
        [["JK", "4C"], ["3D"], ["3S"], ["3H"]], pile=["9H", "KH"], stock=["5S"] * 9, jokers=True
    )
    events = play(game, A, "JK")
    assert events[1] == {
        "type": "burn",
        "player": A,
        "why": "joker",
        "cards": ["JK"],
        "again": False,
    }
    assert game.public_view()["phase"] == "target" and game.to_act() == [A]
    assert game.public_view()["removed"] == 1
    assert [a["player"] for a in game.legal_actions(A)] == [B, C, D]
    refused(game, A, {"type": "target", "player": A}, "joker_self")
    refused(game, A, {"type": "target", "player": "999"}, "not_a_target")
    refused(game, A, {"type": "play", "cards": ["4C"]}, "pending_target")
    events = game.apply(A, {"type": "target", "player": C})
    assert events[0] == {"type": "joker_target", "player": A, "target": C, "cards": ["9H", "KH"]}
    assert hand(game, C) == sort_cards(["3S", "9H", "KH"])
    assert game.to_act() == [B], "play passes to the player after the joker player"


def test_joker_cannot_go_to_a_finished_player() -> None:
    game = crafted(
        [["JK", "4C"], [], ["3S"], ["3H"]],
        pile=["9H"],
        table=[list(FILLER), [None] * 5, list(FILLER), list(FILLER)],
        out=[1],
        jokers=True,
    )
    play(game, A, "JK")
    assert [a["player"] for a in game.legal_actions(A)] == [C, D]
    refused(game, A, {"type": "target", "player": B}, "joker_finished")


def test_joker_on_an_empty_pile_gives_nothing() -> None:
    game = crafted([["JK", "4C"], ["3D"]], stock=["5S"] * 9, jokers=True)
    events = play(game, A, "JK")
    assert "joker_target" not in types(events) and game.to_act() == [B]


def test_terminator_without_jokers() -> None:
    game = crafted(
        [["JS", "JH", "JD", "JC", "4C"], ["3D"], ["3S"]], pile=["9H", "KH"], stock=["5S"] * 9
    )
    terminators = [a for a in game.legal_actions(A) if len(a.get("cards", [])) == 4]
    assert terminators == [{"type": "play", "cards": ["JS", "JH", "JD", "JC"]}]
    events = play(game, A, "JS", "JH", "JD", "JC")
    assert {"type": "torkel", "player": A} in events
    burn = next(e for e in events if e["type"] == "burn")
    assert burn["why"] == "terminator" and burn["cards"] == ["JS", "JH", "JD", "JC"]
    assert game.public_view()["removed"] == 4 and game.public_view()["burned"] == 0
    game.apply(A, {"type": "target", "player": C})
    assert hand(game, C) == sort_cards(["3S", "9H", "KH"])
    assert game.to_act() == [B]


def test_four_jacks_are_no_terminator_with_jokers_on() -> None:
    game = crafted(
        [["JS", "JH", "JD", "JC", "4C"], ["3D"]], pile=["9H"], stock=["5S"] * 9, jokers=True
    )
    events = play(game, A, "JS", "JH", "JD", "JC")
    burn = next(e for e in events if e["type"] == "burn")
    assert burn["why"] == "four" and burn["again"]
    assert game.public_view()["removed"] == 0 and game.to_act() == [A]


# --------------------------------------------------------------------- the end


def test_first_out_wins_and_the_loser_when_two_players_remain() -> None:
    table: list[list[str | None]] = [[None] * 5, list(FILLER), list(FILLER)]
    game = crafted([["5H"], ["3D"], ["4D"]], pile=["9H"], table=table)
    events = play(game, A, "5H")
    assert {"type": "out", "player": A, "place": 1} in events
    assert not game.is_over()
    game = crafted([["5H"], ["3D"]], pile=["9H"], table=[[None] * 5, list(FILLER)])
    events = play(game, A, "5H")
    assert types(events)[-2:] == ["out", "game_over"]
    assert events[-1] == {"type": "game_over", "ranking": [[A], [B]], "loser": B}
    assert game.is_over() and game.to_act() == []
    assert game.result() == {"ranking": [[A], [B]], "loser": B, "scores": {A: 1, B: 2}}
    assert game.public_view()["loser"] == B and game.public_view()["out"] == [A]
    refused(game, A, {"type": "collect"}, "game_over")


def test_full_finishing_order_loser_last() -> None:
    table: list[list[str | None]] = [list(FILLER), [None] * 5, list(FILLER), [None] * 5]
    game = crafted([["3C"], ["5H"], ["4D"], ["6H"]], pile=["9H"], table=table, out=[0], turn=1)
    play(game, B, "5H")
    assert game.to_act() == [C]
    game.apply(C, {"type": "collect"})
    assert game.to_act() == [D]
    play(game, D, "6H")
    assert game.is_over()
    assert game.result()["ranking"] == [[A], [B], [D], [C]]
    assert game.result()["loser"] == C


def test_turn_order_skips_finished_players() -> None:
    game = crafted(
        [["3C"], [], ["4D"], ["5D"]],
        pile=["9D"],
        table=[list(FILLER), [None] * 5, list(FILLER), list(FILLER)],
        out=[1],
    )
    game.apply(A, {"type": "collect"})
    assert game.to_act() == [C]
    game = crafted(
        [["3C"], ["4C"], [], ["5D"]],
        pile=["9D"],
        table=[list(FILLER), list(FILLER), [None] * 5, list(FILLER)],
        out=[2],
        turn=1,
    )
    game.apply(B, {"type": "collect"})
    assert game.to_act() == [D]
    play(game, D, "5D")
    assert game.to_act() == [A]


# --------------------------------------------------------------------- refusals, turns


def test_acting_out_of_turn_or_outside_the_game_is_refused() -> None:
    game = crafted([["3C"], ["3D"]], pile=["9C"], stock=["5S"] * 10)
    err = refused(game, B, {"type": "collect"}, "not_your_turn")
    assert err.params == {"player": A}
    refused(game, "999", {"type": "collect"}, "not_a_player")
    refused(game, A, {"type": "dance"}, "bad_action")
    refused(game, A, "collect", "bad_action")
    refused(game, A, {"type": "suit", "suit": "S"}, "no_decision")
    refused(game, A, {"type": "target", "player": B}, "no_decision")
    refused(game, A, {"type": "show", "show": True}, "no_decision")
    assert game.legal_actions(B) == [] and game.legal_actions("999") == []


def test_every_legal_action_is_accepted_and_refusals_change_nothing() -> None:
    for seed in range(6):
        game = start(2 + seed, seed)
        for _ in range(150):
            if game.is_over():
                break
            player = game.to_act()[0]
            for action in game.legal_actions(player):
                load_game(game.dumps()).apply(player, json.loads(json.dumps(action)))
            bad = [
                {"type": "play", "cards": ["KS", "QS"]},
                {"type": "table", "position": -1},
                {"type": "target", "player": player},
            ]
            for action in bad:
                before = game.dumps()
                with pytest.raises(IllegalAction):
                    game.apply(player, action)
                assert game.dumps() == before
            game.apply(player, game.auto_action(player))


# --------------------------------------------------------------------- the action list


def test_legal_actions_stay_short_with_a_big_hand() -> None:
    big = [r + s for r in ("3", "4", "5", "6", "7", "8", "9", "J", "Q", "K", "A") for s in "SHDC"]
    game = crafted([big, ["3D"]], pile=["9H"])
    actions = game.legal_actions(A)
    plays = [a for a in actions if a["type"] == "play"]
    # Per rank: its legal singles, 2 and 3 cards, all 4 with each suit on top. Hearts: 9
    # ranks x (1 + 2 + 4); nines (the top's rank): 4 + 2 + 4; jacks: JH, 2, 3, the Terminator.
    assert len(plays) == 9 * 7 + 10 + 4
    assert len({json.dumps(a) for a in actions}) == len(actions)
    for action in plays:
        assert len({c[:-1] for c in action["cards"]}) == 1


def test_several_cards_offer_one_play_per_count_and_each_top() -> None:
    game = crafted([["8S", "8H", "8D"], ["3D"]], pile=["9H"])
    plays = [a["cards"] for a in game.legal_actions(A) if a["type"] == "play"]
    assert plays == [
        ["8H"],
        ["8H", "8S"],
        ["8H", "8D", "8S"],
        ["8S", "8D", "8H"],
        ["8H", "8S", "8D"],
    ]


# --------------------------------------------------------------------- auto_action


def test_auto_plays_the_lowest_ordinary_group_and_keeps_specials() -> None:
    game = crafted([["2H", "10H", "5H", "5S", "KH"], ["3D"]], pile=["9H"], stock=["4C"] * 9)
    action = game.auto_action(A)
    assert sorted(action["cards"]) == ["5H", "5S"]
    game = crafted([["2H", "KS"], ["3D"]], pile=["9D"], stock=["4C"] * 9)
    assert game.auto_action(A)["type"] == "collect"


def test_auto_now_and_then_a_second_rank_a_single_card_or_a_two() -> None:
    cards = ["2H", "5H", "5S", "KH", "KD"]
    game = crafted([cards, ["3D"]], pile=["9H"], stock=["4C"] * 9, coins="second")
    assert sorted(game.auto_action(A)["cards"]) == ["KD", "KH"]
    game = crafted([cards, ["3D"]], pile=["9H"], stock=["4C"] * 9, coins="single")
    assert game.auto_action(A)["cards"] in (["5H"], ["5S"])
    game = crafted([["2H", "KS"], ["3D"]], pile=["9D"], stock=["4C"] * 9, coins="two")
    assert game.auto_action(A) == {"type": "play", "cards": ["2H"]}
    game = crafted([["2H", "10C", "KS"], ["3D"]], pile=["9D"], stock=["4C"] * 9)
    assert game.auto_action(A) == {"type": "play", "cards": ["10C"]}


def test_auto_on_an_empty_pile_plays_the_lowest_card() -> None:
    game = crafted([["2H", "10H", "KS"], ["3D"]], stock=["4C"] * 9)
    assert game.auto_action(A) == {"type": "play", "cards": ["KS"]}
    game = crafted([["2H", "10H"], ["3D"]], stock=["4C"] * 9)
    assert game.auto_action(A) == {"type": "play", "cards": ["2H"]}


def test_auto_decisions() -> None:
    game = crafted([["2H", "4D", "5D"], ["3D"]], pile=["9C"], stock=["4C"] * 9)
    play(game, A, "2H")
    assert game.auto_action(A) == {"type": "suit", "suit": "D"}
    game = crafted([["JK", "4C"], ["3D", "4D"], ["3S"]], pile=["9H"], stock=["5S"] * 9, jokers=True)
    play(game, A, "JK")
    assert game.auto_action(A)["player"] == C
    table: list[list[str | None]] = [[None, "KS", "5D", None, None], list(FILLER)]
    game = crafted([[], ["3D"]], pile=["9H"], table=table)
    assert game.auto_action(A) == {"type": "table", "position": 1}
    game.apply(A, game.auto_action(A))
    assert game.auto_action(A) == {"type": "show", "show": False}
    game = crafted([["3C"], ["3D"]], pile=["9H"], stock=["KS", "5H"])
    game.apply(A, {"type": "chance"})
    assert game.auto_action(A) == {"type": "play", "cards": ["5H"]}
    game = crafted([["3C"], ["3D"]], pile=["9H"], stock=["KS", "5C"])
    game.apply(A, {"type": "chance"})
    assert game.auto_action(A)["type"] == "collect"
    with pytest.raises(IllegalAction):
        game.auto_action(B)


# --------------------------------------------------------------------- views


def test_views_show_counts_never_face_down_cards() -> None:
    game = start(3, 4)
    data = state(game)
    for seat, player in enumerate(PLAYERS[:3]):
        view = game.view(player)
        you = view["you"]
        assert you["id"] == player
        assert you["hand"] == sort_cards(data["hands"][seat])
        assert you["legal_actions"] == game.legal_actions(player)
        assert you["table_positions"] == list(range(TABLE))
        text = json.dumps({k: v for k, v in view.items() if k != "you"})
        assert text == json.dumps(game.public_view())
    public = json.dumps(game.public_view())
    for card in data["stock"] + [c for t in data["table"] for c in t]:
        if all(card not in h for h in data["hands"]):
            assert f'"{card}"' not in public


def test_last_and_last_turn_tell_what_happened() -> None:
    game = crafted([["5H", "4C"], ["3D"]], pile=["9H"], stock=["5S"] * 9)
    events = play(game, A, "5H")
    view = game.public_view()
    assert view["last"] == events
    assert view["last_turn"] == {"player": A, "events": events}


def test_every_refusal_key_has_english_and_french_texts() -> None:
    from pathlib import Path

    from bot.engine import speahx
    from bot.i18n import CATALOGS

    source = Path(speahx.__file__).read_text(encoding="utf-8")
    keys = set(re.findall(r'"(speahx\.[a-z_]+)"', source))
    keys |= {f"speahx.pending_{phase}" for phase in ("suit", "target", "show")}
    assert len(keys) > 20
    for key in keys:
        assert key in CATALOGS["en"] and key in CATALOGS["fr"], key


# --------------------------------------------------------------------- what the table saw


def seen(game: Speahx) -> dict[str, Any]:
    counts: dict[str, Any] = game.public_view()["seen"]
    return counts


def test_a_fresh_game_has_seen_nothing() -> None:
    game = start(4)
    assert seen(game) == {"burned": {}, "held": {p: {} for p in PLAYERS[:4]}}


def test_a_collected_pile_is_seen_in_the_hand_until_played() -> None:
    game = crafted([["5C", "4D"], ["3H", "QH"]], pile=["9H", "9D", "KD"], stock=["4S"] * 10)
    game.apply(A, {"type": "collect"})
    assert seen(game)["held"][A] == {"9H": 1, "9D": 1, "KD": 1}
    play(game, B, "3H")
    assert seen(game)["held"][B] == {}
    play(game, A, "9H")
    assert seen(game)["held"][A] == {"9D": 1, "KD": 1}
    # the view of every player, and a spectator's, says the same
    for player in (A, B):
        assert game.view(player)["seen"] == seen(game)


def test_burned_cards_are_counted_per_card() -> None:
    game = crafted([["10D", "4C"], ["3D"]], pile=["9H", "KH"], stock=["5S"] * 10)
    play(game, A, "10D")
    assert seen(game)["burned"] == {"9H": 1, "10D": 1, "KH": 1}
    assert game.public_view()["burned"] == 3


def test_a_jokers_pile_and_a_shown_table_card_are_seen_in_the_hand() -> None:
    game = crafted([["JK", "4C"], ["3D"], ["5D"]], pile=["9H", "KH"], jokers=True)
    play(game, A, "JK")
    game.apply(A, {"type": "target", "player": C, "cards": ["9H", "KH"]})
    assert seen(game)["held"][C] == {"9H": 1, "KH": 1}
    table: list[list[str | None]] = [["KS", None, None, None, None], list(FILLER)]
    shown = crafted([[], ["3D"]], pile=["9H"], table=table)
    shown.apply(A, {"type": "table", "position": 0})
    assert seen(shown)["held"][A] == {"9H": 1}
    shown.apply(A, {"type": "show", "show": True})
    assert seen(shown)["held"][A] == {"9H": 1, "KS": 1}


def test_the_seen_counts_are_saved_and_an_older_save_loads() -> None:
    game = crafted([["5C", "4D"], ["3C", "QH"]], pile=["9H", "9D", "KD"], stock=["4S"] * 10)
    game.apply(A, {"type": "collect"})
    again = load_game(game.dumps())
    assert isinstance(again, Speahx) and seen(again) == seen(game)
    data = state(game)
    del data["known"]  # a game saved before the field
    old = load_game(json.dumps({"kind": "speahx", **data}))
    assert seen(old)["held"] == {A: {}, B: {}}
    play(old, B, "3C")
    assert seen(old)["held"][B] == {}
