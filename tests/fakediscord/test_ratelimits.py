"""The fake Discord's REST rate limits, token lifetimes and outages (bot/fakediscord/ratelimits.py).

Plain aiohttp requests check the numbers; a real discord.py client checks that it reads what
the fake sends. Time is the fake's REST clock, frozen or moved by hand, so nothing depends on
how fast the machine is; the only real waits are discord.py's own sleeps of a 429's
retry_after, kept to a fraction of a second with small custom limits.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import aiohttp
import discord
import pytest
from discord import app_commands
from discord.ext import commands

from bot.fakediscord import FakeChannel, FakeDiscord, FakeUser
from bot.fakediscord.ratelimits import BAN_BODY, Limits, Rate

pytestmark = pytest.mark.e2e

TOKEN = "fake-token"  # what fake.run_client gives the bot


@dataclass
class Answer:
    status: int
    headers: dict[str, str]
    body: Any


class Rest:
    """Plain REST requests to the fake, as a bot token would send them."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession) -> None:
        self.fake = fake
        self.session = session

    async def __call__(
        self, method: str, path: str, json: Any = None, *, auth: str | None = f"Bot {TOKEN}"
    ) -> Answer:
        headers = {"Authorization": auth} if auth is not None else {}
        async with self.session.request(
            method, self.fake.api_base + path, json=json, headers=headers
        ) as resp:
            body = await resp.json() if resp.content_type == "application/json" else None
            return Answer(resp.status, dict(resp.headers), body)

    async def send(self, channel: FakeChannel, content: str = "hi", **kw: Any) -> Answer:
        return await self("POST", f"/channels/{channel.id}/messages", {"content": content}, **kw)


@pytest.fixture(autouse=True)
def _global_429s_are_what_these_tests_make(request: pytest.FixtureRequest) -> None:
    """These tests hit the global limit on purpose (the bot itself never may)."""
    if "fake_discord" in request.fixturenames:
        request.getfixturevalue("fake_discord").global_429_is_a_problem = False


@pytest.fixture
async def rest(fake_discord: FakeDiscord) -> AsyncIterator[Rest]:
    async with aiohttp.ClientSession() as session:
        yield Rest(fake_discord, session)


@dataclass
class World:
    ana: FakeUser
    general: FakeChannel
    others: list[FakeChannel]


def build(fake: FakeDiscord, channels: int = 1) -> World:
    guild = fake.add_guild()
    general = fake.add_text_channel(guild, "general")
    others = [fake.add_text_channel(guild, f"room-{n}") for n in range(channels)]
    ana = fake.add_user("Ana")
    fake.add_member(guild, ana)
    return World(ana, general, others)


def texts(fake: FakeDiscord, channel: FakeChannel) -> list[str]:
    return [m.content for m in fake.channel_messages(channel)]


# ---------------------------------------------------------------------------------- a bot


