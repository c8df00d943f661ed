"""Papayoo rules, one test per rule (docs/rules/papayoo.md), and every kind of bad input."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from bot.engine import IllegalAction, load_game, new_game
from bot.engine.cards import SUITS, papayoo_deck
from bot.engine.papayoo import (
    HAND_ORDER,
    HAND_SIZE,
    PASS_SIZE,
    Papayoo,
    _shuffle,
    pass_danger,
    rule_pass,
)
from bot.engine.rng import Rng

PLAYERS = ["111", "222", "333", "444", "555", "666", "777", "888"]


def start(n: int = 4, seed: int = 1, **options: Any) -> Papayoo:
    game = new_game("papayoo", PLAYERS[:n], seed, options)
    assert isinstance(game, Papayoo)
    return game


def hand(game: Papayoo, player: str) -> list[str]:
    cards: list[str] = game.view(player)["hand"]
    return cards


def pass_all(game: Papayoo) -> list[dict[str, Any]]:
    """Every player passes as the turn timer would; returns the events."""
    events: list[dict[str, Any]] = []
    for player in list(game.to_act()):
        events += game.apply(player, game.auto_action(player))
    return events


def crafted(
    hands: list[list[str]],
    *,
    leader: int = 0,
    papayoo_suit: str = "S",
    rounds: int = 1,
    taken: list[int] | None = None,
) -> Papayoo:
    """A game in trick play with the given hands, ``leader`` to lead."""
    n = len(hands)
    data = json.loads(start(n, rounds=rounds).dumps())
    data.update(
        phase="play",
        hands=[sorted(h, key=HAND_ORDER.__getitem__) for h in hands],
        aside=[[] for _ in hands],
        locked=[True] * n,
        received=[[] for _ in hands],
        papayoo_suit=papayoo_suit,
        leader=leader,
        turn=leader,
        dealer=leader,
        taken=taken or [0] * n,
    )
    game = load_game(json.dumps(data))
    assert isinstance(game, Papayoo)
    return game


def assert_illegal(
    game: Papayoo, player: str, action: Any, key: str, message: str = ""
) -> IllegalAction:
    """The action is refused with that key and message, and the state does not change."""
    before = game.dumps()
    with pytest.raises(IllegalAction) as err:
        game.apply(player, action)
    assert err.value.key == key
    assert message in str(err.value)
    assert game.dumps() == before
    return err.value


# ---------------------------------------------------------------------------- deal


@pytest.mark.parametrize("n", range(3, 9))
def test_deal_sizes_by_player_count(n: int) -> None:
    game = start(n)
    view = game.public_view()
    assert view["pass_size"] == PASS_SIZE[n]
    assert set(view["hand_sizes"].values()) == {HAND_SIZE[n]}
    hands = [hand(game, p) for p in PLAYERS[:n]]
    assert all(len(h) == HAND_SIZE[n] for h in hands)
    dealt = [c for h in hands for c in h]
    assert sorted(dealt) == sorted(papayoo_deck(n))
    assert len(dealt) == (56 if n >= 7 else 60)
    assert {3: 5, 4: 5, 5: 4, 6: 3, 7: 3, 8: 3}[n] == PASS_SIZE[n]
    assert {3: 20, 4: 15, 5: 12, 6: 10, 7: 8, 8: 7}[n] == HAND_SIZE[n]


@pytest.mark.parametrize("n", range(3, 9))
def test_seven_and_eight_players_remove_suited_ones(n: int) -> None:
    ones = {f"1{s}" for s in SUITS}
    for seed in range(5):
        game = start(n, seed)
        dealt = {c for p in PLAYERS[:n] for c in hand(game, p)}
        assert (dealt & ones == set()) == (n >= 7)
        assert "P1" in dealt


def test_hands_are_sorted_by_suit_then_number() -> None:
    cards = hand(start(3), "111")
    order = "SHDCP"
    keys = [(order.index("P" if c[0] == "P" else c[-1]), int(c.strip("SHDCP"))) for c in cards]
    assert keys == sorted(keys)


def test_first_dealer_is_random_and_deal_event() -> None:
    dealers = {start(4, seed).public_view()["dealer"] for seed in range(40)}
    assert dealers == set(PLAYERS[:4])
    game = start(4, 3, rounds=2)
    assert game.deal_event() == {
        "type": "deal",
        "round": 1,
        "rounds": 2,
        "dealer": game.public_view()["dealer"],
        "hand_size": 15,
        "pass_size": 5,
    }


# ---------------------------------------------------------------------------- pass


def test_pass_to_the_left_simultaneous() -> None:
    game = start(4, seed=3)
    players = PLAYERS[:4]
    dealt = {p: hand(game, p) for p in players}
    passes = {p: dealt[p][-5:] for p in players}
    assert sorted(game.to_act()) == sorted(players)
    # Any order: the last seat locks first.
    for i, p in enumerate(reversed(players[1:])):
        events = game.apply(p, {"type": "pass", "cards": passes[p]})
        assert events == [{"type": "pass_locked", "player": p}]
        assert game.public_view()["phase"] == "pass"
        assert p not in game.to_act()
        assert len(game.to_act()) == 3 - i
        assert hand(game, p) == [c for c in dealt[p] if c not in passes[p]]
    events = game.apply(players[0], {"type": "pass", "cards": passes[players[0]]})
    assert [e["type"] for e in events] == ["pass_locked", "pass_complete", "die"]
    assert game.public_view()["pass_locked"] == players
    for i, giver in enumerate(players):
        left = players[(i + 1) % 4]
        view = game.view(left)
        assert view["received"] == sorted(passes[giver], key=dealt[giver].index)
        assert set(view["hand"]) == (set(dealt[left]) - set(passes[left])) | set(passes[giver])
        assert game.view(giver)["passed"] == passes[giver]


def test_pass_is_incremental_one_card_at_a_time() -> None:
    game = start(5, seed=2)
    player = "333"
    legal = game.legal_actions(player)
    assert legal == [{"type": "pass", "cards": [c]} for c in hand(game, player)]
    chosen: list[str] = []
    for _ in range(PASS_SIZE[5] - 1):
        card = game.legal_actions(player)[1]["cards"][0]
        assert game.apply(player, {"type": "pass", "cards": [card]}) == []
        chosen.append(card)
        assert player in game.to_act()
        assert game.view(player)["passed"] == sorted(chosen, key=lambda c: chosen.index(c))
        assert all(a["cards"][0] not in chosen for a in game.legal_actions(player))
    # During the pass, hand sizes count the cards put aside: nothing leaks to the others.
    assert game.public_view()["hand_sizes"][player] == HAND_SIZE[5]
    card = game.legal_actions(player)[0]["cards"][0]
    events = game.apply(player, {"type": "pass", "cards": [card]})
    assert events == [{"type": "pass_locked", "player": player}]
    assert game.legal_actions(player) == []


def test_partial_pass_then_rest_at_once() -> None:
    game = start(3, seed=4)
    cards = hand(game, "222")
    assert game.apply("222", {"type": "pass", "cards": cards[:2]}) == []
    events = game.apply("222", {"type": "pass", "cards": cards[2:5]})
    assert events == [{"type": "pass_locked", "player": "222"}]


def test_nobody_sees_received_cards_before_own_pass_locked() -> None:
    game = start(3, seed=9)
    a, b, c = PLAYERS[:3]
    a_pass = hand(game, a)[:5]
    game.apply(a, {"type": "pass", "cards": a_pass})
    for viewer in (b, c):
        view = game.view(viewer)
        assert view["received"] is None
        assert not set(a_pass) & set(json.dumps(view).replace('"', " ").split())
        assert not set(a_pass) & set(view["hand"])
    assert not set(a_pass) & set(json.dumps(game.public_view()).replace('"', " ").split())
    # b (a's left neighbour) locks too: still nothing received until every pass is locked.
    game.apply(b, {"type": "pass", "cards": hand(game, b)[:5]})
    assert game.view(b)["received"] is None
    assert not set(a_pass) & set(hand(game, b))
    game.apply(c, {"type": "pass", "cards": hand(game, c)[:5]})
    assert game.view(b)["received"] == a_pass
    assert set(a_pass) <= set(hand(game, b))


# ---------------------------------------------------------------------------- die


def test_die_after_pass_picks_papayoo() -> None:
    suits: Counter[str] = Counter()
    for seed in range(200):
        game = start(3, seed)
        assert game.public_view()["papayoo"] is None
        events = pass_all(game)
        die = events[-1]
        assert [e["type"] for e in events[-2:]] == ["pass_complete", "die"]
        assert die["suit"] in SUITS
        assert die["papayoo"] == f"7{die['suit']}"
        assert die["player"] == game.public_view()["dealer"]
        view = game.public_view()
        assert (view["papayoo_suit"], view["papayoo"]) == (die["suit"], die["papayoo"])
        suits[die["suit"]] += 1
    assert set(suits) == set(SUITS)
    assert min(suits.values()) > 25


def test_papayoo_scores_40_for_the_die_suit_only() -> None:
    game = crafted([["7H", "7S"], ["2H", "P5"], ["3H", "1S"]], papayoo_suit="H")
    game.apply("111", {"type": "play", "card": "7H"})
    game.apply("222", {"type": "play", "card": "2H"})
    events = game.apply("333", {"type": "play", "card": "3H"})
    assert events[-1]["type"] == "trick_won"
    assert (events[-1]["winner"], events[-1]["points"]) == ("111", 40)
    game.apply("111", {"type": "play", "card": "7S"})
    game.apply("222", {"type": "play", "card": "P5"})
    events = game.apply("333", {"type": "play", "card": "1S"})
    trick = next(e for e in events if e["type"] == "trick_won")
    assert (trick["winner"], trick["points"]) == ("111", 5)


# ---------------------------------------------------------------------------- tricks


def test_dealer_leads_first_trick() -> None:
    for seed in range(10):
        game = start(4, seed)
        dealer = game.public_view()["dealer"]
        pass_all(game)
        assert game.to_act() == [dealer]
        assert game.public_view()["turn"] == dealer
        assert len(game.legal_actions(dealer)) == 15
        assert all(game.legal_actions(p) == [] for p in PLAYERS[:4] if p != dealer)


def test_must_follow_suit_payoo_is_fifth_suit() -> None:
    game = crafted([["P5", "2S"], ["3H", "P9", "P1", "9S"], ["3S", "4H"]])
    game.apply("111", {"type": "play", "card": "P5"})
    assert game.public_view()["led_suit"] == "P"
    assert game.legal_actions("222") == [
        {"type": "play", "card": "P1"},
        {"type": "play", "card": "P9"},
    ]
    err = assert_illegal(
        game, "222", {"type": "play", "card": "3H"}, "papayoo.must_follow", "you must follow Payoo"
    )
    assert str(err) == "you must follow Payoo: you hold P1, P9"
    assert err.params == {"suit": "P", "cards": ["P1", "P9"]}
    game.apply("222", {"type": "play", "card": "P9"})
    # Void in Payoo: any card.
    assert [a["card"] for a in game.legal_actions("333")] == ["3S", "4H"]
    game.apply("333", {"type": "play", "card": "4H"})


def test_must_follow_suited_lead() -> None:
    game = crafted([["3H", "2S"], ["5S", "P2", "9H"], ["3S", "4H"]])
    game.apply("111", {"type": "play", "card": "3H"})
    err = assert_illegal(game, "222", {"type": "play", "card": "P2"}, "papayoo.must_follow")
    assert str(err) == "you must follow hearts: you hold 9H"


def test_highest_of_led_suit_takes_and_leads() -> None:
    game = crafted([["3H", "P2"], ["10S", "P3"], ["9H", "P4"]], leader=0)
    game.apply("111", {"type": "play", "card": "3H"})
    game.apply("222", {"type": "play", "card": "10S"})  # void in hearts: a 10 off suit
    events = game.apply("333", {"type": "play", "card": "9H"})
    assert events == [
        {"type": "card_played", "player": "333", "card": "9H"},
        {
            "type": "trick_won",
            "winner": "333",
            "players": ["111", "222", "333"],
            "cards": ["3H", "10S", "9H"],
            "points": 0,
        },
    ]
    assert game.to_act() == ["333"]
    assert game.public_view()["trick"] == []
    assert game.public_view()["last_trick"]["winner"] == "333"
    game.apply("333", {"type": "play", "card": "P4"})
    game.apply("111", {"type": "play", "card": "P2"})
    events = game.apply("222", {"type": "play", "card": "P3"})
    trick = events[1]
    assert (trick["winner"], trick["points"], trick["players"]) == ("333", 9, ["333", "111", "222"])


def test_nobody_follows_the_leader_takes() -> None:
    game = crafted([["2D", "P1"], ["P3", "5S"], ["9C", "P2"]])
    game.apply("111", {"type": "play", "card": "2D"})
    game.apply("222", {"type": "play", "card": "P3"})
    events = game.apply("333", {"type": "play", "card": "9C"})
    assert events[-1]["winner"] == "111"
    assert events[-1]["points"] == 3
    assert game.to_act() == ["111"]


def test_view_shows_current_trick_and_turn() -> None:
    game = crafted([["3H", "P2"], ["10S", "P3"], ["9H", "P4"]])
    game.apply("111", {"type": "play", "card": "3H"})
    view = game.view("222")
    assert view["trick"] == [{"player": "111", "card": "3H"}]
    assert (view["turn"], view["leader"], view["led_suit"]) == ("222", "111", "H")
    assert view["hand"] == ["10S", "P3"]
    assert view["legal"] == ["10S", "P3"]
    assert view["hand_sizes"] == {"111": 1, "222": 2, "333": 2}
    assert "hand" not in game.public_view()


# ---------------------------------------------------------------------------- rounds


def play_out(game: Papayoo) -> list[dict[str, Any]]:
    """Play to the end with ``auto_action``; returns every event."""
    events: list[dict[str, Any]] = []
    while not game.is_over():
        player = game.to_act()[0]
        events += game.apply(player, game.auto_action(player))
    return events


@pytest.mark.parametrize("n", range(3, 9))
def test_round_totals_250(n: int) -> None:
    for seed in range(3):
        game = start(n, seed, rounds=3)
        events = play_out(game)
        rounds = [e for e in events if e["type"] == "round_over"]
        assert [r["round"] for r in rounds] == [1, 2, 3]
        assert all(sum(r["points"].values()) == 250 for r in rounds)
        result = game.result()
        assert sum(result["scores"].values()) == 750
        assert [sum(r.values()) for r in result["rounds"]] == [250, 250, 250]
        assert result["rounds"] == [r["points"] for r in rounds]


def test_deal_passes_left() -> None:
    game = start(5, seed=11, rounds=7)
    first = PLAYERS.index(game.public_view()["dealer"])
    events = play_out(game)
    deals = [e for e in events if e["type"] == "deal"]
    assert [d["round"] for d in deals] == list(range(2, 8))
    assert [d["dealer"] for d in deals] == [PLAYERS[(first + r) % 5] for r in range(1, 7)]
    # Each round the new dealer leads the first trick.
    leads = [events[i + 1] for i, e in enumerate(events) if e["type"] == "die"]
    assert [e["player"] for e in leads] == [PLAYERS[(first + r) % 5] for r in range(7)]


def test_final_ranking_shared_win() -> None:
    game = crafted(
        [["P1"], ["2S"], ["3S"], ["4S"]], rounds=1, taken=[24, 25, 101, 99], papayoo_suit="D"
    )
    game.apply("111", {"type": "play", "card": "P1"})
    game.apply("222", {"type": "play", "card": "2S"})
    game.apply("333", {"type": "play", "card": "3S"})
    events = game.apply("444", {"type": "play", "card": "4S"})
    assert [e["type"] for e in events] == ["card_played", "trick_won", "round_over", "game_over"]
    ranking = [["111", "222"], ["444"], ["333"]]
    assert events[-1] == {
        "type": "game_over",
        "ranking": ranking,
        "scores": {"111": 25, "222": 25, "333": 101, "444": 99},
    }
    assert game.is_over()
    assert game.to_act() == []
    assert game.result() == {
        "ranking": ranking,
        "scores": {"111": 25, "222": 25, "333": 101, "444": 99},
        "rounds": [{"111": 25, "222": 25, "333": 101, "444": 99}],
    }


def test_scores_add_up_over_rounds_and_ranking_ascends() -> None:
    game = start(4, seed=5, rounds=4)
    play_out(game)
    result = game.result()
    totals = [result["scores"][p] for group in result["ranking"] for p in group]
    assert totals == sorted(totals)
    for p in PLAYERS[:4]:
        assert result["scores"][p] == sum(r[p] for r in result["rounds"])
    assert len(result["rounds"]) == 4


# ---------------------------------------------------------------------------- auto


# The timer used to play the lowest legal card and pass the lowest cards, which lost to
# random play; it is now the rule player (duck, dump, lead low, pass the dangerous cards).


def test_auto_action_ducks_under_the_winning_card() -> None:
    game = crafted([["6H", "P1"], ["2H", "5H", "9H"], ["3S", "4H"]], papayoo_suit="S")
    game.apply("111", {"type": "play", "card": "6H"})
    assert game.auto_action("222") == {"type": "play", "card": "5H"}  # highest under 6H
    with pytest.raises(IllegalAction) as err:
        game.auto_action("333")
    assert err.value.key == "papayoo.not_your_turn"


def test_auto_action_dumps_the_papayoo_when_void() -> None:
    game = crafted([["6H", "P1"], ["7D", "P20", "10S"], ["3S", "4H"]], papayoo_suit="D")
    game.apply("111", {"type": "play", "card": "6H"})
    assert game.auto_action("222") == {"type": "play", "card": "7D"}


def test_auto_action_void_dumps_the_highest_payoo() -> None:
    game = crafted([["6H", "P1"], ["2S", "P20", "P3"], ["3S", "4H"]], papayoo_suit="D")
    game.apply("111", {"type": "play", "card": "6H"})
    assert game.auto_action("222") == {"type": "play", "card": "P20"}


def test_auto_action_never_wins_with_the_papayoo_it_can_keep() -> None:
    game = crafted([["2H", "P1"], ["5S", "P2"], ["7H", "9H"]], papayoo_suit="H")
    game.apply("111", {"type": "play", "card": "2H"})
    game.apply("222", {"type": "play", "card": "5S"})
    assert game.auto_action("333") == {"type": "play", "card": "9H"}  # last: wins anyway


def test_auto_action_leads_low_and_not_the_papayoo() -> None:
    game = crafted([["7C", "2H", "9S", "P8"], ["5S", "P2"], ["3S", "4H"]], papayoo_suit="C")
    assert game.auto_action("111") == {"type": "play", "card": "2H"}


def test_auto_action_passes_the_most_dangerous_remaining_cards() -> None:
    game = start(4, seed=6)
    cards = hand(game, "111")
    chosen = rule_pass(cards, 5)
    assert game.auto_action("111") == {"type": "pass", "cards": chosen}
    assert all(
        pass_danger(c, cards) >= pass_danger(k, cards)
        for c in chosen
        for k in cards
        if k not in chosen
    )
    game.apply("111", {"type": "pass", "cards": chosen[:2]})
    rest = hand(game, "111")
    assert game.auto_action("111") == {"type": "pass", "cards": rule_pass(rest, 3)}
    game.apply("111", game.auto_action("111"))
    with pytest.raises(IllegalAction):
        game.auto_action("111")


def test_rule_pass_dumps_high_payoo_and_bare_high_cards_keeps_covered_seven() -> None:
    hand_ = ["2S", "3S", "4S", "7S", "10H", "9D", "1D", "P20", "P17", "P1", "2C", "3C", "5C",
             "1H", "6C"]  # fmt: skip
    passed = rule_pass(hand_, 5)
    assert {"P20", "P17", "10H", "9D"} <= set(passed)
    assert "7S" not in passed  # three lower spades cover it
    assert not {"P1", "2S", "3S", "2C"} & set(passed)


def test_auto_action_after_game_over() -> None:
    game = start(3, rounds=1)
    play_out(game)
    with pytest.raises(IllegalAction) as err:
        game.auto_action("111")
    assert err.value.key == "papayoo.game_over"


# ---------------------------------------------------------------------------- bad input


def test_card_not_in_hand() -> None:
    game = crafted([["3H", "P2"], ["10S", "P3"], ["9H", "P4"]])
    err = assert_illegal(game, "111", {"type": "play", "card": "5S"}, "papayoo.not_in_hand")
    assert str(err) == "5S is not in your hand"
    assert err.params == {"card": "5S"}
    assert_illegal(game, "111", {"type": "play", "card": "XX"}, "papayoo.not_in_hand")


def test_off_suit_refused() -> None:
    game = crafted([["3H", "P2"], ["10S", "8H"], ["9H", "P4"]])
    game.apply("111", {"type": "play", "card": "3H"})
    err = assert_illegal(game, "222", {"type": "play", "card": "10S"}, "papayoo.must_follow")
    assert str(err) == "you must follow hearts: you hold 8H"


def test_out_of_turn() -> None:
    game = crafted([["3H", "P2"], ["10S", "8H"], ["9H", "P4"]])
    err = assert_illegal(game, "222", {"type": "play", "card": "10S"}, "papayoo.not_your_turn")
    assert str(err) == "it is player 111's turn"
    assert err.params == {"player": "111"}
    assert game.legal_actions("222") == []


def test_stranger_refused() -> None:
    game = start(3)
    err = assert_illegal(game, "999", {"type": "pass", "cards": ["P1"]}, "papayoo.not_a_player")
    assert str(err) == "player 999 is not playing in this game"
    assert game.legal_actions("999") == []
    assert game.view("999") == game.public_view()
    pass_all(game)
    assert_illegal(game, "999", {"type": "play", "card": "P1"}, "papayoo.not_a_player")


@pytest.mark.parametrize(
    ("cards", "message"),
    [
        (6, "you must pass 5 cards, not 6"),
        (0, "you must pass 5 cards, not 0"),
        (20, "you must pass 5 cards, not 20"),
    ],
)
def test_pass_of_wrong_size(cards: int, message: str) -> None:
    game = start(3, seed=2)
    err = assert_illegal(
        game, "111", {"type": "pass", "cards": hand(game, "111")[:cards]}, "papayoo.pass_size"
    )
    assert str(err) == message


def test_pass_too_many_after_partial() -> None:
    game = start(4, seed=2)
    cards = hand(game, "111")
    game.apply("111", {"type": "pass", "cards": cards[:2]})
    err = assert_illegal(game, "111", {"type": "pass", "cards": cards[2:6]}, "papayoo.pass_size")
    assert str(err) == "you must pass 3 more cards, not 4"
    assert err.params == {"need": 3, "size": 5, "got": 4}
    # The cards already put aside are no longer in hand.
    assert_illegal(game, "111", {"type": "pass", "cards": cards[:1]}, "papayoo.not_in_hand")


def test_pass_duplicate() -> None:
    game = start(4, seed=2)
    card = hand(game, "222")[0]
    err = assert_illegal(
        game, "222", {"type": "pass", "cards": [card, card, card]}, "papayoo.pass_duplicate"
    )
    assert str(err) == "you cannot pass the same card twice"


def test_pass_card_not_held() -> None:
    game = start(4, seed=2)
    other = hand(game, "333")[0]
    cards = [*hand(game, "222")[:4], other]
    err = assert_illegal(game, "222", {"type": "pass", "cards": cards}, "papayoo.not_in_hand")
    assert str(err) == f"{other} is not in your hand"


def test_pass_twice_refused() -> None:
    game = start(4, seed=2)
    game.apply("222", game.auto_action("222"))
    assert_illegal(
        game, "222", {"type": "pass", "cards": hand(game, "222")[:5]}, "papayoo.pass_locked"
    )


@pytest.mark.parametrize(
    "action",
    [
        {"type": "pass"},
        {"type": "pass", "cards": "3S"},
        {"type": "pass", "cards": [["3S"]]},
        {"cards": ["3S"]},
        {"type": "bid", "cards": ["3S"]},
        ["pass", "3S"],
        None,
    ],
)
def test_malformed_pass(action: Any) -> None:
    assert_illegal(start(4, seed=2), "111", action, "papayoo.bad_action")


@pytest.mark.parametrize(
    "action",
    [
        {"type": "play"},
        {"type": "play", "card": 5},
        {"type": "play", "card": ["3H"]},
        {"card": "3H"},
        {"type": "bid", "card": "3H"},
        ["play", "3H"],
        None,
    ],
)
def test_malformed_play(action: Any) -> None:
    game = crafted([["3H", "P2"], ["10S", "P3"], ["9H", "P4"]])
    assert_illegal(game, "111", action, "papayoo.bad_action")


def test_wrong_phase() -> None:
    game = start(4, seed=2)
    card = hand(game, "111")[0]
    err = assert_illegal(game, "111", {"type": "play", "card": card}, "papayoo.wrong_phase")
    assert str(err) == "it is time to pass cards, not to play"
    pass_all(game)
    dealer = game.to_act()[0]
    err = assert_illegal(game, dealer, {"type": "pass", "cards": [card]}, "papayoo.wrong_phase")
    assert str(err) == "it is time to play a card, not to pass"


def test_acting_after_the_game_is_over() -> None:
    game = start(3, rounds=1)
    play_out(game)
    err = assert_illegal(game, "111", {"type": "play", "card": "P1"}, "papayoo.game_over")
    assert str(err) == "the game is over"
    assert_illegal(game, "222", {"type": "pass", "cards": ["P1"]}, "papayoo.game_over")
    assert all(game.legal_actions(p) == [] for p in PLAYERS[:3])


def test_action_after_json_round_trip() -> None:
    game = start(4, seed=8)
    for player in list(game.to_act()):
        action = json.loads(json.dumps(game.auto_action(player)))
        game.apply(player, action)
    dealer = game.to_act()[0]
    action = json.loads(json.dumps(game.legal_actions(dealer)[0]))
    assert game.apply(dealer, action)[0]["type"] == "card_played"


# ---------------------------------------------------------------------------- options


def test_default_options() -> None:
    view = start(3).public_view()
    assert (view["rounds"], view["turn_seconds"]) == (4, 90)
    view = start(3, rounds=20, turn_seconds=0).public_view()
    assert (view["rounds"], view["turn_seconds"]) == (20, 0)
    assert start(3, rounds=1, turn_seconds=15).public_view()["turn_seconds"] == 15
    assert start(3, turn_seconds=600).public_view()["turn_seconds"] == 600


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"rounds": 0}, "rounds must be between 1 and 20"),
        ({"rounds": 21}, "rounds must be between 1 and 20"),
        ({"rounds": "4"}, "rounds must be a whole number"),
        ({"rounds": True}, "rounds must be a whole number"),
        ({"rounds": 2.0}, "rounds must be a whole number"),
        ({"turn_seconds": 14}, "turn_seconds (0 for no timer) must be between 15 and 600"),
        ({"turn_seconds": 601}, "between 15 and 600"),
        ({"turn_seconds": -1}, "between 15 and 600"),
        ({"turn_seconds": None}, "turn_seconds must be a whole number"),
        ({"speed": 3}, "unknown option(s) speed"),
    ],
)
def test_bad_options(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match="papayoo") as err:
        new_game("papayoo", PLAYERS[:3], 1, options)
    assert message in str(err.value)


@pytest.mark.parametrize("n", [0, 1, 2, 9])
def test_bad_player_count(n: int) -> None:
    with pytest.raises(ValueError, match=f"papayoo needs 3 to 8 players, not {n}"):
        new_game("papayoo", [str(i) for i in range(1, n + 1)], 1)


def test_bad_players() -> None:
    with pytest.raises(ValueError, match="two seats"):
        Papayoo.new(["1", "2", "1"], 1, {})
    with pytest.raises(ValueError, match="non-empty"):
        Papayoo.new(["1", "2", ""], 1, {})
    with pytest.raises(ValueError, match="seed"):
        Papayoo.new(["1", "2", "3"], "x", {})  # type: ignore[arg-type]


# ---------------------------------------------------------------------------- shuffle


@pytest.mark.parametrize("size", [56, 60])
def test_shuffle_is_a_uniform_permutation(size: int) -> None:
    rng = Rng(12345)
    deck = papayoo_deck(8 if size == 56 else 3)
    first: Counter[str] = Counter()
    where: Counter[int] = Counter()
    shuffles = 6000
    for _ in range(shuffles):
        cards = list(deck)
        _shuffle(rng, cards)
        assert sorted(cards) == sorted(deck)
        first[cards[0]] += 1
        where[cards.index("P20")] += 1
    expected = shuffles / size
    assert len(first) == size and len(where) == size
    assert all(0.6 * expected < k < 1.4 * expected for k in first.values())
    assert all(0.6 * expected < k < 1.4 * expected for k in where.values())
