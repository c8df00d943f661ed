"""State kept by the fake Discord: users, guilds, channels, messages, interactions.

Everything here is plain data plus the JSON renderers that turn it into the
payloads Discord would send. Nothing in this module talks to the network.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple

DISCORD_EPOCH_MS = 1_420_070_400_000

EPHEMERAL = 1 << 6
LOADING = 1 << 7
IS_COMPONENTS_V2 = 1 << 15
#: Message flag: a thread was started from this message.
HAS_THREAD = 1 << 5

# Channel types.
GUILD_TEXT = 0
DM = 1
ANNOUNCEMENT_THREAD = 10
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = frozenset({ANNOUNCEMENT_THREAD, PUBLIC_THREAD, PRIVATE_THREAD})
#: The values ``auto_archive_duration`` may take (minutes).
ARCHIVE_DURATIONS = (60, 1440, 4320, 10080)

# Permission bits used by the fake.
MANAGE_CHANNELS = 1 << 4
ADMINISTRATOR = 1 << 3
VIEW_CHANNEL = 1 << 10
SEND_MESSAGES = 1 << 11
EMBED_LINKS = 1 << 14
ATTACH_FILES = 1 << 15
READ_MESSAGE_HISTORY = 1 << 16
ADD_REACTIONS = 1 << 6
USE_EXTERNAL_EMOJIS = 1 << 18
USE_APPLICATION_COMMANDS = 1 << 31
MANAGE_MESSAGES = 1 << 13
MANAGE_THREADS = 1 << 34
CREATE_PUBLIC_THREADS = 1 << 35
CREATE_PRIVATE_THREADS = 1 << 36
SEND_MESSAGES_IN_THREADS = 1 << 38
ALL_PERMISSIONS = (1 << 51) - 1

#: What @everyone may do in a freshly made guild of the fake: enough to read,
#: talk, embed, attach and use application commands.
DEFAULT_EVERYONE_PERMISSIONS = (
    VIEW_CHANNEL
    | SEND_MESSAGES
    | EMBED_LINKS
    | ATTACH_FILES
    | READ_MESSAGE_HISTORY
    | ADD_REACTIONS
    | USE_EXTERNAL_EMOJIS
    | USE_APPLICATION_COMMANDS
    | SEND_MESSAGES_IN_THREADS
    | CREATE_PUBLIC_THREADS
    | CREATE_PRIVATE_THREADS
)


class SnowflakeFactory:
    """Monotonic snowflakes whose timestamp part is the current time."""

    def __init__(self) -> None:
        self._last = 0
        self._counter = itertools.count()

    def __call__(self) -> int:
        now_ms = int(time.time() * 1000) - DISCORD_EPOCH_MS
        candidate = (now_ms << 22) | (next(self._counter) & 0xFFF)
        self._last = max(self._last + 1, candidate)
        return self._last


def iso(ts: float | None) -> str | None:
    if ts is None:
        return None
    return dt.datetime.fromtimestamp(ts, tz=dt.UTC).isoformat()


def perm_value(value: Any) -> int:
    """Accepts an int, a string of digits or a discord.Permissions."""
    if value is None:
        return 0
    if isinstance(value, int):
        return value
    if isinstance(value, str):
        return int(value)
    return int(value.value)


@dataclass(eq=False)
class FakeUser:
    id: int
    name: str
    global_name: str | None = None
    locale: str = "en-US"
    bot: bool = False
    dms_open: bool = True
    dm_channel: FakeChannel | None = None

    @property
    def mention(self) -> str:
        return f"<@{self.id}>"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "username": self.name,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "bot": self.bot,
            "public_flags": 0,
            "flags": 0,
        }

    def __repr__(self) -> str:
        return f"<FakeUser {self.name} id={self.id}>"


@dataclass(eq=False)
class FakeRole:
    id: int
    guild: FakeGuild
    name: str
    permissions: int = 0
    position: int = 0
    mentionable: bool = False

    @property
    def mention(self) -> str:
        return f"<@&{self.id}>"

    def to_json(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": False,
            "mentionable": self.mentionable,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }

    def __repr__(self) -> str:
        return f"<FakeRole {self.name} id={self.id}>"


@dataclass(eq=False)
class FakeMember:
    user: FakeUser
    guild: FakeGuild
    roles: list[FakeRole] = field(default_factory=list)
    nick: str | None = None
    permissions_override: int | None = None
    joined_at: float = field(default_factory=time.time)

    @property
    def id(self) -> int:
        return self.user.id

    @property
    def permissions(self) -> int:
        """Guild-level permissions (no channel overwrites in the fake)."""
        if self.permissions_override is not None:
            value = self.permissions_override
        else:
            value = self.guild.everyone.permissions
            for role in self.roles:
                value |= role.permissions
        if self.guild.owner_id == self.user.id or value & ADMINISTRATOR:
            return ALL_PERMISSIONS
        return value

    def permissions_in(self, channel: FakeChannel) -> int:
        """Permissions in a channel, as Discord computes them: the guild's, then the
        channel's overwrites (@everyone, the member's roles, the member); a thread has its
        parent channel's."""
        base = self.permissions
        if base == ALL_PERMISSIONS:
            return base
        source = channel.parent if channel.is_thread else channel
        if source is None:
            return base
        overwrites = {(o.type, o.id): o for o in source.overwrites}
        everyone = overwrites.get((0, self.guild.id))
        if everyone is not None:
            base = (base & ~everyone.deny) | everyone.allow
        allow = deny = 0
        for role in self.roles:
            found = overwrites.get((0, role.id))
            if found is not None:
                allow |= found.allow
                deny |= found.deny
        base = (base & ~deny) | allow
        mine = overwrites.get((1, self.user.id))
        if mine is not None:
            base = (base & ~mine.deny) | mine.allow
        return base

    def to_json(self, *, with_user: bool = True, with_permissions: bool = False) -> dict[str, Any]:
        data: dict[str, Any] = {
            "roles": [str(r.id) for r in self.roles],
            "nick": self.nick,
            "avatar": None,
            "banner": None,
            "joined_at": iso(self.joined_at),
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "pending": False,
            "flags": 0,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.user.to_json()
        if with_permissions:
            data["permissions"] = str(self.permissions)
        return data


@dataclass(eq=False)
class FakeThreadMember:
    """A user's membership of a thread (Discord's thread member object)."""

    user_id: int
    join_timestamp: float
    flags: int = 0

    def to_json(self, thread_id: int) -> dict[str, Any]:
        return {
            "id": str(thread_id),
            "user_id": str(self.user_id),
            "join_timestamp": iso(self.join_timestamp),
            "flags": self.flags,
        }


@dataclass(eq=False)
class Overwrite:
    """A channel's permission overwrite for a role (type 0) or a member (type 1)."""

    id: int
    type: int
    allow: int = 0
    deny: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "type": self.type,
            "allow": str(self.allow),
            "deny": str(self.deny),
        }


