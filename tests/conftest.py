"""Shared fixtures."""

from __future__ import annotations

from collections.abc import AsyncIterator

import pytest

from tests.fakediscord import FakeDiscord


@pytest.fixture
async def fake_discord() -> AsyncIterator[FakeDiscord]:
    """A started fake Discord with discord.py pointed at it.

    At teardown the fake stops, discord.py's base URLs are restored, and the
    test fails if an interaction was answered late (or never), if the bot
    called a route the fake does not implement, if the fake itself broke, or if
    the fake banned the bot for too many invalid requests (401/403/429, see
    bot/fakediscord/ratelimits.py): all of them are in ``fake.problems()``.
    Discord's REST rate limits are on (``fake.limits``); a test that turns them
    off says why: ``fake.limits = Limits.off("why")``.
    """
    fake = FakeDiscord()
    await fake.start()
    try:
        yield fake
    finally:
        await fake.stop()
    problems = fake.problems()
    if problems:
        pytest.fail("fake Discord saw problems:\n  " + "\n  ".join(problems), pytrace=False)
