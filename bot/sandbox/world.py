"""The sandbox's Discord: the fake Discord plus a memory, a clock and change notifications.

:class:`SandboxDiscord` is :class:`bot.fakediscord.FakeDiscord` with three additions:

- every message created, edited or deleted is reported to :attr:`SandboxDiscord.on_change`
  (the page pushes it to the colleagues who may see it);
- message times follow the sandbox clock (:class:`SandboxClock`), so a day moved forward
  reads as one;
- the world (the server, its channels, the colleagues, every message and attached file, the
  polls' votes, the scheduled events and who is interested, the application's emojis, the
  clock's advance) is kept in tables ``sandbox_*`` of the
  sandbox's database, next to the bot's own tables, so a restarted sandbox shows the same
  channel with the same ids: old buttons keep working and old messages keep their card
  pictures, as they do for a real bot restarted on Discord.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import time
from collections.abc import Awaitable, Callable, Sequence
from datetime import timedelta
from pathlib import Path
from typing import Any

import aiosqlite
from aiohttp import web

from bot.clock import OffsetClock as SandboxClock
from bot.fakediscord import FakeDiscord
from bot.fakediscord.events import CREATE_EVENTS, FakeScheduledEvent
from bot.fakediscord.models import (
    DEFAULT_EVERYONE_PERMISSIONS,
    MANAGE_THREADS,
    PRIVATE_THREAD,
    FakeChannel,
    FakeGuild,
    FakeInteraction,
    FakeMember,
    FakeMessage,
    FakeRole,
    FakeThreadMember,
    FakeUser,
)
from bot.fakediscord.polls import FakePoll

__all__ = ["COLLEAGUES", "SandboxClock", "SandboxDiscord", "WorldStore"]

log = logging.getLogger("gamenight.sandbox")

COLLEAGUES = (
    "Ana", "Bob", "Cid", "Dan", "Eve", "Fay", "Gus", "Hal", "Ivy", "Jon",
    "Kim", "Lou", "Max", "Nia", "Oto", "Pia", "Quy", "Rex", "Sam", "Tia",
)  # fmt: skip
"""Names of the simulated colleagues, in the order they are added."""
MANAGE_GUILD = 1 << 5


class SandboxDiscord(FakeDiscord):
    """The fake Discord of the sandbox (see the module docstring)."""

    def __init__(self, clock: SandboxClock, **kwargs: Any) -> None:
        kwargs.setdefault("strict_routes", False)
        super().__init__(**kwargs)
        self.clock = clock
        self.guild: FakeGuild | None = None
        """The sandbox's one server (set by :meth:`build` or :meth:`load_world`)."""
        self.set_up = False
        """Whether the office's owner configured the bot (see :mod:`bot.sandbox.office`)."""
        #: Called (soon, once per batch) with the messages that changed.
        self.on_change: Callable[[list[FakeMessage]], None] | None = None
        #: Called (soon, once per batch) when a thread was created, archived, renamed,
        #: deleted or its members changed.
        self.on_threads: Callable[[], None] | None = None
        self._threads_dirty = False
        #: Called when a scheduled event or its interested list changed.
        self.on_events: Callable[[], None] | None = None
        self._dirty: dict[int, FakeMessage] = {}
        self._flush_handle: asyncio.Handle | None = None

    # -- who may call it -----------------------------------------------------------------

    @web.middleware
    async def _middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        """Only the bot in this process calls the sandbox's Discord: a request under another
        name than its address (a rebound DNS name) or from a web page (``Origin``) is refused
        before anything is read; the bot's token, random on each run, does the rest."""
        if request.headers.get("Host") != f"{self.host}:{self.port}":
            return web.json_response({"code": 0, "message": "421: Misdirected Request"}, status=421)
        if "Origin" in request.headers:
            return web.json_response({"code": 0, "message": "403: Forbidden"}, status=403)
        return await super()._middleware(request, handler)

    # -- hooks ----------------------------------------------------------------------------

    def _changed(self, msg: FakeMessage) -> None:
        self._dirty[msg.id] = msg
        if self._flush_handle is None:
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                return
            self._flush_handle = loop.call_soon(self._flush)

    def _flush(self) -> None:
        self._flush_handle = None
        threads, self._threads_dirty = self._threads_dirty, False
        if threads and self.on_threads is not None:
            try:
                self.on_threads()
            except Exception:
                log.exception("sandbox: a thread's change could not be delivered")
        batch, self._dirty = list(self._dirty.values()), {}
        if batch and self.on_change is not None:
            try:
                self.on_change(batch)
            except Exception:
                log.exception("sandbox: a change could not be delivered")

    def _thread_changed(self, thread: FakeChannel) -> None:
        """A thread changed: the page's channel lists, and the chip under its starter."""
        self._threads_dirty = True
        if thread.starter is not None:
            self._changed(thread.starter)
        elif self._flush_handle is None:
            with contextlib.suppress(RuntimeError):
                self._flush_handle = asyncio.get_running_loop().call_soon(self._flush)

    def discord_now(self) -> float:
        """Message times, threads' activity, polls and events follow the sandbox clock."""
        return self.clock.now().timestamp()

    def _message_changed(self, msg: FakeMessage) -> None:
        self._changed(msg)  # a poll's votes or end

    async def _announce_event(self, name: str, event: FakeScheduledEvent) -> None:
        await super()._announce_event(name, event)
        self._events_changed()

    async def _announce_event_user(
        self, name: str, event: FakeScheduledEvent, user: FakeUser
    ) -> None:
        await super()._announce_event_user(name, event, user)
        self._events_changed()

    def _events_changed(self) -> None:
        if self.on_events is not None:
            try:
                self.on_events()
            except Exception:
                log.exception("sandbox: a change of events could not be delivered")

    def _new_message(
        self, channel: FakeChannel, author: FakeUser, payload: dict[str, Any], **extra: Any
    ) -> FakeMessage:
        msg = super()._new_message(channel, author, payload, **extra)
        self._changed(msg)
        if channel.is_thread and not msg.ephemeral:
            self._thread_changed(channel)  # its message count, and who is in it
        return msg

    def _mark_deleted(self, msg: FakeMessage) -> None:
        super()._mark_deleted(msg)
        if msg.channel.is_thread:
            self._thread_changed(msg.channel)

    async def _announce_thread(self, event: str, thread: FakeChannel, **extra: Any) -> None:
        await super()._announce_thread(event, thread, **extra)
        self._thread_changed(thread)

    async def _announce_members(
        self,
        thread: FakeChannel,
        *,
        added: Sequence[int] = (),
        removed: Sequence[int] = (),
    ) -> None:
        await super()._announce_members(thread, added=added, removed=removed)
        self._thread_changed(thread)

    async def delete_channel(self, channel: FakeChannel) -> None:
        await super().delete_channel(channel)
        for msg in self.messages.values():
            if msg.channel is channel:
                self._changed(msg)
        self._thread_changed(channel)

    def _edit_message(self, msg: FakeMessage, payload: dict[str, Any]) -> None:
        super()._edit_message(msg, payload)
        self._changed(msg)

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
        if itype == 2 and command_name is not None and data.get("type") == 1:
            # "Ana used /spaye start", as Discord's client shows it: with the subcommand.
            parts, options = [command_name], data.get("options") or []
            while options and options[0].get("type") in (1, 2):
                parts.append(options[0]["name"])
                options = options[0].get("options") or []
            command_name = " ".join(parts)
        return super()._new_interaction(
            itype, user, channel, data, description, source=source, command_name=command_name
        )

    async def _announce_delete(self, msg: FakeMessage) -> None:
        await super()._announce_delete(msg)
        self._changed(msg)

    # -- who sees what --------------------------------------------------------------------

    @property
    def office(self) -> FakeGuild:
        """The sandbox's server; only before :meth:`build` / :meth:`load_world` is there none."""
        if self.guild is None:
            raise RuntimeError("the sandbox has no server yet")
        return self.guild

    def colleagues(self) -> list[FakeUser]:
        return [u for u in self.users.values() if not u.bot]

    def can_see(self, user: FakeUser, msg: FakeMessage) -> bool:
        """Whether ``user`` sees ``msg``: their DMs, the guild's messages (a private thread's
        only as its member), their ephemerals."""
        if msg.channel.is_dm:
            return msg.channel.recipient is user
        if msg.channel.is_thread and not self.sees_thread(user, msg.channel):
            return False
        return msg.visible_to is None or msg.visible_to is user

    def sees_thread(self, user: FakeUser, thread: FakeChannel) -> bool:
        """A public thread: everyone in the server; a private one: its members and the
        moderators (MANAGE_THREADS). A deleted one: nobody."""
        if thread.deleted:
            return False
        if thread.type != PRIVATE_THREAD:
            return True
        member = self.office.members.get(user.id)
        return user.id in thread.members or bool(
            member is not None and member.permissions_in(thread) & MANAGE_THREADS
        )

    # -- the world ------------------------------------------------------------------------

    def build(self, users: int) -> None:
        """A new office: one server, #general and #announcements, ``users`` colleagues (the
        first owns the server, so they may use /config and plan game nights). The bot was
        invited with Create Events on top of @everyone's permissions, as game nights need."""
        names = list(COLLEAGUES[:users])
        people = [self.add_user(name) for name in names]
        guild = self.add_guild("Gamenight Sandbox", owner=people[0])
        bot_member = guild.members[self.bot_user.id]
        bot_member.permissions_override = DEFAULT_EVERYONE_PERMISSIONS | CREATE_EVENTS
        for person in people[1:]:
            self.add_member(guild, person)
        self.add_text_channel(guild, "general", topic="Games are played here")
        self.add_text_channel(guild, "announcements", topic="Monthly titles")
        self.guild = guild

    def ensure_colleagues(self, users: int) -> list[FakeUser]:
        """Add colleagues up to ``users`` (never removes any: games may name them)."""
        have = self.colleagues()
        added = []
        for name in COLLEAGUES[len(have) : users]:
            person = self.add_user(name)
            self.add_member(self.office, person)
            added.append(person)
        return added

    def general(self) -> FakeChannel:
        return self.office.channels[0]

    # -- saving and loading ---------------------------------------------------------------

    def world_json(self) -> dict[str, Any]:
        guild = self.office
        return {
            "application_id": self.application_id,
            "clock_offset": self.clock.offset.total_seconds(),
            "set_up": self.set_up,
            "users": [
                {
                    "id": u.id,
                    "name": u.name,
                    "global_name": u.global_name,
                    "locale": u.locale,
                    "dms_open": u.dms_open,
                    "dm_channel": u.dm_channel.id if u.dm_channel else None,
                }
                for u in self.colleagues()
            ],
            "guild": {
                "id": guild.id,
                "name": guild.name,
                "locale": guild.locale,
                "owner_id": guild.owner_id,
                "roles": [
                    {
                        "id": r.id,
                        "name": r.name,
                        "permissions": r.permissions,
                        "position": r.position,
                        "mentionable": r.mentionable,
                    }
                    for r in guild.roles
                ],
                "channels": [
                    {"id": c.id, "name": c.name, "topic": c.topic, "position": c.position}
                    for c in guild.channels
                ],
                "threads": [self.thread_json(t) for t in guild.threads],
                "members": [
                    {
                        "user_id": m.user.id,
                        "roles": [r.id for r in m.roles],
                        "nick": m.nick,
                        "permissions": m.permissions_override,
                    }
                    for m in guild.members.values()
                ],
            },
            "scheduled_events": [e.state() for e in self.events_of(guild)],
        }

    def load_world(self, data: dict[str, Any]) -> None:
        """Rebuild the world saved by :meth:`world_json` (before any client connects)."""
        for u in data["users"]:
            user = FakeUser(
                id=u["id"],
                name=u["name"],
                global_name=u.get("global_name"),
                locale=u.get("locale", "en-US"),
                dms_open=u.get("dms_open", True),
            )
            self.users[user.id] = user
            if u.get("dm_channel"):
                channel = FakeChannel(id=u["dm_channel"], type=1, recipient=user)
                user.dm_channel = channel
                self.channels[channel.id] = channel
        g = data["guild"]
        guild = FakeGuild(id=g["id"], name=g["name"], locale=g["locale"], owner_id=g["owner_id"])
        for r in g["roles"]:
            guild.roles.append(
                FakeRole(
                    id=r["id"],
                    guild=guild,
                    name=r["name"],
                    permissions=r["permissions"],
                    position=r["position"],
                    mentionable=r["mentionable"],
                )
            )
        for c in g["channels"]:
            channel = FakeChannel(
                id=c["id"],
                type=0,
                name=c["name"],
                guild=guild,
                position=c["position"],
                topic=c.get("topic"),
            )
            guild.channels.append(channel)
            self.channels[channel.id] = channel
        for t in g.get("threads", []):
            thread = self.load_thread(guild, t)
            guild.threads.append(thread)
            self.channels[thread.id] = thread
        roles = {r.id: r for r in guild.roles}
        for m in g["members"]:
            member = self.users.get(m["user_id"])
            if member is None:
                continue
            guild.members[member.id] = FakeMember(
                user=member,
                guild=guild,
                roles=[roles[r] for r in m["roles"] if r in roles],
                nick=m.get("nick"),
                permissions_override=m.get("permissions"),
            )
        self.guilds[guild.id] = guild
        self.guild = guild
        for e in data.get("scheduled_events") or []:
            event = FakeScheduledEvent.from_state(e, guild, self.users)
            if event is not None:
                self.scheduled_events[event.id] = event
                if not event.ended:
                    guild.scheduled_events[event.id] = event
        self.clock.offset = timedelta(seconds=float(data.get("clock_offset", 0)))
        self.set_up = bool(data.get("set_up", False))

    @staticmethod
    def thread_json(thread: FakeChannel) -> dict[str, Any]:
        return {
            "id": thread.id,
            "type": thread.type,
            "name": thread.name,
            "parent_id": thread.parent_id,
            "owner_id": thread.owner_id,
            "archived": thread.archived,
            "locked": thread.locked,
            "invitable": thread.invitable,
            "deleted": thread.deleted,
            "auto_archive_duration": thread.auto_archive_duration,
            "archive_timestamp": thread.archive_timestamp,
            "create_timestamp": thread.create_timestamp,
            "last_activity": thread.last_activity,
            "rate_limit_per_user": thread.rate_limit_per_user,
            "message_count": thread.message_count,
            "total_message_sent": thread.total_message_sent,
            "last_message_id": thread.last_message_id,
            "members": [[m.user_id, m.join_timestamp] for m in thread.members.values()],
        }

    @staticmethod
    def load_thread(guild: FakeGuild, t: dict[str, Any]) -> FakeChannel:
        """A thread saved by :meth:`thread_json` (its starter is linked as messages load)."""
        return FakeChannel(
            id=t["id"],
            type=t["type"],
            name=t["name"],
            guild=guild,
            parent_id=t["parent_id"],
            owner_id=t["owner_id"],
            archived=t["archived"],
            locked=t["locked"],
            invitable=t.get("invitable", True),
            deleted=t["deleted"],
            auto_archive_duration=t["auto_archive_duration"],
            archive_timestamp=t["archive_timestamp"],
            create_timestamp=t["create_timestamp"],
            last_activity=t["last_activity"],
            rate_limit_per_user=t.get("rate_limit_per_user", 0),
            message_count=t["message_count"],
            total_message_sent=t["total_message_sent"],
            last_message_id=t.get("last_message_id"),
            members={uid: FakeThreadMember(uid, joined) for uid, joined in t["members"]},
        )

    def message_json(self, msg: FakeMessage) -> dict[str, Any]:
        inter = msg.interaction
        return {
            "id": msg.id,
            "channel": msg.channel.id,
            "author": msg.author.id,
            "content": msg.content,
            "embeds": msg.embeds,
            "components": msg.components,
            "flags": msg.flags,
            "attachments": msg.attachments,
            "type": msg.type,
            "visible_to": msg.visible_to.id if msg.visible_to else None,
            "webhook_id": msg.webhook_id,
            "reference": msg.message_reference,
            "created_at": msg.created_at,
            "edited_at": msg.edited_at,
            "deleted": msg.deleted,
            "poll": None if msg.poll is None else msg.poll.state(),
            "interaction": None
            if inter is None
            else {
                "id": inter.id,
                "type": inter.type,
                "user": inter.user.id,
                "command": inter.command_name,
            },
        }

    def load_message(self, m: dict[str, Any]) -> None:
        channel = self.channels.get(m["channel"])
        author = self.users.get(m["author"])
        if channel is None or author is None:
            return
        inter = None
        if m.get("interaction") and m["interaction"]["user"] in self.users:
            i = m["interaction"]
            inter = FakeInteraction(
                id=i["id"],
                token="",
                type=i["type"],
                user=self.users[i["user"]],
                channel=channel,
                guild=channel.guild,
                data={},
                description="before the restart",
                command_name=i.get("command"),
                callback_type=4,
            )
        msg = FakeMessage(
            id=m["id"],
            channel=channel,
            author=author,
            content=m["content"],
            embeds=m["embeds"],
            components=m["components"],
            flags=m["flags"],
            attachments=m["attachments"],
            type=m["type"],
            visible_to=self.users.get(m["visible_to"]) if m.get("visible_to") else None,
            interaction=inter,
            webhook_id=m.get("webhook_id"),
            message_reference=m.get("reference"),
            created_at=m["created_at"],
            edited_at=m.get("edited_at"),
            deleted=m["deleted"],
        )
        if m.get("poll"):
            msg.poll = FakePoll.from_state(m["poll"], self.users)
        self.messages[msg.id] = msg
        self._parse_mentions(msg)
        if not msg.ephemeral and not msg.deleted:
            channel.last_message_id = max(channel.last_message_id or 0, msg.id)
        thread = self.channels.get(msg.id)
        if thread is not None and thread.is_thread and thread.parent_id == channel.id:
            thread.starter, msg.thread = msg, thread  # the thread started from it

    def bump_snowflakes(self) -> None:
        """New ids stay above every loaded one."""
        ids = [
            *self.messages,
            *self.users,
            *self.channels,
            *self.attachment_data,
            *self.scheduled_events,
        ]
        if ids:
            self.snowflake._last = max(self.snowflake._last, *ids)