@dataclass(eq=False)
class FakeChannel:
    id: int
    type: int  # 0 text, 1 DM, 2 voice, 4 category, 5 news, 11 public / 12 private thread
    name: str | None = None
    guild: FakeGuild | None = None
    recipient: FakeUser | None = None
    position: int = 0
    topic: str | None = None
    #: A thread's parent channel (a channel's category otherwise).
    parent_id: int | None = None
    last_message_id: int | None = None
    rate_limit_per_user: int = 0
    overwrites: list[Overwrite] = field(default_factory=list)
    #: Deleted (a thread or a channel): its routes answer Unknown Channel (10003).
    deleted: bool = False
    # -- threads only
    owner_id: int | None = None
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    auto_archive_duration: int = 1440
    #: Wall-clock seconds: when ``archived`` last changed (or the thread was created).
    archive_timestamp: float | None = None
    create_timestamp: float | None = None
    #: Wall-clock seconds of the last activity (a message, unarchiving, a new duration).
    last_activity: float = 0.0
    message_count: int = 0
    total_message_sent: int = 0
    members: dict[int, FakeThreadMember] = field(default_factory=dict)
    #: The message the thread was started from (None: started without one).
    starter: FakeMessage | None = None

    @property
    def mention(self) -> str:
        return f"<#{self.id}>"

    @property
    def is_dm(self) -> bool:
        return self.type == DM

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES

    @property
    def parent(self) -> FakeChannel | None:
        """A thread's parent channel."""
        if self.guild is None or self.parent_id is None:
            return None
        return next((c for c in self.guild.channels if c.id == self.parent_id), None)

    def thread_metadata(self) -> dict[str, Any]:
        return {
            "archived": self.archived,
            "auto_archive_duration": self.auto_archive_duration,
            "archive_timestamp": iso(self.archive_timestamp),
            "locked": self.locked,
            "invitable": self.invitable,
            "create_timestamp": iso(self.create_timestamp),
        }

    def to_json(self, *, bot: FakeUser | None = None) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "type": self.type,
            "last_message_id": str(self.last_message_id) if self.last_message_id else None,
            "flags": 0,
        }
        if self.is_dm:
            recipients = [self.recipient.to_json()] if self.recipient else []
            data["recipients"] = recipients
            if bot is not None:
                data["recipient_flags"] = 0
            return data
        assert self.guild is not None
        if self.is_thread:
            data.update(
                {
                    "guild_id": str(self.guild.id),
                    "name": self.name,
                    "parent_id": str(self.parent_id),
                    "owner_id": str(self.owner_id),
                    "rate_limit_per_user": self.rate_limit_per_user,
                    "message_count": self.message_count,
                    "total_message_sent": self.total_message_sent,
                    # Discord stops counting at 50.
                    "member_count": min(50, len(self.members)),
                    "thread_metadata": self.thread_metadata(),
                }
            )
            if bot is not None and bot.id in self.members:
                data["member"] = self.members[bot.id].to_json(self.id)
            return data
        data.update(
            {
                "guild_id": str(self.guild.id),
                "name": self.name,
                "position": self.position,
                "permission_overwrites": [o.to_json() for o in self.overwrites],
                "nsfw": False,
                "parent_id": str(self.parent_id) if self.parent_id else None,
                "topic": self.topic,
                "rate_limit_per_user": self.rate_limit_per_user,
                "default_auto_archive_duration": 1440,
            }
        )
        return data

    def __repr__(self) -> str:
        label = f"DM with {self.recipient.name}" if self.is_dm and self.recipient else self.name
        kind = "FakeThread" if self.is_thread else "FakeChannel"
        return f"<{kind} {label} id={self.id}>"


