"""Guild scheduled events in the fake Discord, through the real discord.py client and the raw
REST routes: create, modify (status changes), delete, get/list, the users list, the gateway
events (only with the scheduled-events intent), members marking themselves interested and
moderators editing or deleting by hand, and Discord's refusals."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import aiohttp
import discord
import pytest

from bot.fakediscord import FakeDiscord, FakeGuild, FakeUser
from bot.fakediscord.api import ApiError
from bot.fakediscord.events import CONNECT, CREATE_EVENTS, MANAGE_EVENTS, FakeScheduledEvent

pytestmark = pytest.mark.e2e

EVERYTHING_BUT_EVENTS = discord.Permissions.all().value & ~(CREATE_EVENTS | MANAGE_EVENTS | 1 << 3)
"""Every permission (not Administrator, which grants all) but the two of events."""


@dataclass
class Seen:
    events: list[tuple[str, Any]] = field(default_factory=list)

    def names(self) -> list[str]:
        return [name for name, _ in self.events]


def event_client(
    *, scheduled_events: bool = True, members: bool = True
) -> tuple[discord.Client, Seen]:
    """A client that notes the scheduled-event events. discord.py dispatches a user add or
    remove only for a user it has cached: with ``members=False`` it drops them."""
    intents = discord.Intents.none()
    intents.guilds = True
    intents.members = members
    intents.guild_scheduled_events = scheduled_events
    client = discord.Client(intents=intents)
    seen = Seen()

    @client.event
    async def on_scheduled_event_create(event: discord.ScheduledEvent) -> None:
        seen.events.append(("create", event))

    @client.event
    async def on_scheduled_event_update(
        before: discord.ScheduledEvent, after: discord.ScheduledEvent
    ) -> None:
        seen.events.append(("update", (before, after)))

    @client.event
    async def on_scheduled_event_delete(event: discord.ScheduledEvent) -> None:
        seen.events.append(("delete", event))

    @client.event
    async def on_scheduled_event_user_add(
        event: discord.ScheduledEvent, user: discord.User
    ) -> None:
        seen.events.append(("user_add", (event, user)))

    @client.event
    async def on_scheduled_event_user_remove(
        event: discord.ScheduledEvent, user: discord.User
    ) -> None:
        seen.events.append(("user_remove", (event, user)))

    return client, seen


@dataclass
class World:
    fake: FakeDiscord
    guild: FakeGuild
    ana: FakeUser
    ben: FakeUser
    mod: FakeUser

    def mod_with_create(self) -> FakeUser:
        """The moderator, who may also create events."""
        member = self.guild.members[self.mod.id]
        member.permissions_override = (member.permissions_override or 0) | CREATE_EVENTS
        return self.mod


def world(fake: FakeDiscord, *, bot_permissions: int | None = None) -> World:
    guild = fake.add_guild("Office")
    fake.add_text_channel(guild, "general")
    if bot_permissions is not None:
        guild.members[fake.bot_user.id].permissions_override = bot_permissions
    else:
        role = fake.add_role(guild, "Events", permissions=CREATE_EVENTS | CONNECT)
        guild.members[fake.bot_user.id].roles.append(role)
    ana, ben, mod = fake.add_user("Ana"), fake.add_user("Ben"), fake.add_user("Mod")
    fake.add_member(guild, ana)
    fake.add_member(guild, ben)
    fake.add_member(guild, mod, permissions=MANAGE_EVENTS)
    return World(fake, guild, ana, ben, mod)


def soon(hours: float = 2.0) -> datetime:
    return datetime.now(UTC) + timedelta(hours=hours)


async def wait_seen(fake: FakeDiscord, seen: Seen, name: str, count: int = 1) -> None:
    await fake.wait_for(lambda: seen.names().count(name) >= count)


async def bots_event(
    client: discord.Client, w: World, **changes: Any
) -> tuple[discord.Guild, discord.ScheduledEvent]:
    """The bot creates an external event through discord.py (``changes`` override)."""
    guild = client.get_guild(w.guild.id)
    assert guild is not None
    fields: dict[str, Any] = {
        "name": "Night",
        "start_time": soon(),
        "end_time": soon(4),
        "entity_type": discord.EntityType.external,
        "location": "Here",
        "privacy_level": discord.PrivacyLevel.guild_only,
    }
    fields.update(changes)
    return guild, await guild.create_scheduled_event(**fields)


async def test_discord_py_creates_edits_and_deletes_an_event(fake_discord: FakeDiscord) -> None:
    w = world(fake_discord)
    client, seen = event_client()
    async with fake_discord.run_client(client):
        guild = client.get_guild(w.guild.id)
        assert guild is not None
        start = soon()
        event = await guild.create_scheduled_event(
            name="Game night",
            start_time=start,
            end_time=start + timedelta(hours=3),
            entity_type=discord.EntityType.external,
            location="The kitchen",
            privacy_level=discord.PrivacyLevel.guild_only,
            description="Papayoo and Spit",
        )
        assert event.name == "Game night" and event.location == "The kitchen"
        assert event.status is discord.EventStatus.scheduled
        assert event.creator_id == fake_discord.bot_user.id
        fake = fake_discord.scheduled_event(event.id)
        assert abs(fake.scheduled_start_time - start.timestamp()) < 1e-3
        await wait_seen(fake_discord, seen, "create")

        fetched = await guild.fetch_scheduled_event(event.id, with_counts=True)
        assert fetched.user_count == 0 and fetched.description == "Papayoo and Spit"
        listed = await guild.fetch_scheduled_events()
        assert [e.id for e in listed] == [event.id]

        edited = await event.edit(name="Game night!", description="Speah! too")
        assert edited is not None and edited.name == "Game night!"
        started = await edited.start()
        assert started.status is discord.EventStatus.active
        ended = await started.end()
        assert ended.status is discord.EventStatus.completed
        assert await guild.fetch_scheduled_events() == []  # an ended event leaves the list
        await wait_seen(fake_discord, seen, "update", 3)

        second = await guild.create_scheduled_event(
            name="Another",
            start_time=soon(5),
            end_time=soon(6),
            entity_type=discord.EntityType.external,
            location="Room 2",
            privacy_level=discord.PrivacyLevel.guild_only,
        )
        _guild, third = await bots_event(client, w, name="Called off")
        cancelled = await third.cancel()
        assert cancelled.status is discord.EventStatus.cancelled
        with pytest.raises(discord.HTTPException) as finished:  # discord.py checks no status
            await cancelled.edit(status=discord.EventStatus.active)
        assert finished.value.code == 180000
        await second.delete()
        await wait_seen(fake_discord, seen, "delete")
        assert second.id not in fake_discord.scheduled_events
        with pytest.raises(discord.NotFound) as missing:
            await guild.fetch_scheduled_event(second.id)
        assert missing.value.code == 10070


async def test_members_interested_reach_the_bot_and_the_users_list(
    fake_discord: FakeDiscord,
) -> None:
    w = world(fake_discord)
    client, seen = event_client()
    async with fake_discord.run_client(client):
        guild, event = await bots_event(client, w)
        fake = fake_discord.scheduled_event(event.id)
        assert await fake_discord.mark_interested(w.ana, fake)
        assert await fake_discord.mark_interested(w.ben, fake)
        assert not await fake_discord.mark_interested(w.ben, fake)  # once
        await wait_seen(fake_discord, seen, "user_add", 2)
        assert [u.id for _, (_, u) in (e for e in seen.events if e[0] == "user_add")] == [
            w.ana.id,
            w.ben.id,
        ]
        counted = await guild.fetch_scheduled_event(event.id, with_counts=True)
        assert counted.user_count == 2
        users = [u async for u in counted.users()]
        assert sorted(u.id for u in users) == sorted([w.ana.id, w.ben.id])

        assert await fake_discord.mark_not_interested(w.ana, fake)
        assert not await fake_discord.mark_not_interested(w.ana, fake)
        await wait_seen(fake_discord, seen, "user_remove")
        assert fake.user_count == 1


async def test_the_users_list_pages_like_discord(fake_discord: FakeDiscord) -> None:
    w = world(fake_discord)
    event = fake_discord.create_scheduled_event(w.guild, w.mod, external_body())
    people = [fake_discord.add_user(f"P{i}") for i in range(5)]
    for person in people:
        fake_discord.add_member(w.guild, person)
        await fake_discord.mark_interested(person, event)
    ids = sorted(p.id for p in people)
    async with aiohttp.ClientSession() as session:
        api = Api(fake_discord, session, w.guild)
        path = f"/{event.id}/users"
        status, page = await api.call("GET", path, query={"limit": "2"})
        assert status == 200 and [int(e["user"]["id"]) for e in page] == ids[:2]
        status, page = await api.call("GET", path, query={"after": str(ids[1]), "limit": "2"})
        assert [int(e["user_id"]) for e in page] == ids[2:4]
        status, page = await api.call("GET", path, query={"before": str(ids[4]), "limit": "2"})
        assert [int(e["user_id"]) for e in page] == ids[2:4]
        status, page = await api.call("GET", path, query={"with_member": "true", "limit": "1"})
        assert "member" in page[0] and "member" not in (await api.call("GET", path))[1][0]
        status, body = await api.call("GET", path, query={"limit": "101"})
        assert status == 400 and body["code"] == 50035


async def test_without_the_intent_the_bot_hears_nothing(fake_discord: FakeDiscord) -> None:
    w = world(fake_discord)
    client, seen = event_client(scheduled_events=False)
    async with fake_discord.run_client(client):
        event = await fake_discord.create_event_by_hand(
            w.mod_with_create(), w.guild, **external_fields()
        )
        await fake_discord.mark_interested(w.ana, event)
        await asyncio.sleep(0.2)
        assert seen.events == []


def external_fields() -> dict[str, Any]:
    return {
        "name": "Night",
        "scheduled_start_time": soon(),
        "scheduled_end_time": soon(3),
        "entity_type": 3,
        "entity_metadata": {"location": "Kitchen"},
    }


def external_body(**changes: Any) -> dict[str, Any]:
    body = {
        "name": "Night",
        "privacy_level": 2,
        "scheduled_start_time": soon().isoformat(),
        "scheduled_end_time": soon(3).isoformat(),
        "entity_type": 3,
        "entity_metadata": {"location": "Kitchen"},
    }
    body.update(changes)
    return body


async def test_a_moderator_edits_and_deletes_the_event_by_hand(fake_discord: FakeDiscord) -> None:
    w = world(fake_discord)
    client, seen = event_client()
    async with fake_discord.run_client(client):
        guild, event = await bots_event(client, w, end_time=soon(3))
        fake = fake_discord.scheduled_event(event.id)
        later = soon(24)
        await fake_discord.edit_event_by_hand(
            w.mod, fake, scheduled_start_time=later, scheduled_end_time=later + timedelta(hours=2)
        )
        await wait_seen(fake_discord, seen, "update")
        _, (before, after) = next(e for e in seen.events if e[0] == "update")
        assert before.start_time < after.start_time
        assert abs(after.start_time.timestamp() - later.timestamp()) < 1e-3
        # Ana may not: no Manage Events, not the creator (a person's refusal is an ApiError).
        with pytest.raises(ApiError) as refused:
            await fake_discord.edit_event_by_hand(w.ana, fake, name="Mine")
        assert refused.value.body["code"] == 50013
        await fake_discord.delete_event_by_hand(w.mod, fake)
        await wait_seen(fake_discord, seen, "delete")
        assert guild.get_scheduled_event(event.id) is None


class Api:
    """Raw REST calls with the bot's token, for what discord.py 2.7 does not send."""

    def __init__(self, fake: FakeDiscord, session: aiohttp.ClientSession, guild: FakeGuild) -> None:
        self.session = session
        self.base = f"{fake.api_base}/guilds/{guild.id}/scheduled-events"

    async def call(
        self, method: str, path: str = "", body: object = None, query: dict[str, str] | None = None
    ) -> tuple[int, Any]:
        async with self.session.request(
            method, self.base + path, json=body, params=query, headers={"Authorization": "Bot t"}
        ) as resp:
            return resp.status, (await resp.json() if resp.status != 204 else None)


