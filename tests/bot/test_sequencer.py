"""The ordered posts of one channel (bot.sequencer): calls go out in ticket order, whatever
order their callers come back in, one at a time; skipped and lost tickets never stop the
channel; ``drained`` waits for every earlier ticket."""

from __future__ import annotations

import asyncio
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.sequencer import Sequencer, Sequencers


async def _play(plan: list[tuple[float, bool, float]]) -> tuple[list[int], int]:
    """Take a ticket per entry (in order), then each caller posts (or skips) after its own
    delay; a post takes its own time to send. Returns the order sent and the most calls
    in flight at once."""
    seq = Sequencer(hold=5.0)
    sent: list[int] = []
    flying = [0, 0]

    def call(ticket: int, cost: float):  # type: ignore[no-untyped-def]
        async def send() -> int:
            flying[0] += 1
            flying[1] = max(flying)
            await asyncio.sleep(cost)
            sent.append(ticket)
            flying[0] -= 1
            return ticket

        return send

    async def caller(ticket: int, delay: float, posts: bool, cost: float) -> None:
        await asyncio.sleep(delay)
        if posts:
            assert await seq.post(ticket, call(ticket, cost)) == ticket
        else:
            seq.skip(ticket)

    tickets = [seq.take() for _ in plan]
    await asyncio.gather(
        *(caller(t, d / 1000, p, c / 1000) for t, (d, p, c) in zip(tickets, plan, strict=True))
    )
    await seq.drained()
    return sent, flying[1]


@settings(max_examples=40, deadline=None)
@given(
    st.lists(
        st.tuples(
            st.floats(0, 5), st.booleans(), st.floats(0, 2)
        ),  # caller's delay (ms), posts?, send time (ms)
        max_size=12,
    )
)
def test_calls_go_out_in_ticket_order_one_at_a_time(plan: list[tuple[float, bool, float]]) -> None:
    sent, most = asyncio.run(_play(plan))
    assert sent == [i for i, (_, posts, _) in enumerate(plan) if posts]
    assert most <= 1


async def test_a_lost_ticket_is_skipped_after_its_hold_and_sent_last_if_it_comes() -> None:
    seq = Sequencer(hold=0.05)
    sent: list[str] = []
    lost = seq.take()
    later = seq.take()
    assert await seq.post(later, _noted(sent, "later")) == "later"
    assert await seq.post(lost, _noted(sent, "lost")) == "lost"  # late, not lost
    assert sent == ["later", "lost"]


async def test_a_failed_call_is_told_and_the_next_goes() -> None:
    seq = Sequencer()

    async def boom() -> None:
        raise RuntimeError("refused")

    first, second = seq.take(), seq.take()
    failed = seq.post(first, boom)
    ok = seq.post(second, _value(2))
    with pytest.raises(RuntimeError):
        await failed
    assert await ok == 2


async def test_drained_waits_for_every_earlier_ticket() -> None:
    seq = Sequencer()
    early = seq.take()
    closing = seq.take()
    waiting = asyncio.create_task(seq.drained(closing - 1))
    await asyncio.sleep(0.01)
    assert not waiting.done()
    seq.post(early, _value(None))
    await asyncio.wait_for(waiting, 1)
    seq.skip(closing)
    await asyncio.wait_for(seq.drained(), 1)
    assert seq.idle


def _noted(sent: list[str], x: str):  # type: ignore[no-untyped-def]
    async def send() -> str:
        sent.append(x)
        return x

    return send


async def test_a_ticket_is_dealt_with_once() -> None:
    seq = Sequencer()
    ticket = seq.take()
    await seq.post(ticket, _value(1))
    with pytest.raises(ValueError):
        await seq.post(ticket, _value(2))


async def test_idle_channels_are_forgotten() -> None:
    seqs = Sequencers()
    rng = random.Random(1)
    for channel in range(50):
        s = seqs.of(channel)
        await s.send(_value(rng.random()))
    assert len(seqs) <= 2


def _value(x: object):  # type: ignore[no-untyped-def]
    async def send() -> object:
        return x

    return send
