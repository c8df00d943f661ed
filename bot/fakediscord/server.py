"""An in-process Discord: the gateway websocket and the REST routes a bot uses.

`FakeDiscordServer` holds the state (users, guilds, channels, messages,
interactions, registered commands), serves it over aiohttp on 127.0.0.1 and
records every REST call. The readable test API lives in `driver.py`.

This module keeps the lifecycle, the rate limits and outages, the HTTP plumbing
(middleware, routes) and the lookups; the handlers are mixins composed here:
`gateway.py` (gateway, sessions), `application.py` (users, application commands,
application emojis), `interactions.py` (callbacks, webhooks, late interactions),
`messages.py` (messages, channels, guilds), `threads.py` (threads, their members,
archiving), `events.py` (guild scheduled events), `polls.py` (polls, votes, results) and
`wallclock.py` (the fake's time of day, what falls due). `api.py` has what they share.
The names those modules took from here (``ApiError``, ``OP_*``, ``INTENT_*``, ...) stay
importable from here.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
from collections.abc import Awaitable, Callable
from http import HTTPStatus
from typing import Any

import discord.gateway
import discord.http
import yarl
from aiohttp import web

from .api import API, FILES, PAYLOAD, ApiError, json_response, no_content
from .application import ApplicationMixin
from .events import EventsMixin, FakeScheduledEvent
from .gateway import INTENT_DIRECT_MESSAGES as INTENT_DIRECT_MESSAGES
from .gateway import INTENT_GUILD_MEMBERS as INTENT_GUILD_MEMBERS
from .gateway import INTENT_GUILD_MESSAGES as INTENT_GUILD_MESSAGES
from .gateway import INTENT_MESSAGE_CONTENT as INTENT_MESSAGE_CONTENT
from .gateway import OP_DISPATCH as OP_DISPATCH
from .gateway import OP_HEARTBEAT as OP_HEARTBEAT
from .gateway import OP_HEARTBEAT_ACK as OP_HEARTBEAT_ACK
from .gateway import OP_HELLO as OP_HELLO
from .gateway import OP_IDENTIFY as OP_IDENTIFY
from .gateway import OP_INVALID_SESSION as OP_INVALID_SESSION
from .gateway import OP_RECONNECT as OP_RECONNECT
from .gateway import OP_REQUEST_MEMBERS as OP_REQUEST_MEMBERS
from .gateway import OP_RESUME as OP_RESUME
from .gateway import GatewayMixin, GatewaySession
from .interactions import ALLOWED_CALLBACKS as ALLOWED_CALLBACKS
from .interactions import InteractionsMixin
from .messages import ROLE_MENTION as ROLE_MENTION
from .messages import SETTABLE_FLAGS as SETTABLE_FLAGS
from .messages import USER_MENTION as USER_MENTION
from .messages import MessagesMixin
from .models import (
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
from .polls import PollsMixin
from .ratelimits import Limits, RateLimiter, RateLimitHit, RestClock, Scope
from .threads import ThreadsMixin
from .validation import check_files
from .wallclock import WallClockMixin


class FakeDiscordServer(
    GatewayMixin,
    ApplicationMixin,
    InteractionsMixin,
    MessagesMixin,
    ThreadsMixin,
    EventsMixin,
    PollsMixin,
    WallClockMixin,
):
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
        heartbeat_ack_delay: float = 0.2,
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
        #: heartbeat ("Can't keep up, websocket is 41.3s behind"). 0.2 s, a slow network's
        #: round trip: on a loaded machine the keep-alive thread can wait more than 50 ms
        #: for the interpreter after its send, and an ACK 50 ms later raced it.
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
        self.nonces: dict[tuple[int, str], tuple[FakeMessage, float]] = {}
        """(author, nonce) -> the message created with it, and when (``enforce_nonce``)."""
        self.interactions: dict[int, FakeInteraction] = {}
        self.global_commands: dict[tuple[str, int], dict[str, Any]] = {}
        self.guild_commands: dict[int, dict[tuple[str, int], dict[str, Any]]] = {}
        #: The application's own emojis (``/applications/{id}/emojis``), by id.
        self.application_emojis: dict[int, FakeEmoji] = {}
        #: Every guild scheduled event (events.py), ended ones too, by id.
        self.scheduled_events: dict[int, FakeScheduledEvent] = {}

        self.attachment_data: dict[int, bytes] = {}
        self.calls: list[RecordedCall] = []
        #: Awaited with each REST call once Discord has done it, before the bot gets the
        #: reply: what people do meanwhile (a click on a message just posted, whose id the
        #: bot does not know yet) happens in that gap, as over a real network.
        self.before_reply: list[Callable[[RecordedCall], Awaitable[None]]] = []
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
        #: Seconds the fake's wall clock is ahead of the real time (``advance_clock``).
        self.clock_offset = 0.0
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

    # ------------------------------------------------------------------ HTTP plumbing

    def _touch(self) -> None:
        self._last_activity = time.monotonic()

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
                await self.sweep_threads()  # Discord archives idle threads on its own
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
        for hook in list(self.before_reply):
            await hook(call)
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
        r.add_patch(chan, self._edit_channel)
        r.add_delete(chan, self._delete_channel_route)
        r.add_post(chan + "/threads", self._start_thread)
        r.add_get(chan + "/threads/archived/public", self._get_public_archived_threads)
        r.add_post(chan + "/messages/{message_id}/threads", self._start_thread_from_message)
        r.add_get(chan + "/thread-members", self._get_thread_members)
        r.add_get(chan + "/thread-members/{user_id}", self._get_thread_member)
        r.add_put(chan + "/thread-members/{user_id}", self._put_thread_member)
        r.add_delete(chan + "/thread-members/{user_id}", self._delete_thread_member)
        r.add_get(chan + "/messages", self._get_channel_messages)
        r.add_post(chan + "/messages", self._create_channel_message)
        r.add_post(chan + "/messages/bulk-delete", self._bulk_delete)
        r.add_get(chan + "/messages/{message_id}", self._get_channel_message)
        r.add_patch(chan + "/messages/{message_id}", self._edit_channel_message)
        r.add_delete(chan + "/messages/{message_id}", self._delete_channel_message)
        reaction = chan + "/messages/{message_id}/reactions/{emoji}/@me"
        r.add_put(reaction, self._react)
        r.add_delete(reaction, self._react)
        r.add_post(chan + "/typing", self._no_content_checked)
        guild = API + "/guilds/{guild_id}"
        r.add_get(guild, self._get_guild)
        r.add_get(guild + "/channels", self._get_guild_channels)
        r.add_get(guild + "/threads/active", self._get_active_threads)
        r.add_get(guild + "/roles", self._get_guild_roles)
        r.add_get(guild + "/members", self._get_guild_members)
        r.add_get(guild + "/members/{user_id}", self._get_guild_member)
        self._add_event_routes(app, API)
        self._add_poll_routes(app, API)
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

    async def _react(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        self._check_thread_active(self._channel(request))  # not in an archived thread
        return no_content()

    async def _no_content_checked(self, request: web.Request) -> web.Response:
        self._require_bot_auth(request)
        self._channel(request)
        return no_content()

    # ------------------------------------------------------------------ lookups

    def _channel(self, request: web.Request) -> FakeChannel:
        try:
            channel = self.channels[int(request.match_info["channel_id"])]
        except (KeyError, ValueError):
            raise ApiError(404, 10003, "Unknown Channel") from None
        if channel.deleted:
            raise ApiError(404, 10003, "Unknown Channel")
        return channel

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


__all__ = ["ApiError", "FakeDiscordServer", "GatewaySession", "MessageVersion"]