@pytest.fixture
async def rest(fake_discord: FakeDiscord) -> AsyncIterator[tuple[World, Api]]:
    w = world(fake_discord)
    async with aiohttp.ClientSession() as session:
        yield w, Api(fake_discord, session, w.guild)


def form_errors(body: Any, *path: str) -> list[str]:
    assert body["code"] == 50035, body
    node = body["errors"]
    for part in path:
        node = node[part]
    return [e["code"] for e in node["_errors"]]


async def test_a_weekly_recurrence_rule_is_taken_on_the_raw_route(
    rest: tuple[World, Api],
) -> None:
    _w, api = rest
    start = soon(30)
    rule = {
        "start": start.isoformat(),
        "frequency": 2,
        "interval": 1,
        "by_weekday": [start.weekday()],
    }
    status, made = await api.call("POST", body=external_body(recurrence_rule=rule))
    assert status == 200 and made["recurrence_rule"] == rule
    biweekly = dict(rule, interval=2)
    status, _ = await api.call("PATCH", f"/{made['id']}", {"recurrence_rule": biweekly})
    assert status == 200


@pytest.mark.parametrize(
    ("rule", "field_name"),
    [
        ({"frequency": 2}, "start"),
        ({"start": "2099-01-01T20:00:00+00:00", "frequency": 9}, "frequency"),
        (
            {"start": "2099-01-01T20:00:00+00:00", "frequency": 2, "by_weekday": [1, 2]},
            "by_weekday",
        ),
        ({"start": "2099-01-01T20:00:00+00:00", "frequency": 3, "interval": 2}, "interval"),
        ({"start": "2099-01-01T20:00:00+00:00", "frequency": 2, "count": 4}, "count"),
        (
            {"start": "2099-01-01T20:00:00+00:00", "frequency": 3, "by_weekday": [0, 2]},
            "by_weekday",
        ),
    ],
)
async def test_recurrence_rules_discord_refuses(
    rest: tuple[World, Api], rule: dict[str, Any], field_name: str
) -> None:
    _w, api = rest
    status, body = await api.call("POST", body=external_body(recurrence_rule=rule))
    assert status == 400 and form_errors(body, "recurrence_rule", field_name)


