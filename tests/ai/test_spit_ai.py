"""The Spit computer players: legal, deterministic, from the view alone, sensible."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

from bot.ai import LEVELS, choose, decide
from bot.ai.spit import DEPTH, read_view, rule_action
from bot.engine import load_game, new_game
from bot.engine.spit import Spit
from tests.engine.spit_support import A, B, make

BUDGET_MS = 2
"""Tests keep the budget tiny: ``hard`` still looks ``MIN_POSITIONS`` positions ahead."""
OPTIONS = [
    {},
    {"piles": 4},
    {"alternate_colors": True},
    {"no_slap": True},
    {"piles": 4, "alternate_colors": True, "no_slap": True},
]


def rule(game: Spit, player: str) -> dict[str, Any]:
    """The rule player's move, without misses."""
    action = rule_action(read_view(game.view(player)), DEPTH["hard"], 1000)
    assert action in game.legal_actions(player), action
    return action


def sensible(game: Spit, player: str) -> list[dict[str, Any]]:
    """The rule player's move and ``hard``'s over a few seeds."""
    return [rule(game, player)] + [ai(game, player, "hard", seed) for seed in range(4)]


def ai(game: Spit, player: str, level: str, seed: int = 0) -> dict[str, Any]:
    action = decide("spit", game.view(player), level=level, seed=seed, budget_ms=BUDGET_MS)
    assert action in game.legal_actions(player), action
    return action


def race(game: Spit, rnd: random.Random, steps: int) -> None:
    """``steps`` random legal actions, a random player of ``to_act()`` each time."""
    for _ in range(steps):
        acting = game.to_act()
        if not acting:
            return
        player = rnd.choice(acting)
        game.apply(player, rnd.choice(game.legal_actions(player)))


# ------------------------------------------------------------------ legality, purity


@pytest.mark.parametrize("options", OPTIONS)
def test_always_legal_in_playouts(options: dict[str, Any]) -> None:
    """Whole games, both seats computers of some level racing: every answer is legal."""
    for seed in range(2):
        game = new_game("spit", [A, B], seed, options)
        rnd = random.Random(seed)
        levels = {A: list(LEVELS)[seed % 3], B: list(LEVELS)[(seed + 1) % 3]}
        for step in range(4000):
            acting = game.to_act()
            if not acting:
                break
            player = rnd.choice(acting)
            if rnd.random() < 0.1:  # a few random moves reach odd states
                action = rnd.choice(game.legal_actions(player))
            else:
                view = game.view(player)
                action = decide("spit", view, level=levels[player], seed=step, budget_ms=1)
                assert action in view["you"]["legal_actions"], (view, action)
            game.apply(player, action)


@pytest.mark.parametrize("level", list(LEVELS))
def test_same_seed_same_action(level: str) -> None:
    for seed in range(8):
        game = new_game("spit", [A, B], seed, {})
        race(game, random.Random(seed), 5 + 9 * seed)
        for player in game.to_act():
            first = decide("spit", game.view(player), level=level, seed=seed, budget_ms=5)
            again = decide("spit", game.view(player), level=level, seed=seed, budget_ms=5)
            assert first == again


def test_decide_needs_only_the_view() -> None:
    """A JSON copy of the view is enough: no game object, no hidden state."""
    game = new_game("spit", [A, B], 3, {})
    race(game, random.Random(3), 30)
    player = game.to_act()[0]
    text = json.dumps(game.view(player))
    action = decide("spit", json.loads(text), level="hard", seed=1, budget_ms=BUDGET_MS)
    assert action in game.legal_actions(player)


def shuffled_hidden(game: Spit, seed: int) -> Spit:
    """The same game with every face-down card (under the stock tops, the spit cards, under
    the spit tops) dealt again at random, every count and every face-up card kept."""
    data = json.loads(game.dumps())
    slots: list[tuple[list[str], int]] = []
    for stock in data["stocks"]:
        for pile in stock:
            slots += [(pile, i) for i in range(len(pile) - 1)]
    for cards in data["spit_cards"]:
        slots += [(cards, i) for i in range(len(cards))]
    for pile in data["spits"]:
        slots += [(pile, i) for i in range(len(pile) - 1)]
    cards = [where[i] for where, i in slots]
    random.Random(seed).shuffle(cards)
    for (where, i), card in zip(slots, cards, strict=True):
        where[i] = card
    other = load_game(json.dumps(data))
    assert isinstance(other, Spit)
    return other


