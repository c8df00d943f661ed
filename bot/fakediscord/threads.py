"""Threads of the fake Discord, as Discord has them.

A thread is a :class:`~.models.FakeChannel` of type 11 (public, started from a message: its
id is the message's) or 12 (private, started without one) under a text channel. It has its
own channel id, so its own per-channel rate-limit buckets; its members; its
``thread_metadata`` (archived, locked, auto-archive duration and archive timestamp). Threads
archive themselves after ``auto_archive_duration`` minutes without activity (a message,
unarchiving, a new duration) on the fake's wall clock (:meth:`ThreadsMixin.discord_now`).

What Discord refuses, the fake refuses the same way:

- 50013 Missing Permissions without CREATE_PUBLIC_THREADS (CREATE_PRIVATE_THREADS) to start
  one, SEND_MESSAGES_IN_THREADS to post or add a member in one (SEND_MESSAGES has no effect
  in a thread), MANAGE_THREADS to delete, lock or edit another's thread;
- 160004 a thread was already started from that message; 50024 a thread from a message in a
  thread or a DM;
- 50083 posting in an archived thread that is locked, editing, reacting or adding members in
  an archived thread (posting in an archived unlocked one unarchives it); 160005 posting in
  a locked thread without MANAGE_THREADS;
- 50035 a bad name (1-100 characters), ``auto_archive_duration`` (60, 1440, 4320, 10080) or
  ``rate_limit_per_user`` (0-21600);
- 10003 Unknown Channel once the thread is deleted.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from types import EllipsisType
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .api import PAYLOAD, ApiError, json_response, no_content
from .gateway import INTENT_GUILD_MEMBERS, INTENT_GUILDS, GatewaySession
from .models import (
    ANNOUNCEMENT_THREAD,
    CREATE_PRIVATE_THREADS,
    CREATE_PUBLIC_THREADS,
    GUILD_TEXT,
    HAS_THREAD,
    MANAGE_CHANNELS,
    MANAGE_THREADS,
    PRIVATE_THREAD,
    PUBLIC_THREAD,
    READ_MESSAGE_HISTORY,
    SEND_MESSAGES_IN_THREADS,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeThreadMember,
    FakeUser,
    SnowflakeFactory,
    iso,
)
from .validation import check_thread

ANNOUNCEMENT_CHANNEL = 5
ARCHIVED = (50083, "Operation cannot be performed on an archived thread")
LOCKED = (160005, "Thread is locked")
WRONG_CHANNEL_TYPE = (50024, "Cannot execute action on this channel type")


def _refuse(status: int, error: tuple[int, str]) -> ApiError:
    return ApiError(status, error[0], error[1])


class ThreadsMixin:
    """Threads of :class:`~.server.FakeDiscordServer`: state, gateway events, REST routes."""

    snowflake: SnowflakeFactory
    bot_user: FakeUser
    users: dict[int, FakeUser]
    guilds: dict[int, FakeGuild]
    channels: dict[int, FakeChannel]
    messages: dict[int, FakeMessage]
    sessions: list[GatewaySession]
    #: Seconds added to the real time to make the fake's wall clock (``advance_clock``).
    clock_offset: float = 0.0
    #: Whether a message whose thread was deleted may start one again (Discord's docs do not
    #: say; False answers 160004 as if the deleted thread were still there).
    thread_again_after_delete: bool = True

    if TYPE_CHECKING:

        async def broadcast(
            self,
            event: str,
            data: dict[str, Any],
            *,
            intent: int = 0,
            guild_id: int | EllipsisType | None = ...,
        ) -> None: ...

        def sessions_for(self, guild: FakeGuild | int | None) -> list[GatewaySession]: ...

        def _require_bot_auth(self, request: web.Request) -> None: ...

        def _channel(self, request: web.Request) -> FakeChannel: ...

        def _guild(self, request: web.Request) -> FakeGuild: ...

        def _channel_message(self, request: web.Request, channel: FakeChannel) -> FakeMessage: ...

        async def _announce_update(self, msg: FakeMessage) -> None: ...

    # ------------------------------------------------------------------ time

    #: A clock (anything with ``now()`` giving an aware datetime, as ``bot.clock``'s) the
    #: fake's wall clock follows instead of the real time (``follow_clock``).
    wall_clock: Any = None

    def discord_now(self) -> float:
        """Discord's wall clock (epoch seconds): message times, thread activity and archiving.
        The real time (or the clock given to ``follow_clock``) plus ``clock_offset``; the
        sandbox follows its own clock."""
        base = time.time() if self.wall_clock is None else self.wall_clock.now().timestamp()
        return base + self.clock_offset

    def follow_clock(self, clock: Any) -> None:
        """Make the fake's wall clock the bot's (a test's ``FakeClock``): moving it moves
        Discord's time too, and idle threads archive at the next request or user action."""
        self.wall_clock = clock

    async def sweep_threads(self) -> list[FakeChannel]:
        """Archive the threads idle for their ``auto_archive_duration`` (THREAD_UPDATE each),
        as Discord does on its own; returns them. Run before every request and user action."""
        now = self.discord_now()
        archived = []
        for guild in self.guilds.values():
            for thread in guild.active_threads():
                ends = thread.last_activity + thread.auto_archive_duration * 60
                if now >= ends:
                    thread.archived = True
                    thread.archive_timestamp = ends
                    archived.append(thread)
                    await self._announce_thread("THREAD_UPDATE", thread)
        return archived

    # ------------------------------------------------------------------ permissions

    def bot_permissions(self, channel: FakeChannel) -> int:
        """The bot's permissions in a guild channel or thread (its parent's overwrites)."""
        assert channel.guild is not None
        member = channel.guild.members.get(self.bot_user.id)
        return 0 if member is None else member.permissions_in(channel)

    def _require(self, channel: FakeChannel, needed: int) -> None:
        have = self.bot_permissions(channel)
        if not have & VIEW_CHANNEL:
            raise ApiError(403, 50001, "Missing Access")
        if have & needed != needed:
            raise ApiError(403, 50013, "Missing Permissions")

    def _check_thread_send(self, thread: FakeChannel) -> bool:
        """Whether the bot may post in ``thread`` (raises Discord's refusal otherwise);
        True when the post unarchives it first."""
        self._require(thread, SEND_MESSAGES_IN_THREADS)
        if thread.type == PRIVATE_THREAD and not self._bot_sees(thread):
            raise ApiError(403, 50001, "Missing Access")
        moderator = bool(self.bot_permissions(thread) & MANAGE_THREADS)
        if thread.locked and not moderator:
            raise _refuse(400, ARCHIVED if thread.archived else LOCKED)
        return thread.archived

    def _check_thread_active(self, channel: FakeChannel) -> None:
        """Edits, reactions and members need an active thread (50083 otherwise)."""
        if channel.is_thread and channel.archived:
            raise _refuse(400, ARCHIVED)

    def _bot_sees(self, thread: FakeChannel) -> bool:
        if thread.type != PRIVATE_THREAD:
            return True
        return self.bot_user.id in thread.members or bool(
            self.bot_permissions(thread) & MANAGE_THREADS
        )

    # ------------------------------------------------------------------ state

    def new_thread(
        self,
        parent: FakeChannel,
        name: str,
        owner: FakeUser,
        *,
        starter: FakeMessage | None = None,
        type: int = PUBLIC_THREAD,
        auto_archive_duration: int = 1440,
        rate_limit_per_user: int = 0,
        invitable: bool = True,
    ) -> FakeChannel:
        """Make the thread (no event): from ``starter`` it takes the message's id."""
        assert parent.guild is not None
        now = self.discord_now()
        thread = FakeChannel(
            id=starter.id if starter is not None else self.snowflake(),
            type=type,
            name=name,
            guild=parent.guild,
            parent_id=parent.id,
            owner_id=owner.id,
            auto_archive_duration=auto_archive_duration,
            rate_limit_per_user=rate_limit_per_user,
            invitable=invitable,
            archive_timestamp=now,
            create_timestamp=now,
            last_activity=now,
            starter=starter,
        )
        thread.members[owner.id] = FakeThreadMember(owner.id, now)
        parent.guild.threads.append(thread)
        self.channels[thread.id] = thread
        if starter is not None:
            starter.thread = thread
            starter.flags |= HAS_THREAD
        return thread

    def threads(
        self, channel: FakeChannel | None = None, *, include_archived: bool = True
    ) -> list[FakeChannel]:
        """Threads not deleted (of one parent channel), oldest first."""
        return [
            t
            for g in self.guilds.values()
            for t in g.threads
            if not t.deleted
            and (channel is None or t.parent_id == channel.id)
            and (include_archived or not t.archived)
        ]

    def thread_of(self, message: FakeMessage) -> FakeChannel | None:
        """The thread started from ``message``, unless it was deleted."""
        thread = message.thread
        return None if thread is None or thread.deleted else thread

    def _thread_json(self, thread: FakeChannel) -> dict[str, Any]:
        return thread.to_json(bot=self.bot_user)

    def _member_json(
        self, thread: FakeChannel, user_id: int, *, with_member: bool
    ) -> dict[str, Any]:
        data = thread.members[user_id].to_json(thread.id)
        guild = thread.guild
        if with_member and guild is not None and user_id in guild.members:
            data["member"] = guild.members[user_id].to_json()
            data["presence"] = None
        return data

    def _thread_posted(self, msg: FakeMessage, notified: list[int]) -> list[int]:
        """A message in a thread: counted, the thread active; its author (not a webhook)
        and the members it pinged join the thread. Returns who joined."""
        thread = msg.channel
        now = self.discord_now()
        thread.message_count += 1
        thread.total_message_sent += 1
        thread.last_activity = now
        joined = []
        guild = thread.guild
        candidates = [] if msg.webhook_id is not None else [msg.author.id]
        candidates += notified
        for user_id in candidates:
            if user_id not in thread.members and guild is not None and user_id in guild.members:
                thread.members[user_id] = FakeThreadMember(user_id, now)
                joined.append(user_id)
        return joined

    def _thread_message_deleted(self, msg: FakeMessage) -> None:
        thread = msg.channel
        if thread.is_thread and not msg.ephemeral:
            thread.message_count = max(0, thread.message_count - 1)

    async def set_archived(
        self, thread: FakeChannel, archived: bool, *, locked: bool | None = None
    ) -> None:
        """Archive or unarchive (and lock or unlock) a thread, with THREAD_UPDATE; unarchiving
        is activity, and its members get THREAD_MEMBER_UPDATE, as on Discord."""
        changed = thread.archived != archived
        thread.archived = archived
        if locked is not None:
            thread.locked = locked
        if changed:
            thread.archive_timestamp = self.discord_now()
        if not archived:
            thread.last_activity = self.discord_now()
        await self._announce_thread("THREAD_UPDATE", thread)
        if changed and not archived and self.bot_user.id in thread.members:
            data = self._member_json(thread, self.bot_user.id, with_member=False)
            assert thread.guild is not None
            await self.broadcast(
                "THREAD_MEMBER_UPDATE",
                data | {"guild_id": str(thread.guild.id)},
                intent=INTENT_GUILDS,
            )

    async def delete_channel(self, channel: FakeChannel) -> None:
        """Delete a thread (THREAD_DELETE) or a channel and its threads (CHANNEL_DELETE):
        their messages go with them, their ids answer Unknown Channel (10003)."""
        channel.deleted = True
        for msg in self.messages.values():
            if msg.channel is channel:
                msg.deleted = True
        guild = channel.guild
        assert guild is not None
        if channel.is_thread:
            if channel.starter is not None:
                channel.starter.flags &= ~HAS_THREAD
            await self.broadcast(
                "THREAD_DELETE",
                {
                    "id": str(channel.id),
                    "guild_id": str(guild.id),
                    "parent_id": str(channel.parent_id),
                    "type": channel.type,
                },
                intent=INTENT_GUILDS,
            )
            return
        for thread in [t for t in guild.threads if t.parent_id == channel.id]:
            thread.deleted = True
            for msg in self.messages.values():
                if msg.channel is thread:
                    msg.deleted = True
        guild.channels.remove(channel)
        await self.broadcast("CHANNEL_DELETE", channel.to_json(), intent=INTENT_GUILDS)

    async def add_thread_member(self, thread: FakeChannel, user: FakeUser) -> bool:
        """Add a member to a thread (THREAD_MEMBERS_UPDATE); False if it already was one."""
        if user.id in thread.members:
            return False
        thread.members[user.id] = FakeThreadMember(user.id, self.discord_now())
        await self._announce_members(thread, added=[user.id])
        return True

    async def remove_thread_member(self, thread: FakeChannel, user: FakeUser) -> bool:
        if thread.members.pop(user.id, None) is None:
            return False
        await self._announce_members(thread, removed=[user.id])
        return True

    # ------------------------------------------------------------------ gateway

    async def _announce_thread(self, event: str, thread: FakeChannel, **extra: Any) -> None:
        if not self._bot_sees(thread):
            return
        await self.broadcast(event, self._thread_json(thread) | extra, intent=INTENT_GUILDS)

    async def _announce_members(
        self,
        thread: FakeChannel,
        *,
        added: Sequence[int] = (),
        removed: Sequence[int] = (),
    ) -> None:
        """THREAD_MEMBERS_UPDATE: every change with the members intent; without it, only
        the bot's own (Discord always tells the bot it joined or left). The bot added by
        someone also gets THREAD_CREATE, as Discord sends it."""
        guild = thread.guild
        assert guild is not None
        me = self.bot_user.id

        def payload(add: list[int], rem: list[int]) -> dict[str, Any]:
            data: dict[str, Any] = {
                "id": str(thread.id),
                "guild_id": str(guild.id),
                "member_count": min(50, len(thread.members)),
            }
            if add:
                data["added_members"] = [
                    self._member_json(thread, u, with_member=True) for u in add
                ]
            if rem:
                data["removed_member_ids"] = [str(u) for u in rem]
            return data

        full = payload(list(added), list(removed))
        own = payload([u for u in added if u == me], [u for u in removed if u == me])
        for session in self.sessions_for(guild):
            if not session.intents & INTENT_GUILDS:
                continue
            if session.intents & INTENT_GUILD_MEMBERS:
                await session.dispatch("THREAD_MEMBERS_UPDATE", full)
            elif "added_members" in own or "removed_member_ids" in own:
                await session.dispatch("THREAD_MEMBERS_UPDATE", own)

    # ------------------------------------------------------------------ REST: starting

    async def _start_thread_from_message(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        channel = self._channel(request)
        msg = self._channel_message(request, channel)
        if channel.type not in (GUILD_TEXT, ANNOUNCEMENT_CHANNEL):
            raise _refuse(400, WRONG_CHANNEL_TYPE)
        self._require(channel, CREATE_PUBLIC_THREADS | READ_MESSAGE_HISTORY)
        payload = request[PAYLOAD]
        problem = check_thread(payload, creating=True)
        if problem:
            raise ApiError.from_problem(problem)
        deleted_one = msg.thread is not None and not self.thread_again_after_delete
        if self.thread_of(msg) is not None or deleted_one:
            raise ApiError(400, 160004, "A thread has already been created for this message")
        kind = ANNOUNCEMENT_THREAD if channel.type == ANNOUNCEMENT_CHANNEL else PUBLIC_THREAD
        thread = self.new_thread(
            channel,
            payload["name"].strip(),
            self.bot_user,
            starter=msg,
            type=kind,
            auto_archive_duration=payload.get("auto_archive_duration") or 1440,
            rate_limit_per_user=payload.get("rate_limit_per_user") or 0,
        )
        await self._announce_created(thread)
        await self._announce_update(msg)
        return json_response(self._thread_json(thread), status=201)

    async def _start_thread(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        channel = self._channel(request)
        if channel.type not in (GUILD_TEXT, ANNOUNCEMENT_CHANNEL):
            raise _refuse(400, WRONG_CHANNEL_TYPE)
        payload = request[PAYLOAD]
        problem = check_thread(payload, creating=True, with_message=False)
        if problem:
            raise ApiError.from_problem(problem)
        # API v10: without a type, a private thread.
        kind = int(payload.get("type") or PRIVATE_THREAD)
        if kind == PRIVATE_THREAD and channel.type != GUILD_TEXT:
            raise _refuse(400, WRONG_CHANNEL_TYPE)
        if kind == ANNOUNCEMENT_THREAD and channel.type != ANNOUNCEMENT_CHANNEL:
            raise _refuse(400, WRONG_CHANNEL_TYPE)
        needed = CREATE_PRIVATE_THREADS if kind == PRIVATE_THREAD else CREATE_PUBLIC_THREADS
        self._require(channel, needed)
        thread = self.new_thread(
            channel,
            payload["name"].strip(),
            self.bot_user,
            type=kind,
            auto_archive_duration=payload.get("auto_archive_duration") or 1440,
            rate_limit_per_user=payload.get("rate_limit_per_user") or 0,
            invitable=payload.get("invitable", True) is not False,
        )
        await self._announce_created(thread)
        return json_response(self._thread_json(thread), status=201)

    async def _announce_created(self, thread: FakeChannel) -> None:
        await self._announce_thread("THREAD_CREATE", thread, newly_created=True)
        owner = thread.owner_id
        assert owner is not None
        await self._announce_members(thread, added=[owner])

    # ------------------------------------------------------------------ REST: channels

    async def _edit_channel(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        channel = self._channel(request)
        payload = request[PAYLOAD]
        if channel.is_dm:
            raise _refuse(400, WRONG_CHANNEL_TYPE)
        if not channel.is_thread:
            return await self._edit_text_channel(channel, payload)
        problem = check_thread(payload, creating=False)
        if problem:
            raise ApiError.from_problem(problem)
        assert isinstance(payload, dict)
        self._require(channel, 0)
        moderator = bool(self.bot_permissions(channel) & MANAGE_THREADS)
        owner = channel.owner_id == self.bot_user.id
        unarchive = channel.archived and payload.get("archived") is False
        if channel.archived and not unarchive:
            raise _refuse(400, ARCHIVED)
        if unarchive and channel.locked and not moderator:
            raise ApiError(403, 50013, "Missing Permissions")
        if any(k in payload for k in ("locked", "rate_limit_per_user")) and not moderator:
            raise ApiError(403, 50013, "Missing Permissions")
        owners_fields = any(k in payload for k in ("name", "auto_archive_duration", "invitable"))
        if (owners_fields or payload.get("archived") is True) and not (moderator or owner):
            raise ApiError(403, 50013, "Missing Permissions")
        if channel.locked and not moderator and not unarchive:
            raise _refuse(400, LOCKED)
        if payload.get("name") is not None:
            channel.name = payload["name"].strip()
        if payload.get("rate_limit_per_user") is not None:
            channel.rate_limit_per_user = payload["rate_limit_per_user"]
        if payload.get("invitable") is not None:
            channel.invitable = payload["invitable"]
        if payload.get("auto_archive_duration") is not None:
            channel.auto_archive_duration = payload["auto_archive_duration"]
            channel.archive_timestamp = channel.last_activity = self.discord_now()
        if "archived" in payload or "locked" in payload:
            archived = payload.get("archived")
            await self.set_archived(
                channel,
                channel.archived if archived is None else archived,
                locked=payload.get("locked"),
            )
        else:
            await self._announce_thread("THREAD_UPDATE", channel)
        return json_response(self._thread_json(channel))

    async def _edit_text_channel(self, channel: FakeChannel, payload: Any) -> web.Response:
        self._require(channel, MANAGE_CHANNELS)
        if not isinstance(payload, dict):
            raise ApiError(400, 50109, "The request body contains invalid JSON.")
        if payload.get("name") is not None:
            channel.name = str(payload["name"])
        if "topic" in payload:
            channel.topic = payload["topic"]
        if payload.get("rate_limit_per_user") is not None:
            channel.rate_limit_per_user = int(payload["rate_limit_per_user"])
        await self.broadcast("CHANNEL_UPDATE", channel.to_json(), intent=INTENT_GUILDS)
        return json_response(channel.to_json())

    async def _delete_channel_route(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        channel = self._channel(request)
        if channel.is_dm:
            raise _refuse(400, WRONG_CHANNEL_TYPE)
        self._require(channel, MANAGE_THREADS if channel.is_thread else MANAGE_CHANNELS)
        data = self._thread_json(channel) if channel.is_thread else channel.to_json()
        await self.delete_channel(channel)
        return json_response(data)

    # ------------------------------------------------------------------ REST: members

    def _thread(self, request: web.Request) -> FakeChannel:
        channel = self._channel(request)
        if not channel.is_thread:
            raise _refuse(400, WRONG_CHANNEL_TYPE)
        if not self._bot_sees(channel):
            raise ApiError(403, 50001, "Missing Access")
        return channel

    def _member_user(self, request: web.Request, thread: FakeChannel) -> FakeUser:
        raw = request.match_info["user_id"]
        if raw == "@me":
            return self.bot_user
        try:
            user = self.users[int(raw)]
        except (KeyError, ValueError):
            raise ApiError(404, 10013, "Unknown User") from None
        assert thread.guild is not None
        if user.id not in thread.guild.members:
            raise ApiError(404, 10007, "Unknown Member")
        return user

    async def _put_thread_member(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        thread = self._thread(request)
        user = self._member_user(request, thread)
        self._check_thread_active(thread)
        if user is self.bot_user:
            self._require(thread, 0)
            if thread.type == PRIVATE_THREAD and not self._bot_sees(thread):
                raise ApiError(403, 50001, "Missing Access")
        else:
            self._require(thread, SEND_MESSAGES_IN_THREADS)
            moderator = bool(self.bot_permissions(thread) & MANAGE_THREADS)
            if thread.type == PRIVATE_THREAD and not (thread.invitable or moderator):
                raise ApiError(403, 50013, "Missing Permissions")
        await self.add_thread_member(thread, user)
        return no_content()

    async def _delete_thread_member(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        thread = self._thread(request)
        user = self._member_user(request, thread)
        self._check_thread_active(thread)
        if user is not self.bot_user:
            moderator = bool(self.bot_permissions(thread) & MANAGE_THREADS)
            creator = thread.type == PRIVATE_THREAD and thread.owner_id == self.bot_user.id
            if not (moderator or creator):
                raise ApiError(403, 50013, "Missing Permissions")
        await self.remove_thread_member(thread, user)
        return no_content()

    async def _get_thread_members(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        thread = self._thread(request)
        with_member = request.query.get("with_member", "").lower() in ("1", "true")
        ids = sorted(thread.members)
        after = int(request.query.get("after", 0) or 0)
        limit = max(1, min(100, int(request.query.get("limit", 100))))
        ids = [i for i in ids if i > after][:limit] if with_member else ids
        return json_response([self._member_json(thread, i, with_member=with_member) for i in ids])

    async def _get_thread_member(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        thread = self._thread(request)
        user = self._member_user(request, thread)
        if user.id not in thread.members:
            raise ApiError(404, 10007, "Unknown Member")
        with_member = request.query.get("with_member", "").lower() in ("1", "true")
        return json_response(self._member_json(thread, user.id, with_member=with_member))

    # ------------------------------------------------------------------ REST: listing

    def _listing(self, threads: list[FakeChannel]) -> dict[str, Any]:
        me = self.bot_user.id
        return {
            "threads": [self._thread_json(t) for t in threads],
            "members": [t.members[me].to_json(t.id) for t in threads if me in t.members],
        }

    async def _get_active_threads(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        guild = self._guild(request)
        return json_response(
            self._listing([t for t in guild.active_threads() if self._bot_sees(t)])
        )

    async def _get_public_archived_threads(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        channel = self._channel(request)
        if channel.type not in (GUILD_TEXT, ANNOUNCEMENT_CHANNEL):
            raise _refuse(400, WRONG_CHANNEL_TYPE)
        self._require(channel, READ_MESSAGE_HISTORY)
        threads = [
            t
            for t in self.threads(channel)
            if t.archived and t.type in (PUBLIC_THREAD, ANNOUNCEMENT_THREAD)
        ]
        threads.sort(key=lambda t: t.archive_timestamp or 0, reverse=True)
        before = request.query.get("before")
        if before:
            threads = [t for t in threads if (iso(t.archive_timestamp) or "") < before]
        limit = max(2, min(100, int(request.query.get("limit", 50))))
        body = self._listing(threads[:limit]) | {"has_more": len(threads) > limit}
        return json_response(body)