@pytest.mark.parametrize(
    ("changes", "path", "code"),
    [
        ({"name": None}, ("name",), "BASE_TYPE_REQUIRED"),
        ({"name": "x" * 101}, ("name",), "BASE_TYPE_MAX_LENGTH"),
        ({"privacy_level": 1}, ("privacy_level",), "ENUM_TYPE_COERCE"),
        ({"entity_type": 7}, ("entity_type",), "ENUM_TYPE_COERCE"),
        ({"description": "d" * 1001}, ("description",), "BASE_TYPE_MAX_LENGTH"),
        ({"scheduled_start_time": "tomorrow"}, ("scheduled_start_time",), "DATE_TIME_TYPE_PARSE"),
        (
            {"scheduled_start_time": (datetime.now(UTC) - timedelta(minutes=1)).isoformat()},
            ("scheduled_start_time",),
            "GUILD_SCHEDULED_EVENT_SCHEDULE_PAST",
        ),
        (
            {"scheduled_end_time": datetime.now(UTC).isoformat()},
            ("scheduled_end_time",),
            "GUILD_SCHEDULED_EVENT_END_BEFORE_START",
        ),
        ({"scheduled_end_time": None}, ("scheduled_end_time",), "BASE_TYPE_REQUIRED"),
        ({"entity_metadata": {}}, ("entity_metadata", "location"), "BASE_TYPE_REQUIRED"),
        (
            {"entity_metadata": {"location": "l" * 101}},
            ("entity_metadata", "location"),
            "BASE_TYPE_MAX_LENGTH",
        ),
        ({"entity_type": 2}, ("channel_id",), "BASE_TYPE_REQUIRED"),
    ],
)
async def test_bad_fields_are_refused_with_50035(
    rest: tuple[World, Api], changes: dict[str, Any], path: tuple[str, ...], code: str
) -> None:
    w, api = rest
    status, body = await api.call("POST", body=external_body(**changes))
    assert status == 400 and code in form_errors(body, *path)
    assert w.fake.events_of(w.guild) == []


