"""Moves of one game run in the order Discord created them, not the order they arrived."""

from __future__ import annotations

import asyncio

import pytest

from bot.seated.order import ArrivalOrder, snowflake_ms


async def test_an_earlier_move_delivered_later_still_goes_first() -> None:
    order = ArrivalOrder(window=0.01)
    done: list[int] = []

    async def move(snowflake: int, delay: float) -> None:
        await asyncio.sleep(delay)

        async def work() -> None:
            done.append(snowflake)

        await order.run(7, snowflake, work)

    await asyncio.gather(move(200, 0.0), move(100, 0.002))
    assert done == [100, 200]


async def test_games_do_not_wait_for_each_other() -> None:
    order = ArrivalOrder(window=0.0)
    started = asyncio.Event()
    release = asyncio.Event()

    async def slow() -> None:
        started.set()
        await release.wait()

    task = asyncio.create_task(order.run(1, 5, slow))
    await started.wait()
    assert await order.run(2, 9, _value) == 42  # another game is not held up
    release.set()
    await task


async def test_a_failing_move_lets_the_next_one_run() -> None:
    order = ArrivalOrder(window=0.0)

    async def boom() -> None:
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        await order.run(1, 1, boom)
    assert await order.run(1, 2, _value) == 42


async def _value() -> int:
    return 42


def test_a_snowflake_tells_when_discord_created_it() -> None:
    assert snowflake_ms(175928847299117063) == 1462015105796
