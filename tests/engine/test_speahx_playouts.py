"""Random Speahx playouts for 2 to 14 players: cards conserved, termination, no secret leaks."""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import load_game, new_game
from bot.engine.speahx import ALL_CARDS, MAX_PLAYERS, MIN_PLAYERS, Speahx, full_deck

PLAYERS = [str(100 + i) for i in range(MAX_PLAYERS)]
CARDS = frozenset(ALL_CARDS)
MAX_STEPS = 60_000
VIEW_RATE = 0.03
"""Share of steps where every view is checked against reshuffled secrets."""


def card_codes(value: Any) -> Counter[str]:
    """Every card code anywhere in a JSON value, with repeats."""
    if isinstance(value, str):
        return Counter([value]) if value in CARDS else Counter()
    found: Counter[str] = Counter()
    if isinstance(value, dict):
        for item in value.values():
            found += card_codes(item)
    elif isinstance(value, list):
        for item in value:
            found += card_codes(item)
    return found


def state(game: Speahx) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(game.dumps())
    return data


def snapshot(game: Speahx) -> dict[str, Any]:
    """Where every card is, read from the game's fields: ``dumps()`` at every step of
    thousands would make this file slow for nothing."""
    return {
        "players": len(game._players),
        "jokers": game._jokers,
        "hands": [list(h) for h in game._hands],
        "table": [list(t) for t in game._table],
        "stock": list(game._stock),
        "pile": list(game._pile),
        "burned": list(game._burned),
        "removed": list(game._removed),
        "chance": list(game._chance),
        "turned": game._turned,
        "out": list(game._out),
    }


def check_cards_conserved(data: dict[str, Any]) -> None:
    places = [c for h in data["hands"] for c in h] + [c for t in data["table"] for c in t if c]
    places += data["stock"] + data["pile"] + data["burned"] + data["removed"] + data["chance"]
    assert Counter(places) == Counter(full_deck(data["players"], data["jokers"]))


def reshuffled(data: dict[str, Any], keep: int | None, rnd: random.Random) -> Speahx:
    """The same game with every card ``keep`` (a seat, or None for a spectator) may not see
    dealt again at random among the places that hide them."""
    data = json.loads(json.dumps(data))
    slots: list[tuple[list[Any], int]] = []
    for seat, hand in enumerate(data["hands"]):
        if seat != keep:
            slots += [(hand, i) for i in range(len(hand))]
    for row in data["table"]:
        slots += [(row, i) for i, card in enumerate(row) if card is not None]
    slots += [(data["stock"], i) for i in range(len(data["stock"]))]
    if keep != data["turn"]:
        slots += [(data["chance"], i) for i in range(len(data["chance"]))]
    cards = [place[i] for place, i in slots]
    rnd.shuffle(cards)
    for (place, i), card in zip(slots, cards, strict=True):
        place[i] = card
    game = load_game(json.dumps({"kind": "speahx", **data}))
    assert isinstance(game, Speahx)
    return game


def check_views_hide_secrets(game: Speahx, rnd: random.Random) -> None:
    """A view is the same whatever the cards its player may not see: it cannot hold any."""
    data = state(game)
    public = json.dumps(game.public_view(), sort_keys=True)
    assert json.dumps(reshuffled(data, None, rnd).public_view(), sort_keys=True) == public
    for seat, player in enumerate(data["players"]):
        view = game.view(player)
        assert json.dumps(reshuffled(data, seat, rnd).view(player), sort_keys=True) == json.dumps(
            view, sort_keys=True
        )
        you = view["you"]
        assert sorted(you["hand"]) == sorted(data["hands"][seat])
        assert you["table_positions"] == [i for i, c in enumerate(data["table"][seat]) if c]


def check_events_name_public_cards(
    before: dict[str, Any], after: dict[str, Any], action: Any, events: list[Any]
) -> None:
    """Events name only cards that were or became face up: the pile, what burned, what left
    the game, and a table card its owner chose to show."""
    allowed = Counter(before["pile"]) | Counter(after["pile"])
    allowed += Counter(after["burned"]) - Counter(before["burned"])
    allowed += Counter(after["removed"]) - Counter(before["removed"])
    if action.get("type") == "show" and action.get("show"):
        allowed[before["turned"]] += 1
    named = Counter[str]()
    for event in events:
        if event["type"] in ("game_over",):
            continue
        named |= card_codes(event)
    assert not named - allowed, (named - allowed, events)


def playout(n: int, seed: int, jokers: bool, check_views: bool = True) -> Speahx:
    game = new_game("speahx", PLAYERS[:n], seed, {"jokers": jokers})
    assert isinstance(game, Speahx)
    rnd = random.Random(seed)
    data = snapshot(game)
    check_cards_conserved(data)
    for _ in range(MAX_STEPS):
        if game.is_over():
            break
        (player,) = game.to_act()
        legal = game.legal_actions(player)
        assert legal
        action = rnd.choice(legal) if rnd.random() < 0.8 else game.auto_action(player)
        if check_views and rnd.random() < VIEW_RATE:
            check_views_hide_secrets(game, rnd)
        events = game.apply(player, json.loads(json.dumps(action)))
        after = snapshot(game)
        check_cards_conserved(after)
        check_events_name_public_cards(data, after, action, events)
        assert len(after["out"]) == len(set(after["out"]))
        data = after
    assert game.is_over(), f"{n} players, seed {seed}: not over after {MAX_STEPS} steps"
    result = game.result()
    ranking = [group[0] for group in result["ranking"]]
    assert all(len(group) == 1 for group in result["ranking"])
    assert sorted(ranking) == sorted(PLAYERS[:n])
    assert result["loser"] == ranking[-1]
    holding = [
        p for seat, p in enumerate(PLAYERS[:n]) if data["hands"][seat] or any(data["table"][seat])
    ]
    assert holding == [result["loser"]], "the loser is the one player left with cards"
    return game


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(MIN_PLAYERS, MAX_PLAYERS),
    seed=st.integers(0, 2**32),
    jokers=st.booleans(),
)
def test_random_playouts_conserve_cards_end_and_keep_secrets(
    n: int, seed: int, jokers: bool
) -> None:
    playout(n, seed, jokers)


def test_playouts_for_every_player_count() -> None:
    for n in range(MIN_PLAYERS, MAX_PLAYERS + 1):
        playout(n, 1000 + n, n % 2 == 0, check_views=n == MAX_PLAYERS)


def test_auto_action_games_end() -> None:
    """Games where every move is the turn timer's end too (the floor for computer players)."""
    for n in (2, 4, 6, 14):
        game = new_game("speahx", PLAYERS[:n], n, {"jokers": n == 4})
        for _ in range(MAX_STEPS):
            if game.is_over():
                break
            (player,) = game.to_act()
            game.apply(player, game.auto_action(player))
        assert game.is_over()
