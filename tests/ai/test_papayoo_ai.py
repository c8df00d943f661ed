"""The Papayoo computer players: legal, deterministic, from the view alone, sensible."""

from __future__ import annotations

import json
import random
from typing import Any, ClassVar

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.ai import AIS, LEVELS, NoAI, choose, decide, is_legal, timed_out
from bot.ai.papayoo import CARD_SUIT, Knowledge, read_view, sample_deal
from bot.engine import Game, new_game
from bot.engine.cards import papayoo_deck
from bot.engine.papayoo import HAND_ORDER, PASS_SIZE, SUIT, Papayoo

PLAYERS = ["111", "222", "333", "444", "555", "666", "777", "888"]
BUDGET_MS = 2
"""Tests keep the budget tiny: the AI still samples a few deals (``MIN_DEALS``)."""


def random_state(n: int, seed: int, steps: int, rounds: int = 1) -> Papayoo:
    """A game after ``steps`` random legal actions (whole or partial passes)."""
    game = new_game("papayoo", PLAYERS[:n], seed, {"rounds": rounds})
    assert isinstance(game, Papayoo)
    rnd = random.Random(seed)
    for _ in range(steps):
        acting = game.to_act()
        if not acting:
            break
        player = rnd.choice(acting)
        legal = game.legal_actions(player)
        if legal[0]["type"] == "pass":
            need = PASS_SIZE[n] - len(game.view(player)["passed"])
            cards = rnd.sample([a["cards"][0] for a in legal], rnd.randint(1, need))
            game.apply(player, {"type": "pass", "cards": cards})
        else:
            game.apply(player, rnd.choice(legal))
    return game


def crafted(hands: list[list[str]], *, leader: int = 0, papayoo_suit: str = "S") -> Papayoo:
    """A game in trick play with the given hands, ``leader`` to lead."""
    n = len(hands)
    game = new_game("papayoo", PLAYERS[:n], 1, {"rounds": 1})
    data = json.loads(game.dumps())
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
    )
    loaded = Papayoo.from_dict(data)
    return loaded


@pytest.mark.parametrize("level", list(LEVELS))
@pytest.mark.parametrize("n", range(3, 9))
def test_decide_is_legal_in_every_phase(n: int, level: str) -> None:
    phases = set()
    for seed in range(4):
        # 0 steps: the whole pass ahead; n - 1: one pass left; then the tricks.
        for steps in (0, n - 1, n + 3, n + 2 + 2 * n, n + 20):
            game = random_state(n, seed * 31 + steps, steps)
            if game.is_over():
                continue
            for player in game.to_act():
                view = game.view(player)
                action = decide("papayoo", view, level=level, seed=seed, budget_ms=BUDGET_MS)
                assert is_legal(game, player, action), (view, action)
                phases.add(view["phase"])
                if action["type"] == "play":
                    assert action in game.legal_actions(player)
                else:
                    need = PASS_SIZE[n] - len(view["passed"])
                    assert len(action["cards"]) == need
    assert phases == {"pass", "play"}


@pytest.mark.parametrize("level", list(LEVELS))
def test_same_seed_same_action(level: str) -> None:
    for seed in range(6):
        game = random_state(4, seed, 4 + 9 + seed if seed % 2 else 0)  # play, or the pass
        player = game.to_act()[0]
        view = game.view(player)
        first = decide("papayoo", view, level=level, seed=seed, budget_ms=5)
        again = decide("papayoo", game.view(player), level=level, seed=seed, budget_ms=5)
        assert first == again


def test_decide_needs_only_the_view() -> None:
    """A JSON copy of the view is enough: no game object, no hidden state."""
    game = random_state(5, 3, 5 + 12)
    player = game.to_act()[0]
    text = json.dumps(game.view(player))
    action = game_free_decision(text)
    assert is_legal(game, player, action)


def game_free_decision(text: str) -> dict[str, Any]:
    return decide("papayoo", json.loads(text), level="hard", seed=1, budget_ms=BUDGET_MS)


def test_hidden_cards_do_not_change_the_decision() -> None:
    """Two games that differ only in cards this player cannot see: the same decision."""
    game = crafted([["2H", "P1", "3S"], ["5H", "P2", "9C"], ["4H", "P3", "10D"]])
    other = crafted([["2H", "P1", "3S"], ["5H", "P3", "10D"], ["4H", "P2", "9C"]])
    for g in (game, other):
        g.apply("111", {"type": "play", "card": "2H"})
    for level in LEVELS:
        assert decide("papayoo", game.view("222"), level=level, seed=4, budget_ms=5) == decide(
            "papayoo", other.view("222"), level=level, seed=4, budget_ms=5
        )


