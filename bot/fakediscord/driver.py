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
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import re
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Any

import discord

from .models import (
    DEFAULT_EVERYONE_PERMISSIONS,
    ButtonInfo,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeUser,
    RecordedCall,
    message_text,
    perm_value,
    walk_components,
)
from .server import INTENT_GUILD_MEMBERS, FakeDiscordServer

# Application command option types.
SUB_COMMAND, SUB_COMMAND_GROUP = 1, 2
STRING, INTEGER, BOOLEAN, USER, CHANNEL, ROLE, MENTIONABLE, NUMBER = 3, 4, 5, 6, 7, 8, 9, 10
SELECT_TYPES = {3, 5, 6, 7, 8}
_PLACEHOLDER = re.compile(r"\{[^}]*\}")


class InteractionResult:
    """What the bot did with one interaction; read live from the fake's state."""

    def __init__(self, fake: FakeDiscord, interaction: FakeInteraction) -> None:
        self.fake = fake
        self.interaction = interaction
        self.settled_mono = interaction.dispatched_mono

    @property
    def answered(self) -> bool:
        return self.interaction.callback_type is not None

    @property
    def callback_type(self) -> int | None:
        """4 message, 5 deferred message, 6 deferred update, 7 update message, 9 modal."""
        return self.interaction.callback_type

    @property
    def deferred(self) -> bool:
        return self.callback_type in (5, 6)

    @property
    def latency(self) -> float | None:
        return self.interaction.latency

    @property
    def response(self) -> FakeMessage | None:
        """The response message: the new message (4, 5) or the updated one (6, 7)."""
        return self.interaction.response_message

    @property
    def modal(self) -> dict[str, Any] | None:
        return self.interaction.modal

    @property
    def ephemeral(self) -> bool:
        msg = self.response
        return bool(msg is not None and msg.ephemeral)

    @property
    def content(self) -> str | None:
        msg = self.response
        return None if msg is None else msg.content

    @property
    def embeds(self) -> list[dict[str, Any]]:
        msg = self.response
        return [] if msg is None else msg.embeds

    @property
    def embed(self) -> dict[str, Any] | None:
        embeds = self.embeds
        return embeds[0] if embeds else None

    @property
    def components(self) -> list[dict[str, Any]]:
        msg = self.response
        return [] if msg is None else msg.components

    @property
    def text(self) -> str:
        """Response content plus embed texts (see FakeMessage.text)."""
        msg = self.response
        return "" if msg is None else msg.text

    @property
    def buttons(self) -> list[ButtonInfo]:
        msg = self.response
        return [] if msg is None else self.fake.buttons(msg)

    @property
    def followups(self) -> list[FakeMessage]:
        return list(self.interaction.followups)

    @property
    def messages(self) -> list[FakeMessage]:
        """Messages created as a consequence: the response, follow-ups, and any
        message the bot created elsewhere (channels, DMs) between the dispatch
        and the moment the result settled."""
        inter = self.interaction
        out: list[FakeMessage] = []
        for msg in self.fake.messages.values():
            if msg.interaction is inter or (
                msg.author is self.fake.bot_user
                and msg.interaction is None
                and inter.dispatched_mono <= msg.created_mono <= self.settled_mono
            ):
                out.append(msg)
        return out

    @property
    def edited(self) -> list[FakeMessage]:
        """Messages edited between the dispatch and the moment the result settled."""
        inter = self.interaction
        return [
            m
            for m in self.fake.messages.values()
            if m.edited_mono is not None
            and inter.dispatched_mono <= m.edited_mono <= self.settled_mono
        ]

    def __repr__(self) -> str:
        return (
            f"<InteractionResult {self.interaction.description} callback={self.callback_type} "
            f"ephemeral={self.ephemeral} content={self.content!r}>"
        )


