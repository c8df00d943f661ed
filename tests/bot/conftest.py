"""Fixtures for the runtime tests: a temp database, a fake clock and a tiny test game."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.clock import FakeClock
from bot.engine import GAMES, Event, Game, IllegalAction
from bot.storage import Database, Store


class CounterGame(Game):
    """Players take turns adding 1; the game ends at ``target``. Test-only, never registered
    outside the fixture below."""

    kind = "counter"

    def __init__(self, players: list[str], target: int, total: int = 0, turn: int = 0) -> None:
        self.players = players
        self.target = target
        self.total = total
        self.turn = turn

    @classmethod
    def new(cls, players: Sequence[str], seed: int, options: Mapping[str, Any]) -> Game:
        if len(players) < 1:
            raise ValueError("at least one player")
        return cls(list(players), int(options.get("target", 3)))

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        return cls(data["players"], data["target"], data["total"], data["turn"])

    def to_dict(self) -> dict[str, Any]:
        return {
            "players": self.players,
            "target": self.target,
            "total": self.total,
            "turn": self.turn,
        }

    def to_act(self) -> list[str]:
        return [] if self.is_over() else [self.players[self.turn]]

    def legal_actions(self, player: str) -> list[dict[str, Any]]:
        return [{"type": "inc"}] if player in self.to_act() else []

    def apply(self, player: str, action: Mapping[str, Any]) -> list[Event]:
        if action.get("type") == "void" and player == "@system":
            self.total = -1
            return [{"type": "voided"}]
        if player not in self.to_act():
            raise IllegalAction("it is not your turn", "counter.not_your_turn", player=player)
        if action.get("type") != "inc":
            raise IllegalAction(f"unknown action {action!r}")
        self.total += 1
        self.turn = (self.turn + 1) % len(self.players)
        return [{"type": "inc", "player": player, "total": self.total}]

    def view(self, player: str) -> dict[str, Any]:
        return self.public_view() | {"me": player}

    def public_view(self) -> dict[str, Any]:
        return {"total": self.total, "turn": self.players[self.turn]}

    def is_over(self) -> bool:
        return self.total >= self.target or self.total < 0

    def result(self) -> dict[str, Any]:
        if self.total < 0:
            return {"voided": True, "ranking": [], "scores": {}}
        last = self.players[(self.turn - 1) % len(self.players)]
        rest = [p for p in self.players if p != last]
        return {
            "ranking": [[last], rest] if rest else [[last]],
            "scores": {p: (1 if p == last else 0) for p in self.players},
        }


@pytest.fixture
def counter_kind() -> Iterator[type[CounterGame]]:
    """Registers the test game under ``counter`` for one test (and ``spaye`` stays untouched)."""
    before = GAMES.get("counter")
    GAMES["counter"] = CounterGame
    try:
        yield CounterGame
    finally:
        if before is None:
            GAMES.pop("counter", None)
        else:
            GAMES["counter"] = before


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "data" / "test.sqlite3"


@pytest.fixture
async def store(db_path: Path, clock: FakeClock) -> AsyncIterator[Store]:
    st = Store(Database(db_path), clock)
    await st.open()
    try:
        yield st
    finally:
        await st.close()


def new_counter(players: Sequence[str] = ("111", "222"), target: int = 3) -> Game:
    return CounterGame.new(list(players), 0, {"target": target})
