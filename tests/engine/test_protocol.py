"""One generic random playout over every registered game kind, through the whole protocol.

For each kind in ``GAMES`` (read at collection time) and each table its class declares in
``examples`` (``(number of players, options)``; none declared: its fewest and its most
players with the default options), a seeded random playout checks:

- ``to_act()`` is non-empty until ``is_over()``, and everyone it lists has a legal action;
- every legal action applies (all of them, on copies, at sampled steps);
- actions, events, views and ``result()`` are JSON-compatible, and ``apply`` accepts an
  action after a JSON round trip;
- a refused action raises ``IllegalAction`` and leaves ``dumps()`` unchanged;
- ``load_game(dumps())`` gives back the same ``dumps()``, and a game loaded mid-way goes
  on identically;
- the same seed and the same actions give the same ``dumps()`` and events.

The documented open ends of the protocol are read from the game itself, not listed here:

- ``None`` in a legal action is a blank the bot fills in (Späye: the challenged
  colleague). The test fills every blank with a random id from the roster plus
  ``GUESTS``, never the actor. A filled-in action may be refused (say, a colleague busy
  elsewhere); that refusal must still change nothing.
- A game that offers an action to someone outside it when it starts (Späye: challenging; a
  lobby: joining) is *open*: its ``to_act()`` may be empty while it runs. The test then lets
  a random roster member or guest act. Any other game must always list who acts.
- Whenever the ``SYSTEM`` actor (timers, closing time) has a legal action, it takes the turn
  now and then (``SYSTEM_RATE``).
"""

from __future__ import annotations

import json
import pkgutil
import random
import sys
from collections.abc import Mapping
from typing import Any

import pytest

import bot.engine
from bot.engine import GAMES, SYSTEM, Game, IllegalAction, load_game, new_game

IDS = ("111", "222", "333", "444", "555", "666", "777", "888", "999", "1010", "1111", "1212")
GUESTS = ("901", "902", "903", "904", "905", "906", "907", "908")
"""People outside the game who may act in an open one (they join, or are challenged)."""
MAX_STEPS = 20000
SYSTEM_RATE = 0.005
"""Share of steps where ``SYSTEM`` acts, when it has something to do."""
SEEDS = (1, 2, 3)
CHECK_ALL_RATE = 0.15
"""Share of steps where every legal action is tried on a copy."""


def tables(cls: type[Game]) -> list[tuple[tuple[str, ...], dict[str, Any]]]:
    """The (players, options) tables the game declares, or its fewest and its most players."""
    declared: tuple[tuple[int, Mapping[str, Any]], ...] = cls.examples or tuple(
        (n, {}) for n in sorted({cls.min_players, cls.max_players})
    )
    return [(IDS[:n], dict(options)) for n, options in declared]


def cases() -> list[Any]:
    return [
        pytest.param(kind, players, options, seed, id=f"{kind}-{len(players)}p-{i}-s{seed}")
        for kind in sorted(GAMES)
        for i, (players, options) in enumerate(tables(GAMES[kind]))
        for seed in SEEDS
    ]


def test_every_game_declares_tables_it_takes() -> None:
    """The declared tables are within the game's seats and long enough for ``IDS``."""
    for kind, cls in GAMES.items():
        for players, options in tables(cls):
            assert len(players) <= len(IDS), kind
            if cls.max_players > 1:  # a seated game
                assert cls.min_players <= len(players) <= cls.max_players, (kind, players)
            new_game(kind, list(players), 1, options)


def test_every_engine_module_is_found() -> None:
    """No list of games: ``bot.engine`` imports each of its modules and packages, so every
    game in them is registered (and played above)."""
    modules = {m.name for m in pkgutil.iter_modules(bot.engine.__path__)}
    assert {f"bot.engine.{name}" for name in modules} <= set(sys.modules)
    assert {cls.__module__.split(".")[2] for cls in GAMES.values()} <= modules
    assert len(GAMES) > 1 and all(c.__module__.startswith("bot.engine.") for c in GAMES.values())


def is_open(game: Game) -> bool:
    """Whether someone outside the game may act in it (so ``to_act()`` may be empty)."""
    return bool(game.legal_actions(GUESTS[-1]))


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
    game = new_game(kind, list(players), seed, options)
    open_game = is_open(game)
    guests = GUESTS if open_game else ()
    rnd = random.Random(seed * 7919 + len(players))
    log: list[tuple[str, Any]] = []
    events_seen: list[Any] = []
    fork_at = rnd.randrange(50)
    fork: tuple[str, int, int] | None = None
    idle = 0
    for _ in range(MAX_STEPS):
        if game.is_over():
            break
        if len(log) == fork_at and fork is None:
            fork = (game.dumps(), len(log), len(events_seen))
        people = roster(game, players)
        acting = game.to_act()
        if not open_game:
            assert acting, "to_act() is empty but the game is not over"
        for p in acting:
            legal_now = game.legal_actions(p)
            assert legal_now, f"{p} is listed by to_act() but has no legal action"
            check_you(game, p, legal_now)
        candidates = acting or [*people, *guests]
        if rnd.random() < SYSTEM_RATE and game.legal_actions(SYSTEM):
            candidates = [SYSTEM]
        actor = rnd.choice(candidates)
        legal = game.legal_actions(actor)
        json.dumps(legal)
        if not legal:
            idle += 1
            assert idle < 200, "nobody can act but the game is not over"
            continue
        idle = 0
        pool = [*people, *guests]
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
    assert game.is_over(), f"not over after {MAX_STEPS} steps"
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