class RunningClient:
    """`async with fake.run_client(client)`: a discord.py client connected to the fake."""

    def __init__(
        self,
        fake: FakeDiscord,
        client: discord.Client,
        token: str,
        ready_timeout: float,
        guild_ready_timeout: float | None,
    ) -> None:
        self.fake = fake
        self.client = client
        self.token = token
        self.ready_timeout = ready_timeout
        self.guild_ready_timeout = guild_ready_timeout
        self.task: asyncio.Task[None] | None = None
        self.crashed = False
        self.closed = False

    async def __aenter__(self) -> RunningClient:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        if not self.crashed:
            await self.close()

    async def start(self) -> None:
        if self.guild_ready_timeout is not None:
            # Same as passing guild_ready_timeout=... to the Client: how long
            # discord.py waits for more GUILD_CREATEs before it fires on_ready.
            self.client._connection.guild_ready_timeout = self.guild_ready_timeout
        self.task = asyncio.create_task(self.client.start(self.token), name="fake-discord-client")
        deadline = time.monotonic() + self.ready_timeout
        wanted = set(self.fake.guilds)
        while True:
            if self.task.done():
                exc = self.task.exception()
                raise RuntimeError(f"client stopped before it was ready: {exc!r}") from exc
            if self.client.is_ready():
                present = {g.id for g in self.client.guilds if not g.unavailable}
                if wanted <= present:
                    return
            if time.monotonic() > deadline:
                await self.crash()
                raise TimeoutError(f"client not ready after {self.ready_timeout}s")
            await asyncio.sleep(0.01)

    async def close(self) -> None:
        """Clean shutdown: the client's own close(), then its task ends."""
        if self.closed or self.crashed:
            return
        self.closed = True
        await self.client.close()
        if self.task is not None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait_for(self.task, timeout=5)

    async def crash(self) -> None:
        """Kill the client as a dying process would: no close() of the client,
        no close frame to the gateway; the socket just drops.

        The bot's close()/cog_unload logic does not run. Only discord.py's own
        connection resources (gateway socket, heartbeat thread, HTTP session)
        are released so the test process does not leak them; resources the bot
        itself owns (database, schedulers) are left as they are.
        """
        if self.crashed or self.closed:
            return
        self.crashed = True
        client = self.client
        if self.task is not None and not self.task.done():
            self.task.cancel()
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await self.task
        ws = client.ws
        if ws is not None:
            keep_alive = getattr(ws, "_keep_alive", None)
            if keep_alive is not None:
                keep_alive.stop()
            with contextlib.suppress(Exception):
                # Drop the TCP connection without a websocket close frame.
                transport = ws.socket._response.connection.transport  # type: ignore[union-attr]
                if transport is not None:
                    transport.abort()
        with contextlib.suppress(Exception):
            await client.http.close()
        # Give the fake a moment to notice the dropped socket.
        for _ in range(100):
            if not any(s.connected for s in self.fake.sessions):
                break
            await asyncio.sleep(0.01)


