"""Messages, channels and guilds of the fake Discord: how messages are created, edited and
announced on the gateway, and the REST routes of channels, messages and guilds."""

from __future__ import annotations

import re
import time
from collections.abc import Sequence
from types import EllipsisType
from typing import TYPE_CHECKING, Any

from aiohttp import web

from .api import FILES, PAYLOAD, ApiError, json_response, no_content
from .gateway import (
    INTENT_DIRECT_MESSAGES,
    INTENT_GUILD_MESSAGES,
    INTENT_MESSAGE_CONTENT,
    GatewaySession,
)
from .models import (
    EPHEMERAL,
    IS_COMPONENTS_V2,
    LOADING,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    FakeChannel,
    FakeGuild,
    FakeMessage,
    FakeUser,
    SnowflakeFactory,
)

# Message flags a sender may set.
SETTABLE_FLAGS = (1 << 2) | EPHEMERAL | (1 << 12) | IS_COMPONENTS_V2

NONCE_MAX = 25
NONCE_SECONDS = 180.0
"""How long a nonce with ``enforce_nonce`` returns its message ("the past few minutes")."""
USER_MENTION = re.compile(r"<@!?(\d+)>")
ROLE_MENTION = re.compile(r"<@&(\d+)>")


class MessagesMixin:
    """Messages, channels and guilds of :class:`~.server.FakeDiscordServer`."""

    snowflake: SnowflakeFactory
    bot_user: FakeUser
    users: dict[int, FakeUser]
    guilds: dict[int, FakeGuild]
    channels: dict[int, FakeChannel]
    messages: dict[int, FakeMessage]
    sessions: list[GatewaySession]
    nonces: dict[tuple[int, str], tuple[FakeMessage, float]]

    if TYPE_CHECKING:

        async def broadcast(
            self,
            event: str,
            data: dict[str, Any],
            *,
            intent: int = 0,
            guild_id: int | EllipsisType | None = ...,
        ) -> None: ...

        def _require_bot_auth(self, request: web.Request) -> None: ...

        def _channel(self, request: web.Request) -> FakeChannel: ...

        def _guild(self, request: web.Request) -> FakeGuild: ...

        def _channel_message(self, request: web.Request, channel: FakeChannel) -> FakeMessage: ...

        def _message_payload(self, request: web.Request) -> dict[str, Any]: ...

        def _check_message(
            self, payload: dict[str, Any], *, creating: bool, has_files: bool
        ) -> tuple[int, dict[str, Any]] | None: ...

        def discord_now(self) -> float: ...

        def _check_thread_send(self, thread: FakeChannel) -> bool: ...

        def _check_thread_active(self, channel: FakeChannel) -> None: ...

        def _thread_posted(self, msg: FakeMessage, notified: list[int]) -> list[int]: ...

        def _thread_message_deleted(self, msg: FakeMessage) -> None: ...

        async def set_archived(
            self, thread: FakeChannel, archived: bool, *, locked: bool | None = None
        ) -> None: ...

        async def _announce_members(
            self, thread: FakeChannel, *, added: Sequence[int] = ..., removed: Sequence[int] = ...
        ) -> None: ...

    # ------------------------------------------------------------------ state helpers

    def get_dm_channel(self, user: FakeUser) -> FakeChannel:
        if user.dm_channel is None:
            channel = FakeChannel(id=self.snowflake(), type=1, recipient=user)
            user.dm_channel = channel
            self.channels[channel.id] = channel
        return user.dm_channel

    def _new_message(
        self, channel: FakeChannel, author: FakeUser, payload: dict[str, Any], **extra: Any
    ) -> FakeMessage:
        msg = FakeMessage(
            id=self.snowflake(),
            channel=channel,
            author=author,
            content=str(payload.get("content") or ""),
            embeds=list(payload.get("embeds") or []),
            components=list(payload.get("components") or []),
            flags=int(payload.get("flags") or 0) & SETTABLE_FLAGS,
            attachments=list(payload.get("_attachments") or []),
            message_reference=payload.get("message_reference"),
            **extra,
        )
        msg.created_at = self.discord_now()
        self.messages[msg.id] = msg
        self._parse_mentions(msg)
        self._notify(msg, payload)
        if not msg.ephemeral:
            channel.last_message_id = msg.id
            if channel.is_thread:
                self._thread_joins[msg.id] = self._thread_posted(msg, msg.notified)
        return msg

    @property
    def _thread_joins(self) -> dict[int, list[int]]:
        """Members a new thread message added (its author, whom it pinged), announced
        with it."""
        try:
            joins: dict[int, list[int]] = self.__dict__["_pending_thread_joins"]
        except KeyError:
            self.__dict__["_pending_thread_joins"] = joins = {}
        return joins

    def _mark_deleted(self, msg: FakeMessage) -> None:
        if not msg.deleted:
            msg.deleted = True
            self._thread_message_deleted(msg)

    def _parse_mentions(self, msg: FakeMessage) -> None:
        ids = dict.fromkeys(int(x) for x in USER_MENTION.findall(msg.content))
        msg.mentions = [self.users[i] for i in ids if i in self.users]
        roles = {r.id for g in self.guilds.values() for r in g.roles}
        msg.mention_roles = [int(x) for x in ROLE_MENTION.findall(msg.content) if int(x) in roles]

    @staticmethod
    def _notify(msg: FakeMessage, payload: dict[str, Any]) -> None:
        """Who a new message notifies, as Discord decides: the users its content mentions,
        filtered by its ``allowed_mentions`` (absent: all of them); an ephemeral one nobody."""
        mentioned = [u.id for u in msg.mentions]
        allowed = payload.get("allowed_mentions")
        if msg.ephemeral:
            mentioned = []
        elif isinstance(allowed, dict) and "users" not in (allowed.get("parse") or []):
            listed = {int(u) for u in allowed.get("users") or []}
            mentioned = [u for u in mentioned if u in listed]
        msg.notified = mentioned

    def _edit_message(self, msg: FakeMessage, payload: dict[str, Any]) -> None:
        msg.history.append(msg.snapshot())
        if "content" in payload:
            msg.content = str(payload["content"] or "")
        if "embeds" in payload:
            msg.embeds = list(payload["embeds"] or [])
        if "components" in payload:
            msg.components = list(payload["components"] or [])
        if "attachments" in payload or payload.get("_attachments"):
            keep = {str(a.get("id")) for a in payload.get("attachments") or []}
            kept = [a for a in msg.attachments if str(a["id"]) in keep]
            msg.attachments = kept + list(payload.get("_attachments") or [])
        if payload.get("flags") is not None:
            changeable = (1 << 2) | IS_COMPONENTS_V2
            msg.flags = (msg.flags & ~changeable) | (int(payload["flags"]) & changeable)
        msg.flags &= ~LOADING
        self._parse_mentions(msg)
        msg.edited_at = self.discord_now()
        msg.edited_mono = time.monotonic()

    def _gateway_message_json(self, msg: FakeMessage) -> dict[str, Any]:
        data = msg.to_json()
        guild = msg.channel.guild
        if guild is not None and msg.author.id in guild.members:
            data["member"] = guild.members[msg.author.id].to_json(with_user=False)
        return data

    async def _announce_create(self, msg: FakeMessage) -> None:
        joined = self._thread_joins.pop(msg.id, None)
        if joined:
            await self._announce_members(msg.channel, added=joined)
        await self._announce_message("MESSAGE_CREATE", msg)

    async def _announce_update(self, msg: FakeMessage) -> None:
        await self._announce_message("MESSAGE_UPDATE", msg)

    async def _announce_message(self, event: str, msg: FakeMessage) -> None:
        if msg.ephemeral:
            return
        intent = INTENT_DIRECT_MESSAGES if msg.channel.is_dm else INTENT_GUILD_MESSAGES
        full = self._gateway_message_json(msg)
        # Without the message content intent Discord blanks other users' guild
        # messages unless they mention the bot.
        private = not (
            msg.channel.is_dm or msg.author is self.bot_user or self.bot_user in msg.mentions
        )
        blank = full | {"content": "", "embeds": [], "attachments": [], "components": []}
        guild_id = msg.channel.guild.id if msg.channel.guild is not None else None
        for session in self.sessions:
            # A guild's messages go to its shard's sessions, DMs to shard 0's.
            if session.connected and session.intents & intent and session.routes(guild_id):
                can_read = session.intents & INTENT_MESSAGE_CONTENT or not private
                await session.dispatch(event, full if can_read else blank)

    async def _announce_delete(self, msg: FakeMessage) -> None:
        if msg.ephemeral:
            return
        intent = INTENT_DIRECT_MESSAGES if msg.channel.is_dm else INTENT_GUILD_MESSAGES
        data: dict[str, Any] = {"id": str(msg.id), "channel_id": str(msg.channel.id)}
        if msg.channel.guild is not None:
            data["guild_id"] = str(msg.channel.guild.id)
        await self.broadcast("MESSAGE_DELETE", data, intent=intent)

    # ------------------------------------------------------------------ channels and messages

    async def _get_channel(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        return json_response(self._channel(request).to_json(bot=self.bot_user))

    def _check_can_view(self, channel: FakeChannel) -> None:
        """Editing its own message needs the bot to still see the channel (50001)."""
        if channel.is_dm or channel.guild is None:
            return
        member = channel.guild.members.get(self.bot_user.id)
        if member is None or not member.permissions_in(channel) & VIEW_CHANNEL:
            raise ApiError(403, 50001, "Missing Access")

    def _check_can_send(self, channel: FakeChannel) -> None:
        if channel.is_dm:
            assert channel.recipient is not None
            if not channel.recipient.dms_open:
                raise ApiError(403, 50007, "Cannot send messages to this user")
            return
        assert channel.guild is not None
        member = channel.guild.members.get(self.bot_user.id)
        needed = VIEW_CHANNEL | SEND_MESSAGES
        if member is None or member.permissions_in(channel) & needed != needed:
            raise ApiError(403, 50013, "Missing Permissions")

    async def _create_channel_message(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        channel = self._channel(request)
        payload = self._message_payload(request)
        unarchive = False
        if channel.is_thread:
            unarchive = self._check_thread_send(channel)
        else:
            self._check_can_send(channel)
        if int(payload.get("flags") or 0) & EPHEMERAL:
            raise ApiError.form(
                "flags",
                "MESSAGE_FLAGS_INVALID",
                "Ephemeral messages can only be sent as interaction responses",
            )
        problem = self._check_message(payload, creating=True, has_files=bool(request[FILES]))
        if problem:
            raise ApiError.from_problem(problem)
        nonce = payload.get("nonce")
        if nonce is not None and len(str(nonce)) > NONCE_MAX:
            raise ApiError.form("nonce", "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        if nonce is not None and payload.get("enforce_nonce"):
            # Discord: another message by the same author with the same nonce in the past few
            # minutes is returned, and no new message is created.
            seen = self.nonces.get((self.bot_user.id, str(nonce)))
            if seen is not None and time.monotonic() - seen[1] < NONCE_SECONDS:
                return json_response(seen[0].to_json())
        if unarchive:  # a message unarchives an archived thread that is not locked
            await self.set_archived(channel, False)
        msg = self._new_message(channel, self.bot_user, payload)
        if nonce is not None:
            self.nonces[(self.bot_user.id, str(nonce))] = (msg, time.monotonic())
        await self._announce_create(msg)
        return json_response(msg.to_json())

    async def _get_channel_message(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        channel = self._channel(request)
        return json_response(self._channel_message(request, channel).to_json())

    async def _get_channel_messages(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        channel = self._channel(request)
        msgs = [
            m
            for m in self.messages.values()
            if m.channel is channel and not m.deleted and not m.ephemeral
        ]
        msgs.sort(key=lambda m: m.id, reverse=True)
        q = request.query
        if "before" in q:
            msgs = [m for m in msgs if m.id < int(q["before"])]
        if "after" in q:
            msgs = [m for m in msgs if m.id > int(q["after"])]
            msgs.reverse()
        limit = max(1, min(100, int(q.get("limit", 50))))
        return json_response([m.to_json() for m in msgs[:limit]])

    async def _edit_channel_message(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        channel = self._channel(request)
        msg = self._channel_message(request, channel)
        payload = self._message_payload(request)
        self._check_can_view(channel)
        self._check_thread_active(channel)
        if msg.author is not self.bot_user and set(payload) - {"flags", "_attachments"}:
            raise ApiError(403, 50005, "Cannot edit a message authored by another user")
        problem = self._check_message(payload, creating=False, has_files=bool(request[FILES]))
        if problem:
            raise ApiError.from_problem(problem)
        self._edit_message(msg, payload)
        await self._announce_update(msg)
        return json_response(msg.to_json())

    async def _delete_channel_message(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        channel = self._channel(request)
        msg = self._channel_message(request, channel)
        self._mark_deleted(msg)
        await self._announce_delete(msg)
        return no_content()

    async def _bulk_delete(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        channel = self._channel(request)
        for raw_id in (request[PAYLOAD] or {}).get("messages", []):
            msg = self.messages.get(int(raw_id))
            if msg is not None and msg.channel is channel:
                self._mark_deleted(msg)
                await self._announce_delete(msg)
        return no_content()

    # ------------------------------------------------------------------ guilds

    async def _get_guild(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        guild = self._guild(request)
        return json_response(guild.to_json() | {"approximate_member_count": len(guild.members)})

    async def _get_guild_channels(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        return json_response([c.to_json() for c in self._guild(request).channels])

    async def _get_guild_roles(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        return json_response([r.to_json() for r in self._guild(request).roles])

    async def _get_guild_members(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        guild = self._guild(request)
        limit = max(1, min(1000, int(request.query.get("limit", 1))))
        after = int(request.query.get("after", 0))
        members = sorted((m for m in guild.members.values() if m.id > after), key=lambda m: m.id)
        return json_response([m.to_json() for m in members[:limit]])

    async def _get_guild_member(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        guild = self._guild(request)
        try:
            member = guild.members[int(request.match_info["user_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 10007, "Unknown Member") from None
        return json_response(member.to_json())