@pytest.mark.parametrize("level", list(LEVELS))
def test_hidden_cards_do_not_change_the_decision(level: str) -> None:
    """Two games that differ only in face-down cards: the same view, the same decision."""
    checked = 0
    for seed in range(10):
        game = new_game("spit", [A, B], seed, {})
        race(game, random.Random(seed), 4 + 7 * seed)
        other = shuffled_hidden(game, seed)
        if other.dumps() == game.dumps():
            continue
        for player in game.to_act():
            assert other.view(player) == game.view(player)
            checked += 1
            assert decide("spit", game.view(player), level=level, seed=seed, budget_ms=5) == (
                decide("spit", other.view(player), level=level, seed=seed, budget_ms=5)
            )
    assert checked >= 5


# ------------------------------------------------------------------ sensible moves


def test_a_play_that_uncovers_a_card_is_preferred() -> None:
    """5H fits on 6C from a single-card pile or from a deep one: the deep one."""
    game = make([[["5H"], ["2S", "3D", "5D"]], [["QC"]]], [["6C"], ["9S"]], filler=1)
    for action in sensible(game, A):
        assert action["type"] == "play" and action["card"] == "5D", action


def test_a_play_that_starts_a_chain_is_preferred() -> None:
    """7H or 9C fit on 8S; only after 7H can this player go on with 6D."""
    game = make([[["9C"], ["7H"], ["6D"], ["2H", "KD"]], [["QC"]]], [["8S"], ["2S"]], filler=1)
    for action in sensible(game, A):
        assert action["card"] == "7H", action


def test_the_play_that_leaves_the_opponent_without_a_move() -> None:
    """7H fits on 8S and on 6D; the opponent's only fit is 5C on 6D: cover the 6D."""
    game = make([[["7H"], ["2S", "KD"]], [["5C"], ["JC"]]], [["8S"], ["6D"]], filler=0)
    for action in sensible(game, A):
        assert action == {"type": "play", "pile": 0, "card": "7H", "spit": 1, "onto": "6D"}


def slap_board(no_slap: bool) -> Spit:
    return make(
        [[["4H"]], [["9C"]]],
        [["AS", "2D"], ["8S", "JD"]],
        options={"no_slap": no_slap},
        phase="slap",
        reason="no_spit_cards",
    )


@pytest.mark.parametrize("no_slap", [False, True])
def test_hard_slaps_or_takes_the_smaller_pile(no_slap: bool) -> None:
    game = slap_board(no_slap)
    for player in game.to_act():
        for seed in range(50):
            action = ai(game, player, "hard", seed)
            assert action["pile"] == 1, action


def test_easy_and_normal_sometimes_slap_without_comparing() -> None:
    """``SLAP_MISS``: easy slaps the larger pile more often than normal, hard never."""
    game = slap_board(False)
    wrong = {
        level: sum(ai(game, A, level, seed)["pile"] == 0 for seed in range(400)) for level in LEVELS
    }
    assert wrong["hard"] == 0
    assert 0 < wrong["normal"] < wrong["easy"] < 200, wrong


def test_a_lone_spitter_ahead_spits_onto_the_larger_pile() -> None:
    """Ahead (fewer stock cards): the spit goes on the larger pile, the small one stays
    small for the slap; behind, onto the smaller (the two stay even)."""
    ahead = make(
        [[["4H"]], [["9C"], ["2C"]]], [["AS", "2D"], ["8S", "JD"]], (["KH"], []), phase="spit"
    )
    assert ai(ahead, A, "hard") == {"type": "spit", "pile": 0}
    behind = make(
        [[["4H"], ["7C"], ["10C"]], [["9C"]]],
        [["AS", "2D"], ["8S", "JD"]],
        (["KH"], []),
        phase="spit",
    )
    assert ai(behind, A, "hard") == {"type": "spit", "pile": 1}


