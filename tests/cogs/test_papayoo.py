"""Papayoo end to end through the fake Discord, with the real bot and its database."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.clock import FakeClock
from tests.cogs.papayoo_support import Table, make_bot, office
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import message_text

pytestmark = pytest.mark.e2e


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "papayoo.sqlite3"


def all_text(table: Table) -> list[tuple[str, str]]:
    """(who may see it, text) for every message and every earlier version of it."""
    out = []
    for msg in table.fake.messages.values():
        who = "channel" if msg.visible_to is None else str(msg.visible_to.id)
        if msg.channel.is_dm:
            who = str(msg.channel.recipient.id)
        for version in msg.versions:
            out.append((who, message_text(version.content, version.embeds, version.components)))
    return out


def assert_hands_stay_private(table: Table) -> None:
    seen = all_text(table)
    for owner, hands in table.hands_seen.items():
        for hand in hands:
            where = {who for who, text in seen if hand in text}
            assert where <= {str(owner)}, f"{owner}'s hand shown to {where}"
            assert str(owner) in where, "the owner never saw their hand"


async def test_four_players_play_a_round_to_the_end(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    guild, channel, users = office(fake, ["Ana", "Bob", "Cyd", "Dee"], french=["Cyd"])
    bot = make_bot(db_path, clock)
    async with fake.run_client(bot):
        table = Table(fake, bot, guild, channel, users)
        game_id = await table.open_and_start({"rounds": 1, "turn_seconds": 0})
        stored = await table.stored()
        assert stored.game.public_view()["phase"] == "pass"
        french = fake.dms(users[2])[-1]
        assert "votre nouvelle main" in (french.content or "")
        await table.play_to_the_end()

        stored = await table.stored()
        assert stored.status == "over"
        final = fake.channel_messages(channel)[-1]
        assert f"Papayoo #{game_id} · game over" in fake.text_of(final)
        assert "round 1/1 is over" in fake.text_of(final)
        results = await bot.store.results.for_game(game_id)
        assert len(results) == 4 and all(r.rounds == 1 for r in results)
        assert sum(r.points for r in results) == 250
        winner = next(r for r in results if r.won)
        shown = await fake.slash(winner_user(users, winner.user_id), channel, "papayoo stats")
        assert shown.ephemeral
        assert "Games played" in shown.text and f"{winner.points:.1f}" in shown.text
        assert_hands_stay_private(table)


def winner_user(users, user_id):  # type: ignore[no-untyped-def]
    return next(u for u in users if u.id == user_id)