class FakeDiscord(FakeDiscordServer):
    """The fake Discord with the test driver API (see module docstring)."""

    # ------------------------------------------------------------------ world building

    def add_guild(
        self,
        name: str = "Gamenight Office",
        *,
        locale: str = "en-US",
        owner: FakeUser | None = None,
    ) -> FakeGuild:
        guild = FakeGuild(
            id=self.snowflake(), name=name, locale=locale, owner_id=owner.id if owner else None
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
        self._spawn(self.broadcast("GUILD_CREATE", guild.to_gateway_json()))
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

    # ------------------------------------------------------------------ interactions

    def _base_payload(self, inter: FakeInteraction) -> dict[str, Any]:
        channel, guild, user = inter.channel, inter.guild, inter.user
        payload: dict[str, Any] = {
            "id": str(inter.id),
            "application_id": str(self.application_id),
            "type": inter.type,
            "data": inter.data,
            "channel_id": str(channel.id),
            "token": inter.token,
            "version": 1,
            "locale": user.locale,
            "entitlements": [],
            "entitlement_sku_ids": [],
            "authorizing_integration_owners": inter.integration_owners(),
            "attachment_size_limit": 10 * 1024 * 1024,
        }
        if guild is not None:
            member = guild.members.get(user.id)
            if member is None:
                raise ValueError(
                    f"{user!r} is not a member of {guild!r}; use fake.add_member first"
                )
            bot_member = guild.members[self.bot_user.id]
            payload.update(
                {
                    "guild_id": str(guild.id),
                    "guild": {"id": str(guild.id), "locale": guild.locale, "features": []},
                    "guild_locale": guild.locale,
                    "member": member.to_json(with_permissions=True),
                    "app_permissions": str(bot_member.permissions),
                    "context": 0,
                    "channel": channel.to_json() | {"permissions": str(member.permissions)},
                }
            )
        else:
            payload.update(
                {
                    "user": user.to_json(),
                    "app_permissions": str(1 << 11 | 1 << 14 | 1 << 15 | 1 << 16),
                    "context": 1,
                    "channel": channel.to_json(bot=self.bot_user) | {"permissions": "0"},
                }
            )
        if inter.source_message is not None:
            payload["message"] = inter.source_message.to_json()
        return payload

    async def _run(
        self,
        inter: FakeInteraction,
        *,
        timeout: float,
        settle: float,
    ) -> InteractionResult:
        session = self.active_session()
        if session is None:
            raise RuntimeError("no bot is connected to the fake gateway (use fake.run_client(bot))")
        payload = self._base_payload(inter)
        self.interactions[inter.id] = inter
        result = InteractionResult(self, inter)
        inter.dispatched_mono = time.monotonic()
        self._schedule_late_check(inter)
        await session.dispatch("INTERACTION_CREATE", payload)
        deadline = inter.dispatched_mono + timeout
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(inter.answered.wait(), max(0.0, deadline - time.monotonic()))
        if inter.callback_type == 5:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(
                    inter.followed_up.wait(), max(0.0, deadline - time.monotonic())
                )
        if inter.callback_type is not None:
            await self._settle(settle, deadline)
        result.settled_mono = time.monotonic()
        return result

    async def _settle(self, settle: float, deadline: float) -> None:
        """Wait until the fake saw no REST call for `settle` seconds (bounded)."""
        while True:
            now = time.monotonic()
            idle = now - self._last_activity
            if idle >= settle or now >= deadline:
                return
            await asyncio.sleep(min(settle - idle, deadline - now))

    def _new_interaction(
        self,
        itype: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        description: str,
        *,
        source: FakeMessage | None = None,
        command_name: str | None = None,
    ) -> FakeInteraction:
        if channel.is_dm and channel.recipient is not user:
            raise ValueError(f"{user!r} cannot use {channel!r}")
        return FakeInteraction(
            id=self.snowflake(),
            token="aW50ZXJhY3Rpb246" + secrets.token_urlsafe(48),
            type=itype,
            user=user,
            channel=channel,
            guild=channel.guild,
            data=data,
            description=description,
            source_message=source,
            command_name=command_name,
        )

    # -- slash commands

    def _find_command_schema(self, guild: FakeGuild | None, name: str) -> dict[str, Any] | None:
        if guild is not None:
            cmd = self.guild_commands.get(guild.id, {}).get((name, 1))
            if cmd is not None:
                return cmd
        return self.global_commands.get((name, 1))

    def _resolve_option(
        self,
        guild: FakeGuild | None,
        name: str,
        value: Any,
        schema: dict[str, Any] | None,
        resolved: dict[str, dict[str, Any]],
    ) -> dict[str, Any]:
        otype = schema.get("type") if schema else None
        if otype is None:
            if isinstance(value, FakeUser | FakeMember):
                otype = USER
            elif isinstance(value, FakeChannel):
                otype = CHANNEL
            elif isinstance(value, FakeRole):
                otype = ROLE
            elif isinstance(value, bool):
                otype = BOOLEAN
            elif isinstance(value, int):
                otype = INTEGER
            elif isinstance(value, float):
                otype = NUMBER
            else:
                otype = STRING
        if schema and schema.get("choices"):
            allowed = [c["value"] for c in schema["choices"]]
            if value not in allowed:
                raise ValueError(f"option {name!r}: {value!r} is not one of the choices {allowed}")
        if otype in (USER, MENTIONABLE) and isinstance(value, FakeUser | FakeMember):
            user = value.user if isinstance(value, FakeMember) else value
            resolved.setdefault("users", {})[str(user.id)] = user.to_json()
            if guild is not None and user.id in guild.members:
                member = guild.members[user.id]
                resolved.setdefault("members", {})[str(user.id)] = member.to_json(
                    with_user=False, with_permissions=True
                )
            return {"name": name, "type": otype, "value": str(user.id)}
        if otype in (ROLE, MENTIONABLE) and isinstance(value, FakeRole):
            resolved.setdefault("roles", {})[str(value.id)] = value.to_json()
            return {"name": name, "type": otype, "value": str(value.id)}
        if otype == CHANNEL and isinstance(value, FakeChannel):
            data = value.to_json() | {"permissions": str(1 << 11 | 1 << 10)}
            resolved.setdefault("channels", {})[str(value.id)] = data
            return {"name": name, "type": otype, "value": str(value.id)}
        if otype in (USER, ROLE, CHANNEL, MENTIONABLE):
            raise TypeError(f"option {name!r} needs a FakeUser/FakeRole/FakeChannel, got {value!r}")
        if otype == INTEGER and not isinstance(value, int):
            raise TypeError(f"option {name!r} is an integer option, got {value!r}")
        if otype == NUMBER:
            value = float(value)
        if otype == STRING:
            value = str(value)
        return {"name": name, "type": otype, "value": value}

    def _check_command_allowed(
        self, schema: dict[str, Any] | None, user: FakeUser, channel: FakeChannel
    ) -> None:
        """What Discord's client enforces before a user can even run a command."""
        if schema is None:
            return
        name = schema["name"]
        contexts = schema.get("contexts")
        if channel.guild is None:
            if contexts is not None and 1 not in contexts:
                raise PermissionError(f"/{name} cannot be used in DMs (contexts={contexts})")
            if contexts is None and schema.get("dm_permission") is False:
                raise PermissionError(f"/{name} cannot be used in DMs")
            if schema.get("guild_id"):
                raise PermissionError(f"/{name} is a guild command")
            return
        if contexts is not None and 0 not in contexts:
            raise PermissionError(f"/{name} cannot be used in guilds (contexts={contexts})")
        if schema.get("guild_id") and int(schema["guild_id"]) != channel.guild.id:
            raise PermissionError(f"/{name} is registered for another guild")
        needed = schema.get("default_member_permissions")
        member = channel.guild.members.get(user.id)
        if needed is not None and member is not None:
            needed_bits = int(needed)
            if member.permissions & needed_bits != needed_bits:
                raise PermissionError(
                    f"{user.name} lacks the permissions {needed_bits} that /{name} requires"
                )

    def _command_data(
        self,
        guild: FakeGuild | None,
        command: str,
        options: dict[str, Any],
        *,
        focused: str | None = None,
    ) -> dict[str, Any]:
        parts = command.strip().lstrip("/").split()
        if not parts or len(parts) > 3:
            raise ValueError(f"bad command path {command!r}")
        schema = self._find_command_schema(guild, parts[0])
        data: dict[str, Any] = {
            "id": schema["id"] if schema else str(self._stable_command_id(parts[0])),
            "name": parts[0],
            "type": 1,
        }
        if schema and schema.get("guild_id"):
            data["guild_id"] = schema["guild_id"]
        resolved: dict[str, dict[str, Any]] = {}
        # Walk subcommand groups / subcommands in the schema, if known.
        node_opts: list[dict[str, Any]] | None = schema.get("options", []) if schema else None
        containers: list[dict[str, Any]] = []
        for depth, part in enumerate(parts[1:]):
            sub_schema = None
            if node_opts is not None:
                sub_schema = next((o for o in node_opts if o.get("name") == part), None)
                if sub_schema is None:
                    raise ValueError(f"/{' '.join(parts[: depth + 1])} has no subcommand {part!r}")
            kind = (
                sub_schema["type"]
                if sub_schema
                else (SUB_COMMAND_GROUP if depth == 0 and len(parts) == 3 else SUB_COMMAND)
            )
            containers.append({"name": part, "type": kind, "options": []})
            node_opts = sub_schema.get("options", []) if sub_schema else None
        leaf: list[dict[str, Any]] = []
        by_name = {o["name"]: o for o in node_opts or []}
        for name, value in options.items():
            if node_opts is not None and name not in by_name:
                raise ValueError(f"/{command} has no option {name!r} (has {sorted(by_name)})")
            if name == focused:
                opt_type = by_name[name]["type"] if name in by_name else STRING
                leaf.append({"name": name, "type": opt_type, "value": value, "focused": True})
                continue
            leaf.append(self._resolve_option(guild, name, value, by_name.get(name), resolved))
        for o in node_opts or []:
            if (
                focused is None
                and o.get("required")
                and o["name"] not in options
                and o.get("type") not in (1, 2)
            ):
                raise ValueError(f"/{command}: required option {o['name']!r} missing")
        if containers:
            containers[-1]["options"] = leaf
            for outer, inner in zip(
                reversed(containers[:-1]), reversed(containers[1:]), strict=True
            ):
                outer["options"] = [inner]
            data["options"] = [containers[0]]
        else:
            data["options"] = leaf
        if resolved:
            data["resolved"] = resolved
        return data

    def _stable_command_id(self, name: str) -> int:
        ids: dict[str, int] = self.__dict__.setdefault("_unsynced_command_ids", {})
        if name not in ids:
            ids[name] = self.snowflake()
        return ids[name]

    async def slash(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        options: dict[str, Any] | None = None,
        *,
        timeout: float = 5.0,
        settle: float = 0.1,
    ) -> InteractionResult:
        """Run "/command" (or "group sub" / "group subgroup sub") as user in channel.

        Option values: str, int, float, bool, FakeUser/FakeMember, FakeChannel,
        FakeRole. If the bot synced its commands, option names, types, choices
        and required options are checked against what it registered.
        """
        name = command.strip().lstrip("/").split()[0]
        self._check_command_allowed(self._find_command_schema(channel.guild, name), user, channel)
        data = self._command_data(channel.guild, command, options or {})
        inter = self._new_interaction(
            2, user, channel, data, f"/{command} by {user.name}", command_name=name
        )
        return await self._run(inter, timeout=timeout, settle=settle)

    async def autocomplete(
        self,
        user: FakeUser,
        channel: FakeChannel,
        command: str,
        options: dict[str, Any],
        focused: str,
        *,
        timeout: float = 5.0,
    ) -> list[dict[str, Any]]:
        """Type into option `focused` of /command; returns the choices the bot
        offered ([{"name": ..., "value": ...}]), or raises if it did not answer."""
        if focused not in options:
            raise ValueError(f"options must contain the focused option {focused!r}")
        name = command.strip().lstrip("/").split()[0]
        self._check_command_allowed(self._find_command_schema(channel.guild, name), user, channel)
        data = self._command_data(channel.guild, command, options, focused=focused)
        inter = self._new_interaction(
            4, user, channel, data, f"autocomplete /{command} {focused} by {user.name}"
        )
        inter.command_name = name
        await self._run(inter, timeout=timeout, settle=0.0)
        if inter.choices is None:
            raise TimeoutError(f"the bot did not answer {inter.description} within {timeout}s")
        return [dict(c) for c in inter.choices]

    async def context_menu(
        self,
        user: FakeUser,
        channel: FakeChannel,
        name: str,
        target: FakeUser | FakeMember | FakeMessage,
        *,
        timeout: float = 5.0,
        settle: float = 0.1,
    ) -> InteractionResult:
        """Run a user (target FakeUser/FakeMember) or message (target FakeMessage)
        context menu command."""
        guild = channel.guild
        resolved: dict[str, dict[str, Any]] = {}
        if isinstance(target, FakeMessage):
            ctype = 3
            resolved["messages"] = {str(target.id): target.to_json()}
        else:
            ctype = 2
            self._resolve_option(guild, "target", target, None, resolved)
        key = (name, ctype)
        schema = (self.guild_commands.get(guild.id, {}) if guild else {}).get(key) or (
            self.global_commands.get(key)
        )
        self._check_command_allowed(schema, user, channel)
        data: dict[str, Any] = {
            "id": schema["id"] if schema else str(self._stable_command_id(f"{ctype}:{name}")),
            "name": name,
            "type": ctype,
            "target_id": str(target.id),
            "resolved": resolved,
        }
        if schema and schema.get("guild_id"):
            data["guild_id"] = schema["guild_id"]
        inter = self._new_interaction(
            2, user, channel, data, f"context menu {name!r} by {user.name}", command_name=name
        )
        return await self._run(inter, timeout=timeout, settle=settle)

    # -- components

    def _as_message(self, message: FakeMessage | InteractionResult | int) -> FakeMessage:
        if isinstance(message, InteractionResult):
            if message.response is None:
                raise ValueError(f"{message!r} has no response message")
            return message.response
        if isinstance(message, int):
            return self.messages[message]
        return message

    def _find_component(
        self, msg: FakeMessage, *, types: set[int], custom_id: str | None, label: str | None
    ) -> dict[str, Any]:
        for comp in walk_components(msg.components):
            if comp.get("type") not in types:
                continue
            if custom_id is not None and comp.get("custom_id") == custom_id:
                return comp
            if custom_id is None and label is not None and comp.get("label") == label:
                return comp
        have = [
            (c.get("label"), c.get("custom_id"))
            for c in walk_components(msg.components)
            if c.get("type") in types
        ]
        raise LookupError(
            f"no component custom_id={custom_id!r} label={label!r} in {msg!r}; it has {have}"
        )

    def _check_can_see(self, user: FakeUser, msg: FakeMessage) -> None:
        if msg.deleted:
            raise LookupError(f"{msg!r} was deleted")
        if msg.visible_to is not None and msg.visible_to is not user:
            raise PermissionError(f"{user!r} cannot see the ephemeral {msg!r}")

    async def click(
        self,
        user: FakeUser,
        message: FakeMessage | InteractionResult | int,
        custom_id: str | None = None,
        *,
        label: str | None = None,
        timeout: float = 5.0,
        settle: float = 0.1,
    ) -> InteractionResult:
        """Click a button of message (by custom_id, or by label)."""
        msg = self._as_message(message)
        self._check_can_see(user, msg)
        comp = self._find_component(msg, types={2}, custom_id=custom_id, label=label)
        if comp.get("disabled"):
            raise PermissionError(
                f"button {comp.get('label')!r} ({comp.get('custom_id')}) is disabled"
            )
        if not comp.get("custom_id"):
            raise ValueError("link buttons do not send interactions")
        data = {"custom_id": comp["custom_id"], "component_type": 2}
        if comp.get("id") is not None:
            data["id"] = comp["id"]
        inter = self._new_interaction(
            3,
            user,
            msg.channel,
            data,
            f"button {comp.get('label')!r} ({comp['custom_id']}) by {user.name}",
            source=msg,
        )
        return await self._run(inter, timeout=timeout, settle=settle)

    async def select(
        self,
        user: FakeUser,
        message: FakeMessage | InteractionResult | int,
        custom_id: str,
        values: Sequence[Any],
        *,
        timeout: float = 5.0,
        settle: float = 0.1,
    ) -> InteractionResult:
        """Pick values in a select menu (strings, or FakeUser/FakeRole/FakeChannel for entity selects)."""
        msg = self._as_message(message)
        self._check_can_see(user, msg)
        comp = self._find_component(msg, types=SELECT_TYPES, custom_id=custom_id, label=None)
        if comp.get("disabled"):
            raise PermissionError(f"select {custom_id!r} is disabled")
        data, _ = self._select_data(msg.channel.guild, comp, values)
        inter = self._new_interaction(
            3, user, msg.channel, data, f"select {custom_id!r} by {user.name}", source=msg
        )
        return await self._run(inter, timeout=timeout, settle=settle)

    def _select_data(
        self, guild: FakeGuild | None, comp: dict[str, Any], values: Sequence[Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        ctype = comp["type"]
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        if not lo <= len(values) <= hi:
            raise ValueError(
                f"select {comp.get('custom_id')!r} takes {lo}..{hi} values, got {len(values)}"
            )
        data: dict[str, Any] = {"custom_id": comp["custom_id"], "component_type": ctype}
        resolved: dict[str, dict[str, Any]] = {}
        if ctype == 3:
            allowed = [o["value"] for o in comp.get("options", [])]
            for v in values:
                if v not in allowed:
                    raise ValueError(
                        f"select {comp['custom_id']!r} has no option {v!r} (has {allowed})"
                    )
            data["values"] = list(values)
        else:
            out = []
            for v in values:
                opt = self._resolve_option(guild, "_", v, None, resolved)
                out.append(opt["value"])
            data["values"] = out
            data["resolved"] = resolved
        return data, resolved

    # -- modals

    def modals_shown(self, user: FakeUser) -> list[FakeInteraction]:
        return [i for i in self.interactions.values() if i.user is user and i.modal is not None]

    async def submit_modal(
        self,
        user: FakeUser,
        custom_id: str | None,
        values: dict[str, Any],
        *,
        from_interaction: InteractionResult | None = None,
        timeout: float = 5.0,
        settle: float = 0.1,
    ) -> InteractionResult:
        """Submit a modal the bot showed to user: values maps each field's
        custom_id to its text (or a list of values for a select in a label)."""
        if from_interaction is not None:
            origin = from_interaction.interaction
            if origin.modal is None:
                raise ValueError(f"{from_interaction!r} did not answer with a modal")
        else:
            shown = [
                i
                for i in self.modals_shown(user)
                if custom_id is None or (i.modal or {}).get("custom_id") == custom_id
            ]
            if not shown:
                raise LookupError(f"no modal {custom_id!r} was shown to {user!r}")
            origin = shown[-1]
        modal = origin.modal
        assert modal is not None
        if custom_id is not None and modal["custom_id"] != custom_id:
            raise ValueError(f"modal shown has custom_id {modal['custom_id']!r}, not {custom_id!r}")
        remaining = dict(values)
        components = [self._modal_component(c, remaining) for c in modal.get("components", [])]
        if remaining:
            raise LookupError(f"modal {modal['custom_id']!r} has no fields {sorted(remaining)}")
        data = {
            "custom_id": modal["custom_id"],
            "components": [c for c in components if c is not None],
        }
        inter = self._new_interaction(
            5,
            user,
            origin.channel,
            data,
            f"modal {modal['custom_id']!r} by {user.name}",
            source=origin.source_message,
        )
        return await self._run(inter, timeout=timeout, settle=settle)

    def _modal_component(
        self, comp: dict[str, Any], values: dict[str, Any]
    ) -> dict[str, Any] | None:
        ctype = comp.get("type")
        if ctype == 1:
            return {
                "type": 1,
                "id": comp.get("id", 0),
                "components": [
                    c
                    for c in (self._modal_component(x, values) for x in comp.get("components", []))
                    if c
                ],
            }
        if ctype == 18:
            inner = self._modal_component(comp["component"], values)
            return {"type": 18, "id": comp.get("id", 0), "component": inner}
        if ctype == 4:
            cid = comp["custom_id"]
            value = str(values.pop(cid, comp.get("value") or ""))
            if comp.get("required", True) and not value:
                raise ValueError(f"modal field {cid!r} is required")
            lo, hi = comp.get("min_length", 0), comp.get("max_length", 4000)
            if value and not lo <= len(value) <= hi:
                raise ValueError(f"modal field {cid!r} must be {lo}..{hi} characters")
            return {"type": 4, "id": comp.get("id", 0), "custom_id": cid, "value": value}
        if ctype in SELECT_TYPES:
            cid = comp["custom_id"]
            picked = values.pop(cid, [])
            data, _ = self._select_data(
                None, comp | {"min_values": comp.get("min_values", 0)}, picked
            )
            return {
                "type": ctype,
                "id": comp.get("id", 0),
                "custom_id": cid,
                "values": data["values"],
            }
        return None

    # -- users writing in channels

    async def post_message(self, user: FakeUser, channel: FakeChannel, content: str) -> FakeMessage:
        """A user writes a message (dispatched as MESSAGE_CREATE to the bot)."""
        msg = self._new_message(channel, user, {"content": content})
        await self._announce_create(msg)
        return msg
