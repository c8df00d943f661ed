"""Two bot processes on one token, as shards 0 and 1 of 2, on one fake Discord and one
SQLite file: each guild reaches the process of its shard, DMs reach shard 0's, each process
paces at half the token's REST budget; bad shard settings stop ``python -m bot`` with exit
code 2."""

from __future__ import annotations

import asyncio
import logging
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Sequence
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.client import GamenightBot, ShardedGamenightBot
from bot.clock import FakeClock
from bot.fakediscord.ratelimits import Limits
from bot.settings import Settings
from tests.cogs.papayoo_support import Table
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeUser
from tests.fakediscord.test_shards import World, world

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("counter_kind")]

__fixtures__ = (world,)
"""Two guilds, one on each shard of 2 (from the fake Discord's own shard tests)."""

ROOT = Path(__file__).resolve().parents[2]
COGS = ["cogs.config", "cogs.help", "tests.bot.counter_cog"]


@dataclass
class Process:
    """One bot process: its bot and the interactions Discord sent it."""

    bot: GamenightBot
    interactions: list[int] = field(default_factory=list)


def make_process(db_path: Path, clock: FakeClock, shard: int, cogs: Sequence[str]) -> Process:
    settings = Settings(database_path=db_path, shard_count=2, shard_ids=[shard])
    process = Process(GamenightBot(settings, clock, cogs))

    async def on_interaction(interaction: discord.Interaction[Any]) -> None:
        process.interactions.append(interaction.id)

    process.bot.add_listener(on_interaction)
    return process


@asynccontextmanager
async def both_running(fake: FakeDiscord, *processes: Process) -> AsyncIterator[None]:
    async with AsyncExitStack() as stack:
        for process in processes:
            await stack.enter_async_context(fake.run_client(process.bot))
        yield