def test_fill_when_no_play_is_left() -> None:
    game = make([[["5H", "9D"], []], [["QC"]]], [["2C"], ["KS"]], filler=0)
    for level in LEVELS:
        assert ai(game, A, level) == {"type": "fill", "pile": 0, "card": "9D", "to": 1}


# ------------------------------------------------------------------ strength


def play_game(seed: int, seats: dict[str, str]) -> str | None:
    """One game, each seat a level or ``auto``, a seeded coin between them; the winner."""
    game = new_game("spit", [A, B], seed, {})
    rnd = random.Random(seed)
    for _ in range(20_000):
        acting = game.to_act()
        if not acting:
            break
        player = rnd.choice(acting)
        level = seats[player]
        if level == "auto":
            action = game.auto_action(player)
        elif level == "random":
            action = rnd.choice(game.legal_actions(player))
        else:
            choice = choose(game, player, level=level, seed=rnd.getrandbits(32), budget_ms=5)
            assert choice.fallback is None
            action = choice.action
        game.apply(player, action)
    winner = game.public_view()["winner"]
    return None if winner is None else str(winner)


def test_hard_beats_auto_action_in_an_even_race() -> None:
    """Deals played twice, seats swapped, against the engine's ``auto_action`` (what a
    computer seat played before), a seeded coin between two equally fast players: ``hard``
    wins more than half (0.6 on these deals; ``python -m bench.spit_ai`` measures it on
    many more, with its confidence interval)."""
    wins = 0.0
    deals = 60
    for seed in range(deals):
        for seats in ({A: "hard", B: "auto"}, {A: "auto", B: "hard"}):
            winner = play_game(seed, seats)
            wins += 0.5 if winner is None else float(seats[winner] == "hard")
    assert wins / (2 * deals) > 0.55, wins


def first_layout_lead(seed: int, seats: dict[str, str]) -> int:
    """Cards ``A`` is ahead of ``B`` by when the first layout ends (a stock emptied)."""
    game = new_game("spit", [A, B], seed, {})
    rnd = random.Random(seed)
    while game.public_view()["phase"] in ("spit", "play"):
        player = rnd.choice(game.to_act())
        level = seats[player]
        if level == "auto":
            action = game.auto_action(player)
        else:
            action = decide("spit", game.view(player), level=level, seed=seed, budget_ms=5)
        game.apply(player, action)
    left = game.public_view()["cards_left"]
    return int(left[B] - left[A])


@pytest.mark.parametrize("level", ["normal", "hard"])
def test_normal_and_hard_gain_cards_on_auto_action(level: str) -> None:
    """The first layout of many deals, seats swapped: normal and hard are ahead of
    ``auto_action`` on average when a stock empties (the less noisy measure). Easy plays
    ``auto_action``'s move more than half the time: it is not expected to gain on it."""
    deals = 150
    lead = 0
    for seed in range(deals):
        lead += first_layout_lead(seed, {A: level, B: "auto"})
        lead -= first_layout_lead(seed, {A: "auto", B: level})
    assert lead / (2 * deals) > 0.15, lead


def test_levels_are_ordered_in_an_even_race() -> None:
    """Two equally fast players: hard beats easy clearly, and easy still beats a random
    player (``python -m bench.spit_ai`` measures every pair on many more deals)."""
    deals = 40
    hard = easy = 0.0
    for seed in range(deals):
        for first, second in (("hard", "easy"), ("easy", "hard")):
            winner = play_game(seed, {A: first, B: second})
            hard += 0.5 if winner is None else float({A: first, B: second}[winner] == "hard")
        for seats in ({A: "easy", B: "random"}, {A: "random", B: "easy"}):
            winner = play_game(seed, seats)
            easy += 0.5 if winner is None else float(seats[winner] == "easy")
    assert hard / (2 * deals) > 0.58, hard
    assert easy / (2 * deals) > 0.58, easy
