"""The fake's gateway: the websocket a discord.py client connects to, its sessions (which
outlive their socket for RESUME) and the events broadcast to them.

Shards, as Discord does: a session identifies with ``shard: [id, count]`` (``[0, 1]``
without), and gets a guild (GUILD_CREATE, its messages, interactions and other events) only
when ``(guild_id >> 22) % count == id``; DMs (their messages and interactions) go to shard 0
only. Each session routes by its own count, so sessions with different counts (resharding)
work, and events can reach two sessions or none, as at Discord. Two sessions of the same
shard both get its events (Discord does not end the first: a bot run twice answers twice, and
the slower answer to an interaction is refused as already acknowledged).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import secrets
import time
from collections.abc import Awaitable, Callable
from types import EllipsisType
from typing import TYPE_CHECKING, Any

from aiohttp import WSMsgType, web

from .api import json_response
from .models import FakeGuild, FakeUser

# Gateway opcodes.
OP_DISPATCH = 0
OP_HEARTBEAT = 1
OP_IDENTIFY = 2
OP_RESUME = 6
OP_RECONNECT = 7
OP_REQUEST_MEMBERS = 8
OP_INVALID_SESSION = 9
OP_HELLO = 10
OP_HEARTBEAT_ACK = 11

# Gateway intents the fake looks at.
INTENT_GUILDS = 1 << 0
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

GUILDS_PER_SHARD = 1000
"""GET /gateway/bot recommends a shard per this many guilds (Discord's rule of thumb)."""


def shard_of(guild_id: int, shard_count: int) -> int:
    """The shard that gets a guild's events, out of ``shard_count`` (Discord's formula)."""
    return (guild_id >> 22) % shard_count


def event_guild_id(event: str, data: dict[str, Any]) -> int | None:
    """The guild an event is about (``None``: a DM, or no guild)."""
    raw = data.get("id") if event.startswith("GUILD_") and "guild_id" not in data else None
    raw = raw if raw is not None else data.get("guild_id")
    return None if raw is None else int(raw)


class GatewaySession:
    """One identified gateway session; it outlives its socket for RESUME."""

    def __init__(self, session_id: str, token: str, intents: int, shard: list[int]) -> None:
        self.session_id = session_id
        self.token = token
        self.intents = intents
        self.shard = shard
        self.seq = 0
        self.sent: list[dict[str, Any]] = []
        self.ws: web.WebSocketResponse | None = None
        self.ready = asyncio.Event()
        self.identified_mono = time.monotonic()
        self._lock = asyncio.Lock()

    @property
    def connected(self) -> bool:
        return self.ws is not None and not self.ws.closed

    def routes(self, guild_id: int | None) -> bool:
        """Whether this session gets the events of ``guild_id`` (``None``: DMs, shard 0)."""
        shard_id, count = self.shard
        if guild_id is None:
            return shard_id == 0
        return shard_of(guild_id, count) == shard_id

    async def send(self, frame: dict[str, Any]) -> None:
        ws = self.ws
        if ws is None or ws.closed:
            return
        async with self._lock:
            with contextlib.suppress(ConnectionError, RuntimeError):
                await ws.send_str(json.dumps(frame))

    async def dispatch(self, event: str, data: dict[str, Any]) -> None:
        self.seq += 1
        frame = {"op": OP_DISPATCH, "t": event, "s": self.seq, "d": data}
        self.sent.append(frame)
        del self.sent[:-500]
        await self.send(frame)


class GatewayMixin:
    """The gateway routes and sessions of :class:`~.server.FakeDiscordServer`."""

    token: str | None
    bot_user: FakeUser
    application_id: int
    application_flags: int
    heartbeat_interval_ms: int
    heartbeat_ack_delay: float
    recommended_shards: int | None = None
    """What GET /gateway/bot recommends; ``None``: one shard per 1,000 guilds (at least 1)."""
    guilds: dict[int, FakeGuild]
    sessions: list[GatewaySession]
    gateway_connects: int
    identifies: int
    resumes: int
    _sockets: set[web.WebSocketResponse]

    if TYPE_CHECKING:

        @property
        def gateway_url(self) -> str: ...

        def _require_bot_auth(self, request: web.Request) -> None: ...

    # ------------------------------------------------------------------ sessions

    def active_session(self) -> GatewaySession | None:
        """The newest identified session whose socket is open."""
        for session in reversed(self.sessions):
            if session.connected:
                return session
        return None

    def sessions_for(self, guild: FakeGuild | int | None) -> list[GatewaySession]:
        """The open sessions that get a guild's events (``None``: DMs, shard 0's sessions)."""
        guild_id = guild.id if isinstance(guild, FakeGuild) else guild
        return [s for s in self.sessions if s.connected and s.routes(guild_id)]

    def _no_session(self, guild: FakeGuild | None) -> str:
        """Why an interaction in ``guild`` (``None``: a DM) has nobody to go to."""
        live = [s.shard for s in self.sessions if s.connected]
        if not live:
            return "no bot is connected to the fake gateway (use fake.run_client(bot))"
        where = "DMs (shard 0)" if guild is None else f"guild {guild.id}"
        return f"no connected shard gets {where}; connected shards [id, count]: {live}"

    def shard_of(self, guild: FakeGuild | int, shard_count: int) -> int:
        """The shard of ``shard_count`` that gets the guild's events."""
        return shard_of(guild.id if isinstance(guild, FakeGuild) else guild, shard_count)

    async def broadcast(
        self,
        event: str,
        data: dict[str, Any],
        *,
        intent: int = 0,
        guild_id: int | EllipsisType | None = ...,
    ) -> None:
        """Dispatch to the open sessions that get the event: those of its guild's shard
        (``guild_id``, by default read from the event), shard 0 for a DM's."""
        target = event_guild_id(event, data) if guild_id is ... else guild_id
        for session in self.sessions_for(target):
            if intent == 0 or session.intents & intent:
                await session.dispatch(event, data)

    # ------------------------------------------------------------------ gateway

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway_url})

    async def _get_gateway_bot(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        return json_response(
            {
                "url": self.gateway_url,
                "shards": self.recommended_shard_count(),
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

    def recommended_shard_count(self) -> int:
        if self.recommended_shards is not None:
            return self.recommended_shards
        return max(1, math.ceil(len(self.guilds) / GUILDS_PER_SHARD))

    async def _gateway(self, request: web.Request) -> web.WebSocketResponse:
        # discord.py connects with ?v=10&encoding=json&compress=zlib-stream; the fake
        # answers with text frames, which discord.py decodes without decompressing.
        ws = web.WebSocketResponse(max_msg_size=0, autoping=True)
        await ws.prepare(request)
        self._sockets.add(ws)
        self.gateway_connects += 1
        session: GatewaySession | None = None
        lock = asyncio.Lock()
        acks: set[asyncio.Task[None]] = set()

        async def send(frame: dict[str, Any]) -> None:
            if session is not None and session.ws is ws:
                await session.send(frame)
                return
            async with lock:
                with contextlib.suppress(ConnectionError, RuntimeError):
                    await ws.send_str(json.dumps(frame))

        async def ack_later() -> None:
            await asyncio.sleep(self.heartbeat_ack_delay)
            await send({"op": OP_HEARTBEAT_ACK})

        try:
            await send({"op": OP_HELLO, "d": {"heartbeat_interval": self.heartbeat_interval_ms}})
            async for msg in ws:
                if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                    break
                raw = msg.data if isinstance(msg.data, str) else msg.data.decode()
                frame = json.loads(raw)
                op = frame.get("op")
                data = frame.get("d")
                if op == OP_HEARTBEAT:
                    task = asyncio.create_task(ack_later())
                    acks.add(task)
                    task.add_done_callback(acks.discard)
                elif op == OP_IDENTIFY:
                    session = await self._identify(ws, data or {})
                elif op == OP_RESUME:
                    session = await self._resume(ws, data or {}, send)
                elif op == OP_REQUEST_MEMBERS and session is not None:
                    await self._members_chunk(session, data or {})
                # presence updates (3) and voice state updates (4) are ignored
        finally:
            for task in acks:
                task.cancel()
            self._sockets.discard(ws)
            if session is not None and session.ws is ws:
                session.ws = None
        return ws

    async def _identify(
        self, ws: web.WebSocketResponse, data: dict[str, Any]
    ) -> GatewaySession | None:
        token = str(data.get("token") or "")
        if not token or (self.token is not None and token != self.token):
            await ws.close(code=4004, message=b"Authentication failed.")
            return None
        try:
            shard = [int(x) for x in data.get("shard") or [0, 1]]
        except (TypeError, ValueError):
            shard = []
        if len(shard) != 2 or shard[1] < 1 or not 0 <= shard[0] < shard[1]:
            await ws.close(code=4010, message=b"Invalid shard.")
            return None
        self.identifies += 1
        session = GatewaySession(
            session_id=secrets.token_hex(16),
            token=token,
            intents=int(data.get("intents") or 0),
            shard=shard,
        )
        session.ws = ws
        self.sessions.append(session)
        guilds = [g for g in self.guilds.values() if session.routes(g.id)]
        user = self.bot_user.to_json() | {
            "verified": True,
            "mfa_enabled": False,
            "flags": 0,
            "locale": "en-US",
        }
        await session.dispatch(
            "READY",
            {
                "v": 10,
                "user": user,
                "guilds": [{"id": str(g.id), "unavailable": True} for g in guilds],
                "session_id": session.session_id,
                "session_type": "normal",
                "resume_gateway_url": self.gateway_url,
                "shard": session.shard,
                "application": {"id": str(self.application_id), "flags": self.application_flags},
                "private_channels": [],
                "relationships": [],
                "presences": [],
                "user_settings": {},
                "guild_join_requests": [],
                "geo_ordered_rtc_regions": [],
                "auth": {},
            },
        )
        for guild in guilds:
            await session.dispatch("GUILD_CREATE", guild.to_gateway_json(bot=self.bot_user))
        session.ready.set()
        return session

    async def _resume(
        self,
        ws: web.WebSocketResponse,
        data: dict[str, Any],
        send: Callable[[dict[str, Any]], Awaitable[None]],
    ) -> GatewaySession | None:
        session = next((s for s in self.sessions if s.session_id == data.get("session_id")), None)
        if session is None or session.token != data.get("token") or session.connected:
            # Not resumable: discord.py closes and identifies anew.
            await send({"op": OP_INVALID_SESSION, "d": False})
            return None
        self.resumes += 1
        session.ws = ws
        seq = int(data.get("seq") or 0)
        for frame in [f for f in session.sent if f["s"] > seq]:
            await session.send(frame)
        await session.dispatch("RESUMED", {})
        return session

    async def _members_chunk(self, session: GatewaySession, data: dict[str, Any]) -> None:
        guild = self.guilds.get(int(data.get("guild_id") or 0))
        if guild is None:
            return
        wanted = {int(u) for u in data.get("user_ids") or []}
        members = [m for m in guild.members.values() if not wanted or m.id in wanted]
        payload: dict[str, Any] = {
            "guild_id": str(guild.id),
            "members": [m.to_json() for m in members],
            "chunk_index": 0,
            "chunk_count": 1,
        }
        if data.get("nonce"):
            payload["nonce"] = data["nonce"]
        await session.dispatch("GUILD_MEMBERS_CHUNK", payload)

    async def close_gateway(self, code: int = 4000, *, resumable: bool = True) -> None:
        """Close every open gateway socket from Discord's side.

        discord.py reconnects on its own: with resumable=True it RESUMEs the
        same session; with resumable=False the sessions are forgotten, so its
        RESUME is refused with INVALID_SESSION and it identifies anew.
        """
        sessions = [s for s in self.sessions if s.connected]
        if not resumable:
            for s in sessions:
                s.session_id = f"forgotten-{s.session_id}"
        for s in sessions:
            if s.ws is not None:
                await s.ws.close(code=code)
