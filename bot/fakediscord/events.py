"""Guild scheduled events in the fake Discord: the REST routes, the gateway events, and
members and moderators acting on an event by hand.

As Discord has them (``/guilds/{guild_id}/scheduled-events``):

- create (``POST``): the bot needs Create Events (``1 << 44``; since February 2026 Manage
  Events alone no longer does) → 403 50013 otherwise, and View Channel + Connect for a
  voice or stage event; the body is checked by
  :func:`~.validation.check_scheduled_event` (name, privacy level 2, a start that is not in
  the past, an end after it, an external event's location and end, a voice or stage
  event's channel, the recurrence rule's limits) → 400 50035;
- modify (``PATCH``): Manage Events, or Create Events for an event the bot created; the
  status changes SCHEDULED → ACTIVE → COMPLETED and SCHEDULED → CANCELED, and no other
  (50035); a COMPLETED or CANCELED event cannot change at all (400 180000);
- delete, get one, list (``with_user_count`` adds ``user_count``), and the users who marked
  themselves interested (``GET .../users``: ``limit`` 1-100, default 100, ``before`` /
  ``after`` a user id, ascending by user id, ``with_member`` adds the member);
- gateway: GUILD_SCHEDULED_EVENT_CREATE / UPDATE / DELETE / USER_ADD / USER_REMOVE, only to
  sessions with the GUILD_SCHEDULED_EVENTS intent (``1 << 16``); GUILD_CREATE lists the
  guild's events.

An ended event (COMPLETED, CANCELED) leaves the guild's list but stays readable by its id.
An ACTIVE external event is completed at its end time (on the fake's clock, see
:mod:`~.wallclock`), as Discord does.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field
from types import EllipsisType
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .api import PAYLOAD, ApiError, json_response, no_content
from .models import VIEW_CHANNEL, FakeChannel, FakeGuild, FakeMember, FakeUser, iso
from .validation import (
    ACTIVE,
    CANCELED,
    COMPLETED,
    EXTERNAL,
    SCHEDULED,
    STAGE_INSTANCE,
    VOICE,
    check_scheduled_event,
    parse_time,
)

INTENT_GUILD_SCHEDULED_EVENTS = 1 << 16
MANAGE_EVENTS = 1 << 33
CREATE_EVENTS = 1 << 44
CONNECT = 1 << 20
ENDED = (COMPLETED, CANCELED)

__all__ = [
    "ACTIVE",
    "CANCELED",
    "COMPLETED",
    "CREATE_EVENTS",
    "EXTERNAL",
    "INTENT_GUILD_SCHEDULED_EVENTS",
    "MANAGE_EVENTS",
    "SCHEDULED",
    "STAGE_INSTANCE",
    "VOICE",
    "EventsMixin",
    "FakeScheduledEvent",
]


@dataclass(eq=False)
class FakeScheduledEvent:
    """One guild scheduled event and who is interested in it."""

    id: int
    guild: FakeGuild
    creator: FakeUser
    name: str
    scheduled_start_time: float
    entity_type: int
    scheduled_end_time: float | None = None
    description: str | None = None
    channel_id: int | None = None
    location: str | None = None
    status: int = SCHEDULED
    privacy_level: int = 2
    recurrence_rule: dict[str, Any] | None = None
    image: str | None = None
    #: The members marked interested, by user id.
    interested: dict[int, FakeUser] = field(default_factory=dict)

    @property
    def user_count(self) -> int:
        return len(self.interested)

    @property
    def ended(self) -> bool:
        return self.status in ENDED

    def to_json(self, *, with_user_count: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "guild_id": str(self.guild.id),
            "channel_id": str(self.channel_id) if self.channel_id else None,
            "creator_id": str(self.creator.id),
            "creator": self.creator.to_json(),
            "name": self.name,
            "description": self.description,
            "scheduled_start_time": iso(self.scheduled_start_time),
            "scheduled_end_time": iso(self.scheduled_end_time),
            "privacy_level": self.privacy_level,
            "status": self.status,
            "entity_type": self.entity_type,
            "entity_id": None,
            "entity_metadata": {"location": self.location}
            if self.entity_type == EXTERNAL
            else None,
            "image": self.image,
            "recurrence_rule": self.recurrence_rule,
        }
        if with_user_count:
            data["user_count"] = self.user_count
        return data

    def state(self) -> dict[str, Any]:
        """Everything of the event as plain JSON (the sandbox keeps it across restarts)."""
        data = self.fields()
        data["interested"] = sorted(self.interested)
        data["start"], data["end"] = self.scheduled_start_time, self.scheduled_end_time
        return data

    @classmethod
    def from_state(
        cls, data: dict[str, Any], guild: FakeGuild, users: dict[int, FakeUser]
    ) -> FakeScheduledEvent | None:
        creator = users.get(int(data["creator_id"]))
        if creator is None:
            return None
        metadata = data.get("entity_metadata") or {}
        return cls(
            id=int(data["id"]),
            guild=guild,
            creator=creator,
            name=data["name"],
            scheduled_start_time=float(data["start"]),
            scheduled_end_time=None if data.get("end") is None else float(data["end"]),
            entity_type=int(data["entity_type"]),
            description=data.get("description"),
            channel_id=data.get("channel_id"),
            location=metadata.get("location"),
            status=int(data["status"]),
            recurrence_rule=data.get("recurrence_rule"),
            image=data.get("image"),
            interested={u: users[u] for u in data.get("interested") or [] if u in users},
        )

    def fields(self) -> dict[str, Any]:
        """The event as a modify body would name it (what check_scheduled_event merges)."""
        data = self.to_json()
        data["channel_id"] = self.channel_id
        return data

    def __repr__(self) -> str:
        return f"<FakeScheduledEvent {self.name!r} id={self.id} status={self.status}>"


def _as_body(fields: dict[str, Any]) -> dict[str, Any]:
    """A body as Discord's client sends it: datetimes as ISO 8601."""
    return {k: (iso(v.timestamp()) if isinstance(v, dt.datetime) else v) for k, v in fields.items()}


