"""A game night from its hour, through the fake Discord: the attendees seated into tables
that fit each game, each table in its own thread, full and started, everyone pinged once;
latecomers and leavers; the board edited as tables end, then the champion and the close.
Run again (a restart mid-way), nothing is doubled."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import timedelta
from typing import Any

import pytest

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.fakediscord import FakeDiscord
from bot.fakediscord.models import CREATE_PUBLIC_THREADS
from bot.nights import table_games
from bot.seated import SeatedCog
from cogs.gamenight._run import load_seating
from tests.cogs.conftest import MakeBot, Office

pytestmark = pytest.mark.e2e

COGS = ("cogs.gamenight", "cogs.spit", "cogs.papayoo")


def runner(bot: GamenightBot) -> Any:
    cog = bot.get_cog("Gamenight")
    assert cog is not None
    return cog


async def plan(bot: GamenightBot, office: Office, clock: FakeClock, **kw: Any) -> int:
    night = await bot.store.nights.create(
        guild_id=office.guild.id,
        channel_id=office.general.id,
        title="Friday",
        starts_at=clock.now() + timedelta(minutes=5),
        planner_id=office.owner.id,
        games=["spit", "papayoo"],
        **kw,
    )
    wishes = {office.ana: ["spit"], office.bob: ["spit"]}
    for user in (office.ana, office.bob, office.cid, office.dan, office.eve, office.owner):
        await bot.store.nights.set_rsvp(night.id, user.id, "in", wishes.get(user, []))
    return night.id


def pings(fake: FakeDiscord) -> Counter[int]:
    """How many messages of the bot notified each member (its allowed mentions)."""
    counted: Counter[int] = Counter()
    for message in fake.messages.values():
        for user_id in message.notified:
            counted[user_id] += 1
    return counted


async def finish(bot: GamenightBot, game_id: int) -> None:
    """Every seat plays the move the turn timer would, until the game ends; then the kit
    publishes the end as it does after any move."""
    stored = await bot.store.games.require(game_id)
    events: list[Any] = []
    while stored.is_active:
        player = stored.game.to_act()[0]
        stored, events = await bot.store.games.act(game_id, player, stored.game.auto_action(player))
    cog = next(c for c in bot.cogs.values() if isinstance(c, SeatedCog) and c.kind == stored.kind)
    cog._publish(stored, events, before=[], actor=None)
    await cog.settle()


async def until_closed(bot: GamenightBot, night_id: int) -> Any:
    """The night once the board's listener (a task of the game's end) closed it."""
    for _ in range(200):
        night = await bot.store.nights.get(night_id)
        assert night is not None
        if night.status == "closed":
            return night
        await asyncio.sleep(0.02)
    return night


@asynccontextmanager
async def night_started(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> AsyncIterator[tuple[GamenightBot, int]]:
    """A bot running the office's night of six (Ana and Bob for Spit only), at its hour."""
    bot = make_bot(COGS)
    async with office.fake.run_client(bot):
        await bot.caught_up()
        night_id = await plan(bot, office, clock)
        await runner(bot).start_night(night_id)
        yield bot, night_id
    await bot.store.close()


