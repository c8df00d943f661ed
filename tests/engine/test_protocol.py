"""One generic random playout over every registered game kind, through the whole protocol.

For each kind in ``GAMES`` (read at collection time) and each row of its setup table, a
seeded random playout checks:

- ``to_act()`` is non-empty until ``is_over()``, and everyone it lists has a legal action;
- every legal action applies (all of them, on copies, at sampled steps);
- actions, events, views and ``result()`` are JSON-compatible, and ``apply`` accepts an
  action after a JSON round trip;
- a refused action raises ``IllegalAction`` and leaves ``dumps()`` unchanged;
- ``load_game(dumps())`` gives back the same ``dumps()``, and a game loaded mid-way goes
  on identically;
- the same seed and the same actions give the same ``dumps()`` and events.

Per-kind hooks (``KindSpec``), for games whose protocol has documented open ends:

- ``None`` in a legal action is a blank the bot fills in (Späye: the challenged
  colleague). The test fills every blank with a random id from the roster plus
  ``guests``, never the actor. A filled-in action may be refused (say, a colleague busy
  elsewhere); that refusal must still change nothing.
- ``open_actors``: ``to_act()`` may be empty while the game runs because some action is
  open to anyone and not listed (Späye: challenging). The test then lets a random roster
  member or guest act.
- ``system_rate``: how often the ``SYSTEM`` actor (timers, closing time) takes a turn.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any

import pytest

from bot.engine import GAMES, SYSTEM, Game, IllegalAction, load_game, new_game

IDS = ("111", "222", "333", "444", "555", "666", "777", "888")


@dataclass(frozen=True)
class KindSpec:
    setups: list[tuple[tuple[str, ...], dict[str, Any]]]
    """(players, options) rows; each is played with every seed in ``SEEDS``."""
    max_steps: int = 5000
    open_actors: bool = False
    system_rate: float = 0.0
    guests: tuple[str, ...] = field(default=())


KINDS: dict[str, KindSpec] = {
    "papayoo": KindSpec(
        setups=[
            (IDS[:3], {"rounds": 1}),
            (IDS[:4], {"rounds": 2, "turn_seconds": 0}),
            (IDS[:6], {"rounds": 1}),
            (IDS[:8], {"rounds": 1}),
        ],
    ),
    "lobby": KindSpec(
        setups=[(IDS[:1], {"game": "papayoo"}), (IDS[:1], {"game": "papayoo", "rounds": 2})],
        open_actors=True,
        system_rate=0.01,
        guests=("901", "902", "903", "904", "905", "906", "907", "908"),
    ),
    "speahx": KindSpec(
        setups=[(IDS[:2], {}), (IDS[:4], {"jokers": True}), (IDS[:7], {})],
        max_steps=20000,
    ),
    "spit": KindSpec(
        setups=[
            (IDS[:2], {}),
            (IDS[:2], {"piles": 4, "alternate_colors": True}),
            (IDS[:2], {"no_slap": True}),
        ],
        max_steps=20000,
    ),
    "spaye": KindSpec(
        setups=[(IDS[:2], {}), (IDS[:4], {}), ((), {})],
        open_actors=True,
        system_rate=0.005,
        guests=("901", "902", "903"),
    ),
}
DEFAULT_SPEC = KindSpec(setups=[(IDS[:2], {}), (IDS[:4], {})])
"""For a kind without a row above: setups its ``new`` refuses are skipped."""
SEEDS = (1, 2, 3)
CHECK_ALL_RATE = 0.15
"""Share of steps where every legal action is tried on a copy."""


def cases() -> list[Any]:
    return [
        pytest.param(kind, players, options, seed, id=f"{kind}-{len(players)}p-{i}-s{seed}")
        for kind in sorted(GAMES)
        for i, (players, options) in enumerate(KINDS.get(kind, DEFAULT_SPEC).setups)
        for seed in SEEDS
    ]


def fill_blanks(action: Any, actor: str, pool: list[str], rnd: random.Random) -> Any:
    """Every ``None`` in the action replaced by a distinct id from ``pool``, never the actor."""
    free = [p for p in pool if p != actor]
    rnd.shuffle(free)

    def fill(value: Any) -> Any:
        if value is None:
            return free.pop() if free else actor
        if isinstance(value, dict):
            return {k: fill(v) for k, v in value.items()}
        if isinstance(value, list):
            return [fill(v) for v in value]
        return value

    return fill(action)


def has_blank(value: Any) -> bool:
    if value is None:
        return True
    if isinstance(value, dict):
        return any(has_blank(v) for v in value.values())
    if isinstance(value, list):
        return any(has_blank(v) for v in value)
    return False


def roster(game: Game, players: tuple[str, ...]) -> list[str]:
    listed = game.public_view().get("players")
    return list(listed) if isinstance(listed, list) and listed else list(players)


def try_apply(game: Game, actor: str, action: Any, template: bool) -> list[Any] | None:
    """Apply; a refusal is allowed only for a filled-in template and must change nothing."""
    before = game.dumps()
    try:
        events = game.apply(actor, json.loads(json.dumps(action)))
    except IllegalAction as err:
        assert template, f"legal action {action} of {actor} refused: {err}"
        assert str(err)
        assert game.dumps() == before, "a refused action changed the game"
        return None
    for event in events:
        assert isinstance(event, dict) and isinstance(event.get("type"), str), event
    json.dumps(events)
    return events


def check_you(game: Game, player: str, legal: list[Any]) -> None:
    """The shared shape: ``view(p)["you"]`` holds the id and the legal actions, and
    ``auto_action`` (the turn timer's move) applies."""
    you = game.view(player)["you"]
    assert you["id"] == player
    assert json.loads(json.dumps(you["legal_actions"])) == json.loads(json.dumps(legal))
    auto = game.auto_action(player)
    if not has_blank(auto):
        try_apply(load_game(game.dumps()), player, auto, template=False)


def check_serialisable(game: Game, people: list[str]) -> None:
    json.dumps(game.public_view())
    for p in people:
        json.dumps(game.view(p))
    text = game.dumps()
    assert load_game(text).dumps() == text


@pytest.mark.parametrize(("kind", "players", "options", "seed"), cases())
def test_random_playout(
    kind: str, players: tuple[str, ...], options: dict[str, Any], seed: int
) -> None:
    spec = KINDS.get(kind, DEFAULT_SPEC)
    try:
        game = new_game(kind, list(players), seed, options)
    except ValueError:
        if kind in KINDS:
            raise
        pytest.skip(f"{kind} does not take {len(players)} players; add a row to KINDS")
    rnd = random.Random(seed * 7919 + len(players))
    log: list[tuple[str, Any]] = []
    events_seen: list[Any] = []
    fork_at = rnd.randrange(50)
    fork: tuple[str, int, int] | None = None
    idle = 0
    for _ in range(spec.max_steps):
        if game.is_over():
            break
        if len(log) == fork_at and fork is None:
            fork = (game.dumps(), len(log), len(events_seen))
        people = roster(game, players)
        acting = game.to_act()
        if not spec.open_actors:
            assert acting, "to_act() is empty but the game is not over"
        for p in acting:
            legal_now = game.legal_actions(p)
            assert legal_now, f"{p} is listed by to_act() but has no legal action"
            check_you(game, p, legal_now)
        candidates = acting or [*people, *spec.guests]
        if rnd.random() < spec.system_rate:
            candidates = [SYSTEM]
        actor = rnd.choice(candidates)
        legal = game.legal_actions(actor)
        json.dumps(legal)
        if not legal:
            idle += 1
            assert idle < 200, "nobody can act but the game is not over"
            continue
        idle = 0
        pool = [*people, *spec.guests]
        if rnd.random() < CHECK_ALL_RATE:
            text = game.dumps()
            for each in legal:
                copy = load_game(text)
                try_apply(copy, actor, fill_blanks(each, actor, pool, rnd), has_blank(each))
        chosen = rnd.choice(legal)
        action = fill_blanks(chosen, actor, pool, rnd)
        events = try_apply(game, actor, action, has_blank(chosen))
        if events is None:
            continue
        log.append((actor, json.loads(json.dumps(action))))
        events_seen += events
        if rnd.random() < 0.2 or game.is_over():
            check_serialisable(game, roster(game, players))
    assert game.is_over(), f"not over after {spec.max_steps} steps"
    assert game.to_act() == []
    result = game.result()
    json.dumps(result)
    assert isinstance(result["ranking"], list)
    assert isinstance(result["scores"], dict)

    # The same seed and the same actions give the same game.
    replay = new_game(kind, list(players), seed, options)
    replay_events = [e for actor, action in log for e in replay.apply(actor, action)]
    assert replay.dumps() == game.dumps()
    assert replay_events == events_seen

    # A game saved mid-way goes on identically.
    if fork is not None:
        text, done, seen = fork
        copy = load_game(text)
        copy_events = [e for actor, action in log[done:] for e in copy.apply(actor, action)]
        assert copy.dumps() == game.dumps()
        assert copy_events == events_seen[seen:]
