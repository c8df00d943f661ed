"""Threads of the fake Discord, driven by the real discord.py client: started from a
message, posted in (with their own rate-limit bucket), their members, archiving (by hand and
after inactivity), deletion, interactions from inside them, and Discord's refusals."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import discord
import pytest
from discord.ext import commands

from bot.clock import FakeClock
from bot.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeUser
from bot.fakediscord.models import (
    CREATE_PUBLIC_THREADS,
    HAS_THREAD,
    MANAGE_THREADS,
    SEND_MESSAGES_IN_THREADS,
)

pytestmark = pytest.mark.e2e


@dataclass
class Seen:
    channels: list[Any] = field(default_factory=list)
    created: list[discord.Thread] = field(default_factory=list)
    updated: list[discord.Thread] = field(default_factory=list)
    deleted: list[int] = field(default_factory=list)


class Here(discord.ui.View):
    def __init__(self, seen: Seen) -> None:
        super().__init__(timeout=None)
        self.seen = seen

    @discord.ui.button(label="Here", custom_id="thread:here")
    async def here(self, interaction: discord.Interaction, button: discord.ui.Button[Any]) -> None:
        self.seen.channels.append(interaction.channel)
        await interaction.response.send_message(f"clicked in {interaction.channel_id}")


def make_bot(seen: Seen) -> commands.Bot:
    bot = commands.Bot(
        command_prefix="!", intents=discord.Intents.none() | discord.Intents(guilds=True)
    )

    async def setup_hook() -> None:
        bot.add_view(Here(seen))
        await bot.tree.sync()

    bot.setup_hook = setup_hook  # type: ignore[method-assign]

    @bot.event
    async def on_thread_create(thread: discord.Thread) -> None:
        seen.created.append(thread)

    @bot.event
    async def on_thread_update(before: discord.Thread, after: discord.Thread) -> None:
        seen.updated.append(after)

    @bot.event
    async def on_raw_thread_delete(payload: discord.RawThreadDeleteEvent) -> None:
        seen.deleted.append(payload.thread_id)

    @bot.tree.command(description="Where am I")
    async def where(interaction: discord.Interaction) -> None:
        seen.channels.append(interaction.channel)
        await interaction.response.send_message("here", view=Here(seen))

    return bot


@dataclass
class World:
    fake: FakeDiscord
    guild: FakeGuild
    general: FakeChannel
    ana: FakeUser
    ben: FakeUser


def world(fake: FakeDiscord) -> World:
    guild = fake.add_guild("Office")
    general = fake.add_text_channel(guild, "general")
    ana, ben = fake.add_user("Ana"), fake.add_user("Ben")
    fake.add_member(guild, ana)
    fake.add_member(guild, ben)
    return World(fake, guild, general, ana, ben)


@contextlib.asynccontextmanager
async def running(fake: FakeDiscord) -> AsyncIterator[tuple[World, Seen, commands.Bot]]:
    """The world, and the test bot connected to it."""
    w, seen = world(fake), Seen()
    bot = make_bot(seen)
    async with fake.run_client(bot):
        yield w, seen, bot


async def start(
    bot: commands.Bot, w: World, name: str = "Day one"
) -> tuple[discord.Message, discord.Thread]:
    channel = bot.get_channel(w.general.id)
    assert isinstance(channel, discord.TextChannel)
    opening = await channel.send("The day starts")
    thread = await opening.create_thread(name=name, auto_archive_duration=1440)
    return opening, thread


async def test_thread_started_from_a_message(fake_discord: FakeDiscord) -> None:
    async with running(fake_discord) as (w, seen, bot):
        opening, thread = await start(bot, w)
        assert thread.id == opening.id  # Discord: the thread takes the message's id
        assert thread.parent_id == w.general.id and thread.owner_id == bot.user.id
        assert thread.type is discord.ChannelType.public_thread
        assert thread.auto_archive_duration == 1440 and not thread.archived
        await fake_discord.wait_for(lambda: seen.created)
        cached = bot.get_channel(thread.id)
        assert isinstance(cached, discord.Thread) and cached.me is not None
        fake_thread = fake_discord.thread_of(fake_discord.message(opening.id))
        assert fake_thread is not None and fake_thread.name == "Day one"
        assert fake_discord.message(opening.id).flags & HAS_THREAD
        fetched = await bot.fetch_channel(thread.id)
        assert isinstance(fetched, discord.Thread) and fetched.name == "Day one"
        message = await opening.channel.fetch_message(opening.id)
        assert message.thread is not None and message.thread.id == thread.id

        sent = await thread.send("first draw")
        assert sent.channel.id == thread.id
        assert [m.content for m in fake_discord.channel_messages(fake_thread)] == ["first draw"]
        assert fake_thread.message_count == 1
        assert [m.content for m in fake_discord.channel_messages(w.general)] == ["The day starts"]

        active = await bot.get_guild(w.guild.id).active_threads()  # type: ignore[union-attr]
        assert [t.id for t in active] == [thread.id]


async def test_interactions_inside_a_thread(fake_discord: FakeDiscord) -> None:
    async with running(fake_discord) as (w, seen, bot):
        _, thread = await start(bot, w)
        fthread = fake_discord.channels[thread.id]
        result = await fake_discord.slash(w.ana, fthread, "where")
        assert result.response is not None and result.response.channel is fthread
        assert isinstance(seen.channels[-1], discord.Thread)
        assert seen.channels[-1].id == thread.id and seen.channels[-1].parent_id == w.general.id
        click = await fake_discord.click(w.ben, result, label="Here")
        assert click.text == f"clicked in {thread.id}"
        assert isinstance(seen.channels[-1], discord.Thread)
        assert fthread.message_count == 2  # both answers are in the thread


async def test_a_thread_has_its_own_message_bucket(fake_discord: FakeDiscord) -> None:
    async with running(fake_discord) as (w, _seen, bot):
        _, thread = await start(bot, w)
        fake_discord.rest_clock.freeze()
        for i in range(5):
            await thread.send(f"flood {i}")
        mark = fake_discord.mark()
        channel = bot.get_channel(w.general.id)
        assert isinstance(channel, discord.TextChannel)
        await channel.send("the parent is not slowed")
        assert fake_discord.rate_limited == []
        assert [c.status for c in fake_discord.calls_since(mark)] == [200]
        fake_discord.rest_clock.resume()


async def test_a_second_thread_from_the_same_message_is_refused(fake_discord: FakeDiscord) -> None:
    async with running(fake_discord) as (w, _seen, bot):
        opening, _ = await start(bot, w)
        with pytest.raises(discord.HTTPException) as err:
            await opening.create_thread(name="again")
        assert err.value.code == 160004


@pytest.mark.parametrize(
    ("kwargs", "field_name"),
    [
        ({"name": ""}, "name"),
        ({"name": "x" * 101}, "name"),
        ({"name": "ok", "auto_archive_duration": 30}, "auto_archive_duration"),
        ({"name": "ok", "slowmode_delay": 21601}, "rate_limit_per_user"),
    ],
)
async def test_bad_thread_payloads_are_refused(
    fake_discord: FakeDiscord, kwargs: dict[str, Any], field_name: str
) -> None:
    async with running(fake_discord) as (w, _seen, bot):
        channel = bot.get_channel(w.general.id)
        assert isinstance(channel, discord.TextChannel)
        opening = await channel.send("The day starts")
        with pytest.raises(discord.HTTPException) as err:
            await opening.create_thread(**kwargs)
        assert err.value.code == 50035
        assert field_name in str(err.value)
        assert fake_discord.threads() == []


async def test_missing_thread_permissions_are_refused(fake_discord: FakeDiscord) -> None:
    async with running(fake_discord) as (w, _seen, bot):
        _, thread = await start(bot, w)
        await fake_discord.deny_bot(w.general, SEND_MESSAGES_IN_THREADS | CREATE_PUBLIC_THREADS)
        channel = bot.get_channel(w.general.id)
        assert isinstance(channel, discord.TextChannel)
        # discord.py sees the overwrite too (CHANNEL_UPDATE), as it would on Discord.
        await fake_discord.wait_for(
            lambda: not channel.permissions_for(channel.guild.me).create_public_threads
        )
        with pytest.raises(discord.Forbidden) as err:
            await thread.send("nope")
        assert err.value.code == 50013
        other = await channel.send("still fine in the channel")
        with pytest.raises(discord.Forbidden) as err:
            await other.create_thread(name="nope")
        assert err.value.code == 50013
        await fake_discord.allow_bot(w.general)
        await thread.send("allowed again")


async def test_archive_unarchive_and_lock(fake_discord: FakeDiscord) -> None:
    async with running(fake_discord) as (w, _seen, bot):
        _, thread = await start(bot, w)
        fthread = fake_discord.channels[thread.id]
        thread = await thread.edit(archived=True)
        assert thread.archived and fthread.archived
        await fake_discord.wait_for(lambda: bot.get_guild(w.guild.id).get_thread(thread.id) is None)  # type: ignore[union-attr]
        # Sending in an archived thread that is not locked unarchives it (Discord's docs).
        await thread.send("back")
        assert not fthread.archived
        await fake_discord.wait_for(lambda: bot.get_channel(thread.id) is not None)
        # A moderator locks and archives it: the bot's posts are refused.
        await fake_discord.archive_thread(fthread, locked=True)
        with pytest.raises(discord.HTTPException) as err:
            await thread.send("refused")
        assert err.value.code == 50083
        # ... and users may not use commands there (Discord's client offers none).
        with pytest.raises(PermissionError):
            await fake_discord.slash(w.ana, fthread, "where")


async def test_auto_archive_after_inactivity(fake_discord: FakeDiscord) -> None:
    async with running(fake_discord) as (w, seen, bot):
        _, thread = await start(bot, w)
        fthread = fake_discord.channels[thread.id]
        board = await fake_discord.slash(w.ana, fthread, "where")
        await fake_discord.advance_clock(23 * 3600)
        assert not fthread.archived
        await thread.send("activity")
        await fake_discord.advance_clock(23 * 3600)
        assert not fthread.archived
        await fake_discord.advance_clock(3600)
        assert fthread.archived
        await fake_discord.wait_for(lambda: any(t.archived for t in seen.updated))
        assert bot.get_guild(w.guild.id).get_thread(thread.id) is None  # type: ignore[union-attr]
        # A click on yesterday's button: Discord's client unarchives the thread first.
        click = await fake_discord.click(w.ben, board, label="Here")
        assert click.text == f"clicked in {thread.id}" and not fthread.archived
        await fake_discord.wait_for(lambda: bot.get_channel(thread.id) is not None)


async def test_deleted_thread_is_an_unknown_channel(fake_discord: FakeDiscord) -> None:
    async with running(fake_discord) as (w, seen, bot):
        opening, thread = await start(bot, w)
        fthread = fake_discord.channels[thread.id]
        mod = fake_discord.add_user("Mod")
        fake_discord.add_member(w.guild, mod, permissions=MANAGE_THREADS | (1 << 10))
        await fake_discord.delete_thread(fthread, by=mod)
        await fake_discord.wait_for(lambda: seen.deleted == [thread.id])
        with pytest.raises(discord.NotFound) as err:
            await thread.send("gone")
        assert err.value.code == 10003
        assert fake_discord.thread_of(fake_discord.message(opening.id)) is None
        with pytest.raises(LookupError):
            await fake_discord.slash(w.ana, fthread, "where")
        # Discord's docs do not say whether the message may start a thread again: both ways.
        fake_discord.thread_again_after_delete = False
        with pytest.raises(discord.HTTPException) as err:
            await opening.create_thread(name="Day one, again")
        assert err.value.code == 160004
        fake_discord.thread_again_after_delete = True
        again = await opening.create_thread(name="Day one, again")
        assert again.id == opening.id and not fake_discord.channels[again.id].deleted


async def test_thread_members(fake_discord: FakeDiscord) -> None:
    async with running(fake_discord) as (w, _seen, bot):
        _, thread = await start(bot, w)
        fthread = fake_discord.channels[thread.id]
        assert set(fthread.members) == {bot.user.id}  # the starter is a member
        await thread.add_user(discord.Object(w.ana.id))
        assert w.ana.id in fthread.members
        listed = await thread.fetch_members()
        assert {m.id for m in listed} == {bot.user.id, w.ana.id}
        member = await thread.fetch_member(w.ana.id)
        assert member.thread_id == thread.id
        with pytest.raises(discord.Forbidden):  # a public thread: MANAGE_THREADS needed
            await thread.remove_user(discord.Object(w.ana.id))
        await fake_discord.set_permissions(w.general, fake_discord.bot_user, allow=MANAGE_THREADS)
        await thread.remove_user(discord.Object(w.ana.id))
        assert w.ana.id not in fthread.members
        with pytest.raises(discord.NotFound) as err:
            await thread.fetch_member(w.ana.id)
        assert err.value.code == 10007
        # A ping in the thread adds the colleague it pinged (not one a mention spared).
        await thread.send(
            f"{w.ben.mention} and {w.ana.mention}",
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(w.ben.id)]),
        )
        assert w.ben.id in fthread.members and w.ana.id not in fthread.members
        # A colleague who writes there joins it.
        await fake_discord.post_message(w.ana, fthread, "hello")
        assert w.ana.id in fthread.members
        await thread.leave()
        assert bot.user.id not in fthread.members
        await thread.join()
        assert bot.user.id in fthread.members
        await fake_discord.wait_for(lambda: bot.get_channel(thread.id).me is not None)  # type: ignore[union-attr]


async def test_members_cannot_be_added_to_an_archived_thread(fake_discord: FakeDiscord) -> None:
    async with running(fake_discord) as (w, _seen, bot):
        opening, thread = await start(bot, w)
        await fake_discord.archive_thread(fake_discord.channels[thread.id])
        with pytest.raises(discord.HTTPException) as err:
            await thread.add_user(discord.Object(w.ana.id))
        assert err.value.code == 50083
        # Nor edits of its messages; a post (it is not locked) unarchives it.
        await thread.send("unarchives it")
        sent = fake_discord.last_message(fake_discord.channels[thread.id])
        assert sent is not None and sent.content == "unarchives it"
        await fake_discord.archive_thread(fake_discord.channels[thread.id])
        partial = thread.get_partial_message(sent.id)
        with pytest.raises(discord.HTTPException) as err:
            await partial.edit(content="edited")
        assert err.value.code == 50083
        assert opening.id == thread.id


async def test_a_locked_thread_refuses_the_bot_without_manage_threads(
    fake_discord: FakeDiscord,
) -> None:
    async with running(fake_discord) as (w, _seen, bot):
        _, thread = await start(bot, w)
        fthread = fake_discord.channels[thread.id]
        await fake_discord.lock_thread(fthread)
        with pytest.raises(discord.HTTPException) as err:
            await thread.send("locked")
        assert err.value.code == 160005
        with pytest.raises(discord.Forbidden):
            await thread.edit(archived=False, locked=False)
        with pytest.raises(PermissionError):
            await fake_discord.post_message(w.ana, fthread, "me neither")


async def test_private_thread_without_a_message(fake_discord: FakeDiscord) -> None:
    async with running(fake_discord) as (w, _seen, bot):
        channel = bot.get_channel(w.general.id)
        assert isinstance(channel, discord.TextChannel)
        thread = await channel.create_thread(name="Committee")
        assert thread.type is discord.ChannelType.private_thread
        public = await channel.create_thread(name="Open", type=discord.ChannelType.public_thread)
        assert public.type is discord.ChannelType.public_thread
        fthread = fake_discord.channels[thread.id]
        with pytest.raises(PermissionError):  # Ana was not invited
            await fake_discord.post_message(w.ana, fthread, "let me in")
        await thread.add_user(discord.Object(w.ana.id))
        await fake_discord.post_message(w.ana, fthread, "thanks")
        await fake_discord.deny_bot(w.general, 1 << 36)  # CREATE_PRIVATE_THREADS
        with pytest.raises(discord.Forbidden):
            await channel.create_thread(name="Another")


async def test_bot_deletes_and_edits_threads_as_discord_allows(fake_discord: FakeDiscord) -> None:
    async with running(fake_discord) as (w, _seen, bot):
        _, thread = await start(bot, w)
        renamed = await thread.edit(name="Day one (closed)", auto_archive_duration=60)
        assert renamed.name == "Day one (closed)" and renamed.auto_archive_duration == 60
        with pytest.raises(discord.Forbidden):  # deleting needs MANAGE_THREADS
            await thread.delete()
        someone = fake_discord.add_user("Someone")
        fake_discord.add_member(w.guild, someone)
        theirs = await fake_discord.start_thread(someone, await w_post(fake_discord, w), "Theirs")
        their_thread = bot.get_channel(theirs.id) or await bot.fetch_channel(theirs.id)
        assert isinstance(their_thread, discord.Thread)
        with pytest.raises(discord.Forbidden):  # another's thread, without MANAGE_THREADS
            await their_thread.edit(name="mine now")
        await fake_discord.set_permissions(w.general, fake_discord.bot_user, allow=MANAGE_THREADS)
        await thread.delete()
        assert fake_discord.channels[thread.id].deleted
        archived = await their_thread.edit(archived=True, locked=True)
        assert archived.locked and archived.archived
        listed = [t async for t in bot.get_channel(w.general.id).archived_threads()]  # type: ignore[union-attr]
        assert [t.id for t in listed] == [theirs.id]


async def w_post(fake: FakeDiscord, w: World) -> Any:
    return await fake.post_message(w.ana, w.general, "a colleague's message")


async def test_a_restarted_bot_knows_the_active_threads(fake_discord: FakeDiscord) -> None:
    async with running(fake_discord) as (w, _seen, bot):
        _, thread = await start(bot, w)
        _, old = await start(bot, w, "Yesterday")
        await old.edit(archived=True)
    again = make_bot(Seen())
    async with fake_discord.run_client(again):  # GUILD_CREATE lists the active threads
        cached = again.get_channel(thread.id)
        assert isinstance(cached, discord.Thread) and cached.me is not None
        assert again.get_channel(old.id) is None


async def test_the_fake_can_follow_the_bots_clock(fake_discord: FakeDiscord) -> None:
    clock = FakeClock(datetime(2026, 11, 30, 8, 0, tzinfo=UTC))
    fake_discord.follow_clock(clock)
    async with running(fake_discord) as (w, seen, bot):
        _, thread = await start(bot, w)
        fthread = fake_discord.channels[thread.id]
        assert fthread.create_timestamp == clock.now().timestamp()
        clock.advance(hours=24)
        # The next request finds the thread idle for a day: archived, then reopened by it.
        await thread.send("a day later")
        await fake_discord.wait_for(lambda: [t.archived for t in seen.updated] == [True])
        await fake_discord.wait_for(lambda: bot.get_channel(thread.id) is not None)  # back
        assert not fthread.archived
        assert fake_discord.last_message(fthread).created_at == clock.now().timestamp()  # type: ignore[union-attr]