async def test_each_guild_is_served_by_the_process_of_its_shard(
    world: World, db_path: Path, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    fake = world.fake
    a = make_process(db_path, clock, 0, COGS)
    b = make_process(db_path, clock, 1, COGS)
    assert isinstance(a.bot, ShardedGamenightBot) and isinstance(b.bot, ShardedGamenightBot)
    caplog.set_level(logging.INFO, logger="gamenight.bot")
    async with both_running(fake, a, b):
        assert [s.shard for s in fake.sessions if s.connected] == [[0, 2], [1, 2]]
        # The guild of shard 1 reaches B only.
        assert {g.id for g in a.bot.guilds} == {world.near.id}
        assert {g.id for g in b.bot.guilds} == {world.far.id}

        # A slash command in each guild is answered by the process of its shard, and both
        # write to the one database.
        near = await fake.slash(world.ana, world.near_general, "counter", {"opponent": world.bob})
        far = await fake.slash(world.ana, world.far_general, "counter", {"opponent": world.bob})
        assert near.response is not None and far.response is not None
        assert a.interactions == [near.interaction.id]
        assert b.interactions == [far.interaction.id]
        near_games = await b.bot.store.games.find(kind="counter", channel_id=world.near_general.id)
        far_games = await a.bot.store.games.find(kind="counter", channel_id=world.far_general.id)
        assert len(near_games) == len(far_games) == 1
        assert near_games[0].id != far_games[0].id

        # A click on the far table goes to B; what it wrote, A reads.
        inc = next(x.custom_id for x in fake.buttons(far.response) if x.label == "+1")
        clicked = await fake.click(world.ana, far.response, inc)
        assert clicked.interaction.id in b.interactions
        assert clicked.interaction.id not in a.interactions
        assert (await a.bot.store.games.require(far_games[0].id)).game.public_view()["total"] == 1
    shards = [r.getMessage() for r in caplog.records if r.getMessage().startswith("gateway:")]
    assert shards == ["gateway: shards 0 of 2", "gateway: shards 1 of 2"]


async def test_a_dm_command_reaches_shard_zero(
    world: World, db_path: Path, clock: FakeClock
) -> None:
    """An interaction without a guild goes to shard 0 (A), whoever else is connected."""
    fake = world.fake
    a = make_process(db_path, clock, 0, COGS)
    b = make_process(db_path, clock, 1, COGS)
    async with both_running(fake, b, a):
        answer = await fake.slash(world.ana, fake.dm_channel(world.ana), "help")
        assert answer.embed is not None
        assert answer.interaction.id in a.interactions
        assert answer.interaction.id not in b.interactions


def test_each_process_paces_at_its_share_of_the_token(tmp_path: Path) -> None:
    db = tmp_path / "db.sqlite3"
    whole = GamenightBot(Settings(database_path=db), cogs=[])
    assert whole.budget.rate == 40.0 and whole.budget.share == 1.0
    halves = [
        GamenightBot(Settings(database_path=db, shard_count=2, shard_ids=[i]), cogs=[])
        for i in (0, 1)
    ]
    assert [bot.budget.rate for bot in halves] == [20.0, 20.0]
    assert sum(bot.budget.rate for bot in halves) == whole.budget.rate
    # Three shards of four in one process: three quarters; REST_SHARE says otherwise.
    three = Settings(database_path=db, shard_count=4, shard_ids="0-2")
    assert GamenightBot(three, cogs=[]).budget.rate == 30.0
    uneven = Settings(database_path=db, shard_count=2, shard_ids=[0], rest_share=0.75)
    assert GamenightBot(uneven, cogs=[]).budget.rate == 30.0
    # One process running every shard keeps the whole budget.
    every = Settings(database_path=db, shard_count=2)
    assert GamenightBot(every, cogs=[]).budget.rate == 40.0


async def test_two_processes_together_stay_within_the_token_budget(
    world: World, db_path: Path, clock: FakeClock
) -> None:
    """Each process sends no more in a second than its share: two halves flat out (80 posts
    each, into channels of their own guilds) make at most the token's 40 a second at Discord."""
    fake = world.fake
    fake.limits = Limits.global_only(
        "80 posts a process into 20 channels: the channels' own buckets would pace them"
    )
    a, b = (make_process(db_path, clock, shard, []) for shard in (0, 1))
    near = [fake.add_text_channel(world.near, f"near-{i}") for i in range(20)]
    far = [fake.add_text_channel(world.far, f"far-{i}") for i in range(20)]
    async with both_running(fake, a, b):
        mark = fake.mark()

        async def flat_out(process: Process, channels: list[FakeChannel]) -> None:
            bot = process.bot
            await asyncio.gather(
                *(bot.get_partial_messageable(c.id).send("x") for c in channels * 4)
            )

        await asyncio.gather(flat_out(a, near), flat_out(b, far))
        _, worst = fake.global_calls_per_second(mark)
    assert worst <= a.bot.budget.rate + b.bot.budget.rate == 40
    assert not fake.rate_limited


def run_bot(cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    names = {"DISCORD_TOKEN", "LOG_LEVEL", "SHARD_COUNT", "SHARD_IDS", "REST_SHARE"}
    clean = {k: v for k, v in os.environ.items() if k not in names}
    clean["PYTHONPATH"] = str(ROOT)
    return subprocess.run(
        [sys.executable, "-m", "bot"],
        cwd=cwd,
        env=clean | {"DISCORD_TOKEN": "x"} | env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("env", "message"),
    [
        ({"SHARD_IDS": "0"}, "SHARD_IDS: needs SHARD_COUNT"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "0,2"}, "SHARD_IDS: shard 2 is out of range"),
        ({"SHARD_COUNT": "2", "SHARD_IDS": "1,1"}, "SHARD_IDS: shard 1 is named twice"),
        ({"SHARD_COUNT": "auto", "SHARD_IDS": "0"}, "SHARD_IDS: needs a number in SHARD_COUNT"),
    ],
)
def test_bad_shard_settings_stop_with_exit_code_2(
    tmp_path: Path, env: dict[str, str], message: str
) -> None:
    done = run_bot(tmp_path, **env)
    assert done.returncode == 2
    assert "gamenight: invalid configuration:" in done.stderr
    assert message in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "data").exists()


# -- a Papayoo game of the far guild (B's), its hands in DMs (A's) -----------------------------

PAPAYOO = ["cogs.config", "cogs.help", "cogs.papayoo"]


@pytest.fixture
def papayoo_pace(monkeypatch: pytest.MonkeyPatch, world: World) -> None:
    """Seated games at test speed (as in tests/cogs), Discord's per-route buckets off."""
    from bot.seated import SeatedCog

    monkeypatch.setattr(SeatedCog, "TABLE_EDIT_INTERVAL", 0.0)
    monkeypatch.setattr(SeatedCog, "COMPUTER_DELAY", 0.0)
    monkeypatch.setattr(SeatedCog, "NOTICE_DELAY", 3600.0)
    world.fake.limits = Limits.global_only(
        "a game played at machine speed; the global limit is what two processes share"
    )


