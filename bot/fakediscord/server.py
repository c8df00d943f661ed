"""An in-process Discord: the gateway websocket and the REST routes a bot uses.

`FakeDiscordServer` holds the state (users, guilds, channels, messages,
interactions, registered commands), serves it over aiohttp on 127.0.0.1 and
records every REST call. The readable test API lives in `driver.py`.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import math
import re
import secrets
import time
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

import discord.gateway
import discord.http
import yarl
from aiohttp import WSMsgType, web

from .models import (
    EPHEMERAL,
    IS_COMPONENTS_V2,
    LOADING,
    SEND_MESSAGES,
    VIEW_CHANNEL,
    FakeChannel,
    FakeEmoji,
    FakeGuild,
    FakeInteraction,
    FakeMessage,
    FakeUser,
    LateInteraction,
    MessageVersion,
    RecordedCall,
    SnowflakeFactory,
)
from .ratelimits import Limits, RateLimiter, RateLimitHit, RestClock, Scope
from .validation import (
    check_application_emoji,
    check_choices,
    check_command,
    check_files,
    check_message,
    check_modal,
    decode_emoji_image,
)

API = "/api/v10"

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
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

# Message flags a sender may set.
SETTABLE_FLAGS = (1 << 2) | EPHEMERAL | (1 << 12) | IS_COMPONENTS_V2

# Which callback types each interaction type accepts.
ALLOWED_CALLBACKS = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}

USER_MENTION = re.compile(r"<@!?(\d+)>")
ROLE_MENTION = re.compile(r"<@&(\d+)>")


class ApiError(Exception):
    """Raised by a handler to answer with Discord's JSON error shape."""

    def __init__(
        self, status: int, code: int, message: str, errors: dict[str, Any] | None = None
    ) -> None:
        super().__init__(f"{status} {code} {message}")
        self.status = status
        self.body: dict[str, Any] = {"code": code, "message": message}
        if errors:
            self.body["errors"] = errors

    @classmethod
    def from_problem(cls, problem: tuple[int, dict[str, Any]]) -> ApiError:
        status, body = problem
        return cls(status, body["code"], body["message"], body.get("errors"))

    @classmethod
    def form(cls, field: str, code: str, message: str) -> ApiError:
        return cls(
            400,
            50035,
            "Invalid Form Body",
            {field: {"_errors": [{"code": code, "message": message}]}},
        )


def json_response(data: Any, status: int = 200) -> web.Response:
    # discord.py only decodes JSON when the content type is exactly this.
    return web.Response(
        status=status,
        body=json.dumps(data).encode(),
        headers={"Content-Type": "application/json"},
    )


PAYLOAD: web.RequestKey[Any] = web.RequestKey("fake_payload", object)
FILES = web.RequestKey("fake_files", list)


def no_content() -> web.Response:
    return web.Response(status=204)


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


