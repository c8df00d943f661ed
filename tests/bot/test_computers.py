"""Computer players decide in a worker process (``bot.computers``): the same move as in the
bot's own process, and a thread wherever a process cannot do it."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from typing import Any

import pytest

from bot import computers
from bot.ai import AIS, Choice, choose
from bot.engine import Game, new_game
from tests.bot.conftest import CounterGame, new_counter


@pytest.fixture(autouse=True)
def no_pool_left() -> Iterator[None]:
    yield
    computers.shutdown()


def papayoo() -> Game:
    return new_game("papayoo", ["111", "222", "333", "cpu1"], 20250314, {"rounds": 1})


async def test_a_worker_process_makes_the_move_the_bot_would_make_itself() -> None:
    game = papayoo()
    for seed in (1, 2, 3):
        here = choose(game, "cpu1", level="easy", seed=seed, budget_ms=5)
        there = await computers.think(
            game, "cpu1", level="easy", seed=seed, budget_ms=5, timeout=60
        )
        assert there == here and there.fallback is None
    assert computers._pool is not None


async def test_the_pool_stops_and_a_new_one_starts_for_the_next_move() -> None:
    game = papayoo()
    first = await computers.think(game, "cpu1", level="easy", seed=7, budget_ms=5, timeout=60)
    computers.shutdown()
    assert computers._pool is None
    again = await computers.think(game, "cpu1", level="easy", seed=7, budget_ms=5, timeout=60)
    assert again == first


async def test_when_a_worker_dies_the_move_is_still_made() -> None:
    game = papayoo()
    await computers.think(game, "cpu1", level="easy", seed=1, budget_ms=5, timeout=60)
    pool = computers._pool
    assert pool is not None
    for process in list(pool._processes.values()):  # killed by the system, say
        process.kill()
        process.join()
    choice = await computers.think(game, "cpu1", level="easy", seed=2, budget_ms=5, timeout=60)
    assert choice == choose(game, "cpu1", level="easy", seed=2, budget_ms=5)
    again = await computers.think(game, "cpu1", level="easy", seed=3, budget_ms=5, timeout=60)
    assert again == choose(game, "cpu1", level="easy", seed=3, budget_ms=5)
    assert computers._pool is not pool


async def test_a_kind_the_worker_does_not_know_is_decided_in_a_thread(
    counter_kind: type[CounterGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[str] = []

    def counter_ai(view: dict[str, Any], level: str, seed: int, budget_ms: int) -> Any:
        seen.append(view["me"])
        return {"type": "inc"}

    monkeypatch.setitem(AIS, "counter", counter_ai)  # registered here, never in a worker
    game = new_counter()
    choice = await computers.think(game, "111", level="hard", seed=1, budget_ms=5, timeout=60)
    assert choice == Choice({"type": "inc"}) and seen == ["111"]


async def test_a_kind_without_ai_takes_the_timers_move_without_a_process(
    counter_kind: type[CounterGame],
) -> None:
    choice = await computers.think(
        new_counter(), "111", level="hard", seed=1, budget_ms=5, timeout=60
    )
    assert choice == Choice({"type": "inc"}, "no_ai")
    assert computers._pool is None


async def test_without_processes_the_computers_think_in_a_thread(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    def no_processes(method: str) -> Any:
        raise ValueError(f"cannot find context for {method!r}")

    monkeypatch.setattr(computers.multiprocessing, "get_context", no_processes)
    monkeypatch.setattr(computers, "_unavailable", False)
    game = papayoo()
    with caplog.at_level(logging.WARNING, logger="gamenight.computers"):
        choice = await computers.think(game, "cpu1", level="easy", seed=3, budget_ms=5, timeout=60)
    assert choice == choose(game, "cpu1", level="easy", seed=3, budget_ms=5)
    assert computers._pool is None and computers._unavailable
    assert "no worker process" in caplog.text


async def test_a_move_not_decided_by_the_deadline_is_a_timeout() -> None:
    with pytest.raises(TimeoutError):
        await computers.think(papayoo(), "cpu1", level="hard", seed=1, budget_ms=150, timeout=0)


class OddError(Exception):
    """An error that pickles but cannot be rebuilt (its constructor wants two arguments)."""

    def __init__(self, what: str, where: int) -> None:
        super().__init__(f"{what} at {where}")


def test_an_ai_error_that_cannot_travel_comes_back_as_its_repr(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def broken(view: dict[str, Any], level: str, seed: int, budget_ms: int) -> Any:
        raise OddError("no card", 3)

    monkeypatch.setitem(AIS, "papayoo", broken)
    game = papayoo()
    choice = computers.decide(game.dumps(), "cpu1", "easy", 1, 5)
    assert choice is not None and choice.fallback == "error"
    assert choice.action == game.auto_action("cpu1")
    assert repr(choice.error) == repr(OddError("no card", 3))


def test_a_player_with_nothing_to_do_is_left_to_the_callers_thread(
    counter_kind: type[CounterGame],
) -> None:
    assert computers.decide(new_counter().dumps(), "222", "easy", 1, 5) is None