async def test_the_hour_seats_everyone_once_in_threads_and_a_rerun_doubles_nothing(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    async with night_started(office, make_bot, clock) as (bot, night_id):
        night = await bot.store.nights.get(night_id)
        assert night is not None and night.status == "playing"
        seating = load_seating(night.meta["seating"])
        counts = table_games()
        everyone = sorted([*seating.seated(), *seating.waiting_ids()])
        assert everyone == sorted(u.id for u in (*office.colleagues, office.owner))
        assert len(set(seating.seated())) == len(seating.seated())
        for table in seating.tables:
            assert counts[table.game].low <= table.size <= counts[table.game].high
        rows = await bot.store.nights.tables(night_id)
        assert len(rows) == len(seating.tables) and all(r.game_id for r in rows)
        threads = {t.id for t in office.guild.active_threads()}
        assert {r.thread_id for r in rows} <= threads and len(threads) == len(rows)
        before = pings(fake)
        assert all(before[uid] == 1 for uid in everyone), before
        messages = len(fake.messages)

        await runner(bot).start_night(night_id)  # the timer run again (a kill mid-way)
        assert len(fake.messages) == messages and pings(fake) == before
        assert [r.game_id for r in await bot.store.nights.tables(night_id)] == [
            r.game_id for r in rows
        ]


async def test_tables_stay_in_the_channel_when_the_bot_may_not_open_threads(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    await fake.deny_bot(office.general, CREATE_PUBLIC_THREADS)
    async with night_started(office, make_bot, clock) as (bot, night_id):
        rows = await bot.store.nights.tables(night_id)
        assert rows and all(r.thread_id == office.general.id for r in rows)
        for row in rows:
            stored = await bot.store.games.require(row.game_id)
            assert stored.channel_id == office.general.id and stored.meta["posted"]


async def test_the_board_follows_the_tables_and_crowns_the_champion_at_the_close(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    async with night_started(office, make_bot, clock) as (bot, night_id):
        night = await bot.store.nights.get(night_id)
        assert night is not None and night.board_message_id
        board = fake.message(night.board_message_id)
        rows = await bot.store.nights.tables(night_id)
        for row in rows:
            await finish(bot, row.game_id)
        closed = await until_closed(bot, night_id)
        assert closed.status == "closed"
        board = fake.message(night.board_message_id)
        text = board.embeds[0]["description"]
        assert "Champion of the night" in text
        assert board.attachments and board.attachments[0]["filename"] == "night.png"
        ended = await fake.slash(office.bob, office.general, "gamenight join", {})
        assert ended.ephemeral and "No game night is being played" in ended.text


async def test_join_and_leave_answer_privately_in_the_members_language(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await bot.caught_up()
        night_id = await plan(bot, office, clock)
        early = await fake.slash(office.ana, office.general, "gamenight join", {})
        assert early.ephemeral and "pas encore commencé" in early.text  # Ana reads French
        await runner(bot).start_night(night_id)
        again = await fake.slash(office.bob, office.general, "gamenight join", {})
        assert again.ephemeral and "already at table" in again.text
        late = fake.add_user("Lou")
        fake.add_member(office.guild, late)
        joined = await fake.slash(late, office.general, "gamenight join", {})
        assert joined.ephemeral and "waiting list" in joined.text
        left = await fake.slash(late, office.general, "gamenight leave", {})
        assert left.ephemeral and "off the waiting list" in left.text
        twice = await fake.slash(late, office.general, "gamenight leave", {})
        assert twice.ephemeral and "already left" in twice.text
        night = await bot.store.nights.get(night_id)
        assert (
            night is not None and late.id not in load_seating(night.meta["seating"]).waiting_ids()
        )
    await bot.store.close()


async def test_a_kill_at_the_seating_loses_no_table_and_doubles_nothing(
    office: Office, make_bot: MakeBot, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = office.fake
    bot = make_bot(COGS)
    real = SeatedCog.open_table
    first, hold = asyncio.Event(), asyncio.Event()

    async def one_then_die(self: SeatedCog, table: Any, public: Any) -> Any:
        if first.is_set():
            hold.set()
            await asyncio.sleep(3600)  # the bot dies here
        first.set()
        return await real(self, table, public)

    async with fake.run_client(bot) as running:
        await bot.caught_up()
        night_id = await plan(bot, office, clock)
        monkeypatch.setattr(SeatedCog, "open_table", one_then_die)
        task = asyncio.create_task(runner(bot).start_night(night_id))
        await hold.wait()
        await running.crash()
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
        monkeypatch.setattr(SeatedCog, "open_table", real)
    await bot.store.close()

    again = make_bot(COGS)
    async with fake.run_client(again):
        await again.caught_up()
        await runner(again).start_night(night_id)  # the timer, run again past its lease
        night = await again.store.nights.get(night_id)
        assert night is not None and night.status == "playing"
        seating = load_seating(night.meta["seating"])
        rows = await again.store.nights.tables(night_id)
        assert len(rows) == len(seating.tables) and all(r.game_id for r in rows)
        games = [g for g in await again.store.games.find(status=None) if g.kind != "lobby"]
        assert len(games) == len(seating.tables)  # none lost, none made twice
        assert len(office.guild.active_threads()) == len(rows)
        told = pings(fake)
        assert all(told[uid] == 1 for uid in seating.seated()), told
    await again.store.close()


async def test_a_board_posted_before_its_id_was_recorded_is_not_posted_twice(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    """A run that died between posting the board and recording its id: the next run posts
    it again under the same nonce, and Discord gives back the message it already made."""
    fake = office.fake
    async with night_started(office, make_bot, clock) as (bot, night_id):
        night = await bot.store.nights.get(night_id)
        assert night is not None and night.board_message_id
        first = night.board_message_id
        await bot.store.nights.update(night_id, board_message_id=None)  # the id was lost
        await runner(bot).refresh_board(night_id)
        again = await bot.store.nights.get(night_id)
        assert again is not None and again.board_message_id == first
        boards = [
            m
            for m in fake.channel_messages(office.general)
            if m.author is fake.bot_user and m.embeds and "Friday" in str(m.embeds[0])
        ]
        assert [m.id for m in boards] == [first]


def test_a_seating_keeps_the_game_ratings_and_one_saved_before_them_loads() -> None:
    """The night's ``meta`` keeps each person's game ratings beside the overall one; a
    seating saved before they were kept loads with none (the overall rating judges)."""
    from bot.nights.seating import Attendee, Seating, Table, Waiting
    from cogs.gamenight._run import dump_seating

    ana = Attendee(1, frozenset({"spit"}), 1500.0, (("spit", 900.0),))
    bob = Attendee(2, None, 1400.0)
    cid = Attendee(3, frozenset({"papayoo"}), 1300.0, (("papayoo", 1250.0),))
    seating = Seating((Table("spit", (ana, bob)),), (Waiting(cid, "too_few"),))
    assert load_seating(dump_seating(seating)) == seating
    old = {
        "tables": [
            {"game": "spit", "players": [[1, ["spit"], 1500.0], [2, None, 1400.0]], "computers": 0}
        ],
        "waiting": [[3, ["papayoo"], 1300.0, "too_few"]],
    }
    loaded = load_seating(old)
    assert [p.by_game for p in loaded.tables[0].players] == [(), ()]
    assert loaded.waiting[0].reason == "too_few" and loaded.waiting[0].attendee.by_game == ()
