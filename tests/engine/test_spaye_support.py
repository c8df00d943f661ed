"""Shared helpers for the Späye tests, and the tests of the stacked-table test support."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from typing import Any

import pytest

from bot.engine import IllegalAction, load_game
from bot.engine.base import Event
from bot.engine.spaye import SpayeGame
from bot.engine.spaye.rules import spaye_deck

A, B, C, D, E = "101", "202", "303", "404", "505"
NK = "NK"
FILLER = [c for c in spaye_deck() if c != NK]


def table(*front: str, size: int | None = None) -> list[str]:
    """``front`` in draw order, padded with other cards to an odd ``size`` (default: the
    smallest odd length), a nikäye last when ``front`` has none."""
    cards = list(front)
    need_nk = NK not in cards
    size = size if size is not None else len(cards) + need_nk + (len(cards) + need_nk + 1) % 2
    spare = [c for c in FILLER if c not in cards]
    while len(cards) < size - need_nk:
        cards.append(spare.pop(0))
    if need_nk:
        cards.append(NK)
    assert len(cards) == size and len(cards) % 2 == 1
    return cards


def stacked(
    cards: Sequence[str],
    players: Sequence[str] = (),
    seed: int = 0,
    **options: Any,
) -> SpayeGame:
    return SpayeGame.with_table(cards, players=players, seed=seed, options=options)


def state(game: SpayeGame) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(game.dumps())
    return data


def ok(game: SpayeGame, player: str, action: dict[str, Any]) -> list[Event]:
    """Apply an action that must be legal, after a JSON round trip, checking it was offered."""
    offered = game.legal_actions(player)
    assert any(_fits(action, o) for o in offered), f"{action} not offered to {player}: {offered}"
    events = game.apply(player, json.loads(json.dumps(action)))
    json.dumps(events)
    return events


def _fits(action: dict[str, Any], template: dict[str, Any]) -> bool:
    """The action is the template with its ``None`` blanks filled in."""
    for key, want in template.items():
        got = action.get(key)
        if isinstance(want, list):
            if not isinstance(got, list) or len(got) != len(want):
                return False
        elif want is not None and got != want:
            return False
    return set(action) <= set(template)


def illegal(game: SpayeGame, player: str, action: Any, key: str) -> IllegalAction:
    """The action is refused with ``key``, a readable message, and nothing changes."""
    before = game.dumps()
    with pytest.raises(IllegalAction) as caught:
        game.apply(player, action)
    assert caught.value.key == key, str(caught.value)
    assert str(caught.value)
    assert game.dumps() == before
    return caught.value


def types(events: list[Event]) -> list[str]:
    return [e["type"] for e in events]


def of_type(events: list[Event], kind: str) -> list[Event]:
    return [e for e in events if e["type"] == kind]


def challenge(game: SpayeGame, by: str, *targets: str) -> list[Event]:
    """A challenge, accepted by every target."""
    key: dict[str, Any] = (
        {"targets": list(targets)} if len(targets) == 2 else {"target": targets[0]}
    )
    events = ok(game, by, {"type": "challenge", **key})
    for t in targets:
        events += ok(game, t, {"type": "accept"})
    return events


def daye(game: SpayeGame, *players: str) -> list[Event]:
    """A whole däye round: challenge, accept, every player draws once."""
    events = challenge(game, *players)
    for p in players:
        events += ok(game, p, {"type": "draw"})
    return events


def draws(game: SpayeGame, *players: str) -> list[Event]:
    events: list[Event] = []
    for p in players:
        events += ok(game, p, {"type": "draw"})
    return events


def points(game: SpayeGame, player: str) -> dict[str, int]:
    cols: dict[str, int] = game.result()["points"][player]
    return cols


def exercise_of(game: SpayeGame, player: str) -> dict[str, Any]:
    mine = [e for e in game.public_view()["exercises"] if e["player"] == player]
    assert len(mine) == 1, mine
    ex: dict[str, Any] = mine[0]
    return ex


def own(game: SpayeGame, player: str, kind: str, **fields: Any) -> list[Event]:
    """An exercise action on the player's only pending exercise."""
    return ok(game, player, {"type": kind, "id": exercise_of(game, player)["id"], **fields})


def reload(game: SpayeGame) -> SpayeGame:
    copy = load_game(game.dumps())
    assert isinstance(copy, SpayeGame)
    return copy


# -- the test support itself -----------------------------------------------------------------


def test_with_table_draws_in_order_and_keeps_55_cards() -> None:
    g = stacked(table("5S", "9H", NK, size=5), [A, B])
    data = state(g)
    assert data["table"][:3] == ["5S", "9H", NK]
    assert Counter(data["table"] + data["discard"]) == Counter(spaye_deck())
    events = daye(g, A, B)
    reveal = of_type(events, "reveal")[0]
    assert [c["card"] for c in reveal["cards"]] == ["5S", "9H"]


def test_with_table_refuses_impossible_tables() -> None:
    with pytest.raises(ValueError):
        SpayeGame.with_table(["5S", "5S", NK])
    with pytest.raises(ValueError):
        SpayeGame.with_table(["5S", NK])
    with pytest.raises(ValueError):
        SpayeGame.with_table(["5S", "6S", "7S"])


def test_new_game_table_is_never_stacked() -> None:
    from bot.engine import new_game

    assert state(new_game("spaye", [A], 3))["stacked"] is False  # type: ignore[arg-type]
