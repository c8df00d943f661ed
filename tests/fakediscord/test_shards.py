"""Shards in the fake Discord, as Discord does them: GET /gateway/bot recommends a count,
each guild's events and interactions go to the session of shard ``(guild_id >> 22) % count``
only, DMs to shard 0 only; two clients on one token (two processes) share one fake."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import aiohttp
import discord
import pytest
from discord.ext import commands

from bot.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeUser
from bot.fakediscord.gateway import OP_HELLO, OP_IDENTIFY

pytestmark = pytest.mark.e2e


@dataclass
class Seen:
    """What one client (one "process") observed."""

    interactions: list[int] = field(default_factory=list)
    messages: list[int] = field(default_factory=list)


def make_client(label: str, seen: Seen, **shards: Any) -> commands.AutoShardedBot:
    """A sharded bot whose ``/where`` says who answered (``label``) and on which shard."""
    intents = discord.Intents.default()
    bot = commands.AutoShardedBot(command_prefix=commands.when_mentioned, intents=intents, **shards)

    async def no_identify_delay(shard_id: int | None, *, initial: bool = False) -> None:
        return None  # discord.py waits 5 s between two shards' IDENTIFYs

    bot.before_identify_hook = no_identify_delay  # type: ignore[method-assign]

    @bot.tree.command(description="Who answers")
    async def where(interaction: discord.Interaction) -> None:
        shard = "dm" if interaction.guild is None else f"shard {interaction.guild.shard_id}"
        await interaction.response.send_message(f"{label} {shard}")

    @bot.tree.command(description="DM me")
    async def dm_me(interaction: discord.Interaction) -> None:
        await interaction.user.send(f"from {label}")
        await interaction.response.send_message("sent", ephemeral=True)

    async def on_interaction(interaction: discord.Interaction) -> None:
        seen.interactions.append(interaction.id)

    async def on_message(message: discord.Message) -> None:
        seen.messages.append(message.id)

    async def setup_hook() -> None:
        await bot.tree.sync()

    bot.add_listener(on_interaction)
    bot.add_listener(on_message)
    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    return bot


@dataclass
class World:
    fake: FakeDiscord
    near: FakeGuild  # shard 0 of 2
    far: FakeGuild  # shard 1 of 2
    near_general: FakeChannel
    far_general: FakeChannel
    ana: FakeUser
    bob: FakeUser


@pytest.fixture
def world(fake_discord: FakeDiscord) -> World:
    """Two guilds, one on each shard of 2, with Ana and Bob in both."""
    fake = fake_discord
    near = fake.add_guild("Near", shard=(0, 2))
    far = fake.add_guild("Far", shard=(1, 2))
    assert (near.id >> 22) % 2 == 0 and (far.id >> 22) % 2 == 1
    ana, bob = fake.add_user("Ana"), fake.add_user("Bob")
    for guild in (near, far):
        for user in (ana, bob):
            fake.add_member(guild, user)
    return World(
        fake,
        near,
        far,
        fake.add_text_channel(near, "general"),
        fake.add_text_channel(far, "general"),
        ana,
        bob,
    )


def test_guilds_made_for_a_shard_land_on_it(fake_discord: FakeDiscord) -> None:
    guilds = [fake_discord.add_guild(shard=(i % 3, 3)) for i in range(6)]
    assert [(g.id >> 22) % 3 for g in guilds] == [0, 1, 2, 0, 1, 2]
    assert [fake_discord.shard_of(g, 3) for g in guilds] == [0, 1, 2, 0, 1, 2]
    with pytest.raises(ValueError, match="no shard 2 among 2"):
        fake_discord.add_guild(shard=(2, 2))


async def test_gateway_bot_recommends_shards(fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    headers = {"Authorization": "Bot fake-token"}
    async with aiohttp.ClientSession() as http:

        async def recommended() -> int:
            async with http.get(f"{fake.api_base}/gateway/bot", headers=headers) as answer:
                return int((await answer.json())["shards"])

        assert await recommended() == 1  # one shard per 1,000 guilds, at least one
        for _ in range(1001):
            fake.add_guild()
        assert await recommended() == 2
        fake.guilds.clear()
        fake.recommended_shards = 3
        assert await recommended() == 3

    # A bot that takes the recommended count connects one session per shard.
    guilds = [fake.add_guild(f"G{i}", shard=(i, 3)) for i in range(3)]
    bot = make_client("auto", Seen())
    async with fake.run_client(bot):
        assert bot.shard_count == 3
        assert sorted(s.shard for s in fake.sessions if s.connected) == [[0, 3], [1, 3], [2, 3]]
        assert {g.id for g in bot.guilds} == {g.id for g in guilds}
        for guild in guilds:
            assert bot.get_guild(guild.id).shard_id == fake.shard_of(guild, 3)  # type: ignore[union-attr]


async def test_each_guild_reaches_only_its_shard(world: World) -> None:
    fake = world.fake
    seen_a, seen_b = Seen(), Seen()
    a = make_client("A", seen_a, shard_count=2, shard_ids=[0])
    b = make_client("B", seen_b, shard_count=2, shard_ids=[1])
    async with fake.run_client(a), fake.run_client(b):
        # READY and GUILD_CREATE: each process holds the guilds of its shard only.
        assert {g.id for g in a.guilds} == {world.near.id}
        assert {g.id for g in b.guilds} == {world.far.id}
        by_shard = {s.shard[0]: s for s in fake.sessions if s.connected}
        ready = {k: next(f for f in s.sent if f["t"] == "READY") for k, s in by_shard.items()}
        assert [g["id"] for g in ready[0]["d"]["guilds"]] == [str(world.near.id)]
        assert [g["id"] for g in ready[1]["d"]["guilds"]] == [str(world.far.id)]
        assert ready[1]["d"]["shard"] == [1, 2]

        # Interactions go to the guild's shard only.
        near = await fake.slash(world.ana, world.near_general, "where")
        far = await fake.slash(world.ana, world.far_general, "where")
        assert near.content == "A shard 0" and far.content == "B shard 1"
        assert seen_a.interactions == [near.interaction.id]
        assert seen_b.interactions == [far.interaction.id]

        # So do messages (MESSAGE_CREATE) and guild events.
        mark_a, mark_b = len(seen_a.messages), len(seen_b.messages)
        posted = await fake.post_message(world.ana, world.far_general, "hello")
        await fake.wait_for(lambda: posted.id in seen_b.messages)
        new = fake.add_guild("Newer", shard=(1, 2))
        fake.add_member(new, world.ana)
        await fake.wait_for(lambda: b.get_guild(new.id) is not None)
        channel = fake.add_text_channel(new, "late")
        await fake.wait_for(lambda: b.get_channel(channel.id) is not None)
        later = await fake.slash(world.ana, channel, "where")
        assert later.content == "B shard 1"
        assert posted.id not in seen_a.messages[mark_a:]
        assert a.get_guild(new.id) is None and a.get_channel(channel.id) is None
        assert seen_b.messages[mark_b:].count(posted.id) == 1

        # The call log and the interactions are the fake's: both clients' calls are in it.
        callbacks = fake.find_calls("POST", "/interactions/{}/{}/callback")
        assert {c.path.split("/")[2] for c in callbacks} == {
            str(r.interaction.id) for r in (near, far, later)
        }
        assert {near.interaction.id, far.interaction.id} <= set(fake.interactions)


async def test_dms_go_to_shard_zero_only(world: World) -> None:
    fake = world.fake
    seen_a, seen_b = Seen(), Seen()
    a = make_client("A", seen_a, shard_count=2, shard_ids=[0])
    b = make_client("B", seen_b, shard_count=2, shard_ids=[1])
    dm = fake.dm_channel(world.ana)
    async with fake.run_client(b), fake.run_client(a):
        # A DM interaction reaches shard 0 (A), whichever process connected last.
        answer = await fake.slash(world.ana, dm, "where")
        assert answer.content == "A dm"
        assert seen_b.interactions == []
        # B (shard 1) sends a DM by REST: its MESSAGE_CREATE goes to shard 0, not to B.
        await fake.slash(world.ana, world.far_general, "dm_me")
        [sent] = [m for m in fake.dms(world.ana) if m.content == "from B"]
        await fake.wait_for(lambda: sent.id in seen_a.messages)
        assert sent.id not in seen_b.messages


async def test_an_interaction_with_no_connected_shard_says_so(world: World) -> None:
    fake = world.fake
    b = make_client("B", Seen(), shard_count=2, shard_ids=[1])
    async with fake.run_client(b):
        with pytest.raises(RuntimeError, match=r"no connected shard gets guild .*\[\[1, 2\]\]"):
            await fake.slash(world.ana, world.near_general, "where")
        with pytest.raises(RuntimeError, match=r"DMs \(shard 0\)"):
            await fake.slash(world.ana, fake.dm_channel(world.ana), "where")


async def test_one_client_crashes_the_other_goes_on(world: World) -> None:
    fake = world.fake
    a = make_client("A", Seen(), shard_count=2, shard_ids=[0])
    b = make_client("B", Seen(), shard_count=2, shard_ids=[1])
    async with fake.run_client(a), fake.run_client(b) as running_b:
        await running_b.crash()
        assert [s.shard for s in fake.sessions if s.connected] == [[0, 2]]
        assert (await fake.slash(world.ana, world.near_general, "where")).content == "A shard 0"
        # The process of shard 1 comes back: its guild is served again.
        again = make_client("B2", Seen(), shard_count=2, shard_ids=[1])
        async with fake.run_client(again):
            far = await fake.slash(world.ana, world.far_general, "where")
        assert far.content == "B2 shard 1"


async def test_sessions_of_the_same_shard_both_get_its_events(world: World) -> None:
    """As at Discord (a bot run twice): both sessions get the interaction, the first answer
    wins and the other is refused as already acknowledged."""
    fake = world.fake
    seen_1, seen_2 = Seen(), Seen()
    first = make_client("one", seen_1, shard_count=2, shard_ids=[1])
    second = make_client("two", seen_2, shard_count=2, shard_ids=[1])
    async with fake.run_client(first), fake.run_client(second):
        result = await fake.slash(world.ana, world.far_general, "where")
        await fake.wait_for(
            lambda: len(fake.find_calls("POST", "/interactions/{}/{}/callback")) == 2
        )
    assert seen_1.interactions == seen_2.interactions == [result.interaction.id]
    statuses = sorted(c.status for c in fake.find_calls("POST", "/interactions/{}/{}/callback"))
    assert statuses == [200, 400]  # the second: 40060, already acknowledged
    assert result.content in ("one shard 1", "two shard 1")


async def test_identify_with_a_shard_out_of_range_is_refused(fake_discord: FakeDiscord) -> None:
    async with (
        aiohttp.ClientSession() as http,
        http.ws_connect(fake_discord.gateway_url) as ws,
    ):
        hello = json.loads((await ws.receive()).data)
        assert hello["op"] == OP_HELLO
        identify = {"token": "fake-token", "intents": 1, "properties": {}, "shard": [2, 2]}
        await ws.send_str(json.dumps({"op": OP_IDENTIFY, "d": identify}))
        closed = await ws.receive()
        assert closed.type == aiohttp.WSMsgType.CLOSE and closed.data == 4010
    assert fake_discord.identifies == 0 and not fake_discord.sessions
