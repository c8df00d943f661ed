"""The REST budget: pacing, priorities, coalescing, the guard against Discord's ban, outages.

Time is a hand-moved clock: the budget's wake-ups are driven by calling ``_woken`` after
moving it, so nothing here sleeps.
"""

from __future__ import annotations

import asyncio
from types import SimpleNamespace
from typing import Any

import pytest
import yarl

from bot.budget import (
    CONGESTED_SECONDS,
    FLIGHT_MAX,
    NOTICE_GUARD,
    OPTIONAL_GUARD,
    Dropped,
    Priority,
    RestBudget,
    counts_globally,
    priority,
)


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


async def call(budget: RestBudget, level: Priority = Priority.UNBLOCK) -> None:
    """A request answered at once: its place is held for a second after the answer."""
    await budget.acquire(level)
    budget.release()


async def settle() -> None:
    for _ in range(5):
        await asyncio.sleep(0)


def response(status: int, **headers: str) -> SimpleNamespace:
    return SimpleNamespace(
        url=yarl.URL("http://127.0.0.1/api/v10/channels/1/messages"),
        response=SimpleNamespace(status=status, headers=headers),
    )


def test_which_calls_count_against_the_global_limit() -> None:
    assert counts_globally(yarl.URL("https://discord.com/api/v10/channels/1/messages"))
    assert counts_globally(yarl.URL("https://discord.com/api/v10/users/@me/channels"))
    assert not counts_globally(yarl.URL("https://discord.com/api/v10/interactions/1/tok/callback"))
    assert not counts_globally(
        yarl.URL("https://discord.com/api/v10/webhooks/1/tok/messages/@original")
    )
    assert not counts_globally(yarl.URL("wss://gateway.discord.gg/?v=10"))


async def test_calls_beyond_the_rate_wait_for_the_window() -> None:
    clock = Clock()
    budget = RestBudget(5, now=clock)
    for _ in range(5):
        await call(budget)
    late = asyncio.ensure_future(call(budget))
    await settle()
    assert not late.done()
    clock.t += 0.5
    budget._woken()
    await settle()
    assert not late.done()
    clock.t += 0.6  # the first call left the one-second window
    budget._woken()
    await settle()
    assert late.done()
    assert budget.figures.sent == 6 and budget.figures.waited == 1


async def test_what_unblocks_a_player_goes_before_tables_and_notices() -> None:
    clock = Clock()
    budget = RestBudget(1, now=clock)
    await call(budget)
    order: list[str] = []

    async def named(name: str, level: Priority) -> None:
        await call(budget, level)
        order.append(name)

    tasks = [
        asyncio.ensure_future(named("notice", Priority.NOTICE)),
        asyncio.ensure_future(named("table", Priority.TABLE)),
        asyncio.ensure_future(named("hand", Priority.UNBLOCK)),
        asyncio.ensure_future(named("table2", Priority.TABLE)),
    ]
    await settle()
    for _ in tasks:
        clock.t += 1.01
        budget._woken()
        await settle()
    assert order == ["hand", "table", "table2", "notice"]


async def test_a_turn_is_used_by_the_first_request_and_given_back_when_unused() -> None:
    clock = Clock()
    budget = RestBudget(2, now=clock)
    params = SimpleNamespace(url=yarl.URL("http://127.0.0.1/api/v10/channels/1/messages/2"))
    ctx = SimpleNamespace()
    async with budget.turn(Priority.TABLE):
        await budget._on_start(None, ctx, params)  # type: ignore[arg-type]  # prepaid
    assert budget.figures.sent == 1 and ctx.paced
    budget.release()
    async with budget.turn(Priority.TABLE):
        pass  # the edit went through an interaction's token: nothing was sent
    assert budget.figures.sent == 1
    await call(budget)  # the place given back is free again at once
    assert budget.figures.sent == 2 and not budget._free()


async def test_requests_inside_a_priority_block_wait_at_that_priority() -> None:
    clock = Clock()
    budget = RestBudget(1, now=clock)
    await call(budget)
    params = SimpleNamespace(url=yarl.URL("http://127.0.0.1/api/v10/channels/1/messages"))
    order: list[str] = []

    async def request(name: str, level: Priority) -> None:
        with priority(level):
            await budget._on_start(None, SimpleNamespace(), params)  # type: ignore[arg-type]
        budget.release()
        order.append(name)

    first = asyncio.ensure_future(request("notice", Priority.NOTICE))
    second = asyncio.ensure_future(request("hand", Priority.UNBLOCK))
    await settle()
    for _ in range(2):
        clock.t += 1.01
        budget._woken()
        await settle()
    await asyncio.gather(first, second)
    assert order == ["hand", "notice"]