class EditView(discord.ui.View):
    """Buttons answered by updating their message (7) or deferring the update (6)."""

    def __init__(self, stash: list[discord.Interaction]) -> None:
        super().__init__(timeout=None)
        self.stash = stash

    @discord.ui.button(label="Update", custom_id="rl:update")
    async def update(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        self.stash.append(interaction)
        await interaction.response.edit_message(content="updated")

    @discord.ui.button(label="Later", custom_id="rl:later")
    async def later(self, interaction: discord.Interaction, _: discord.ui.Button[Any]) -> None:
        self.stash.append(interaction)
        await interaction.response.defer()


def make_bot(stash: list[discord.Interaction]) -> commands.Bot:
    bot = commands.Bot(command_prefix="!", intents=discord.Intents.default())

    async def setup_hook() -> None:
        await bot.tree.sync()

    bot.setup_hook = setup_hook  # type: ignore[method-assign]

    @bot.tree.command(description="Ping")
    async def ping(interaction: discord.Interaction) -> None:
        stash.append(interaction)
        await interaction.response.send_message("pong")

    @bot.tree.command(description="Chatty")
    async def chatty(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("one")
        await interaction.followup.send("two")
        await interaction.followup.send("three", ephemeral=True)
        await interaction.edit_original_response(content="one, edited")

    @bot.tree.command(description="Hand")
    async def hand(interaction: discord.Interaction) -> None:
        await interaction.response.send_message("your hand", view=EditView(stash), ephemeral=True)

    @bot.tree.command(description="Two messages")
    @app_commands.describe(count="how many")
    async def post(interaction: discord.Interaction, count: int) -> None:
        await interaction.response.defer(ephemeral=True, thinking=True)
        assert isinstance(interaction.channel, discord.TextChannel)
        for n in range(count):
            await interaction.channel.send(f"post {n}")
        await interaction.followup.send("posted")

    return bot


async def advance_after_429(fake: FakeDiscord, seconds: float, *, hits: int = 1) -> None:
    """Move the frozen REST clock once the fake answered ``hits`` 429s (the wait discord.py
    is now sleeping in real time passes for the fake too)."""
    await fake.wait_for(lambda: len(fake.rate_limited) >= hits, timeout=5)
    fake.rest_clock.advance(seconds)


# ---------------------------------------------------------------------------------- global


async def test_the_51st_call_in_a_second_is_a_global_429_and_not_applied(
    fake_discord: FakeDiscord, rest: Rest
) -> None:
    fake = fake_discord
    world = build(fake, channels=11)
    fake.rest_clock.freeze()
    for channel in world.others[:10]:  # 5 per channel: no route bucket runs out
        for n in range(5):
            assert (await rest.send(channel, f"m{n}")).status == 200
    last = world.others[10]
    refused = await rest.send(last, "the 51st")
    assert refused.status == 429
    assert refused.body == {
        "message": "You are being rate limited.",
        "retry_after": 1.0,
        "global": True,
        "code": 0,
    }
    assert refused.headers["X-RateLimit-Global"] == "true"
    assert refused.headers["X-RateLimit-Scope"] == "global"
    assert refused.headers["Retry-After"] == "1"
    assert refused.headers["Via"]  # discord.py treats a 429 without Via as a ban
    assert texts(fake, last) == []
    [hit] = fake.rate_limited
    assert (hit.scope, hit.global_, hit.method) == ("global", True, "POST")
    assert hit.route == "/channels/{channel_id}/messages"
    assert fake.rate_limit_counts() == {"user": 0, "global": 1, "shared": 0}

    # Another bot token has a global limit of its own.
    assert (await rest.send(last, "other bot", auth="Bot another-token")).status == 200
    fake.rest_clock.advance(1.0)
    assert (await rest.send(last, "a second later")).status == 200
    assert texts(fake, last) == ["other bot", "a second later"]
    mean, worst = fake.global_calls_per_second()
    assert worst == 51  # 50 + the other token's call (the refused one does not count)
    assert mean == pytest.approx(52 / 1)


async def test_interaction_endpoints_are_exempt_from_the_global_limit(
    fake_discord: FakeDiscord, rest: Rest
) -> None:
    fake = fake_discord
    world = build(fake)
    async with fake.run_client(make_bot([])):
        fake.rest_clock.freeze()
        for _ in range(60):  # use up the bot's global limit
            if (await rest("GET", "/users/@me")).status == 429:
                break
        assert fake.rate_limit_counts()["global"] >= 1
        mark = fake.mark()
        result = await fake.slash(world.ana, world.general, "chatty")
        assert result.content == "one, edited"
        assert [m.content for m in result.followups] == ["two", "three"]
        calls = fake.calls_since(mark)  # callback, 2 follow-ups, the @original edit
        assert len(calls) == 4 and all(c.status == 200 for c in calls)
        assert (await rest.send(world.general)).status == 429  # the bot's own routes: still not


async def test_discord_py_waits_out_a_global_429(fake_discord: FakeDiscord, rest: Rest) -> None:
    fake = fake_discord
    build(fake)
    async with fake.run_client(discord.Client(intents=discord.Intents.default())) as running:
        fake.limits = Limits(global_rate=Rate(2, 0.2))
        fake.rest_clock.freeze()
        assert [(await rest("GET", "/users/@me")).status for _ in range(2)] == [200, 200]
        mover = asyncio.create_task(advance_after_429(fake, 0.2))
        user = await running.client.fetch_user(fake.bot_user.id)
        await mover
    assert user.id == fake.bot_user.id
    [hit] = fake.rate_limited
    assert hit.global_ and hit.retry_after == pytest.approx(0.2)
    assert [c.status for c in fake.find_calls("GET", f"/users/{fake.bot_user.id}")] == [429, 200]


# ---------------------------------------------------------------------------------- per route


async def test_message_create_is_5_per_5_seconds_per_channel(
    fake_discord: FakeDiscord, rest: Rest
) -> None:
    fake = fake_discord
    world = build(fake, channels=1)
    general, other = world.general, world.others[0]
    fake.rest_clock.freeze()
    answers = [await rest.send(general, f"m{n}") for n in range(6)]
    assert [a.status for a in answers] == [200] * 5 + [429]
    assert [a.headers["X-RateLimit-Remaining"] for a in answers] == ["4", "3", "2", "1", "0", "0"]
    assert {a.headers["X-RateLimit-Limit"] for a in answers} == {"5"}
    assert {a.headers["X-RateLimit-Reset-After"] for a in answers} == {"5.000"}
    refused = answers[-1]
    assert refused.body["retry_after"] == 5.0 and refused.body["global"] is False
    assert refused.headers["X-RateLimit-Scope"] == "user"
    assert refused.headers["Retry-After"] == "5"
    assert "X-RateLimit-Global" not in refused.headers
    assert texts(fake, general) == [f"m{n}" for n in range(5)]  # the 6th was not applied

    elsewhere = await rest.send(other, "other channel")
    assert elsewhere.status == 200 and elsewhere.headers["X-RateLimit-Remaining"] == "4"
    assert elsewhere.headers["X-RateLimit-Bucket"] == refused.headers["X-RateLimit-Bucket"]

    fake.rest_clock.advance(4.9)
    assert (await rest.send(general)).status == 429
    assert fake.rate_limited[-1].retry_after == pytest.approx(0.1)
    fake.rest_clock.advance(0.1)
    assert (await rest.send(general, "later")).status == 200
    assert [h.scope for h in fake.rate_limited] == ["user", "user"]


async def test_edits_of_one_channel_share_a_bucket_and_deletes_have_theirs(
    fake_discord: FakeDiscord, rest: Rest
) -> None:
    fake = fake_discord
    world = build(fake, channels=1)
    general, other = world.general, world.others[0]
    fake.rest_clock.freeze()
    ids = [(await rest.send(general, f"m{n}")).body["id"] for n in range(3)]
    other_id = (await rest.send(other, "x")).body["id"]
    edits = [
        await rest("PATCH", f"/channels/{general.id}/messages/{ids[n % 3]}", {"content": f"e{n}"})
        for n in range(6)
    ]
    assert [e.status for e in edits] == [200] * 5 + [429]
    assert len({e.headers["X-RateLimit-Bucket"] for e in edits}) == 1
    assert fake.message(ids[2]).content == "e2"  # the 6th (e5 on message 2) was refused
    assert fake.message(ids[0]).content == "e3"
    edit = await rest("PATCH", f"/channels/{other.id}/messages/{other_id}", {"content": "y"})
    assert edit.status == 200

    deletes = [await rest("DELETE", f"/channels/{general.id}/messages/{i}") for i in ids]
    assert [d.status for d in deletes] == [204] * 3
    more = [(await rest.send(other, f"o{n}")).body["id"] for n in range(3)]
    deletes = [
        await rest("DELETE", f"/channels/{other.id}/messages/{i}") for i in [other_id, *more]
    ]
    assert [d.status for d in deletes] == [204] * 4
    fake.rest_clock.advance(5.0)
    six = [(await rest.send(general, f"d{n}")).body["id"] for n in range(3)]
    six += [(await rest.send(general, f"d{n}")).body["id"] for n in range(3, 5)]
    fake.rest_clock.advance(1.0)
    deletes = [await rest("DELETE", f"/channels/{general.id}/messages/{i}") for i in six]
    extra = await rest("DELETE", f"/channels/{general.id}/messages/{six[0]}")
    assert [d.status for d in deletes] == [204] * 5
    assert extra.status == 429 and extra.body["retry_after"] == 1.0
    buckets = {
        "create": (await rest.send(other, "z")).headers["X-RateLimit-Bucket"],
        "edit": edits[0].headers["X-RateLimit-Bucket"],
        "delete": deletes[0].headers["X-RateLimit-Bucket"],
    }
    assert len(set(buckets.values())) == 3


async def test_headers_are_consistent_with_the_clock(fake_discord: FakeDiscord, rest: Rest) -> None:
    fake = fake_discord
    world = build(fake)
    fake.rest_clock.freeze()
    first = await rest.send(world.general)
    fake.rest_clock.advance(1.25)
    second = await rest.send(world.general)
    assert second.headers["X-RateLimit-Remaining"] == "3"
    assert second.headers["X-RateLimit-Reset-After"] == "3.750"
    reset = float(second.headers["X-RateLimit-Reset"])
    assert reset - time.time() == pytest.approx(3.75, abs=0.5)
    assert first.headers["X-RateLimit-Bucket"] == second.headers["X-RateLimit-Bucket"]
    channel = await rest("GET", f"/channels/{world.general.id}")  # a default bucket: 50 / 1 s
    assert (channel.headers["X-RateLimit-Limit"], channel.headers["X-RateLimit-Remaining"]) == (
        "50",
        "49",
    )
    assert channel.headers["X-RateLimit-Bucket"] != first.headers["X-RateLimit-Bucket"]
    dm = await rest("POST", "/users/@me/channels", {"recipient_id": str(world.ana.id)})
    assert dm.status == 200 and int(dm.headers["X-RateLimit-Remaining"]) > 1000  # unlimited
    assert "X-RateLimit-Scope" not in second.headers  # only on 429s, as on Discord


async def test_custom_limits_for_a_bench(fake_discord: FakeDiscord, rest: Rest) -> None:
    fake = fake_discord
    world = build(fake)
    fake.limits = Limits(dm_open=Rate(5, 5.0))
    fake.rest_clock.freeze()
    body = {"recipient_id": str(world.ana.id)}
    answers = [await rest("POST", "/users/@me/channels", body) for _ in range(6)]
    assert [a.status for a in answers] == [200] * 5 + [429]
    assert answers[0].headers["X-RateLimit-Limit"] == "5"
    assert fake.rate_limited[-1].route == "/users/@me/channels"


async def test_limits_off_says_why(rest: Rest, fake_discord: FakeDiscord) -> None:
    fake = fake_discord
    world = build(fake)
    with pytest.raises(ValueError, match="reason"):
        Limits.off("")
    with pytest.raises(TypeError, match=r"Limits\.off"):
        FakeDiscord(limits=None)  # type: ignore[arg-type]
    fake.limits = Limits.off("checks that the switch turns the limits off")
    fake.rest_clock.freeze()
    answers = [await rest.send(world.general, f"m{n}") for n in range(60)]
    assert {a.status for a in answers} == {200}
    assert fake.rate_limited == []


async def test_discord_py_waits_out_a_per_route_429(fake_discord: FakeDiscord, rest: Rest) -> None:
    fake = fake_discord
    world = build(fake)
    async with fake.run_client(discord.Client(intents=discord.Intents.default())) as running:
        fake.limits = Limits(message_create=Rate(2, 0.3))
        fake.rest_clock.freeze()
        for n in range(2):  # someone else (the same bot token) used up the channel's bucket
            assert (await rest.send(world.general, f"m{n}")).status == 200
        channel = running.client.get_channel(world.general.id)
        assert isinstance(channel, discord.TextChannel)
        mover = asyncio.create_task(advance_after_429(fake, 0.3))
        sent = await channel.send("waited")
        await mover
    assert sent.content == "waited"
    assert texts(fake, world.general) == ["m0", "m1", "waited"]
    [hit] = fake.rate_limited
    assert (hit.scope, hit.global_) == ("user", False)
    statuses = [c.status for c in fake.find_calls("POST", "/channels/{}/messages")]
    assert statuses == [200, 200, 429, 200]


async def test_discord_py_paces_itself_on_the_headers(
    fake_discord: FakeDiscord, rest: Rest
) -> None:
    fake = fake_discord
    world = build(fake)
    async with fake.run_client(discord.Client(intents=discord.Intents.default())) as running:
        fake.limits = Limits(message_create=Rate(2, 0.1))
        channel = running.client.get_channel(world.general.id)
        assert isinstance(channel, discord.TextChannel)
        await asyncio.gather(*(channel.send(f"p{n}") for n in range(4)))
    assert sorted(texts(fake, world.general)) == ["p0", "p1", "p2", "p3"]
    assert fake.rate_limited == []  # it read Remaining / Reset-After and waited before asking


# ---------------------------------------------------------------------------------- tokens


async def test_interaction_tokens_expire_after_15_minutes(
    fake_discord: FakeDiscord, rest: Rest
) -> None:
    fake = fake_discord
    world = build(fake)
    stash: list[discord.Interaction] = []
    async with fake.run_client(make_bot(stash)):
        result = await fake.slash(world.ana, world.general, "ping")
        [interaction] = stash
        assert fake.token_lifetime == 900.0
        fake.rest_clock.advance(899.0)
        await interaction.edit_original_response(content="still mine")
        assert result.content == "still mine"
        fake.rest_clock.advance(1.0)
        with pytest.raises(discord.HTTPException) as caught:
            await interaction.edit_original_response(content="too late")
        with pytest.raises(discord.HTTPException):
            await interaction.followup.send("too late")
    assert caught.value.status == 401 and caught.value.code == 50027
    assert caught.value.text == "Invalid Webhook Token"
    assert result.content == "still mine"
    assert fake.invalid_requests() == 2


async def test_original_of_a_component_is_its_message_for_the_whole_token_lifetime(
    fake_discord: FakeDiscord,
) -> None:
    fake = fake_discord
    world = build(fake)
    stash: list[discord.Interaction] = []
    async with fake.run_client(make_bot(stash)):
        hand = await fake.slash(world.ana, world.general, "hand")
        clicked = await fake.click(world.ana, hand, label="Update")
        assert clicked.callback_type == 7 and clicked.response is hand.response
        deferred = await fake.click(world.ana, hand, label="Later")
        assert deferred.callback_type == 6
        updated, later = stash
        fake.rest_clock.advance(14 * 60)
        await updated.edit_original_response(content="by the type 7 token")
        assert hand.content == "by the type 7 token"
        await later.edit_original_response(content="by the type 6 token")
        assert hand.content == "by the type 6 token"
        assert hand.response is not None and hand.response.ephemeral
        assert fake.count("PATCH", "/channels/{}/messages/{}") == 0
        fake.rest_clock.advance(60)
        with pytest.raises(discord.HTTPException):
            await updated.edit_original_response(content="expired")
    assert hand.content == "by the type 6 token"
    assert fake.invalid_requests() == 1  # the 401 is an invalid request


# ---------------------------------------------------------------------------------- invalid requests


async def test_invalid_requests_are_counted_and_too_many_get_the_client_banned() -> None:
    fake = FakeDiscord(limits=Limits(message_create=Rate(1, 5.0), invalid_request_limit=5))
    await fake.start()
    try:
        world = build(fake)
        fake.rest_clock.freeze()
        async with aiohttp.ClientSession() as session:
            rest = Rest(fake, session)
            assert (await rest("GET", "/users/@me", auth="Bearer nope")).status == 401
            fake.close_dms(world.ana)
            dm = fake.dm_channel(world.ana)
            assert (await rest.send(dm)).status == 403
            assert (await rest.send(world.general)).status == 200
            assert (await rest.send(world.general)).status == 429  # scope user: invalid too
            assert (await rest("GET", "/channels/0")).status == 404  # not invalid
            assert fake.invalid_requests() == 3
            fake.rest_clock.advance(601)
            assert fake.invalid_requests() == 0
            assert fake.invalid_requests(window=3600) == 3
            assert not fake.banned and fake.problems() == []
            for _ in range(5):
                assert (await rest("GET", "/users/@me", auth="Bearer nope")).status == 401
            assert fake.banned
            banned = await rest.send(world.others[0], "after the ban")
            assert banned.status == 429 and banned.body == BAN_BODY
            assert "Via" not in banned.headers  # discord.py raises instead of retrying
            assert texts(fake, world.others[0]) == []
            assert (await rest("GET", "/users/@me")).status == 429
    finally:
        await fake.stop()
    [problem] = fake.problems()
    assert "banned" in problem


# ---------------------------------------------------------------------------------- outages


async def test_an_outage_answers_503_and_applies_nothing() -> None:
    fake = FakeDiscord()
    await fake.start()
    try:
        world = build(fake)
        async with aiohttp.ClientSession() as session:
            rest = Rest(fake, session)
            async with fake.run_client(make_bot([])):
                fake.outage(30)
                assert fake.in_outage
                refused = await rest.send(world.general, "during")
                assert refused.status == 503
                result = await fake.slash(world.ana, world.general, "ping", timeout=0.5)
                assert not result.answered  # its callback got 503 too
                callback = fake.find_calls("POST", "/interactions/{}/{}/callback")[-1]
                assert callback.status == 503
                fake.rest_clock.advance(30)
                assert not fake.in_outage
                assert (await fake.slash(world.ana, world.general, "ping")).content == "pong"
                fake.outage()  # until end_outage()
                assert (await rest.send(world.general, "again")).status == 503
                fake.end_outage()
                assert (await rest.send(world.general, "after")).status == 200
        calls = fake.find_calls("POST", "/channels/{}/messages")
        assert [c.status for c in calls] == [503, 503, 200]
        assert texts(fake, world.general) == ["pong", "after"]
        assert fake.rate_limited == [] and fake.invalid_requests() == 0
    finally:
        await fake.stop()
    assert [late.answered for late in fake.late_interactions] == [False]


def test_the_table_defaults_are_discords() -> None:
    limits = Limits()
    assert limits.global_rate == Rate(50, 1.0)
    assert limits.message_create == Rate(5, 5.0)
    assert limits.message_edit == Rate(5, 5.0)
    assert limits.message_delete == Rate(5, 1.0)
    assert limits.interaction_webhook == Rate(5, 2.0)
    assert limits.dm_open is None
    assert (limits.invalid_request_limit, limits.invalid_request_window) == (10_000, 600.0)
    assert limits.enabled and not Limits.off("a reason").enabled
    assert math.isclose(FakeDiscord().token_lifetime or 0, 900.0)