class WorldStore:
    """The ``sandbox_*`` tables in the sandbox's SQLite file (its own connection)."""

    SCHEMA = """
    CREATE TABLE IF NOT EXISTS sandbox_world (key TEXT PRIMARY KEY, value TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS sandbox_messages (id INTEGER PRIMARY KEY, data TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS sandbox_attachments (id INTEGER PRIMARY KEY, data BLOB NOT NULL);
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._conn: aiosqlite.Connection | None = None
        self._saved_files: set[int] = set()
        self._saved_emojis: frozenset[tuple[int, str]] | None = None
        """The application emojis last saved (id, name), so unchanged ones are not rewritten."""

    async def open(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        conn = await aiosqlite.connect(str(self.path), isolation_level=None)
        await conn.execute("PRAGMA busy_timeout = 5000")
        await conn.execute("PRAGMA journal_mode = WAL")
        await conn.executescript(self.SCHEMA)
        self._conn = conn

    async def close(self) -> None:
        if self._conn is not None:
            await self._conn.close()
            self._conn = None

    @property
    def conn(self) -> aiosqlite.Connection:
        if self._conn is None:
            raise RuntimeError("the sandbox's world store is closed")
        return self._conn

    async def load_into(self, fake: SandboxDiscord) -> bool:
        """Fill ``fake`` with the saved world; ``False`` when nothing was saved yet."""
        async with self.conn.execute(
            "SELECT value FROM sandbox_world WHERE key = 'world'"
        ) as cursor:
            row = await cursor.fetchone()
        if row is None:
            return False
        fake.load_world(json.loads(row[0]))
        async with self.conn.execute(
            "SELECT value FROM sandbox_world WHERE key = 'emojis'"
        ) as cursor:
            emojis = await cursor.fetchone()
        if emojis is not None:
            fake.load_application_emojis(json.loads(emojis[0]))
            self._saved_emojis = _emoji_keys(fake)
        async with self.conn.execute("SELECT id, data FROM sandbox_attachments") as cursor:
            async for att_id, data in cursor:
                fake.attachment_data[int(att_id)] = bytes(data)
                self._saved_files.add(int(att_id))
        async with self.conn.execute("SELECT data FROM sandbox_messages ORDER BY id") as cursor:
            async for (data,) in cursor:
                fake.load_message(json.loads(data))
        fake.bump_snowflakes()
        return True

    @staticmethod
    async def saved_application_id(path: Path) -> int | None:
        """The bot's application id of a saved world (the fake needs it before it is built)."""
        if not path.exists():
            return None
        async with aiosqlite.connect(str(path)) as conn:
            try:
                async with conn.execute(
                    "SELECT value FROM sandbox_world WHERE key = 'world'"
                ) as cursor:
                    row = await cursor.fetchone()
            except aiosqlite.OperationalError:
                return None
        return int(json.loads(row[0])["application_id"]) if row else None

    async def save_world(self, fake: SandboxDiscord) -> None:
        await self.conn.execute(
            "INSERT INTO sandbox_world (key, value) VALUES ('world', ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (json.dumps(fake.world_json()),),
        )
        await self.save_emojis(fake)

    async def save_emojis(self, fake: SandboxDiscord) -> bool:
        """Keep the application's emojis (the bot's card art, uploaded at its first start), so
        a restarted sandbox uploads none and old messages keep their pictures. Written only
        when they changed; ``True`` when written."""
        keys = _emoji_keys(fake)
        if keys == self._saved_emojis:
            return False
        await self.conn.execute(
            "INSERT INTO sandbox_world (key, value) VALUES ('emojis', ?)"
            " ON CONFLICT (key) DO UPDATE SET value = excluded.value",
            (json.dumps(fake.application_emojis_json()),),
        )
        self._saved_emojis = keys
        return True

    async def save_messages(self, fake: SandboxDiscord, messages: list[FakeMessage]) -> None:
        rows = [
            (m.id, json.dumps(fake.message_json(m)))
            for m in messages
            if m.channel.id in fake.channels
        ]
        files = [
            (int(a["id"]), fake.attachment_data[int(a["id"])])
            for m in messages
            for a in m.attachments
            if int(a["id"]) in fake.attachment_data and int(a["id"]) not in self._saved_files
        ]
        started = time.monotonic()
        await self.conn.execute("BEGIN")
        try:
            await self.conn.executemany(
                "INSERT INTO sandbox_messages (id, data) VALUES (?, ?)"
                " ON CONFLICT (id) DO UPDATE SET data = excluded.data",
                rows,
            )
            await self.conn.executemany(
                "INSERT OR REPLACE INTO sandbox_attachments (id, data) VALUES (?, ?)", files
            )
            await self.conn.execute("COMMIT")
        except BaseException:
            await self.conn.execute("ROLLBACK")
            raise
        self._saved_files.update(f[0] for f in files)
        log.debug(
            "sandbox messages saved",
            extra={"count": len(rows), "ms": round((time.monotonic() - started) * 1000, 1)},
        )


def _emoji_keys(fake: SandboxDiscord) -> frozenset[tuple[int, str]]:
    return frozenset((e.id, e.name) for e in fake.application_emojis.values())