async def test_interaction_endpoints_never_wait() -> None:
    clock = Clock()
    budget = RestBudget(1, now=clock)
    await call(budget)
    answer = SimpleNamespace(url=yarl.URL("http://127.0.0.1/api/v10/interactions/1/t/callback"))
    await asyncio.wait_for(budget._on_start(None, SimpleNamespace(), answer), 0.1)  # type: ignore[arg-type]
    assert budget.figures.exempt == 1


async def test_refusals_are_counted_and_optional_calls_dropped_far_from_the_ban() -> None:
    clock = Clock()
    budget = RestBudget(1000, now=clock)
    for _ in range(OPTIONAL_GUARD):
        await budget._on_end(None, SimpleNamespace(), response(403))  # type: ignore[arg-type]
    assert budget.invalid_requests() == OPTIONAL_GUARD
    with pytest.raises(Dropped):
        await budget.acquire(Priority.OPTIONAL)
    await budget.acquire(Priority.NOTICE)  # notices still go
    for _ in range(NOTICE_GUARD - OPTIONAL_GUARD):
        await budget._on_end(None, SimpleNamespace(), response(429))  # type: ignore[arg-type]
    with pytest.raises(Dropped):
        await budget.acquire(Priority.NOTICE)
    await budget.acquire(Priority.UNBLOCK)  # what players wait for always goes
    clock.t += 601  # ten minutes later the count is back to nothing
    assert budget.invalid_requests() == 0
    await budget.acquire(Priority.OPTIONAL)
    assert NOTICE_GUARD < 10_000


async def test_shared_429s_do_not_count_and_a_global_429_pauses_everything() -> None:
    clock = Clock()
    budget = RestBudget(10, now=clock)
    await budget._on_end(None, SimpleNamespace(), response(429, **{"X-RateLimit-Scope": "shared"}))  # type: ignore[arg-type]
    assert budget.invalid_requests() == 0
    hit = response(429, **{"X-RateLimit-Global": "true", "Retry-After": "2"})
    await budget._on_end(None, SimpleNamespace(), hit)  # type: ignore[arg-type]
    assert budget.figures.global_429 == 1
    waiting = asyncio.ensure_future(call(budget))
    await settle()
    assert not waiting.done()
    clock.t += 2.1
    budget._woken()
    await settle()
    assert waiting.done()


async def test_an_outage_backs_off_and_probes_one_request_at_a_time() -> None:
    clock = Clock()
    budget = RestBudget(50, now=clock)
    await budget._on_end(None, SimpleNamespace(), response(503))  # type: ignore[arg-type]
    calls: list[Any] = [asyncio.ensure_future(call(budget)) for _ in range(3)]
    await settle()
    assert not any(c.done() for c in calls)
    clock.t += 1.01  # past the first backoff (at most a second, jittered)
    budget._woken()
    await settle()
    assert sum(c.done() for c in calls) == 1  # one probe
    await budget._on_end(None, SimpleNamespace(), response(200))  # type: ignore[arg-type]
    await settle()
    assert all(c.done() for c in calls)


async def test_congestion_is_a_backlog_of_more_than_a_few_seconds() -> None:
    clock = Clock()
    budget = RestBudget(2, now=clock)
    await call(budget)
    await call(budget)
    room = int(2 * CONGESTED_SECONDS)
    waiting = [asyncio.ensure_future(budget.acquire(Priority.TABLE)) for _ in range(room)]
    await settle()
    assert not budget.congested()
    waiting.append(asyncio.ensure_future(budget.acquire(Priority.UNBLOCK)))
    await settle()
    assert budget.congested()
    notices = [asyncio.ensure_future(budget.acquire(Priority.NOTICE)) for _ in range(10)]
    await settle()
    assert budget.backlog(Priority.TABLE) == room + 1  # notices do not count
    for task in waiting + notices:
        task.cancel()
    await asyncio.gather(*waiting, *notices, return_exceptions=True)


async def test_a_request_that_never_ends_does_not_hold_its_place_forever() -> None:
    clock = Clock()
    budget = RestBudget(1, now=clock)
    await budget.acquire()  # in flight, and never answered
    waiting = asyncio.ensure_future(call(budget))
    await settle()
    assert not waiting.done()
    clock.t += FLIGHT_MAX + 0.1
    budget._woken()
    await settle()
    assert waiting.done()


async def test_a_probe_given_back_or_cancelled_lets_the_next_request_probe() -> None:
    clock = Clock()
    budget = RestBudget(50, now=clock)
    await budget._on_end(None, SimpleNamespace(), response(503))  # type: ignore[arg-type]
    clock.t += 1.01  # past the backoff
    async with budget.turn(Priority.TABLE):
        pass  # the probe's place went unused (an edit through an interaction's token)
    await asyncio.wait_for(budget.acquire(), 0.5)
    budget.release()
    cancelled = SimpleNamespace(url=response(0).url, exception=asyncio.CancelledError())
    paused = budget._paused_until
    await budget._on_exception(None, SimpleNamespace(), cancelled)  # type: ignore[arg-type]
    assert budget._paused_until == paused  # a task stopping is no outage