@pytest.mark.parametrize("level", list(LEVELS))
def test_void_player_dumps_the_papayoo_on_another_players_trick(level: str) -> None:
    game = crafted(
        [["2C", "8H", "P1"], ["10C", "3H", "P4"], ["7S", "2H", "P3"], ["5C", "6H", "P2"]],
        papayoo_suit="S",
    )
    game.apply("111", {"type": "play", "card": "2C"})
    game.apply("222", {"type": "play", "card": "10C"})  # 222 takes this trick
    action = decide("papayoo", game.view("333"), level=level, seed=0, budget_ms=20)
    assert action == {"type": "play", "card": "7S"}


def test_hard_ducks_the_papayoo_trick() -> None:
    """Holding 7H (the Papayoo) and 2H, with 9H led: play the 7 under the 9."""
    game = crafted([["9H", "P1", "3S"], ["7H", "2H", "4S"], ["5D", "6S", "P3"]], papayoo_suit="H")
    game.apply("111", {"type": "play", "card": "9H"})
    action = decide("papayoo", game.view("222"), level="hard", seed=0, budget_ms=20)
    assert action == {"type": "play", "card": "7H"}


# ------------------------------------------------------------------ the sampler


def voids_from_view(view: dict[str, Any]) -> dict[str, set[str]]:
    """The suits each player showed they lack, recomputed from the view's tricks."""
    voids: dict[str, set[str]] = {p: set() for p in view["players"]}
    tricks = [(t["players"], t["cards"]) for t in view["round_tricks"]]
    tricks.append(([t["player"] for t in view["trick"]], [t["card"] for t in view["trick"]]))
    for players, cards in tricks:
        if cards:
            led = SUIT[cards[0]]
            for p, c in zip(players, cards, strict=True):
                if SUIT[c] != led:
                    voids[p].add(led)
    return voids


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    n=st.integers(3, 8),
    seed=st.integers(0, 10_000),
    plays=st.integers(0, 60),
    viewer=st.integers(0, 7),
    sample_seed=st.integers(0, 2**32),
)
def test_sampled_deals_fit_the_view(
    n: int, seed: int, plays: int, viewer: int, sample_seed: int
) -> None:
    game = random_state(n, seed, n + plays)
    view_all = game.public_view()
    if view_all["phase"] != "play":
        return
    player = PLAYERS[viewer % n]
    view = game.view(player)
    players = view["players"]
    played = {c for t in view["round_tricks"] for c in t["cards"]}
    played |= {t["card"] for t in view["trick"]}
    voids = voids_from_view(view)
    left = players[(players.index(player) + 1) % n]
    truth = json.loads(game.dumps())["hands"]
    # The constraints are true of the real deal (so the sampler may not exclude it).
    for seat, p in enumerate(players):
        assert not any(SUIT[c] in voids[p] for c in truth[seat])
    deal = sample_deal(read_view(view), random.Random(sample_seed))
    assert len(deal) == n
    for seat, p in enumerate(players):
        assert len(deal[seat]) == view["hand_sizes"][p]
        assert not any(SUIT[c] in voids[p] for c in deal[seat]), (p, voids[p], deal[seat])
    assert sorted(deal[players.index(player)]) == sorted(view["hand"])
    dealt = [c for h in deal for c in h]
    assert len(dealt) == len(set(dealt))
    assert set(dealt) | played == set(papayoo_deck(n))
    assert not set(dealt) & played
    assert {c for c in view["passed"] if c not in played} <= set(deal[players.index(left)])


