"""The test-facing API of the fake Discord.

Example::

    fake = FakeDiscord()
    await fake.start()
    guild = fake.add_guild("Office", locale="en-US")
    general = fake.add_text_channel(guild, "general")
    ana = fake.add_user("Ana", locale="fr")
    fake.add_member(guild, ana)
    async with fake.run_client(bot):
        result = await fake.slash(ana, general, "ping")
        assert result.content == "pong"

Shards: ``fake.add_guild("Far", shard=(1, 2))`` makes a guild whose events go to shard 1 of
2; two sharded bots on one token (two processes) run at once, each in its own
``run_client`` block, and each user action reaches the bot whose shard gets it (DMs: shard
0). The world, the interactions and the call log are the fake's, shared by the clients.

`FakeDiscord` adds world building, reading and the call log to `FakeDiscordServer`;
users act through its mixins of `user_commands.py` (slash commands, autocomplete,
context menus) and `user_actions.py` (buttons, selects, modals, messages).
`InteractionResult` (`result.py`), `RunningClient` (`client.py`) and the option-type
constants stay importable from here.
"""

from __future__ import annotations

import asyncio
import inspect
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

import discord

from .client import RunningClient as RunningClient
from .gateway import INTENT_GUILD_MEMBERS, INTENT_GUILDS, shard_of
from .models import (
    CREATE_PUBLIC_THREADS,
    DEFAULT_EVERYONE_PERMISSIONS,
    MANAGE_THREADS,
    SEND_MESSAGES_IN_THREADS,
    ButtonInfo,
    FakeChannel,
    FakeGuild,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    Overwrite,
    RecordedCall,
    message_text,
    perm_value,
    walk_components,
)
from .result import InteractionResult as InteractionResult
from .server import FakeDiscordServer
from .user_actions import SELECT_TYPES as SELECT_TYPES
from .user_actions import UserActionsMixin
from .user_commands import BOOLEAN as BOOLEAN
from .user_commands import CHANNEL as CHANNEL
from .user_commands import INTEGER as INTEGER
from .user_commands import MENTIONABLE as MENTIONABLE
from .user_commands import NUMBER as NUMBER
from .user_commands import ROLE as ROLE
from .user_commands import STRING as STRING
from .user_commands import SUB_COMMAND as SUB_COMMAND
from .user_commands import SUB_COMMAND_GROUP as SUB_COMMAND_GROUP
from .user_commands import USER as USER
from .user_commands import UserCommandsMixin

_PLACEHOLDER = re.compile(r"\{[^}]*\}")