@dataclass(eq=False)
class FakeGuild:
    id: int
    name: str
    locale: str = "en-US"
    owner_id: int | None = None
    roles: list[FakeRole] = field(default_factory=list)
    channels: list[FakeChannel] = field(default_factory=list)
    members: dict[int, FakeMember] = field(default_factory=dict)
    #: Threads of the guild's channels, deleted ones too (``deleted``), oldest first.
    threads: list[FakeChannel] = field(default_factory=list)

    @property
    def everyone(self) -> FakeRole:
        return self.roles[0]

    def to_json(self) -> dict[str, Any]:
        return {
            "id": str(self.id),
            "name": self.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "owner_id": str(self.owner_id) if self.owner_id else None,
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "roles": [r.to_json() for r in self.roles],
            "emojis": [],
            "stickers": [],
            "features": [],
            "mfa_level": 0,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "vanity_url_code": None,
            "description": None,
            "banner": None,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "preferred_locale": self.locale,
            "public_updates_channel_id": None,
            "nsfw_level": 0,
            "premium_progress_bar_enabled": False,
        }

    def active_threads(self) -> list[FakeChannel]:
        return [t for t in self.threads if not t.deleted and not t.archived]

    def to_gateway_json(self, *, bot: FakeUser | None = None) -> dict[str, Any]:
        data = self.to_json()
        data.update(
            {
                "unavailable": False,
                "large": False,
                "member_count": len(self.members),
                "joined_at": iso(time.time()),
                "channels": [c.to_json() for c in self.channels],
                "threads": [t.to_json(bot=bot) for t in self.active_threads()],
                "members": [m.to_json() for m in self.members.values()],
                "voice_states": [],
                "presences": [],
                "stage_instances": [],
                "guild_scheduled_events": [],
                "soundboard_sounds": [],
            }
        )
        return data

    def __repr__(self) -> str:
        return f"<FakeGuild {self.name} id={self.id}>"