class FakeDiscordServer:
    """State and HTTP/websocket handling of the fake Discord."""

    _patched_by: FakeDiscordServer | None = None

    def __init__(
        self,
        *,
        bot_name: str = "Gamenight",
        application_id: int | None = None,
        token: str | None = None,
        late_after: float = 3.0,
        enforce_deadline: bool = True,
        heartbeat_interval_ms: int = 41_250,
        heartbeat_ack_delay: float = 0.05,
        strict_routes: bool = True,
        limits: Limits = Limits(),  # noqa: B008 (frozen, so sharing it is safe)
        rest_clock: RestClock | None = None,
        token_lifetime: float | None = 900.0,
    ) -> None:
        self.snowflake = SnowflakeFactory()
        self.application_id = application_id or self.snowflake()
        self.application_flags = 0
        self.bot_user = FakeUser(id=self.application_id, name=bot_name, bot=True)
        #: None accepts any token; a string makes other tokens fail like Discord (401 / 4004).
        self.token = token
        #: An interaction not answered this many seconds after its dispatch is late.
        self.late_after = late_after
        #: Answer a late callback with 404 Unknown interaction (10062), as Discord does.
        self.enforce_deadline = enforce_deadline
        self.heartbeat_interval_ms = heartbeat_interval_ms
        #: Seconds before a heartbeat is acknowledged, like a network's round trip. Never 0:
        #: discord.py's keep-alive thread notes when it sent a heartbeat only after the
        #: send returned, and an ACK handled before that is measured from the previous
        #: heartbeat ("Can't keep up, websocket is 41.3s behind").
        self.heartbeat_ack_delay = heartbeat_ack_delay
        #: Fail the test (fixture teardown) when the bot called a route the fake lacks.
        self.strict_routes = strict_routes
        if limits is None:
            raise TypeError(
                "limits=None: pass Limits.off(reason) to run without rate limits, saying why"
            )
        #: Time of REST limits, token lifetimes and outages (real monotonic unless moved).
        self.rest_clock = rest_clock or RestClock()
        #: Discord's REST rate limits (see ratelimits.py); `fake.limits = ...` changes them.
        self.rate_limiter = RateLimiter(limits, self.rest_clock)
        #: Seconds an interaction token works for webhook calls after the interaction was
        #: created (Discord: 15 minutes); later calls get 401 Invalid Webhook Token (50027).
        #: None: tokens never expire.
        self.token_lifetime = token_lifetime
        #: A global 429 fails the test (the bot's REST budget must keep it under the limit);
        #: a test of the fake's own limits sets it to False.
        self.global_429_is_a_problem = True

        self.users: dict[int, FakeUser] = {self.bot_user.id: self.bot_user}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, FakeMessage] = {}
        self.interactions: dict[int, FakeInteraction] = {}
        self.global_commands: dict[tuple[str, int], dict[str, Any]] = {}
        self.guild_commands: dict[int, dict[tuple[str, int], dict[str, Any]]] = {}
        #: The application's own emojis (``/applications/{id}/emojis``), by id.
        self.application_emojis: dict[int, FakeEmoji] = {}

        self.attachment_data: dict[int, bytes] = {}
        self.calls: list[RecordedCall] = []
        self.unhandled_calls: list[RecordedCall] = []
        self.internal_errors: list[str] = []
        self.late_interactions: list[LateInteraction] = []
        self.answer_latencies: list[float] = []
        self.sessions: list[GatewaySession] = []
        self.gateway_connects = 0
        self.identifies = 0
        self.resumes = 0

        self._sockets: set[web.WebSocketResponse] = set()
        self._late_timers: dict[int, asyncio.TimerHandle] = {}
        self._token_born: dict[int, float] = {}
        self._outage_until: float | None = None
        self._outage_status = 503
        self._last_activity = time.monotonic()
        self._runner: web.AppRunner | None = None
        self._saved_bases: tuple[str, yarl.URL] | None = None
        self.host = "127.0.0.1"
        self.port = 0

    # ------------------------------------------------------------------ lifecycle

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"

    @property
    def api_base(self) -> str:
        return f"{self.base_url}{API}"

    @property
    def gateway_url(self) -> str:
        return f"ws://{self.host}:{self.port}/gateway"

    async def start(self, *, patch: bool = True) -> None:
        """Serve on a free port of 127.0.0.1; with patch, point discord.py at it."""
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        self._add_routes(app)
        self._runner = web.AppRunner(app, handle_signals=False, access_log=None)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, 0)
        await site.start()
        self.port = self._runner.addresses[0][1]
        if patch:
            self.patch_discord()

    async def stop(self) -> None:
        """Close sockets, stop serving, restore discord.py's bases."""
        for handle in self._late_timers.values():
            handle.cancel()
        self._late_timers.clear()
        for inter in self.interactions.values():
            if inter.callback_type is None and not inter.late:
                self._flag_late(inter, answered=False)
        for ws in list(self._sockets):
            with contextlib.suppress(Exception):
                await ws.close(code=1001)
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
        self.restore_discord()

    def patch_discord(self) -> None:
        """Point discord.py's REST base and default gateway at this fake."""
        if self._saved_bases is not None:
            return
        active = FakeDiscordServer._patched_by
        if active is not None and active is not self:
            raise RuntimeError(
                "another FakeDiscord is already patched into discord.py; stop it first"
            )
        FakeDiscordServer._patched_by = self
        self._saved_bases = (
            discord.http.Route.BASE,
            discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY,
        )
        discord.http.Route.BASE = self.api_base
        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)

    def restore_discord(self) -> None:
        if self._saved_bases is None:
            return
        discord.http.Route.BASE, discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = (
            self._saved_bases
        )
        self._saved_bases = None
        FakeDiscordServer._patched_by = None

    def problems(self) -> list[str]:
        """What should fail a test: late interactions, missing routes, fake bugs."""
        out = [f"late interaction: {late}" for late in self.late_interactions]
        if self.strict_routes:
            out += [
                f"route not implemented by the fake: {c.method} {c.path} body={c.json!r}"
                for c in self.unhandled_calls
            ]
        out += [f"fake discord internal error: {e}" for e in self.internal_errors]
        if self.global_429_is_a_problem:
            hits = [h for h in self.rate_limited if h.global_]
            if hits:
                out.append(
                    f"the bot met Discord's global rate limit {len(hits)} times "
                    f"(first: {hits[0].method} {hits[0].path}); its REST budget should pace it"
                )
        if self.banned:
            limits = self.limits
            out.append(
                f"banned by Discord: {limits.invalid_request_limit} invalid requests "
                f"(401/403/429) within {limits.invalid_request_window:g} s"
            )
        return out

    # ------------------------------------------------------------------ rate limits, outages

    @property
    def limits(self) -> Limits:
        """The table of REST limits; assign a new one (e.g. ``Limits.off(reason)``) to change it."""
        return self.rate_limiter.limits

    @limits.setter
    def limits(self, limits: Limits) -> None:
        self.rate_limiter.limits = limits

    @property
    def rate_limited(self) -> list[RateLimitHit]:
        """Every request answered 429 for a rate limit, oldest first (not the ban's 429s)."""
        return self.rate_limiter.hits

    def rate_limit_counts(self, *, since: float | None = None) -> dict[Scope, int]:
        """429s by scope (``user``, ``global``, ``shared``), optionally since a rest_clock time."""
        out: dict[Scope, int] = {"user": 0, "global": 0, "shared": 0}
        for hit in self.rate_limiter.hits:
            if since is None or hit.at >= since:
                out[hit.scope] += 1
        return out

    def invalid_requests(self, window: float = 600.0) -> int:
        """Answers 401, 403 or 429 (not of scope shared) within the last ``window`` seconds."""
        return self.rate_limiter.invalid_requests(window)

    @property
    def banned(self) -> bool:
        """Too many invalid requests: every request is answered 429 (the fixture fails)."""
        return self.rate_limiter.banned

    def global_calls_per_second(self, since: int = 0) -> tuple[float, int]:
        """(mean, worst) requests a second counted against the global limit, since a
        call-log bookmark (``mark()``); worst is the most within any one second."""
        return self.rate_limiter.global_calls_per_second(since)

    def outage(self, seconds: float | None = None, *, status: int = 503) -> None:
        """Discord's REST API is down for ``seconds`` (rest_clock; None: until end_outage()).

        Every REST call (interaction callbacks too) is answered ``status`` (503; 502, 504
        and 500 make discord.py retry 5 times over ~25 s) without being applied; the
        call log keeps it. The gateway keeps running."""
        if status < 500:
            raise ValueError(f"an outage answers a 5xx status, not {status}")
        HTTPStatus(status)  # a known one (ValueError otherwise)
        now = self.rest_clock()
        self._outage_until = math.inf if seconds is None else now + seconds
        self._outage_status = status

    def end_outage(self) -> None:
        self._outage_until = None

    @property
    def in_outage(self) -> bool:
        return self._outage_until is not None and self.rest_clock() < self._outage_until

    # ------------------------------------------------------------------ state helpers

    def _touch(self) -> None:
        self._last_activity = time.monotonic()

    def active_session(self) -> GatewaySession | None:
        """The newest identified session whose socket is open."""
        for session in reversed(self.sessions):
            if session.connected:
                return session
        return None

    async def broadcast(self, event: str, data: dict[str, Any], *, intent: int = 0) -> None:
        for session in self.sessions:
            if session.connected and (intent == 0 or session.intents & intent):
                await session.dispatch(event, data)

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
        self.messages[msg.id] = msg
        self._parse_mentions(msg)
        if not msg.ephemeral:
            channel.last_message_id = msg.id
        return msg

    def _parse_mentions(self, msg: FakeMessage) -> None:
        ids = dict.fromkeys(int(x) for x in USER_MENTION.findall(msg.content))
        msg.mentions = [self.users[i] for i in ids if i in self.users]
        roles = {r.id for g in self.guilds.values() for r in g.roles}
        msg.mention_roles = [int(x) for x in ROLE_MENTION.findall(msg.content) if int(x) in roles]

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
        msg.edited_at = time.time()
        msg.edited_mono = time.monotonic()

    def _gateway_message_json(self, msg: FakeMessage) -> dict[str, Any]:
        data = msg.to_json()
        guild = msg.channel.guild
        if guild is not None and msg.author.id in guild.members:
            data["member"] = guild.members[msg.author.id].to_json(with_user=False)
        return data

    async def _announce_create(self, msg: FakeMessage) -> None:
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
        for session in self.sessions:
            if session.connected and session.intents & intent:
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

    # ------------------------------------------------------------------ late interactions

    def _schedule_late_check(self, inter: FakeInteraction) -> None:
        # Called as the interaction is dispatched: its token's lifetime starts now.
        self._token_born[inter.id] = self.rest_clock()
        loop = asyncio.get_running_loop()
        self._late_timers[inter.id] = loop.call_later(
            self.late_after, self._late_timer_fired, inter
        )

    def _late_timer_fired(self, inter: FakeInteraction) -> None:
        self._late_timers.pop(inter.id, None)
        if inter.callback_type is None and not inter.late:
            self._flag_late(inter, answered=False)

    def _flag_late(self, inter: FakeInteraction, *, answered: bool) -> None:
        inter.late = True
        waited = time.monotonic() - inter.dispatched_mono
        self.late_interactions.append(
            LateInteraction(inter.id, inter.description, waited, answered)
        )

    # ------------------------------------------------------------------ HTTP plumbing

    @web.middleware
    async def _middleware(
        self, request: web.Request, handler: Callable[[web.Request], Awaitable[web.StreamResponse]]
    ) -> web.StreamResponse:
        if (
            request.path.startswith("/gateway")
            and request.headers.get("Upgrade", "").lower() == "websocket"
        ):
            return await handler(request)
        self._touch()
        payload, files = await self._read_body(request)
        request[PAYLOAD] = payload
        request[FILES] = files
        info = request.match_info.route.resource
        route = info.canonical if info is not None else request.path
        route = route.removeprefix(API)
        path = request.path.removeprefix(API)
        decision = None
        if not request.path.startswith(API + "/"):  # attachments (the CDN): no limits
            response = await self._handle(request, handler, files)
        elif self.in_outage:
            reason = HTTPStatus(self._outage_status).phrase
            response = json_response(
                {"code": 0, "message": f"{self._outage_status}: {reason}"},
                status=self._outage_status,
            )
        else:
            decision = self.rate_limiter.admit(
                request.method,
                route,
                path,
                request.match_info,
                request.headers.get("Authorization"),
            )
            if decision.refused:  # not applied
                response = json_response(decision.body, status=decision.status or 429)
            else:
                response = await self._handle(request, handler, files)
            self.rate_limiter.answered(response.status, decision)
            response.headers.update(decision.headers)
        call = RecordedCall(
            method=request.method,
            route=route,
            path=path,
            query=dict(request.query),
            json=payload,
            status=response.status,
            at=time.monotonic(),
            files=[f["filename"] for f in files],
        )
        self.calls.append(call)
        if decision is not None and decision.counts_global:
            self.rate_limiter.global_calls.append((len(self.calls) - 1, decision.at))
        if getattr(handler, "__name__", "") == "_unhandled":
            self.unhandled_calls.append(call)
        self._touch()
        return response

    async def _handle(
        self,
        request: web.Request,
        handler: Callable[[web.Request], Awaitable[web.StreamResponse]],
        files: list[dict[str, Any]],
    ) -> web.StreamResponse:
        try:
            problem = check_files(files) if files else None
            if problem:
                raise ApiError.from_problem(problem)
            return await handler(request)
        except ApiError as exc:
            return json_response(exc.body, status=exc.status)
        except web.HTTPException:
            raise
        except Exception as exc:
            # A bug of the fake itself: make it loud but don't make discord.py retry.
            self.internal_errors.append(f"{request.method} {request.path}: {exc!r}")
            return json_response(
                {"code": 0, "message": f"fake discord internal error: {exc!r}"}, 400
            )

    async def _read_body(self, request: web.Request) -> tuple[Any, list[dict[str, Any]]]:
        if not request.can_read_body:
            return None, []
        ctype = request.content_type
        if ctype.startswith("multipart/"):
            payload: Any = None
            files: list[dict[str, Any]] = []
            reader = await request.multipart()
            while True:
                part = await reader.next()
                if part is None:
                    break
                name = getattr(part, "name", None)
                data = await part.read()  # type: ignore[union-attr]
                if name == "payload_json":
                    payload = json.loads(data.decode())
                else:
                    files.append(
                        {
                            "field": name,
                            "filename": getattr(part, "filename", None) or name,
                            "data": bytes(data),
                        }
                    )
            return payload, files
        raw = await request.read()
        if not raw:
            return None, []
        try:
            return json.loads(raw.decode()), []
        except ValueError:
            return raw.decode(errors="replace"), []

    def _require_bot_auth(self, request: web.Request) -> None:
        auth = request.headers.get("Authorization", "")
        if not auth.startswith("Bot ") or (self.token is not None and auth != f"Bot {self.token}"):
            raise ApiError(401, 0, "401: Unauthorized")

    def _attachments_from_files(
        self, files: list[dict[str, Any]], payload: dict[str, Any]
    ) -> list[dict[str, Any]]:
        out = []
        for f in files:
            att_id = self.snowflake()
            self.attachment_data[att_id] = f["data"]
            out.append(
                {
                    "id": str(att_id),
                    "filename": f["filename"],
                    "size": len(f["data"]),
                    "url": f"{self.base_url}/attachments/{att_id}/{f['filename']}",
                    "proxy_url": f"{self.base_url}/attachments/{att_id}/{f['filename']}",
                    "content_type": "application/octet-stream",
                }
            )
        return out

    def _message_payload(self, request: web.Request) -> dict[str, Any]:
        payload = request[PAYLOAD]
        if payload is None:
            payload = {}
        if not isinstance(payload, dict):
            raise ApiError(400, 50109, "The request body contains invalid JSON.")
        payload = dict(payload)
        payload["_attachments"] = self._attachments_from_files(request[FILES], payload)
        return payload

    def _add_routes(self, app: web.Application) -> None:
        r = app.router
        r.add_get("/gateway", self._gateway)
        r.add_get("/gateway/", self._gateway)
        r.add_get(API + "/gateway", self._get_gateway)
        r.add_get(API + "/gateway/bot", self._get_gateway_bot)
        r.add_get(API + "/users/@me", self._get_me)
        r.add_post(API + "/users/@me/channels", self._create_dm)
        r.add_get(API + "/users/{user_id}", self._get_user)
        r.add_get(API + "/oauth2/applications/@me", self._get_application)
        r.add_get(API + "/applications/@me", self._get_application)
        app_cmds = API + "/applications/{application_id}/commands"
        guild_cmds = API + "/applications/{application_id}/guilds/{guild_id}/commands"
        for base in (app_cmds, guild_cmds):
            r.add_get(base, self._get_commands)
            r.add_put(base, self._put_commands)
            r.add_post(base, self._post_command)
            r.add_get(base + "/{command_id:\\d+}", self._get_command)
            r.add_patch(base + "/{command_id:\\d+}", self._patch_command)
            r.add_delete(base + "/{command_id:\\d+}", self._delete_command)
        r.add_get(guild_cmds + "/permissions", self._empty_list)
        r.add_get(API + "/applications/{application_id}/entitlements", self._empty_list)
        app_emojis = API + "/applications/{application_id}/emojis"
        r.add_get(app_emojis, self._list_application_emojis)
        r.add_post(app_emojis, self._create_application_emoji)
        r.add_get(app_emojis + "/{emoji_id:\\d+}", self._get_application_emoji)
        r.add_patch(app_emojis + "/{emoji_id:\\d+}", self._edit_application_emoji)
        r.add_delete(app_emojis + "/{emoji_id:\\d+}", self._delete_application_emoji)
        r.add_get("/emojis/{emoji_id:\\d+}.{ext:png|webp|gif|jpg|jpeg}", self._get_emoji_image)
        r.add_post(
            API + "/interactions/{interaction_id}/{interaction_token}/callback",
            self._interaction_callback,
        )
        hook = API + "/webhooks/{webhook_id}/{webhook_token}"
        r.add_post(hook, self._webhook_execute)
        r.add_get(hook + "/messages/@original", self._webhook_get_message)
        r.add_patch(hook + "/messages/@original", self._webhook_edit_message)
        r.add_delete(hook + "/messages/@original", self._webhook_delete_message)
        r.add_get(hook + "/messages/{message_id}", self._webhook_get_message)
        r.add_patch(hook + "/messages/{message_id}", self._webhook_edit_message)
        r.add_delete(hook + "/messages/{message_id}", self._webhook_delete_message)
        chan = API + "/channels/{channel_id}"
        r.add_get(chan, self._get_channel)
        r.add_get(chan + "/messages", self._get_channel_messages)
        r.add_post(chan + "/messages", self._create_channel_message)
        r.add_post(chan + "/messages/bulk-delete", self._bulk_delete)
        r.add_get(chan + "/messages/{message_id}", self._get_channel_message)
        r.add_patch(chan + "/messages/{message_id}", self._edit_channel_message)
        r.add_delete(chan + "/messages/{message_id}", self._delete_channel_message)
        r.add_put(chan + "/messages/{message_id}/reactions/{emoji}/@me", self._no_content_checked)
        r.add_delete(
            chan + "/messages/{message_id}/reactions/{emoji}/@me", self._no_content_checked
        )
        r.add_post(chan + "/typing", self._no_content_checked)
        guild = API + "/guilds/{guild_id}"
        r.add_get(guild, self._get_guild)
        r.add_get(guild + "/channels", self._get_guild_channels)
        r.add_get(guild + "/roles", self._get_guild_roles)
        r.add_get(guild + "/members", self._get_guild_members)
        r.add_get(guild + "/members/{user_id}", self._get_guild_member)
        r.add_get("/attachments/{attachment_id:\\d+}/{filename}", self._get_attachment)
        r.add_route("*", "/{tail:.*}", self._unhandled)

    async def _unhandled(self, request: web.Request) -> web.Response:
        return json_response(
            {
                "code": 0,
                "message": f"fake discord: no route for {request.method} {request.path} "
                "(add it to the fake in bot/fakediscord/server.py)",
            },
            status=404,
        )

    async def _get_attachment(self, request: web.Request) -> web.Response:
        try:
            data = self.attachment_data[int(request.match_info["attachment_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 0, "404: Not Found") from None
        return web.Response(body=data, content_type="application/octet-stream")

    async def _empty_list(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        return json_response([])

    async def _no_content_checked(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        self._channel(request)
        return no_content()

    # ------------------------------------------------------------------ lookups

    def _channel(self, request: web.Request) -> FakeChannel:
        try:
            return self.channels[int(request.match_info["channel_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 10003, "Unknown Channel") from None

    def _guild(self, request: web.Request) -> FakeGuild:
        try:
            return self.guilds[int(request.match_info["guild_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 10004, "Unknown Guild") from None

    def _channel_message(self, request: web.Request, channel: FakeChannel) -> FakeMessage:
        try:
            msg = self.messages[int(request.match_info["message_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 10008, "Unknown Message") from None
        if msg.channel is not channel or msg.deleted or msg.ephemeral:
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    def _interaction_for_token(self, request: web.Request) -> FakeInteraction:
        token = request.match_info["webhook_token"]
        for inter in reversed(self.interactions.values()):
            if inter.token == token:
                if str(self.application_id) != request.match_info["webhook_id"]:
                    break
                if self.token_expired(inter):
                    raise ApiError(401, 50027, "Invalid Webhook Token")
                return inter
        raise ApiError(404, 10015, "Unknown Webhook")

    def token_age(self, inter: FakeInteraction) -> float:
        """Seconds (rest_clock) since the interaction was created."""
        born = self._token_born.get(inter.id)
        if born is None:
            return time.monotonic() - inter.dispatched_mono
        return self.rest_clock() - born

    def token_expired(self, inter: FakeInteraction) -> bool:
        lifetime = self.token_lifetime
        return lifetime is not None and self.token_age(inter) >= lifetime

    # ------------------------------------------------------------------ gateway

    async def _get_gateway(self, request: web.Request) -> web.Response:
        return json_response({"url": self.gateway_url})

    async def _get_gateway_bot(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        return json_response(
            {
                "url": self.gateway_url,
                "shards": 1,
                "session_start_limit": {
                    "total": 1000,
                    "remaining": 999,
                    "reset_after": 0,
                    "max_concurrency": 1,
                },
            }
        )

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
        self.identifies += 1
        session = GatewaySession(
            session_id=secrets.token_hex(16),
            token=token,
            intents=int(data.get("intents") or 0),
            shard=list(data.get("shard") or [0, 1]),
        )
        session.ws = ws
        self.sessions.append(session)
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
                "guilds": [{"id": str(g.id), "unavailable": True} for g in self.guilds.values()],
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
        for guild in self.guilds.values():
            await session.dispatch("GUILD_CREATE", guild.to_gateway_json())
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

    # ------------------------------------------------------------------ users, application

    async def _get_me(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        return json_response(
            self.bot_user.to_json() | {"verified": True, "mfa_enabled": False, "flags": 0}
        )

    async def _get_user(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        try:
            user = self.users[int(request.match_info["user_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 10013, "Unknown User") from None
        return json_response(user.to_json())

    async def _get_application(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        owner = next((u for u in self.users.values() if not u.bot), self.bot_user)
        return json_response(
            {
                "id": str(self.application_id),
                "name": self.bot_user.name,
                "description": "",
                "icon": None,
                "bot_public": True,
                "bot_require_code_grant": False,
                "owner": owner.to_json(),
                "verify_key": "0" * 64,
                "flags": self.application_flags,
                "team": None,
                "bot": self.bot_user.to_json(),
                "redirect_uris": [],
                "interactions_endpoint_url": None,
                "integration_types_config": {"0": {}},
            }
        )

    async def _create_dm(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        payload = request[PAYLOAD] or {}
        try:
            user = self.users[int(payload["recipient_id"])]
        except (KeyError, ValueError, TypeError):
            raise ApiError(400, 50033, "Invalid Recipient(s)") from None
        return json_response(self.get_dm_channel(user).to_json(bot=self.bot_user))

    # ------------------------------------------------------------------ application commands

    def _command_store(
        self, request: web.Request
    ) -> tuple[dict[tuple[str, int], dict[str, Any]], int | None]:
        self._require_bot_auth(request)
        if request.match_info["application_id"] != str(self.application_id):
            raise ApiError(403, 50001, "Missing Access")
        if "guild_id" in request.match_info:
            guild = self._guild(request)
            return self.guild_commands.setdefault(guild.id, {}), guild.id
        return self.global_commands, None

    def _store_command(
        self,
        store: dict[tuple[str, int], dict[str, Any]],
        guild_id: int | None,
        body: dict[str, Any],
    ) -> dict[str, Any]:
        problem = check_command(body)
        if problem:
            raise ApiError.from_problem(problem)
        key = (body["name"], int(body.get("type", 1)))
        old = store.get(key)
        cmd = {
            "id": old["id"] if old else str(self.snowflake()),
            "application_id": str(self.application_id),
            "version": str(self.snowflake()),
            "type": key[1],
            "name": body["name"],
            "description": body.get("description", ""),
            "options": body.get("options", []),
            "default_member_permissions": body.get("default_member_permissions"),
            "dm_permission": body.get("dm_permission", True),
            "nsfw": body.get("nsfw", False),
            "contexts": body.get("contexts"),
            "integration_types": body.get("integration_types", [0]),
            "name_localizations": body.get("name_localizations"),
            "description_localizations": body.get("description_localizations"),
        }
        if guild_id is not None:
            cmd["guild_id"] = str(guild_id)
        store[key] = cmd
        return cmd

    async def _get_commands(self, request: web.Request) -> web.Response:
        store, _ = self._command_store(request)
        return json_response(list(store.values()))

    async def _put_commands(self, request: web.Request) -> web.Response:
        store, guild_id = self._command_store(request)
        body = request[PAYLOAD]
        if not isinstance(body, list):
            raise ApiError(400, 50035, "Invalid Form Body")
        errors: dict[str, Any] = {}
        for i, item in enumerate(body):
            problem = check_command(item)
            if problem:
                errors[str(i)] = problem[1]["errors"]
        if sum(1 for item in body if int(item.get("type", 1)) == 1) > 100:
            errors["_errors"] = [
                {"code": "APPLICATION_COMMANDS_TOO_MANY", "message": "Max 100 chat input commands"}
            ]
        if errors:
            raise ApiError(400, 50035, "Invalid Form Body", errors)
        old = dict(store)
        store.clear()
        out = []
        for item in body:
            key = (item.get("name"), int(item.get("type", 1)))
            if key in old:
                store[key] = old[key]
            out.append(self._store_command(store, guild_id, item))
        return json_response(out)

    async def _post_command(self, request: web.Request) -> web.Response:
        store, guild_id = self._command_store(request)
        return json_response(self._store_command(store, guild_id, request[PAYLOAD]), 201)

    def _find_command(
        self, request: web.Request
    ) -> tuple[dict[tuple[str, int], dict[str, Any]], tuple[str, int]]:
        store, _ = self._command_store(request)
        for key, cmd in store.items():
            if cmd["id"] == request.match_info["command_id"]:
                return store, key
        raise ApiError(404, 10063, "Unknown application command")

    async def _get_command(self, request: web.Request) -> web.Response:
        store, key = self._find_command(request)
        return json_response(store[key])

    async def _patch_command(self, request: web.Request) -> web.Response:
        store, key = self._find_command(request)
        merged = store[key] | dict(request[PAYLOAD] or {})
        del store[key]
        return json_response(
            self._store_command(store, merged.get("guild_id") and int(merged["guild_id"]), merged)
        )

    async def _delete_command(self, request: web.Request) -> web.Response:
        store, key = self._find_command(request)
        del store[key]
        return no_content()

    # ------------------------------------------------------------------ application emojis

    def _check_message(
        self, payload: dict[str, Any], *, creating: bool, has_files: bool
    ) -> tuple[int, dict[str, Any]] | None:
        """check_message, with the custom emojis a component may show: the application's
        own (the fake's guilds have no emojis)."""
        return check_message(
            payload, creating=creating, has_files=has_files, emoji_ids=self.application_emojis
        )

    def emoji_url(self, emoji: FakeEmoji | int) -> str:
        """Where the fake serves an emoji's picture, as Discord's CDN does."""
        found = emoji if isinstance(emoji, FakeEmoji) else self.application_emojis[emoji]
        return f"{self.base_url}/emojis/{found.id}.{found.format.replace('jpeg', 'jpg')}"

    def emoji_named(self, name: str) -> FakeEmoji | None:
        """The application's emoji of that name, if it owns one."""
        return next((e for e in self.application_emojis.values() if e.name == name), None)

    def application_emojis_json(self) -> list[dict[str, Any]]:
        """The application's emojis with their pictures (base64), to keep them across runs."""
        return [
            {
                "id": str(e.id),
                "name": e.name,
                "format": e.format,
                "animated": e.animated,
                "data": base64.b64encode(e.data).decode("ascii"),
            }
            for e in self.application_emojis.values()
        ]

    def load_application_emojis(self, items: list[dict[str, Any]]) -> None:
        """Restore what :meth:`application_emojis_json` kept (uploaded by the bot user)."""
        for item in items:
            emoji = FakeEmoji(
                id=int(item["id"]),
                name=str(item["name"]),
                data=base64.b64decode(item["data"]),
                format=str(item.get("format") or "png"),
                user=self.bot_user,
                animated=bool(item.get("animated")),
            )
            self.application_emojis[emoji.id] = emoji
        if self.application_emojis:
            self.snowflake._last = max(self.snowflake._last, *self.application_emojis)

    def _application(self, request: web.Request) -> None:
        self._require_bot_auth(request)
        if request.match_info["application_id"] != str(self.application_id):
            raise ApiError(403, 50001, "Missing Access")

    def _application_emoji(self, request: web.Request) -> FakeEmoji:
        self._application(request)
        try:
            return self.application_emojis[int(request.match_info["emoji_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 10014, "Unknown Emoji") from None

    async def _list_application_emojis(self, request: web.Request) -> web.Response:
        self._application(request)
        return json_response({"items": [e.to_json() for e in self.application_emojis.values()]})

    async def _create_application_emoji(self, request: web.Request) -> web.Response:
        self._application(request)
        body = request[PAYLOAD]
        problem = check_application_emoji(
            body,
            taken={e.name for e in self.application_emojis.values()},
            count=len(self.application_emojis),
            creating=True,
        )
        if problem:
            raise ApiError.from_problem(problem)
        fmt, data = decode_emoji_image(body["image"])
        assert isinstance(data, bytes)
        emoji = FakeEmoji(
            id=self.snowflake(),
            name=body["name"],
            data=data,
            format=fmt,
            user=self.bot_user,
            animated=fmt == "gif",
        )
        self.application_emojis[emoji.id] = emoji
        return json_response(emoji.to_json(), 201)

    async def _get_application_emoji(self, request: web.Request) -> web.Response:
        return json_response(self._application_emoji(request).to_json())

    async def _edit_application_emoji(self, request: web.Request) -> web.Response:
        emoji = self._application_emoji(request)
        body = request[PAYLOAD]
        problem = check_application_emoji(
            body,
            taken={e.name for e in self.application_emojis.values() if e is not emoji},
            count=len(self.application_emojis),
            creating=False,
        )
        if problem:
            raise ApiError.from_problem(problem)
        if "name" in body:
            emoji.name = body["name"]
        return json_response(emoji.to_json())

    async def _delete_application_emoji(self, request: web.Request) -> web.Response:
        emoji = self._application_emoji(request)
        del self.application_emojis[emoji.id]
        return no_content()

    async def _get_emoji_image(self, request: web.Request) -> web.Response:
        """The CDN: ``/emojis/{id}.png`` (any extension gives the uploaded picture)."""
        try:
            emoji = self.application_emojis[int(request.match_info["emoji_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 0, "404: Not Found") from None
        return web.Response(
            body=emoji.data,
            content_type=emoji.content_type,
            headers={"Cache-Control": "public, max-age=31536000"},
        )

    # ------------------------------------------------------------------ interactions

    async def _interaction_callback(self, request: web.Request) -> web.Response:
        try:
            inter = self.interactions[int(request.match_info["interaction_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 10062, "Unknown interaction") from None
        if inter.token != request.match_info["interaction_token"]:
            raise ApiError(404, 10062, "Unknown interaction")
        if inter.callback_type is not None:
            raise ApiError(400, 40060, "Interaction has already been acknowledged.")
        now = time.monotonic()
        if self.enforce_deadline and now - inter.dispatched_mono > self.late_after:
            if not inter.late:
                self._flag_late(inter, answered=True)
            raise ApiError(404, 10062, "Unknown interaction")
        payload = request[PAYLOAD]
        if not isinstance(payload, dict) or "type" not in payload:
            raise ApiError(400, 50035, "Invalid Form Body")
        ctype = int(payload["type"])
        data = dict(payload.get("data") or {})
        if ctype not in ALLOWED_CALLBACKS.get(inter.type, set()) or (
            ctype in (6, 7) and inter.source_message is None
        ):
            raise ApiError.form(
                "type",
                "INTERACTION_RESPONSE_TYPE_INVALID",
                f"Interaction response type {ctype} is not valid here",
            )

        message: FakeMessage | None = None
        created = False
        if ctype == 4:
            data["_attachments"] = self._attachments_from_files(request[FILES], data)
            problem = self._check_message(data, creating=True, has_files=bool(request[FILES]))
            if problem:
                raise ApiError.from_problem(problem)
            message = self._interaction_message(inter, data, response=True)
            created = True
        elif ctype == 5:
            flags = LOADING | (int(data.get("flags") or 0) & EPHEMERAL)
            message = self._interaction_message(inter, {"flags": flags}, response=True)
            message.flags = flags
            created = True
        elif ctype == 6:
            message = inter.source_message
        elif ctype == 7:
            assert inter.source_message is not None
            data["_attachments"] = self._attachments_from_files(request[FILES], data)
            problem = self._check_message(data, creating=False, has_files=bool(request[FILES]))
            if problem:
                raise ApiError.from_problem(problem)
            message = inter.source_message
            self._edit_message(message, data)
        elif ctype == 8:
            choices = list(data.get("choices") or [])
            problem = check_choices(choices)
            if problem:
                raise ApiError.from_problem(problem)
            inter.choices = choices
        elif ctype == 9:
            problem = check_modal(data, emoji_ids=self.application_emojis)
            if problem:
                raise ApiError.from_problem(problem)
            inter.modal = data

        inter.callback_type = ctype
        inter.callback_mono = now
        inter.response_message = message
        latency = now - inter.dispatched_mono
        self.answer_latencies.append(latency)
        timer = self._late_timers.pop(inter.id, None)
        if timer is not None:
            timer.cancel()
        if latency > self.late_after and not inter.late:
            self._flag_late(inter, answered=True)
        if ctype not in (5, 6):
            inter.followed_up.set()
        inter.answered.set()

        if message is not None and created and ctype == 4:
            await self._announce_create(message)
        elif message is not None and ctype == 7:
            await self._announce_update(message)

        if request.query.get("with_response", "").lower() not in ("1", "true"):
            return no_content()
        body: dict[str, Any] = {
            "interaction": {
                "id": str(inter.id),
                "type": inter.type,
                "activity_instance_id": None,
                "response_message_id": str(message.id) if message is not None else None,
                "response_message_loading": ctype == 5,
                "response_message_ephemeral": bool(message is not None and message.ephemeral),
            }
        }
        if ctype in (4, 5, 7) and message is not None:
            body["resource"] = {"type": ctype, "message": message.to_json()}
        return json_response(body)

    def _interaction_message(
        self, inter: FakeInteraction, payload: dict[str, Any], *, response: bool
    ) -> FakeMessage:
        flags = int(payload.get("flags") or 0)
        msg = self._new_message(
            inter.channel,
            self.bot_user,
            payload,
            type=20 if (response and inter.type == 2) else 0,
            visible_to=inter.user if flags & EPHEMERAL else None,
            interaction=inter,
            webhook_id=self.application_id,
        )
        if not response:
            inter.followups.append(msg)
        return msg

    async def _webhook_execute(self, request: web.Request) -> web.Response:
        inter = self._interaction_for_token(request)
        if inter.callback_type is None:
            raise ApiError(404, 10015, "Unknown Webhook")
        payload = self._message_payload(request)
        problem = self._check_message(payload, creating=True, has_files=bool(request[FILES]))
        if problem:
            raise ApiError.from_problem(problem)
        original = inter.response_message
        if inter.callback_type == 5 and original is not None and original.loading:
            # Discord turns the first follow-up of a deferred response into the response itself.
            ephemeral = original.flags & EPHEMERAL
            self._edit_message(original, payload)
            original.flags |= ephemeral
            msg = original
            inter.followups.append(msg)
            await self._announce_create(msg)
        else:
            msg = self._interaction_message(inter, payload, response=False)
            await self._announce_create(msg)
        inter.followed_up.set()
        if request.query.get("wait", "").lower() in ("1", "true"):
            return json_response(msg.to_json())
        return no_content()

    def _webhook_message(self, request: web.Request, inter: FakeInteraction) -> FakeMessage:
        ref = request.match_info.get("message_id", "@original")
        if ref == "@original":
            # After 6/7 this is the message the component was on, for the token's lifetime.
            msg = inter.response_message
            if msg is None or msg.deleted:
                raise ApiError(404, 10008, "Unknown Message")
            return msg
        try:
            msg = self.messages[int(ref)]
        except (KeyError, ValueError):
            raise ApiError(404, 10008, "Unknown Message") from None
        if msg.deleted or (
            msg.webhook_id != self.application_id and msg is not inter.source_message
        ):
            raise ApiError(404, 10008, "Unknown Message")
        return msg

    async def _webhook_get_message(self, request: web.Request) -> web.Response:
        inter = self._interaction_for_token(request)
        return json_response(self._webhook_message(request, inter).to_json())

    async def _webhook_edit_message(self, request: web.Request) -> web.Response:
        inter = self._interaction_for_token(request)
        msg = self._webhook_message(request, inter)
        payload = self._message_payload(request)
        problem = self._check_message(payload, creating=False, has_files=bool(request[FILES]))
        if problem:
            raise ApiError.from_problem(problem)
        was_loading = msg.loading
        self._edit_message(msg, payload)
        if was_loading:
            await self._announce_create(msg)
        else:
            await self._announce_update(msg)
        inter.followed_up.set()
        return json_response(msg.to_json())

    async def _webhook_delete_message(self, request: web.Request) -> web.Response:
        inter = self._interaction_for_token(request)
        msg = self._webhook_message(request, inter)
        msg.deleted = True
        await self._announce_delete(msg)
        inter.followed_up.set()
        return no_content()

    # ------------------------------------------------------------------ channels and messages

    async def _get_channel(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        return json_response(self._channel(request).to_json(bot=self.bot_user))

    def _check_can_view(self, channel: FakeChannel) -> None:
        """Editing its own message needs the bot to still see the channel (50001)."""
        if channel.is_dm or channel.guild is None:
            return
        member = channel.guild.members.get(self.bot_user.id)
        if member is None or not member.permissions & VIEW_CHANNEL:
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
        if member is None or member.permissions & needed != needed:
            raise ApiError(403, 50013, "Missing Permissions")

    async def _create_channel_message(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        channel = self._channel(request)
        payload = self._message_payload(request)
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
        msg = self._new_message(channel, self.bot_user, payload)
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
        msg.deleted = True
        await self._announce_delete(msg)
        return no_content()

    async def _bulk_delete(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        channel = self._channel(request)
        for raw_id in (request[PAYLOAD] or {}).get("messages", []):
            msg = self.messages.get(int(raw_id))
            if msg is not None and msg.channel is channel:
                msg.deleted = True
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


__all__ = ["ApiError", "FakeDiscordServer", "GatewaySession", "MessageVersion"]
