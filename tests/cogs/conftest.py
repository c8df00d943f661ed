"""Shared fixtures for end-to-end cog tests: a bot factory on one database and one clock,
and an office (a guild, a channel and a few colleagues) in the fake Discord."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.fakediscord.ratelimits import Limits
from bot.settings import Settings
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeGuild, FakeUser

MACHINE_SPEED = (
    "whole games and days played at machine speed (a move every few milliseconds on one "
    "channel and on one player's messages): Discord's per-route buckets would only hold them "
    "up. The global limit and the ban stay on; tests marked discord_limits play with them all"
)


@pytest.fixture(autouse=True)
def _per_route_buckets_off_at_machine_speed(request: pytest.FixtureRequest) -> None:
    """Cog tests check what players see, move after move, as fast as the machine goes; the
    REST budget's own tests (``@pytest.mark.discord_limits``) keep every limit."""
    if "fake_discord" not in request.fixturenames:
        return
    if request.node.get_closest_marker("discord_limits") is not None:
        return
    request.getfixturevalue("fake_discord").limits = Limits.global_only(MACHINE_SPEED)


MakeBot = Callable[[Sequence[str]], GamenightBot]
"""``make_bot(cogs)``: a new bot (never started) on the test's database and clock."""


@pytest.fixture
def clock() -> FakeClock:
    """Friday 14 March 2025, 09:00 UTC."""
    return FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))


@pytest.fixture
def db_file(tmp_path: Path) -> Path:
    return tmp_path / "data" / "gamenight.sqlite3"


@pytest.fixture
def make_bot(db_file: Path, clock: FakeClock) -> MakeBot:
    """Every bot made here shares the database file and the clock: a second one built after
    a crash is the same bot restarted."""

    def make(cogs: Sequence[str]) -> GamenightBot:
        return GamenightBot(Settings(database_path=db_file), clock, list(cogs))

    return make


@dataclass
class Office:
    """A guild with a #general channel, its owner and five colleagues (Ana in French)."""

    fake: FakeDiscord
    guild: FakeGuild
    general: FakeChannel
    owner: FakeUser
    ana: FakeUser
    bob: FakeUser
    cid: FakeUser
    dan: FakeUser
    eve: FakeUser

    @property
    def colleagues(self) -> list[FakeUser]:
        return [self.ana, self.bob, self.cid, self.dan, self.eve]


@pytest.fixture
def office(fake_discord: FakeDiscord) -> Office:
    fake = fake_discord
    owner = fake.add_user("Olga")
    guild = fake.add_guild("Office", owner=owner)
    general = fake.add_text_channel(guild, "general")
    users = [
        fake.add_user("Ana", locale="fr"),
        fake.add_user("Bob"),
        fake.add_user("Cid"),
        fake.add_user("Dan"),
        fake.add_user("Eve"),
    ]
    for user in users:
        fake.add_member(guild, user)
    return Office(fake, guild, general, owner, *users)


@pytest.fixture(autouse=True)
def seated_pace(monkeypatch: pytest.MonkeyPatch) -> None:
    """Seated games at test speed: table edits not spaced, computers moving at once, turn
    notices only where a test asks for them (it sets ``NOTICE_DELAY`` itself)."""
    from bot.seated import SeatedCog

    monkeypatch.setattr(SeatedCog, "TABLE_EDIT_INTERVAL", 0.0)
    monkeypatch.setattr(SeatedCog, "COMPUTER_DELAY", 0.0)
    monkeypatch.setattr(SeatedCog, "NOTICE_DELAY", 3600.0)