def test_sampler_repairs_dead_ends() -> None:
    """Seat 1 lacks hearts, seat 2 diamonds, seat 3 clubs: placing cards one by one can
    fill the only seats a later card may go to; the sampler moves cards along instead."""
    deck = papayoo_deck(4)
    mine = [c for c in deck if c not in {"2H", "3H", "2D", "3D", "2C", "3C"}][:2]
    hidden = ("2H", "3H", "2D", "3D", "2C", "3C")
    h, d, c = CARD_SUIT["2H"], CARD_SUIT["2D"], CARD_SUIT["2C"]
    know = Knowledge(
        n=4,
        seat=0,
        hand=tuple(mine),
        papayoo_suit=0,
        leader=0,
        trick=(),
        played=frozenset(x for x in deck if x not in hidden and x not in mine),
        voids=(frozenset(), frozenset({h}), frozenset({d}), frozenset({c})),
        known=((), (), (), ()),
        sizes=(2, 2, 2, 2),
        unknown=hidden,
    )
    for s in range(200):
        deal = sample_deal(know, random.Random(s))
        assert sorted(len(x) for x in deal) == [2, 2, 2, 2]
        for seat, void in ((1, h), (2, d), (3, c)):
            assert all(CARD_SUIT[x] != void for x in deal[seat])
        assert sorted(deal[1] + deal[2] + deal[3]) == sorted(hidden)


# ------------------------------------------------------------------ fallbacks


class Solitaire(Game):
    """A game kind with no computer player."""

    kind: ClassVar[str] = "solitaire-test"

    @classmethod
    def new(cls, players: Any, seed: int, options: Any) -> Solitaire:
        return cls()

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Solitaire:
        return cls()

    def to_dict(self) -> dict[str, Any]:
        return {}

    def to_act(self) -> list[str]:
        return ["111"]

    def legal_actions(self, player: str) -> list[dict[str, Any]]:
        return [{"type": "flip"}, {"type": "stop"}]

    def apply(self, player: str, action: Any) -> list[dict[str, Any]]:
        return []

    def view(self, player: str) -> dict[str, Any]:
        return {"you": {"id": player, "legal_actions": self.legal_actions(player)}}

    def public_view(self) -> dict[str, Any]:
        return {}

    def is_over(self) -> bool:
        return False

    def result(self) -> dict[str, Any]:
        return {"ranking": [], "scores": {}}


def test_unknown_kind_falls_back_to_auto_action() -> None:
    game = Solitaire()
    with pytest.raises(NoAI):
        decide(game.kind, game.view("111"), level="easy", seed=0, budget_ms=1)
    choice = choose(game, "111", level="hard", seed=0, budget_ms=1)
    assert choice.fallback == "no_ai"
    assert choice.action == game.auto_action("111") == {"type": "flip"}


def test_ai_error_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(view: dict[str, Any], level: str, seed: int, budget_ms: int) -> dict[str, Any]:
        raise RuntimeError("bug")

    monkeypatch.setitem(AIS, "papayoo", broken)
    game = random_state(4, 1, 4 + 3)
    player = game.to_act()[0]
    choice = choose(game, player, level="hard", seed=0, budget_ms=1)
    assert (choice.fallback, choice.action) == ("error", game.auto_action(player))
    assert isinstance(choice.error, RuntimeError)


def test_illegal_ai_action_falls_back(monkeypatch: pytest.MonkeyPatch) -> None:
    def cheat(view: dict[str, Any], level: str, seed: int, budget_ms: int) -> dict[str, Any]:
        return {"type": "play", "card": "P20" if "P20" not in view["hand"] else "P19"}

    monkeypatch.setitem(AIS, "papayoo", cheat)
    game = random_state(4, 2, 4 + 3)
    player = game.to_act()[0]
    before = game.dumps()
    choice = choose(game, player, level="normal", seed=0, budget_ms=1)
    assert choice.fallback == "illegal" and choice.rejected is not None
    assert choice.action == game.auto_action(player)
    assert game.dumps() == before


def test_choose_uses_the_ai_when_it_answers() -> None:
    game = random_state(4, 5, 4 + 6)
    player = game.to_act()[0]
    choice = choose(game, player, level="hard", seed=3, budget_ms=BUDGET_MS)
    assert choice.fallback is None and choice.error is None
    assert choice.action == decide(
        "papayoo", game.view(player), level="hard", seed=3, budget_ms=BUDGET_MS
    )


def test_a_late_answer_falls_back() -> None:
    game = random_state(4, 6, 4 + 2)
    player = game.to_act()[0]
    choice = timed_out(game, player)
    assert (choice.fallback, choice.action) == ("timeout", game.auto_action(player))


def test_unknown_level_refused() -> None:
    game = random_state(4, 5, 0)
    with pytest.raises(ValueError, match="unknown level"):
        decide("papayoo", game.view("111"), level="expert", seed=0, budget_ms=1)