async def test_a_voice_event_needs_a_voice_channel_and_connect(rest: tuple[World, Api]) -> None:
    w, api = rest
    text = w.guild.channels[0]
    voice = w.fake.add_voice_channel(w.guild, "Lounge")
    body = external_body(entity_type=2, channel_id=str(text.id), entity_metadata=None)
    status, refused = await api.call("POST", body=body)
    assert status == 400 and form_errors(refused, "channel_id") == ["CHANNEL_TYPE_INVALID"]
    body["channel_id"] = str(voice.id)
    status, made = await api.call("POST", body=body)
    assert status == 200 and made["channel_id"] == str(voice.id) and made["entity_metadata"] is None
    w.guild.members[w.fake.bot_user.id].permissions_override = CREATE_EVENTS  # no View, no Connect
    status, refused = await api.call("POST", body=body)
    assert status == 403 and refused["code"] == 50013


async def test_manage_events_alone_no_longer_creates(fake_discord: FakeDiscord) -> None:
    w = world(fake_discord, bot_permissions=EVERYTHING_BUT_EVENTS | MANAGE_EVENTS)
    client, _seen = event_client()
    async with fake_discord.run_client(client):
        with pytest.raises(discord.Forbidden) as refused:
            await bots_event(client, w)
        assert refused.value.code == 50013
        assert fake_discord.events_of(w.guild) == []


