"""Shared fixtures, and the ``slow`` tests left out of a normal run."""

from __future__ import annotations

import os
import subprocess
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager

import pytest

from tests.fakediscord import FakeDiscord
from tests.storage_backends import PostgresServer, unavailable_reason

os.environ.setdefault("CARD_EMOJIS", "false")
"""Bots in tests start without uploading the card art (83 emoji calls at every start would
upset the tests that count calls); tests/fakediscord/test_application_emojis.py turns it on."""

SLOW = os.environ.get("GAMENIGHT_SLOW", "0") not in ("", "0")
"""``GAMENIGHT_SLOW=1`` runs the ``slow`` tests too: the extra seeds of the random playouts,
which cover no engine branch the others miss (checked with coverage when they were marked)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the ``slow`` tests unless ``GAMENIGHT_SLOW=1`` or ``-m`` names them."""
    if SLOW or "slow" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="slow: run with GAMENIGHT_SLOW=1 or -m slow")
    for item in items:
        if item.get_closest_marker("slow"):
            item.add_marker(skip)


@pytest.fixture(autouse=True)
def _member_rate_off_at_machine_speed(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Tests type commands and click as fast as the machine goes, one member often doing
    dozens in a second: the per-member rate of :mod:`bot.limits` would only refuse them.
    Tests marked ``member_limits`` keep it (the open-lobby and live-game limits always hold)."""
    if request.node.get_closest_marker("member_limits") is not None:
        return
    import bot.limits

    monkeypatch.setattr(bot.limits, "DEFAULT_RULES", dict.fromkeys(bot.limits.DEFAULT_RULES))


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


# -- PostgreSQL (tests/storage_backends.py) ----------------------------------------------------


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A throwaway PostgreSQL server for the session; the test is skipped (with the reason)
    when none can run here (no binaries, no asyncpg)."""
    yield from throwaway_postgres()


def throwaway_postgres() -> Iterator[PostgresServer]:
    """Start a PostgreSQL server, yield it, remove it (a fixture's body: skips the test
    when no server can run here)."""
    reason = unavailable_reason()
    if reason is not None:
        pytest.skip(f"no PostgreSQL: {reason}")
    server = PostgresServer()
    try:
        server.start()
    except (RuntimeError, OSError, subprocess.SubprocessError) as err:
        server.stop()
        pytest.skip(f"no PostgreSQL: the test server did not start ({err})")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
async def postgres_url(postgres_server: PostgresServer) -> AsyncIterator[str]:
    """The URL of a new, empty PostgreSQL database (dropped after the test)."""
    async with fresh_database(postgres_server) as url:
        yield url


@asynccontextmanager
async def fresh_database(server: PostgresServer) -> AsyncIterator[str]:
    """A new, empty database on ``server``: its URL; dropped on the way out."""
    url = await server.new_database()
    try:
        yield url
    finally:
        await server.drop_database(url)