def _flag(value: str | None) -> bool:
    return (value or "").lower() in ("1", "true")


class EventsMixin:
    """Guild scheduled events of :class:`~.server.FakeDiscordServer` (module docstring)."""

    bot_user: FakeUser
    guilds: dict[int, FakeGuild]
    channels: dict[int, FakeChannel]
    scheduled_events: dict[int, FakeScheduledEvent]

    if TYPE_CHECKING:

        def snowflake(self) -> int: ...

        def discord_now(self) -> float: ...

        async def broadcast(
            self,
            event: str,
            data: dict[str, Any],
            *,
            intent: int = 0,
            guild_id: int | EllipsisType | None = ...,
        ) -> None: ...

        def _require_bot_auth(self, request: web.Request) -> None: ...

        def _guild(self, request: web.Request) -> FakeGuild: ...

    # ------------------------------------------------------------------ routes

    def _add_event_routes(self, app: web.Application, api: str) -> None:
        r = app.router
        base = api + "/guilds/{guild_id}/scheduled-events"
        one = base + "/{guild_scheduled_event_id:\\d+}"
        r.add_get(base, self._list_scheduled_events)
        r.add_post(base, self._create_scheduled_event)
        r.add_get(one, self._get_scheduled_event)
        r.add_patch(one, self._modify_scheduled_event)
        r.add_delete(one, self._delete_scheduled_event)
        r.add_get(one + "/users", self._get_scheduled_event_users)

    def _event(self, request: web.Request, guild: FakeGuild) -> FakeScheduledEvent:
        try:
            event = self.scheduled_events[int(request.match_info["guild_scheduled_event_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 10070, "Unknown Guild Scheduled Event") from None
        if event.guild is not guild:
            raise ApiError(404, 10070, "Unknown Guild Scheduled Event")
        return event

    def _bot_member(self, guild: FakeGuild) -> FakeMember:
        return guild.members[self.bot_user.id]

    async def _list_scheduled_events(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        guild = self._guild(request)
        counted = _flag(request.query.get("with_user_count"))
        return json_response(
            [e.to_json(with_user_count=counted) for e in self.events_of(guild) if not e.ended]
        )

    async def _get_scheduled_event(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        guild = self._guild(request)
        event = self._event(request, guild)
        counted = _flag(request.query.get("with_user_count"))
        return json_response(event.to_json(with_user_count=counted))

    async def _create_scheduled_event(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        guild = self._guild(request)
        payload = request[PAYLOAD]
        self._check_event_permissions(self._bot_member(guild), payload, None)
        event = self.create_scheduled_event(guild, self.bot_user, payload)
        await self._announce_event("GUILD_SCHEDULED_EVENT_CREATE", event)
        return json_response(event.to_json())

    async def _modify_scheduled_event(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        guild = self._guild(request)
        event = self._event(request, guild)
        payload = request[PAYLOAD]
        self._check_event_permissions(self._bot_member(guild), payload, event)
        self.modify_scheduled_event(event, payload)
        await self._announce_event("GUILD_SCHEDULED_EVENT_UPDATE", event)
        return json_response(event.to_json())

    async def _delete_scheduled_event(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        guild = self._guild(request)
        event = self._event(request, guild)
        self._check_event_permissions(self._bot_member(guild), {}, event)
        await self._remove_event(event)
        return no_content()

    async def _get_scheduled_event_users(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        guild = self._guild(request)
        event = self._event(request, guild)
        q = request.query
        try:
            limit = int(q.get("limit", 100))
            before = int(q["before"]) if q.get("before") else None
            after = int(q["after"]) if q.get("after") else None
        except ValueError:
            raise ApiError.form("limit", "NUMBER_TYPE_COERCE", "Value is not int.") from None
        if not 1 <= limit <= 100:
            raise ApiError.form(
                "limit", "NUMBER_TYPE_MAX", "int value should be between 1 and 100."
            )
        users = sorted(event.interested.values(), key=lambda u: u.id)
        if before is not None:  # before wins over after, as on Discord
            users = [u for u in users if u.id < before][-limit:]
        else:
            users = [u for u in users if after is None or u.id > after][:limit]
        with_member = _flag(q.get("with_member"))
        out = []
        for user in users:
            entry: dict[str, Any] = {
                "guild_scheduled_event_id": str(event.id),
                "user_id": str(user.id),
                "user": user.to_json(),
            }
            member = guild.members.get(user.id)
            if with_member and member is not None:
                entry["member"] = member.to_json(with_user=False)
            out.append(entry)
        return json_response(out)

    # ------------------------------------------------------------------ state

    def events_of(self, guild: FakeGuild) -> list[FakeScheduledEvent]:
        """Every event of a guild, ended ones too, oldest first."""
        return sorted(
            (e for e in self.scheduled_events.values() if e.guild is guild), key=lambda e: e.id
        )

    def scheduled_event(self, event_id: int | str) -> FakeScheduledEvent:
        return self.scheduled_events[int(event_id)]

    def _check_event_permissions(
        self, member: FakeMember, payload: object, event: FakeScheduledEvent | None
    ) -> None:
        perms = member.permissions
        if event is None:
            allowed = bool(perms & CREATE_EVENTS)
        else:
            allowed = bool(perms & MANAGE_EVENTS) or (
                bool(perms & CREATE_EVENTS) and event.creator.id == member.id
            )
        body = payload if isinstance(payload, dict) else {}
        entity_type = body.get("entity_type", event.entity_type if event else None)
        if allowed and entity_type in (STAGE_INSTANCE, VOICE):
            needed = VIEW_CHANNEL | CONNECT
            allowed = perms & needed == needed
        if not allowed:
            raise ApiError(403, 50013, "Missing Permissions")

    def _channel_types(self, guild: FakeGuild) -> dict[int, int]:
        return {c.id: c.type for c in guild.channels}

    def create_scheduled_event(
        self, guild: FakeGuild, creator: FakeUser, payload: object
    ) -> FakeScheduledEvent:
        """A new SCHEDULED event from a create body (ApiError 50035 if Discord refuses it)."""
        problem = check_scheduled_event(
            payload, now=self.discord_now(), channel_types=self._channel_types(guild)
        )
        if problem:
            raise ApiError.from_problem(problem)
        assert isinstance(payload, dict)
        start = parse_time(payload["scheduled_start_time"])
        assert start is not None
        event = FakeScheduledEvent(
            id=self.snowflake(),
            guild=guild,
            creator=creator,
            name=payload["name"],
            scheduled_start_time=start,
            entity_type=int(payload["entity_type"]),
        )
        self._apply_event_fields(event, payload)
        self.scheduled_events[event.id] = event
        guild.scheduled_events[event.id] = event
        return event

    def modify_scheduled_event(self, event: FakeScheduledEvent, payload: object) -> None:
        """Apply a modify body (ApiError 180000 for an ended event, 50035 if refused)."""
        if event.ended:
            raise ApiError(400, 180000, "Cannot update a finished event")
        problem = check_scheduled_event(
            payload,
            now=self.discord_now(),
            current=event.fields(),
            channel_types=self._channel_types(event.guild),
        )
        if problem:
            raise ApiError.from_problem(problem)
        assert isinstance(payload, dict)
        self._apply_event_fields(event, payload)
        if "status" in payload and payload["status"] is not None:
            event.status = int(payload["status"])
        if event.ended:
            event.guild.scheduled_events.pop(event.id, None)

    @staticmethod
    def _apply_event_fields(event: FakeScheduledEvent, payload: dict[str, Any]) -> None:
        if payload.get("name") is not None:
            event.name = payload["name"]
        if "description" in payload:
            event.description = payload["description"]
        if payload.get("scheduled_start_time") is not None:
            event.scheduled_start_time = parse_time(payload["scheduled_start_time"]) or 0.0
        if "scheduled_end_time" in payload:
            event.scheduled_end_time = parse_time(payload["scheduled_end_time"])
        if payload.get("entity_type") is not None:
            event.entity_type = int(payload["entity_type"])
        if event.entity_type == EXTERNAL:
            event.channel_id = None
            if payload.get("entity_metadata"):
                event.location = payload["entity_metadata"].get("location")
        else:
            event.location = None
            if payload.get("channel_id") is not None:
                event.channel_id = int(payload["channel_id"])
        if "recurrence_rule" in payload:
            event.recurrence_rule = payload["recurrence_rule"]
        if "image" in payload:
            event.image = None if payload["image"] is None else f"{event.id:x}"

    async def _announce_event(self, name: str, event: FakeScheduledEvent) -> None:
        await self.broadcast(
            name, event.to_json(), intent=INTENT_GUILD_SCHEDULED_EVENTS, guild_id=event.guild.id
        )

    async def _remove_event(self, event: FakeScheduledEvent) -> None:
        self.scheduled_events.pop(event.id, None)
        event.guild.scheduled_events.pop(event.id, None)
        await self._announce_event("GUILD_SCHEDULED_EVENT_DELETE", event)

    async def complete_due_events(self) -> list[FakeScheduledEvent]:
        """Complete the ACTIVE external events whose end time passed (Discord does so)."""
        now = self.discord_now()
        done = [
            e
            for e in self.scheduled_events.values()
            if e.status == ACTIVE
            and e.entity_type == EXTERNAL
            and e.scheduled_end_time is not None
            and e.scheduled_end_time <= now
        ]
        for event in done:
            event.status = COMPLETED
            event.guild.scheduled_events.pop(event.id, None)
            await self._announce_event("GUILD_SCHEDULED_EVENT_UPDATE", event)
        return done

    # ------------------------------------------------------------------ people acting by hand

    def add_voice_channel(self, guild: FakeGuild, name: str, *, stage: bool = False) -> FakeChannel:
        """A voice channel (type 2), or a stage channel (13) with ``stage``, for voice and
        stage events."""
        channel = FakeChannel(
            id=self.snowflake(),
            type=13 if stage else 2,
            name=name,
            guild=guild,
            position=len(guild.channels),
        )
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        return channel

    async def mark_interested(self, user: FakeUser, event: FakeScheduledEvent) -> bool:
        """The member clicks "Interested": USER_ADD, once (False if they already were)."""
        self._check_can_mark(user, event)
        if user.id in event.interested:
            return False
        event.interested[user.id] = user
        await self._announce_event_user("GUILD_SCHEDULED_EVENT_USER_ADD", event, user)
        return True

    async def mark_not_interested(self, user: FakeUser, event: FakeScheduledEvent) -> bool:
        """The member clicks "Interested" again: USER_REMOVE (False if they were not)."""
        self._check_can_mark(user, event)
        if event.interested.pop(user.id, None) is None:
            return False
        await self._announce_event_user("GUILD_SCHEDULED_EVENT_USER_REMOVE", event, user)
        return True

    def _check_can_mark(self, user: FakeUser, event: FakeScheduledEvent) -> None:
        if user.id not in event.guild.members:
            raise PermissionError(f"{user!r} is not a member of {event.guild!r}")
        if event.ended or event.id not in self.scheduled_events:
            raise LookupError(f"{event!r} has ended or was deleted")

    async def _announce_event_user(
        self, name: str, event: FakeScheduledEvent, user: FakeUser
    ) -> None:
        data = {
            "guild_scheduled_event_id": str(event.id),
            "user_id": str(user.id),
            "guild_id": str(event.guild.id),
        }
        await self.broadcast(
            name, data, intent=INTENT_GUILD_SCHEDULED_EVENTS, guild_id=event.guild.id
        )

    async def edit_event_by_hand(
        self, moderator: FakeUser, event: FakeScheduledEvent, **changes: Any
    ) -> FakeScheduledEvent:
        """A moderator edits the event in Discord's client: the same checks as the REST route
        (their permissions, the body), then GUILD_SCHEDULED_EVENT_UPDATE. Times may be given
        as datetimes; an ApiError says why Discord refused."""
        body = _as_body(changes)
        self._check_event_permissions(self._member_of(event.guild, moderator), body, event)
        self.modify_scheduled_event(event, body)
        await self._announce_event("GUILD_SCHEDULED_EVENT_UPDATE", event)
        return event

    async def delete_event_by_hand(self, moderator: FakeUser, event: FakeScheduledEvent) -> None:
        """A moderator deletes the event in Discord's client: GUILD_SCHEDULED_EVENT_DELETE."""
        self._check_event_permissions(self._member_of(event.guild, moderator), {}, event)
        await self._remove_event(event)

    async def create_event_by_hand(
        self, member: FakeUser, guild: FakeGuild, **body: Any
    ) -> FakeScheduledEvent:
        """A member creates an event in Discord's client (Create Events needed)."""
        payload = _as_body(body)
        payload.setdefault("privacy_level", 2)
        self._check_event_permissions(self._member_of(guild, member), payload, None)
        event = self.create_scheduled_event(guild, member, payload)
        await self._announce_event("GUILD_SCHEDULED_EVENT_CREATE", event)
        return event

    @staticmethod
    def _member_of(guild: FakeGuild, user: FakeUser) -> FakeMember:
        try:
            return guild.members[user.id]
        except KeyError:
            raise PermissionError(f"{user!r} is not a member of {guild!r}") from None

    def interested_users(self, event: FakeScheduledEvent) -> Sequence[FakeUser]:
        return sorted(event.interested.values(), key=lambda u: u.id)
