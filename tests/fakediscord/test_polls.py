"""Polls in the fake Discord, through the real discord.py client: a message sent with a
``discord.Poll``, members' votes (the vote events only with the polls intent), the voters
list, the poll's end (expire, or its duration on the fake's clock) with the finalised
results and Discord's results message, and the polls Discord refuses."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

import aiohttp
import discord
import discord.ext.commands
import pytest

from bot.fakediscord import FakeChannel, FakeDiscord, FakeGuild, FakeMessage, FakeUser
from bot.fakediscord.models import IS_COMPONENTS_V2
from bot.fakediscord.polls import POLL_RESULT, SEND_POLLS

pytestmark = pytest.mark.e2e


@dataclass
class Seen:
    votes: list[tuple[str, int, int]] = field(default_factory=list)
    """(add | remove, user id, answer id)"""
    raw: list[str] = field(default_factory=list)


def poll_client(*, polls: bool = True) -> tuple[discord.Client, Seen]:
    intents = discord.Intents.none()
    intents.guilds = True
    intents.members = True
    intents.guild_messages = True
    intents.polls = polls
    client = discord.Client(intents=intents)
    seen = Seen()

    @client.event
    async def on_poll_vote_add(user: discord.Member, answer: discord.PollAnswer) -> None:
        seen.votes.append(("add", user.id, answer.id))

    @client.event
    async def on_poll_vote_remove(user: discord.Member, answer: discord.PollAnswer) -> None:
        seen.votes.append(("remove", user.id, answer.id))

    @client.event
    async def on_raw_poll_vote_add(payload: discord.RawPollVoteActionEvent) -> None:
        seen.raw.append("add")

    return client, seen


@dataclass
class World:
    guild: FakeGuild
    channel: FakeChannel
    ana: FakeUser
    ben: FakeUser
    cid: FakeUser


def world(fake: FakeDiscord) -> World:
    guild = fake.add_guild("Office")
    channel = fake.add_text_channel(guild, "general")
    people = [fake.add_user(n) for n in ("Ana", "Ben", "Cid")]
    for person in people:
        fake.add_member(guild, person)
    return World(guild, channel, *people)


def evening_poll(*, multiple: bool = False, hours: int = 24) -> discord.Poll:
    poll = discord.Poll("Which evening?", timedelta(hours=hours), multiple=multiple)
    poll.add_answer(text="Tuesday", emoji="🎴")
    poll.add_answer(text="Thursday")
    poll.add_answer(text="Friday")
    return poll


async def send_poll(
    client: discord.Client, w: World, poll: discord.Poll
) -> tuple[discord.Message, discord.TextChannel]:
    channel = client.get_channel(w.channel.id)
    assert isinstance(channel, discord.TextChannel)
    return await channel.send(poll=poll), channel


async def test_a_poll_is_sent_voted_on_and_ended_by_the_bot(fake_discord: FakeDiscord) -> None:
    w = world(fake_discord)
    client, seen = poll_client()
    async with fake_discord.run_client(client):
        message, channel = await send_poll(client, w, evening_poll())
        fake_msg = fake_discord.message(message.id)
        assert fake_msg.poll is not None and fake_msg.poll.question == "Which evening?"
        assert message.poll is not None
        assert [a.text for a in message.poll.answers] == ["Tuesday", "Thursday", "Friday"]
        assert message.poll.duration == timedelta(hours=24)

        assert await fake_discord.vote(w.ana, fake_msg, "Thursday") == [2]
        assert await fake_discord.vote(w.ben, fake_msg, 2) == [2]
        assert await fake_discord.vote(w.cid, fake_msg, "Tuesday") == [1]
        with pytest.raises(ValueError, match="single-choice"):
            await fake_discord.vote(w.cid, fake_msg, "Friday")
        await fake_discord.wait_for(lambda: len(seen.votes) == 3)
        assert ("add", w.ana.id, 2) in seen.votes
        # discord.py counts the votes on its cached copy (from MESSAGE_CREATE).
        cached = discord.utils.get(client.cached_messages, id=message.id)
        assert cached is not None and cached.poll is not None
        assert cached.poll.get_answer(2).vote_count == 2  # type: ignore[union-attr]
        assert cached.poll.total_votes == 3

        voters = [u.id async for u in message.poll.get_answer(2).voters()]  # type: ignore[union-attr]
        assert sorted(voters) == sorted([w.ana.id, w.ben.id])

        assert await fake_discord.unvote(w.cid, fake_msg) == [1]
        await fake_discord.wait_for(lambda: ("remove", w.cid.id, 1) in seen.votes)

        ended = await message.poll.end()
        assert ended.is_finalised()
        fetched = await channel.fetch_message(message.id)
        assert fetched.poll is not None and fetched.poll.is_finalised()
        assert {a.id: a.vote_count for a in fetched.poll.answers} == {1: 0, 2: 2, 3: 0}

        result = fake_discord.last_message(w.channel)
        assert result is not None and result.type == POLL_RESULT
        assert result.author is fake_discord.bot_user
        assert result.message_reference is not None
        assert result.message_reference["message_id"] == str(message.id)
        fields = {f["name"]: f["value"] for f in result.embeds[0]["fields"]}
        assert result.embeds[0]["type"] == "poll_result"
        assert fields["poll_question_text"] == "Which evening?"
        assert fields["victor_answer_id"] == "2" and fields["victor_answer_text"] == "Thursday"
        assert fields["victor_answer_votes"] == "2" and fields["total_votes"] == "2"

        with pytest.raises(PermissionError, match="ended"):
            await fake_discord.vote(w.cid, fake_msg, "Friday")
        with pytest.raises(discord.HTTPException) as again:
            await ended.end()
        assert again.value.code == 520001


async def test_a_poll_ends_at_its_duration_on_the_fakes_clock(fake_discord: FakeDiscord) -> None:
    w = world(fake_discord)
    client, _seen = poll_client()
    async with fake_discord.run_client(client):
        message, channel = await send_poll(client, w, evening_poll(multiple=True, hours=2))
        fake_msg = fake_discord.message(message.id)
        assert await fake_discord.vote(w.ana, fake_msg, ["Tuesday", "Friday"]) == [1, 3]
        assert await fake_discord.vote(w.ben, fake_msg, ["Friday"]) == [3]
        await fake_discord.advance_clock(3600)
        assert not fake_msg.poll.finalized
        mark = len(fake_discord.channel_messages(w.channel))
        await fake_discord.advance_clock(3600)
        assert fake_msg.poll.finalized
        result = fake_discord.channel_messages(w.channel)[mark:]
        assert [m.type for m in result] == [POLL_RESULT]
        cached = discord.utils.get(client.cached_messages, id=message.id)
        assert cached is not None
        # discord.py reads the end from the results message (type 46) on its cached copy.
        await fake_discord.wait_for(
            lambda: cached.poll is not None and cached.poll.victor_answer_id == 3
        )
        assert cached.poll is not None and cached.poll.total_votes == 3
        fetched = await channel.fetch_message(message.id)
        assert fetched.poll is not None
        assert {a.id: a.vote_count for a in fetched.poll.answers} == {1: 1, 2: 0, 3: 2}
        await fake_discord.run_due()  # ended once only
        assert len(fake_discord.channel_messages(w.channel)) == mark + 1


async def test_a_tie_has_no_victor(fake_discord: FakeDiscord) -> None:
    w = world(fake_discord)
    client, _seen = poll_client()
    async with fake_discord.run_client(client):
        message, _channel = await send_poll(client, w, evening_poll())
        fake_msg = fake_discord.message(message.id)
        await fake_discord.vote(w.ana, fake_msg, 1)
        await fake_discord.vote(w.ben, fake_msg, 2)
        result = await fake_discord.end_poll(fake_msg)
        names = [f["name"] for f in result.embeds[0]["fields"]]
        assert names == ["poll_question_text", "total_votes"]
        with pytest.raises(ValueError, match="ended"):
            await fake_discord.end_poll(fake_msg)


async def test_without_the_polls_intent_no_vote_reaches_the_bot(fake_discord: FakeDiscord) -> None:
    w = world(fake_discord)
    client, seen = poll_client(polls=False)
    async with fake_discord.run_client(client):
        message, _channel = await send_poll(client, w, evening_poll())
        await fake_discord.vote(w.ana, fake_discord.message(message.id), 1)
        await asyncio.sleep(0.2)
        assert seen.raw == [] and seen.votes == []


async def test_a_dm_poll_sends_its_votes_under_the_dm_polls_intent(
    fake_discord: FakeDiscord,
) -> None:
    w = world(fake_discord)
    client, seen = poll_client()
    async with fake_discord.run_client(client):
        user = await client.fetch_user(w.ana.id)
        message = await user.send(poll=evening_poll())
        fake_msg = fake_discord.message(message.id)
        with pytest.raises(PermissionError):
            await fake_discord.vote(w.ben, fake_msg, 1)  # not their DM
        await fake_discord.vote(w.ana, fake_msg, 1)
        await fake_discord.wait_for(lambda: seen.raw == ["add"])


class Api:
    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession, channel: FakeChannel):
        self.session = session
        self.base = f"{fake.api_base}/channels/{channel.id}"

    async def call(self, method: str, path: str, body: object = None) -> tuple[int, Any]:
        async with self.session.request(
            method, self.base + path, json=body, headers={"Authorization": "Bot t"}
        ) as resp:
            return resp.status, await resp.json()


@pytest.fixture
async def rest(fake_discord: FakeDiscord) -> AsyncIterator[tuple[World, Api]]:
    w = world(fake_discord)
    async with aiohttp.ClientSession() as session:
        yield w, Api(fake_discord, session, w.channel)


def raw_poll(**changes: Any) -> dict[str, Any]:
    poll: dict[str, Any] = {
        "question": {"text": "Which game?"},
        "answers": [{"poll_media": {"text": t}} for t in ("Papayoo", "Speah!", "Spit")],
        "duration": 24,
        "allow_multiselect": False,
        "layout_type": 1,
    }
    poll.update(changes)
    return poll


def errors_at(body: Any, *path: str) -> list[str]:
    assert body["code"] == 50035, body
    node = body["errors"]
    for part in path:
        node = node[part]
    return [e["code"] for e in node["_errors"]]


@pytest.mark.parametrize(
    ("changes", "path"),
    [
        ({"question": {"text": "q" * 301}}, ("question", "text")),
        ({"question": {"text": ""}}, ("question", "text")),
        ({"question": {}}, ("question", "text")),
        ({"answers": []}, ("answers",)),
        ({"answers": [{"poll_media": {"text": str(i)}} for i in range(11)]}, ("answers",)),
        ({"answers": [{"poll_media": {"text": "a" * 56}}]}, ("answers", "0", "poll_media", "text")),
        ({"answers": [{"poll_media": {}}]}, ("answers", "0", "poll_media", "text")),
        (
            {"answers": [{"poll_media": {"text": "x", "emoji": {"name": "nope"}}}]},
            ("answers", "0", "poll_media", "emoji"),
        ),
        ({"duration": 0}, ("duration",)),
        ({"duration": 769}, ("duration",)),
        ({"duration": 1.5}, ("duration",)),
        ({"layout_type": 2}, ("layout_type",)),
        ({"allow_multiselect": "yes"}, ("allow_multiselect",)),
    ],
)
async def test_polls_discord_refuses(
    rest: tuple[World, Api], changes: dict[str, Any], path: tuple[str, ...]
) -> None:
    _w, api = rest
    status, body = await api.call("POST", "/messages", {"poll": raw_poll(**changes)})
    assert status == 400 and errors_at(body, "poll", *path)


async def test_the_longest_poll_and_the_largest_are_taken(rest: tuple[World, Api]) -> None:
    _w, api = rest
    answers = [{"poll_media": {"text": "a" * 55}} for _ in range(10)]
    body = {"poll": raw_poll(question={"text": "q" * 300}, answers=answers, duration=768)}
    status, made = await api.call("POST", "/messages", body)
    assert status == 200 and [a["answer_id"] for a in made["poll"]["answers"]] == list(range(1, 11))
    assert made["poll"]["results"] == {"is_finalized": False, "answer_counts": []}


async def test_no_poll_in_a_components_v2_message_nor_in_an_edit(rest: tuple[World, Api]) -> None:
    _w, api = rest
    v2 = {
        "flags": IS_COMPONENTS_V2,
        "components": [{"type": 10, "content": "Vote!"}],
        "poll": raw_poll(),
    }
    status, body = await api.call("POST", "/messages", v2)
    assert status == 400
    assert errors_at(body, "poll") == ["MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2"]
    status, made = await api.call("POST", "/messages", {"content": "Vote!"})
    status, body = await api.call("PATCH", f"/messages/{made['id']}", {"poll": raw_poll()})
    assert status == 400 and errors_at(body, "poll")


async def test_send_polls_is_needed(fake_discord: FakeDiscord, rest: tuple[World, Api]) -> None:
    w, api = rest
    fake_discord.member(w.guild, fake_discord.bot_user).permissions_override = (
        w.guild.everyone.permissions & ~SEND_POLLS
    )
    status, body = await api.call("POST", "/messages", {"poll": raw_poll()})
    assert status == 403 and body["code"] == 50013


async def test_expire_and_voters_refusals(
    fake_discord: FakeDiscord, rest: tuple[World, Api]
) -> None:
    w, api = rest
    plain = await fake_discord.post_message(w.ana, w.channel, "hello")
    status, body = await api.call("POST", f"/polls/{plain.id}/expire")
    assert status == 400 and body["code"] == 520006
    theirs: FakeMessage = fake_discord._new_message(w.channel, w.ana, {"poll": raw_poll()})
    status, body = await api.call("POST", f"/polls/{theirs.id}/expire")
    assert status == 403 and body["code"] == 50005
    status, made = await api.call("POST", "/messages", {"poll": raw_poll()})
    await fake_discord.vote(w.ben, fake_discord.message(made["id"]), "Spit")
    status, voters = await api.call("GET", f"/polls/{made['id']}/answers/3")
    assert status == 200 and [u["id"] for u in voters["users"]] == [str(w.ben.id)]
    status, body = await api.call("GET", f"/polls/{made['id']}/answers/9")
    assert status == 404
    status, ended = await api.call("POST", f"/polls/{made['id']}/expire")
    assert status == 200 and ended["poll"]["results"]["is_finalized"] is True
    assert ended["poll"]["results"]["answer_counts"] == [{"id": 3, "count": 1, "me_voted": False}]


async def test_a_poll_answers_a_slash_command_and_a_deferred_one(fake_discord: FakeDiscord) -> None:
    """An interaction's response and a deferral's follow-up may carry a poll, as on Discord."""
    w = world(fake_discord)
    intents = discord.Intents.none()
    intents.guilds = True
    bot = discord.ext.commands.Bot(command_prefix="!", intents=intents)

    @bot.tree.command(description="Ask")
    async def ask(interaction: discord.Interaction) -> None:
        await interaction.response.send_message(poll=evening_poll())

    @bot.tree.command(description="Ask later")
    async def later(interaction: discord.Interaction) -> None:
        await interaction.response.defer(thinking=True)
        await interaction.followup.send(poll=evening_poll(hours=1))

    async def setup_hook() -> None:
        await bot.tree.sync()

    bot.setup_hook = setup_hook  # type: ignore[method-assign]
    async with fake_discord.run_client(bot):
        result = await fake_discord.slash(w.ana, w.channel, "ask")
        assert result.response is not None and result.response.poll is not None
        assert result.response.poll.question == "Which evening?"
        deferred = await fake_discord.slash(w.ana, w.channel, "later")
        assert deferred.response is not None and deferred.response.poll is not None
        assert await fake_discord.vote(w.ben, deferred.response, "Friday") == [3]
        await fake_discord.advance_clock(3600)
        assert deferred.response.poll.finalized and not result.response.poll.finalized