@dataclass(eq=False)
class MessageVersion:
    """One state of a message; a message keeps its older versions on edit."""

    content: str
    embeds: list[dict[str, Any]]
    components: list[dict[str, Any]]
    flags: int
    attachments: list[dict[str, Any]]
    at: float


@dataclass(eq=False)
class FakeMessage:
    id: int
    channel: FakeChannel
    author: FakeUser
    content: str = ""
    embeds: list[dict[str, Any]] = field(default_factory=list)
    components: list[dict[str, Any]] = field(default_factory=list)
    flags: int = 0
    attachments: list[dict[str, Any]] = field(default_factory=list)
    type: int = 0
    #: The user an ephemeral message is shown to; None for everybody.
    visible_to: FakeUser | None = None
    #: The interaction whose response or follow-up this message is.
    interaction: FakeInteraction | None = None
    webhook_id: int | None = None
    message_reference: dict[str, Any] | None = None
    #: Users and role ids mentioned in the content, as Discord parses them.
    mentions: list[FakeUser] = field(default_factory=list)
    mention_roles: list[int] = field(default_factory=list)
    #: The users this message notified when it was posted: those mentioned in its content
    #: that its ``allowed_mentions`` let through (Discord notifies nobody of an edit).
    notified: list[int] = field(default_factory=list)
    created_at: float = field(default_factory=time.time)
    created_mono: float = field(default_factory=time.monotonic)
    edited_at: float | None = None
    edited_mono: float | None = None
    deleted: bool = False
    #: Older versions, oldest first (the current state is not in here).
    history: list[MessageVersion] = field(default_factory=list)
    #: The thread started from this message (its id is the message's).
    thread: FakeChannel | None = None

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def loading(self) -> bool:
        return bool(self.flags & LOADING)

    @property
    def guild(self) -> FakeGuild | None:
        return self.channel.guild

    @property
    def edits(self) -> list[MessageVersion]:
        """Previous versions of the message, oldest first."""
        return list(self.history)

    @property
    def versions(self) -> list[MessageVersion]:
        """All versions including the current one, oldest first."""
        return [*self.history, self.snapshot()]

    @property
    def text(self) -> str:
        """Content plus every embed's visible text, for simple assertions."""
        return message_text(self.content, self.embeds, self.components)

    def snapshot(self) -> MessageVersion:
        return MessageVersion(
            content=self.content,
            embeds=list(self.embeds),
            components=list(self.components),
            flags=self.flags,
            attachments=list(self.attachments),
            at=self.edited_at or self.created_at,
        )

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "channel_id": str(self.channel.id),
            "author": self.author.to_json(),
            "content": self.content,
            "timestamp": iso(self.created_at),
            "edited_timestamp": iso(self.edited_at),
            "tts": False,
            "mention_everyone": False,
            "mentions": [u.to_json() for u in self.mentions],
            "mention_roles": [str(r) for r in self.mention_roles],
            "attachments": list(self.attachments),
            "embeds": list(self.embeds),
            "components": list(self.components),
            "reactions": [],
            "pinned": False,
            "type": self.type,
            "flags": self.flags,
        }
        if self.channel.guild is not None:
            data["guild_id"] = str(self.channel.guild.id)
        if self.webhook_id is not None:
            data["webhook_id"] = str(self.webhook_id)
            data["application_id"] = str(self.webhook_id)
        if self.message_reference is not None:
            data["message_reference"] = self.message_reference
        if self.thread is not None and not self.thread.deleted:
            data["thread"] = self.thread.to_json()
        if self.interaction is not None:
            inter = self.interaction
            data["interaction_metadata"] = {
                "id": str(inter.id),
                "type": inter.type,
                "user": inter.user.to_json(),
                "authorizing_integration_owners": inter.integration_owners(),
            }
            if inter.type == 2:
                data["interaction_metadata"]["name"] = inter.command_name
        return data

    def __repr__(self) -> str:
        where = repr(self.channel)
        return f"<FakeMessage id={self.id} in {where} content={self.content[:40]!r} flags={self.flags}>"


