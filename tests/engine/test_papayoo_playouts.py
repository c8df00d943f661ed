"""Random Papayoo playouts for 3..8 players, checking every rule and secret at every step."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import load_game, new_game
from bot.engine.cards import papayoo_deck
from bot.engine.papayoo import ALL_CARDS, NUMBER, PASS_SIZE, POINTS, SUIT, Papayoo

PLAYERS = ["111", "222", "333", "444", "555", "666", "777", "888"]
CARDS = frozenset(ALL_CARDS)


def card_codes(value: Any) -> set[str]:
    """Every card code anywhere in a JSON value, except the public name of the Papayoo."""
    if isinstance(value, str):
        return {value} if value in CARDS else set()
    if isinstance(value, dict):
        return {c for k, v in value.items() if k != "papayoo" for c in card_codes(v)}
    if isinstance(value, list):
        return {c for v in value for c in card_codes(v)}
    return set()


def state(game: Papayoo) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(game.dumps())
    return data


def check_every_card_in_one_place(game: Papayoo) -> None:
    data = state(game)
    if data["phase"] == "over":
        return
    places = [c for h in data["hands"] for c in h] + data["trick"]
    places += [c for w in data["won"] for c in w]
    if data["phase"] == "pass":
        places += [c for a in data["aside"] for c in a]
    assert Counter(places) == Counter(papayoo_deck(len(data["players"])))


def check_views(game: Papayoo) -> None:
    """A view holds its own cards and the table; never another's hand or pass choice,
    except the cards its player passed (now in the left neighbour's hand)."""
    data = state(game)
    players = data["players"]
    in_pass = data["phase"] == "pass"
    for seat, player in enumerate(players):
        view = game.view(player)
        json.dumps(view)
        assert view["hand"] == sorted(data["hands"][seat], key=ALL_CARDS.index)
        others: set[str] = set()
        for other, cards in enumerate(data["hands"]):
            if other != seat:
                others |= set(cards)
                if in_pass:
                    others |= set(data["aside"][other])
        allowed = set() if in_pass else set(data["aside"][seat])
        assert card_codes(view) & others <= allowed
        if in_pass:
            assert view["received"] is None
        else:
            right = players[(seat - 1) % len(players)]
            assert set(view["received"]) == set(data["aside"][players.index(right)])
    public = game.public_view()
    json.dumps(public)
    held = {c for h in data["hands"] for c in h}
    if in_pass:
        held |= {c for a in data["aside"] for c in a}
    assert not card_codes(public) & held
    assert "hand" not in public


def expected_winner(players: list[str], cards: list[str]) -> str:
    led = SUIT[cards[0]]
    best = max((NUMBER[c], k) for k, c in enumerate(cards) if SUIT[c] == led)
    return players[best[1]]


def choose(game: Papayoo, player: str, rnd: random.Random, whole_pass: bool) -> dict[str, Any]:
    legal = game.legal_actions(player)
    assert legal, f"{player} is to act but has no legal action"
    if whole_pass and legal[0]["type"] == "pass":
        aside = len(game.view(player)["passed"])
        need = PASS_SIZE[len(game.public_view()["players"])] - aside
        cards = rnd.sample([a["cards"][0] for a in legal], rnd.randint(1, need))
        return {"type": "pass", "cards": cards}
    action: dict[str, Any] = rnd.choice(legal)
    return action


def check_step(
    game: Papayoo, player: str, action: dict[str, Any], before: dict[str, Any], events: list[Any]
) -> None:
    """The rules behind one applied action, from the actor's view before it and the events."""
    if action["type"] == "play":
        card = action["card"]
        led = before["led_suit"]
        if led is not None and SUIT[card] != led:
            assert all(SUIT[c] != led for c in before["hand"]), (
                "off suit while holding the led suit"
            )
    points = POINTS[before["papayoo_suit"]] if before["papayoo_suit"] else {}
    for i, event in enumerate(events):
        json.dumps(event)
        if event["type"] == "trick_won":
            winner = expected_winner(event["players"], event["cards"])
            assert event["winner"] == winner
            assert event["points"] == sum(points[c] for c in event["cards"])
            if i == len(events) - 1:
                assert game.to_act() == [winner]
        elif event["type"] == "round_over":
            assert sum(event["points"].values()) == 250
        elif event["type"] == "card_played":
            assert event == {"type": "card_played", "player": player, "card": action["card"]}


def playout(
    n: int, seed: int, rounds: int, rnd: random.Random, whole_pass: bool, fork_at: int
) -> None:
    players = PLAYERS[:n]
    game = new_game("papayoo", players, seed, {"rounds": rounds})
    assert isinstance(game, Papayoo)
    log: list[tuple[str, dict[str, Any]]] = []
    fork: tuple[str, int] | None = None
    all_events: list[Any] = []
    while not game.is_over():
        acting = game.to_act()
        assert acting
        if len(log) == fork_at:
            fork = (game.dumps(), len(all_events))
        player = rnd.choice(acting)
        action = choose(game, player, rnd, whole_pass)
        before = game.view(player)
        events = game.apply(player, json.loads(json.dumps(action)))
        log.append((player, action))
        all_events += events
        check_step(game, player, action, before, events)
        check_every_card_in_one_place(game)
        check_views(game)
    assert game.to_act() == []
    result = game.result()
    assert [sum(r.values()) for r in result["rounds"]] == [250] * rounds
    assert sum(result["scores"].values()) == 250 * rounds
    assert sorted(p for group in result["ranking"] for p in group) == sorted(players)
    # The same seed and actions give the same game.
    replay = new_game("papayoo", players, seed, {"rounds": rounds})
    replay_events = [e for p, a in log for e in replay.apply(p, a)]
    assert replay.dumps() == game.dumps()
    assert replay_events == all_events
    # A game saved mid-way goes on identically.
    if fork is not None:
        text, done = fork
        copy = load_game(text)
        assert copy.dumps() == text
        copy_events = [e for p, a in log[fork_at:] for e in copy.apply(p, a)]
        assert copy.dumps() == game.dumps()
        assert copy_events == all_events[done:]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(3, 8),
    seed=st.integers(0, 2**64 - 1),
    rounds=st.integers(1, 2),
    rnd=st.randoms(use_true_random=False),
    whole_pass=st.booleans(),
    fork_at=st.integers(0, 150),
)
def test_random_playouts_keep_every_rule(
    n: int, seed: int, rounds: int, rnd: random.Random, whole_pass: bool, fork_at: int
) -> None:
    playout(n, seed, rounds, rnd, whole_pass, fork_at)


def test_many_quick_playouts_total_250() -> None:
    """Cheaper playouts over many seeds: the round total and card conservation."""
    rnd = random.Random(2024)
    for seed in range(120):
        n = 3 + seed % 6
        game = new_game("papayoo", PLAYERS[:n], seed, {"rounds": 2})
        assert isinstance(game, Papayoo)
        while not game.is_over():
            player = rnd.choice(game.to_act())
            for event in game.apply(player, rnd.choice(game.legal_actions(player))):
                if event["type"] == "round_over":
                    assert sum(event["points"].values()) == 250
            check_every_card_in_one_place(game)
