"""Random Spit playouts: both players act in random interleavings, checked at every step.

- the 52 cards are all there, each once, after every action;
- ``to_act()`` lists exactly the players with a legal action, and the game always ends;
- no view and no event ever names a face-down card;
- a click built on an older board either still applies (it is legal now) or is refused
  and changes nothing.

The random players lean towards progress (plays before fills), as players do; the game
ends with probability 1 anyway (module docstring, ruling 11).
"""

from __future__ import annotations

import json
import random
from collections import Counter
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.engine import IllegalAction, load_game, new_game
from bot.engine.spit import DECK, MAX_LAYOUTS, Spit

PLAYERS = ["111", "222"]
CARDS = frozenset(DECK)
OPTIONS = [
    {},
    {"piles": 4},
    {"alternate_colors": True},
    {"no_slap": True},
    {"piles": 4, "alternate_colors": True, "no_slap": True},
]
MAX_STEPS = 40_000


def codes(value: Any) -> set[str]:
    if isinstance(value, str):
        return {value} if value in CARDS else set()
    if isinstance(value, dict):
        return {c for v in value.values() for c in codes(v)}
    if isinstance(value, list):
        return {c for v in value for c in codes(v)}
    return set()


def face_down(data: dict[str, Any]) -> set[str]:
    hidden = {c for stock in data["stocks"] for pile in stock for c in pile[:-1]}
    return hidden | {c for cards in data["spit_cards"] for c in cards}


def turnable(data: dict[str, Any]) -> set[str]:
    """The face-down cards one action may turn up: the next spit cards and the card under
    each stock top. An event may name them even when a layout follows in the same action."""
    cards = {s[-1] for s in data["spit_cards"] if s}
    return cards | {p[-2] for stock in data["stocks"] for p in stock if len(p) > 1}


def check_cards(data: dict[str, Any]) -> None:
    cards = [c for stock in data["stocks"] for pile in stock for c in pile]
    cards += [c for s in data["spit_cards"] for c in s] + [c for p in data["spits"] for c in p]
    assert Counter(cards) == Counter(DECK)


def check_views(game: Spit, hidden: set[str]) -> None:
    for who in [*PLAYERS, "999"]:
        view = game.view(who)
        assert not codes(view) & hidden, who
        if who in PLAYERS:
            you = view["you"]
            assert you["hand"] == [p["top"] for p in view["stocks"][who] if p["top"]]
            assert you["legal_actions"] == game.legal_actions(who)
            assert len(view["stocks"][who]) == game.options()["piles"]


def choose(legal: list[dict[str, Any]], rnd: random.Random) -> dict[str, Any]:
    plays = [a for a in legal if a["type"] == "play"]
    if plays and rnd.random() < 0.8:
        return rnd.choice(plays)
    return rnd.choice(legal)


def playout(seed: int, options: dict[str, Any], rnd: random.Random, views_every: int) -> Spit:
    game = new_game("spit", PLAYERS, seed, options)
    assert isinstance(game, Spit)
    old: list[tuple[str, dict[str, Any]]] = []
    for step in range(MAX_STEPS):
        if game.is_over():
            break
        before = game.to_dict()
        acting = game.to_act()
        assert acting, "nobody may act but the game is not over"
        for p in PLAYERS:
            assert bool(game.legal_actions(p)) == (p in acting)
        if old and rnd.random() < 0.2:
            # A click from an older board arrives late.
            who, stale = rnd.choice(old)
            text = game.dumps()
            legal_now = game.legal_actions(who)
            if stale in legal_now or (stale["type"] == "spit" and {"type": "spit"} in legal_now):
                # Still legal (a lone spitter naming their own pile again is the same spit).
                try:
                    game.apply(who, stale)
                except IllegalAction as err:
                    assert stale not in legal_now, err
                    assert game.dumps() == text
            else:
                try:
                    game.apply(who, stale)
                except IllegalAction as err:
                    assert err.key.startswith("spit.") and str(err)
                    assert game.dumps() == text
                else:
                    raise AssertionError(f"stale {stale} of {who} applied")
        else:
            who = rnd.choice(acting)
            legal = game.legal_actions(who)
            old = [(p, a) for p in PLAYERS for a in game.legal_actions(p)]
            events = game.apply(who, json.loads(json.dumps(choose(legal, rnd))))
            data = game.to_dict()
            shown = CARDS - (face_down(before) & face_down(data)) | turnable(before)
            assert codes(events) <= shown, events
        data = game.to_dict()
        check_cards(data)
        if step % views_every == 0 or game.is_over():
            check_views(game, face_down(data))
    assert game.is_over(), f"not over after {MAX_STEPS} steps"
    return game


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 2**40),
    options=st.sampled_from(OPTIONS),
    interleaving=st.integers(0, 2**32),
)
def test_random_interleavings_conserve_cards_hide_face_down_and_end(
    seed: int, options: dict[str, Any], interleaving: int
) -> None:
    game = playout(seed, options, random.Random(interleaving), views_every=5)
    data = json.loads(game.dumps())
    result = game.result()
    winner = data["winner"]
    assert game.to_act() == []
    if data["layouts"] < MAX_LAYOUTS:
        assert winner is not None
        seat = data["winner"]
        assert not any(data["stocks"][seat]) and not data["spit_cards"][seat]
        assert result["ranking"] == [[PLAYERS[seat]], [PLAYERS[1 - seat]]]
        assert result["scores"][PLAYERS[seat]] == 0
        assert result["scores"][PLAYERS[1 - seat]] == 52


def test_many_seeded_games_end_and_replay_from_the_saved_state() -> None:
    for seed in range(40):
        rnd = random.Random(seed)
        options = OPTIONS[seed % len(OPTIONS)]
        game = new_game("spit", PLAYERS, seed, options)
        log: list[tuple[str, dict[str, Any]]] = []
        half = None
        for _ in range(MAX_STEPS):
            if game.is_over():
                break
            if len(log) == 100:
                half = game.dumps()
            who = rnd.choice(game.to_act())
            action = choose(game.legal_actions(who), rnd)
            game.apply(who, action)
            log.append((who, action))
        assert game.is_over()
        if half is not None:
            copy = load_game(half)
            for who, action in log[100:]:
                copy.apply(who, action)
            assert copy.dumps() == game.dumps()