class ButtonInfo(NamedTuple):
    label: str | None
    custom_id: str | None
    disabled: bool


def walk_components(components: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every component in a tree (action rows, containers, sections, labels)."""
    out: list[dict[str, Any]] = []
    stack = list(reversed(components))
    while stack:
        comp = stack.pop()
        out.append(comp)
        children: list[dict[str, Any]] = []
        children.extend(comp.get("components") or [])
        if comp.get("accessory"):
            children.append(comp["accessory"])
        if comp.get("component"):
            children.append(comp["component"])
        stack.extend(reversed(children))
    return out


def message_text(
    content: str, embeds: list[dict[str, Any]], components: list[dict[str, Any]]
) -> str:
    parts = [content] if content else []
    for embed in embeds:
        for key in ("title", "description"):
            if embed.get(key):
                parts.append(str(embed[key]))
        for fld in embed.get("fields", []):
            parts.append(f"{fld.get('name', '')}: {fld.get('value', '')}")
        if embed.get("footer", {}).get("text"):
            parts.append(embed["footer"]["text"])
        if embed.get("author", {}).get("name"):
            parts.append(embed["author"]["name"])
    for comp in walk_components(components):
        if comp.get("type") == 10 and comp.get("content"):  # components v2 text display
            parts.append(str(comp["content"]))
    return "\n".join(parts)


@dataclass
class RecordedCall:
    method: str
    route: str
    path: str
    query: dict[str, str]
    json: Any
    status: int
    at: float
    files: list[str] = field(default_factory=list)

    def __repr__(self) -> str:
        return f"<{self.method} {self.path} -> {self.status}>"


@dataclass
class LateInteraction:
    interaction_id: int
    description: str
    waited: float
    answered: bool

    def __str__(self) -> str:
        state = "answered late" if self.answered else "never answered"
        return f"{self.description} ({state}; {self.waited:.2f}s after dispatch)"


@dataclass(eq=False)
class FakeInteraction:
    id: int
    token: str
    type: int  # 2 command, 3 component, 4 autocomplete, 5 modal submit
    user: FakeUser
    channel: FakeChannel
    guild: FakeGuild | None
    data: dict[str, Any]
    description: str
    command_name: str | None = None
    source_message: FakeMessage | None = None
    dispatched_mono: float = 0.0
    callback_type: int | None = None
    callback_mono: float | None = None
    response_message: FakeMessage | None = None
    modal: dict[str, Any] | None = None
    followups: list[FakeMessage] = field(default_factory=list)
    #: Autocomplete choices the bot answered with (callback type 8).
    choices: list[dict[str, Any]] | None = None
    late: bool = False
    answered: asyncio.Event = field(default_factory=asyncio.Event)
    followed_up: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def latency(self) -> float | None:
        if self.callback_mono is None:
            return None
        return self.callback_mono - self.dispatched_mono

    def integration_owners(self) -> dict[str, str]:
        if self.guild is not None:
            return {"0": str(self.guild.id)}
        return {"1": str(self.user.id)}


EMOJI_CONTENT_TYPES = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "gif": "image/gif",
    "webp": "image/webp",
}


@dataclass(eq=False)
class FakeEmoji:
    """An emoji the application owns (``/applications/{id}/emojis``), with its picture."""

    id: int
    name: str
    data: bytes
    #: ``png``, ``jpeg``, ``gif`` or ``webp``.
    format: str
    #: Who uploaded it (the bot user when the bot did).
    user: FakeUser | None = None
    animated: bool = False

    @property
    def markup(self) -> str:
        """How a message's text shows it: ``<:name:id>``."""
        return f"<{'a' if self.animated else ''}:{self.name}:{self.id}>"

    @property
    def content_type(self) -> str:
        return EMOJI_CONTENT_TYPES[self.format]

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": str(self.id),
            "name": self.name,
            "roles": [],
            "require_colons": True,
            "managed": False,
            "animated": self.animated,
            "available": True,
        }
        if self.user is not None:
            data["user"] = self.user.to_json()
        return data

    def __repr__(self) -> str:
        return f"<FakeEmoji {self.name} id={self.id} {len(self.data)} bytes>"