async def test_status_changes_discord_allows_and_refuses(rest: tuple[World, Api]) -> None:
    _w, api = rest

    async def new() -> str:
        status, made = await api.call("POST", body=external_body())
        assert status == 200
        return str(made["id"])

    first = await new()
    status, body = await api.call("PATCH", f"/{first}", {"status": 3})  # SCHEDULED → COMPLETED
    assert status == 400 and form_errors(body, "status")
    assert (await api.call("PATCH", f"/{first}", {"status": 2}))[0] == 200
    status, body = await api.call("PATCH", f"/{first}", {"status": 4})  # ACTIVE → CANCELED
    assert status == 400 and form_errors(body, "status")
    status, body = await api.call("PATCH", f"/{first}", {"status": 1})  # ACTIVE → SCHEDULED
    assert status == 400
    assert (await api.call("PATCH", f"/{first}", {"status": 3}))[0] == 200
    status, body = await api.call("PATCH", f"/{first}", {"name": "again"})
    assert status == 400 and body["code"] == 180000

    second = await new()
    status, cancelled = await api.call("PATCH", f"/{second}", {"status": 4})
    assert status == 200 and cancelled["status"] == 4
    status, body = await api.call("PATCH", f"/{second}", {"status": 2})
    assert status == 400 and body["code"] == 180000
    status, one = await api.call("GET", f"/{second}")
    assert status == 200 and one["status"] == 4  # still readable by its id


async def test_the_creator_edits_with_create_events_others_need_manage(
    rest: tuple[World, Api],
) -> None:
    w, api = rest
    theirs = await w.fake.create_event_by_hand(w.mod_with_create(), w.guild, **external_fields())
    status, body = await api.call("PATCH", f"/{theirs.id}", {"name": "Ours"})
    assert status == 403 and body["code"] == 50013
    status, _ = await api.call("DELETE", f"/{theirs.id}")
    assert status == 403
    status, mine = await api.call("POST", body=external_body())
    assert (await api.call("PATCH", f"/{mine['id']}", {"name": "Mine"}))[0] == 200
    assert (await api.call("DELETE", f"/{mine['id']}"))[0] == 204
    status, body = await api.call("DELETE", f"/{mine['id']}")
    assert status == 404 and body["code"] == 10070


async def test_an_active_external_event_completes_at_its_end(fake_discord: FakeDiscord) -> None:
    w = world(fake_discord)
    client, seen = event_client()
    async with fake_discord.run_client(client):
        event = await fake_discord.create_event_by_hand(
            w.mod_with_create(), w.guild, **external_fields()
        )
        await wait_seen(fake_discord, seen, "create")
        await fake_discord.edit_event_by_hand(w.mod, event, status=2)
        await fake_discord.advance_clock(2 * 3600)
        assert event.status == 2
        await fake_discord.advance_clock(2 * 3600)
        assert event.status == 3
        await wait_seen(fake_discord, seen, "update", 2)
        assert event.id not in w.guild.scheduled_events
        with pytest.raises(LookupError):
            await fake_discord.mark_interested(w.ana, event)


async def test_events_come_with_the_guild_on_connect(fake_discord: FakeDiscord) -> None:
    w = world(fake_discord)
    made: FakeScheduledEvent = fake_discord.create_scheduled_event(w.guild, w.mod, external_body())
    await fake_discord.mark_interested(w.ana, made)
    client, _seen = event_client()
    async with fake_discord.run_client(client):
        guild = client.get_guild(w.guild.id)
        assert guild is not None
        cached = guild.get_scheduled_event(made.id)
        assert cached is not None and cached.name == "Night" and cached.creator_id == w.mod.id


async def test_discord_py_drops_a_user_add_for_a_user_it_has_not_cached(
    fake_discord: FakeDiscord,
) -> None:
    """Without the members intent discord.py caches no other member, so it drops
    GUILD_SCHEDULED_EVENT_USER_ADD (the raw event still arrives on the socket): a bot on the
    guilds intent alone reads the interested list with ``event.users()``."""
    w = world(fake_discord)
    client, seen = event_client(members=False)
    async with fake_discord.run_client(client):
        event = await fake_discord.create_event_by_hand(
            w.mod_with_create(), w.guild, **external_fields()
        )
        await wait_seen(fake_discord, seen, "create")
        await fake_discord.mark_interested(w.ana, event)
        session = fake_discord.active_session()
        assert session is not None
        await fake_discord.wait_for(
            lambda: any(f["t"] == "GUILD_SCHEDULED_EVENT_USER_ADD" for f in session.sent)
        )
        assert "user_add" not in seen.names()
        guild = client.get_guild(w.guild.id)
        assert guild is not None
        cached = guild.get_scheduled_event(event.id)
        assert cached is not None
        assert [u.id async for u in cached.users(limit=10)] == [w.ana.id]