class FakeDiscord(UserCommandsMixin, UserActionsMixin, FakeDiscordServer):
    """The fake Discord with the test driver API (see module docstring)."""

    # ------------------------------------------------------------------ world building

    def add_guild(
        self,
        name: str = "Gamenight Office",
        *,
        locale: str = "en-US",
        owner: FakeUser | None = None,
        shard: tuple[int, int] | None = None,
    ) -> FakeGuild:
        """A guild; ``shard=(id, count)``: one whose events go to that shard of ``count``."""
        guild_id = self.snowflake()
        if shard is not None:
            shard_id, count = shard
            if not 0 <= shard_id < count:
                raise ValueError(f"no shard {shard_id} among {count}")
            while shard_of(guild_id, count) != shard_id:  # the next millisecond's ids
                guild_id = self.snowflake()
        guild = FakeGuild(
            id=guild_id, name=name, locale=locale, owner_id=owner.id if owner else None
        )
        guild.roles.append(
            FakeRole(
                id=guild.id, guild=guild, name="@everyone", permissions=DEFAULT_EVERYONE_PERMISSIONS
            )
        )
        self.guilds[guild.id] = guild
        guild.members[self.bot_user.id] = FakeMember(user=self.bot_user, guild=guild)
        if owner is not None:
            self.add_member(guild, owner)
        self._spawn(self.broadcast("GUILD_CREATE", guild.to_gateway_json(bot=self.bot_user)))
        return guild

    def add_role(
        self, guild: FakeGuild, name: str, *, permissions: Any = 0, mentionable: bool = False
    ) -> FakeRole:
        role = FakeRole(
            id=self.snowflake(),
            guild=guild,
            name=name,
            permissions=perm_value(permissions),
            position=len(guild.roles),
            mentionable=mentionable,
        )
        guild.roles.append(role)
        self._spawn(
            self.broadcast("GUILD_ROLE_CREATE", {"guild_id": str(guild.id), "role": role.to_json()})
        )
        return role

    def add_text_channel(
        self, guild: FakeGuild, name: str, *, topic: str | None = None
    ) -> FakeChannel:
        channel = FakeChannel(
            id=self.snowflake(),
            type=0,
            name=name,
            guild=guild,
            position=len(guild.channels),
            topic=topic,
        )
        guild.channels.append(channel)
        self.channels[channel.id] = channel
        self._spawn(self.broadcast("CHANNEL_CREATE", channel.to_json()))
        return channel

    def add_user(
        self, name: str, *, locale: str = "en-US", global_name: str | None = None, bot: bool = False
    ) -> FakeUser:
        user = FakeUser(
            id=self.snowflake(),
            name=name.lower(),
            global_name=global_name or name,
            locale=locale,
            bot=bot,
        )
        self.users[user.id] = user
        return user

    def add_member(
        self,
        guild: FakeGuild,
        user: FakeUser,
        *,
        roles: Sequence[FakeRole] = (),
        permissions: Any = None,
        nick: str | None = None,
    ) -> FakeMember:
        """Make user a member; permissions (int or discord.Permissions) overrides the roles' sum."""
        member = FakeMember(
            user=user,
            guild=guild,
            roles=list(roles),
            nick=nick,
            permissions_override=None if permissions is None else perm_value(permissions),
        )
        guild.members[user.id] = member
        self._spawn(
            self.broadcast(
                "GUILD_MEMBER_ADD",
                member.to_json() | {"guild_id": str(guild.id)},
                intent=INTENT_GUILD_MEMBERS,
            )
        )
        return member

    def member(self, guild: FakeGuild, user: FakeUser) -> FakeMember:
        return guild.members[user.id]

    def close_dms(self, user: FakeUser) -> None:
        """The user no longer accepts DMs: sends to their DM channel get 403 / 50007."""
        user.dms_open = False

    def open_dms(self, user: FakeUser) -> None:
        user.dms_open = True

    def dm_channel(self, user: FakeUser) -> FakeChannel:
        return self.get_dm_channel(user)

    def _spawn(self, coro: Any) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            coro.close()
            return
        if not any(s.connected for s in self.sessions):
            coro.close()
            return
        task = loop.create_task(coro)
        self._background.add(task)
        task.add_done_callback(self._background.discard)

    @property
    def _background(self) -> set[asyncio.Task[Any]]:
        try:
            tasks: set[asyncio.Task[Any]] = self.__dict__["_bg_tasks"]
        except KeyError:
            self.__dict__["_bg_tasks"] = tasks = set()
        return tasks

    # ------------------------------------------------------------------ threads, permissions

    async def advance_clock(self, seconds: float) -> list[FakeChannel]:
        """Move the fake's wall clock (message times, thread activity) forward; the
        threads idle for their ``auto_archive_duration`` archive (THREAD_UPDATE). Returns
        them. The REST clock (rate limits) and the bot's own clock are not moved."""
        if seconds < 0:
            raise ValueError("the clock only moves forward")
        self.clock_offset += seconds
        return await self.sweep_threads()

    async def start_thread(
        self,
        user: FakeUser,
        message: FakeMessage | InteractionResult | int,
        name: str,
        *,
        auto_archive_duration: int = 1440,
    ) -> FakeChannel:
        """A user starts a public thread from a message (THREAD_CREATE, the message updated)."""
        msg = self._as_message(message)
        parent = msg.channel
        if parent.guild is None or parent.is_thread or msg.ephemeral:
            raise ValueError(f"no thread can be started from {msg!r}")
        if self.thread_of(msg) is not None:
            raise ValueError(f"{msg!r} already has a thread")
        member = self._member_with(parent.guild, user, CREATE_PUBLIC_THREADS, parent)
        thread = self.new_thread(
            parent, name, member.user, starter=msg, auto_archive_duration=auto_archive_duration
        )
        await self._announce_created(thread)
        await self._announce_update(msg)
        return thread

    async def archive_thread(
        self, thread: FakeChannel, *, by: FakeUser | None = None, locked: bool | None = None
    ) -> None:
        """A moderator (``by``, who needs MANAGE_THREADS; None: Discord's staff) archives
        the thread, ``locked=True`` locking it too (THREAD_UPDATE)."""
        self._check_moderator(thread, by)
        await self.set_archived(thread, True, locked=locked)

    async def unarchive_thread(
        self, thread: FakeChannel, *, by: FakeUser | None = None, locked: bool | None = None
    ) -> None:
        self._check_moderator(thread, by)
        await self.set_archived(thread, False, locked=locked)

    async def lock_thread(
        self, thread: FakeChannel, *, by: FakeUser | None = None, locked: bool = True
    ) -> None:
        """A moderator locks (or unlocks) a thread without archiving it."""
        self._check_moderator(thread, by)
        await self.set_archived(thread, thread.archived, locked=locked)

    async def delete_thread(self, thread: FakeChannel, *, by: FakeUser | None = None) -> None:
        """A moderator deletes the thread (THREAD_DELETE): its id answers Unknown Channel
        (10003) from then on, its messages are gone."""
        if not thread.is_thread:
            raise ValueError(f"{thread!r} is not a thread")
        self._check_moderator(thread, by)
        await self.delete_channel(thread)

    async def add_to_thread(
        self, thread: FakeChannel, user: FakeUser, *, by: FakeUser | None = None
    ) -> bool:
        """``by`` (or nobody in particular) adds a member to a thread
        (THREAD_MEMBERS_UPDATE); False if they already were one."""
        if thread.archived:
            raise PermissionError(f"{thread!r} is archived")
        if by is not None:
            assert thread.guild is not None
            self._member_with(thread.guild, by, SEND_MESSAGES_IN_THREADS, thread)
        return await self.add_thread_member(thread, user)

    async def set_permissions(
        self,
        channel: FakeChannel,
        target: FakeUser | FakeMember | FakeRole,
        *,
        allow: Any = 0,
        deny: Any = 0,
    ) -> None:
        """A permission overwrite on a channel (its threads follow it) for a role or a
        member; both 0 removes it. Announced as CHANNEL_UPDATE, so discord.py's
        ``permissions_for`` sees it as on Discord."""
        if channel.is_thread or channel.guild is None:
            raise ValueError("overwrites are set on a guild channel (a thread uses its parent's)")
        kind = 0 if isinstance(target, FakeRole) else 1
        channel.overwrites = [
            o for o in channel.overwrites if not (o.type == kind and o.id == target.id)
        ]
        allow, deny = perm_value(allow), perm_value(deny)
        if allow or deny:
            channel.overwrites.append(Overwrite(target.id, kind, allow, deny))
        await self.broadcast("CHANNEL_UPDATE", channel.to_json(), intent=INTENT_GUILDS)

    async def deny_bot(self, channel: FakeChannel, permissions: Any) -> None:
        """Take permissions from the bot in a channel and its threads (a member overwrite),
        e.g. ``CREATE_PUBLIC_THREADS | SEND_MESSAGES_IN_THREADS``."""
        await self.set_permissions(channel, self.bot_user, deny=permissions)

    async def allow_bot(self, channel: FakeChannel) -> None:
        """Remove the bot's overwrite on the channel (its permissions are the guild's again)."""
        await self.set_permissions(channel, self.bot_user)

    def _member_with(
        self, guild: FakeGuild, user: FakeUser, needed: int, channel: FakeChannel
    ) -> FakeMember:
        member = guild.members.get(user.id)
        if member is None:
            raise ValueError(f"{user!r} is not a member of {guild!r}")
        if member.permissions_in(channel) & needed != needed:
            raise PermissionError(f"{user!r} lacks permissions {needed:#x} in {channel!r}")
        return member

    def _check_moderator(self, thread: FakeChannel, by: FakeUser | None) -> None:
        if thread.deleted:
            raise LookupError(f"{thread!r} was deleted")
        if by is not None:
            assert thread.guild is not None
            self._member_with(thread.guild, by, MANAGE_THREADS, thread)

    # ------------------------------------------------------------------ reading what users saw

    def channel_messages(
        self,
        channel: FakeChannel,
        *,
        as_user: FakeUser | None = None,
        include_deleted: bool = False,
    ) -> list[FakeMessage]:
        """Messages of a channel, oldest first; as_user adds the ephemerals that user saw there."""
        return [
            m
            for m in sorted(self.messages.values(), key=lambda m: m.id)
            if m.channel is channel
            and (include_deleted or not m.deleted)
            and (m.visible_to is None or (as_user is not None and m.visible_to is as_user))
        ]

    def last_message(
        self, channel: FakeChannel, *, as_user: FakeUser | None = None
    ) -> FakeMessage | None:
        msgs = self.channel_messages(channel, as_user=as_user)
        return msgs[-1] if msgs else None

    def dms(self, user: FakeUser) -> list[FakeMessage]:
        """Messages in the user's DM channel with the bot, oldest first."""
        if user.dm_channel is None:
            return []
        return self.channel_messages(user.dm_channel)

    def ephemerals(self, user: FakeUser, channel: FakeChannel | None = None) -> list[FakeMessage]:
        """Ephemeral messages shown to user (optionally only in channel), oldest first."""
        return [
            m
            for m in sorted(self.messages.values(), key=lambda m: m.id)
            if m.visible_to is user and not m.deleted and (channel is None or m.channel is channel)
        ]

    def message(self, message_id: int | str) -> FakeMessage:
        return self.messages[int(message_id)]

    def components_of(self, message: FakeMessage | InteractionResult) -> list[dict[str, Any]]:
        msg = self._as_message(message)
        return walk_components(msg.components)

    def buttons(self, message: FakeMessage | InteractionResult) -> list[ButtonInfo]:
        """(label, custom_id, disabled) for every button of the message, in order."""
        return [
            ButtonInfo(c.get("label"), c.get("custom_id"), bool(c.get("disabled", False)))
            for c in self.components_of(message)
            if c.get("type") == 2
        ]

    def selects(self, message: FakeMessage | InteractionResult) -> list[dict[str, Any]]:
        return [c for c in self.components_of(message) if c.get("type") in SELECT_TYPES]

    @staticmethod
    def text_of(message: FakeMessage) -> str:
        return message_text(message.content, message.embeds, message.components)

    # ------------------------------------------------------------------ calls

    def mark(self) -> int:
        """A bookmark in the call log, for calls_since / count(since=...)."""
        return len(self.calls)

    def calls_since(self, mark: int) -> list[RecordedCall]:
        return self.calls[mark:]

    def count(self, method: str | None = None, route: str | None = None, *, since: int = 0) -> int:
        """REST calls matching method and route (a template like
        "/channels/{channel_id}/messages" or a concrete path)."""
        return len(self.find_calls(method, route, since=since))

    def find_calls(
        self, method: str | None = None, route: str | None = None, *, since: int = 0
    ) -> list[RecordedCall]:
        """Recorded calls matching method and route; placeholder names in a
        template do not matter ("/interactions/{webhook_id}/{webhook_token}/callback"
        matches too)."""
        wanted = None if route is None else _PLACEHOLDER.sub("{}", route)
        return [
            c
            for c in self.calls[since:]
            if (method is None or c.method == method.upper())
            and (wanted is None or route == c.path or wanted == _PLACEHOLDER.sub("{}", c.route))
        ]

    def failed_calls(self) -> list[RecordedCall]:
        return [c for c in self.calls if c.status >= 400]

    async def wait_for(
        self, predicate: Callable[[], Any], timeout: float = 5.0, *, interval: float = 0.01
    ) -> Any:
        """Wait until predicate() (sync or async) is truthy; returns its value."""
        deadline = time.monotonic() + timeout
        while True:
            value = predicate()
            if inspect.isawaitable(value):
                value = await value
            if value:
                return value
            if time.monotonic() >= deadline:
                raise TimeoutError(f"condition not met within {timeout}s")
            await asyncio.sleep(interval)

    async def wait_for_message(
        self,
        channel: FakeChannel,
        predicate: Callable[[FakeMessage], bool] = lambda m: True,
        *,
        timeout: float = 5.0,
        after: int = 0,
    ) -> FakeMessage:
        """Wait for a (non-ephemeral) message in channel with id > after matching predicate."""

        def find() -> FakeMessage | None:
            for m in self.channel_messages(channel):
                if m.id > after and predicate(m):
                    return m
            return None

        found: FakeMessage = await self.wait_for(find, timeout)
        return found

    # ------------------------------------------------------------------ clients

    def run_client(
        self,
        client: discord.Client,
        token: str = "fake-token",  # noqa: S107
        *,
        ready_timeout: float = 10.0,
        guild_ready_timeout: float | None = 0.05,
    ) -> RunningClient:
        """Start client.start(token) against the fake; ready when on_ready fired and
        every fake guild is available. Leaving the block closes the client
        cleanly; `await running.crash()` kills it instead."""
        return RunningClient(self, client, token, ready_timeout, guild_ready_timeout)