async def far_game_after_the_pass(
    world: World, a: Process, b: Process
) -> tuple[Table, list[FakeUser]]:
    """Start a Papayoo game in the far guild (shard 1: B) and have every player pass their
    cards from their DM (no guild: shard 0, A). Returns the table, read through A."""
    fake = world.fake
    cyd, dee = fake.add_user("Cyd"), fake.add_user("Dee")
    for user in (cyd, dee):
        fake.add_member(world.far, user)
    users = [world.ana, world.bob, cyd, dee]
    table = Table(fake, b.bot, world.far, world.far_general, users)
    await table.open_and_start({"rounds": 1, "turn_seconds": 0})
    started = await table.stored()
    assert started.game.public_view()["phase"] == "pass"
    table.bot = a.bot  # the DM clicks go to A: read the game as A has it
    before = len(b.interactions)
    for player in started.game.public_view()["to_act"]:
        picked = await table.pass_cards(player)
        assert picked.interaction.id in a.interactions, "a DM click goes to shard 0"
    assert len(b.interactions) == before
    return table, users


@pytest.mark.usefixtures("papayoo_pace")
async def test_a_dm_click_on_the_other_process_game_plays_from_the_shared_database(
    world: World, db_path: Path, clock: FakeClock
) -> None:
    """The hand in DM of a game whose guild is on shard 1: its clicks reach the process of
    shard 0, which finds the game in the shared database, plays the move, and edits the DM
    and the table in the far guild (REST is not sharded)."""
    fake = world.fake
    a = make_process(db_path, clock, 0, PAPAYOO)
    b = make_process(db_path, clock, 1, PAPAYOO)
    async with both_running(fake, a, b):
        table, users = await far_game_after_the_pass(world, a, b)
        stored = await table.stored()
        assert stored.game.public_view()["phase"] == "play"
        board = fake.text_of(table.table_message(stored))
        assert "trick 1/" in board
        for user in users:
            assert "Received from" in fake.text_of(fake.dms(user)[0])
        turn = stored.game.public_view()["turn"]
        played = await table.play_card(turn)
        assert played.interaction.id in a.interactions
        after = await table.stored()
        assert after.version > stored.version
        assert fake.text_of(table.table_message(after)) != board


@pytest.mark.usefixtures("papayoo_pace")
async def test_show_my_hand_in_the_guild_after_moves_made_from_dms(
    world: World, db_path: Path, clock: FakeClock
) -> None:
    fake = world.fake
    a = make_process(db_path, clock, 0, PAPAYOO)
    b = make_process(db_path, clock, 1, PAPAYOO)
    async with both_running(fake, a, b):
        table, users = await far_game_after_the_pass(world, a, b)
        table.bot = b.bot
        shown = await table.show_hand(users[0])  # on the table, in the far guild: B
        assert shown.interaction is not None and shown.interaction.id in b.interactions
        assert "Received from" in fake.text_of(shown)  # the hand after the pass


async def test_a_day_closed_by_the_other_shard_speaks_its_guild_language(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Any process may run a guild's timer; the one whose shards do not see the guild asks
    Discord for it (once), so a French guild's closing is French whoever closes it."""
    from datetime import UTC, date, datetime

    from cogs.spaye._calendar import schedule_closing
    from cogs.spaye._opening import day_meta
    from tests.cogs.test_spaye_calendar_e2e import cards_left

    fake = fake_discord
    fake.limits = Limits.off("two processes' timers at machine speed")
    guild = fake.add_guild("Bureau", locale="fr", shard=(1, 2))
    general = fake.add_text_channel(guild, "general")
    users = [fake.add_user(f"U{i}") for i in range(2)]
    for user in users:
        fake.add_member(guild, user)
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    cogs = ["cogs.config", "cogs.help", "cogs.spaye"]
    other = make_process(tmp_path / "x.sqlite3", clock, 0, cogs)  # does not see the guild
    own = make_process(tmp_path / "x.sqlite3", clock, 1, cogs)
    async with both_running(fake, other, own):
        for closer, day in ((own, date(2025, 3, 14)), (other, date(2025, 3, 15))):
            game = cards_left(*(str(u.id) for u in users))
            game_id = await own.bot.store.days.open_day(
                guild.id, day, general.id, game, day_meta(day)
            )
            await schedule_closing(own.bot, guild.id, day, game_id)
            clock.set(datetime(day.year, day.month, day.day, 23, 59, tzinfo=UTC))
            assert await closer.bot.timers.run_due() >= 1
        closings = [m.content for m in fake.channel_messages(general)]
        assert len(closings) == 2
        assert all(c.startswith("🕛 Heure de clôture") for c in closings), closings
        fetched = [
            c for c in fake.calls if c.method == "GET" and c.route.endswith("/guilds/{guild_id}")
        ]
        assert len(fetched) == 1  # the other process asked Discord once
