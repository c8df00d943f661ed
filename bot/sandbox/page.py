"""The sandbox page: static files, one WebSocket per colleague's view, and the actions.

Routes (all JSON but the page and its files):

=========================  ===================================================================
``GET /``                  the page (``static/index.html``)
``GET /static/{file}``     its script and style sheet
``GET /ws?user=ID``        live view of one colleague: ``hello`` (colleagues, channels and the
                           threads they see, the commands they may use, their language, the
                           clock), then ``msg`` / ``del`` for every message they may see,
                           ``clock`` and ``users`` when those change, ``channels`` when a
                           thread does, ``locale`` (their commands renamed) when their
                           language does
``POST /api/act``          act as a colleague: ``slash``, ``click``, ``select``, ``modal``,
                           ``autocomplete``; answers ``{"ok": ...}`` or ``{"error": ...}``
``POST /api/clock``        move the sandbox clock forward (``{"to": "closing"}``...)
``POST /api/play``         the colleagues play the rest of today's Späye through the bot
                           (``play`` frames report the moves to every view)
``POST /api/user``         a colleague's language or closed DMs
``GET /attachments/...``   files the bot attached (pictures are shown inline)
``GET /emojis/{id}.png``   the application's emojis (the cards' art), as Discord's CDN
=========================  ===================================================================

A colleague's socket only ever receives what that colleague may see on Discord: the
server's messages, their own ephemeral answers and their own DMs.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import json
import logging
import mimetypes
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from importlib import resources
from typing import TYPE_CHECKING, Any
from zoneinfo import ZoneInfo

from aiohttp import WSMsgType, web

from bot.clock import at_local, local_date
from bot.fakediscord import InteractionResult
from bot.fakediscord.models import PRIVATE_THREAD, FakeChannel, FakeMessage, FakeUser
from bot.i18n import has_key, t
from bot.sandbox.commands import CommandRefused, command_menu, find_leaf, parse_options
from bot.sandbox.office import DayPlayer, PlayRefused
from bot.sandbox.render import RenderContext, render_events, render_message, render_modal
from bot.sandbox.world import SandboxClock, SandboxDiscord, WorldStore
from bot.spaye_settings import spaye_settings

if TYPE_CHECKING:
    from bot.client import GamenightBot

__all__ = ["SandboxPage"]

log = logging.getLogger("gamenight.sandbox")

ANSWER_TIMEOUT = 3.5
"""Discord gives a bot 3 s to answer an interaction; the page waits a little longer."""
HISTORY = 300
"""Messages per channel sent when a view opens."""
LOCALES = {"en-US": "English", "fr": "Français"}


class Refused(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status


LOOPBACK_NAMES = frozenset({"127.0.0.1", "localhost", "::1"})
"""Names of this machine the page always answers to (with its port)."""


@dataclass(frozen=True)
class AllowedHosts:
    """The names the page answers to, in ``Host`` and (when a browser sends one) ``Origin``.

    A site whose name was made to point at this machine (DNS rebinding) reaches the page
    under that name, so its requests are same-origin for the browser; only the name tells
    them apart. ``port`` ``None`` accepts any port (a test server on a free one);
    ``any_address`` (the page listens on every address) accepts any IP address too, which
    no other site can be.
    """

    names: frozenset[str] = LOOPBACK_NAMES
    port: int | None = None
    any_address: bool = False

    @classmethod
    def serving(cls, address: str, port: int, asked: str | None = None) -> AllowedHosts:
        """The page listening on ``address``:``port``, started with ``--host asked``."""
        names = {*LOOPBACK_NAMES, address.strip("[]").lower()}
        if asked:
            names.add(asked.strip("[]").lower())
        try:
            everywhere = ipaddress.ip_address(address.strip("[]")).is_unspecified
        except ValueError:
            everywhere = False
        return cls(frozenset(names), port, everywhere)

    def allows(self, authority: str | None, default_port: int = 80) -> bool:
        """Whether a ``Host`` header (``name[:port]``) is one of the page's names."""
        parsed = split_authority(authority, default_port)
        if parsed is None:
            return False
        name, port = parsed
        if self.port is not None and port != self.port:
            return False
        if name in self.names:
            return True
        if not self.any_address:
            return False
        try:
            ipaddress.ip_address(name)
        except ValueError:
            return False
        return True

    def allows_origin(self, origin: str) -> bool:
        """Whether an ``Origin`` header (``http://name[:port]``) is the page itself."""
        scheme, sep, authority = origin.partition("://")
        if not sep or scheme.lower() not in ("http", "https"):
            return False  # "null" (a sandboxed frame, a file) and anything odd
        return self.allows(authority, 443 if scheme.lower() == "https" else 80)


def split_authority(authority: str | None, default_port: int = 80) -> tuple[str, int] | None:
    """``Example.org:8765`` -> ``("example.org", 8765)``, ``[::1]:80`` -> ``("::1", 80)``;
    ``None`` for anything that is not a plain host and port (user info, a path, spaces)."""
    if not authority or not authority.isascii() or any(c in authority for c in " /\\@?#%"):
        return None
    if authority.startswith("["):
        name, bracket, rest = authority[1:].partition("]")
        if not bracket:
            return None
    else:
        name, colon, port = authority.partition(":")
        rest = colon + port
    if not name:
        return None
    if not rest:
        return name.lower(), default_port
    port = rest.removeprefix(":")
    if rest == port or not port.isdigit() or len(port) > 5 or not 0 < int(port) < 65536:
        return None
    return name.lower(), int(port)


def guard(hosts: AllowedHosts) -> Any:
    """The middleware that keeps the page to itself, on every route (``/ws``, the files):

    - a ``Host`` that is not one of the page's names: 421, nothing else read;
    - an ``Origin`` (sent by browsers with every WebSocket and cross-site request) that is
      not the page itself: 403, so another site open in the same browser cannot act;
    - a ``POST`` that is not JSON: 415 (a cross-site form cannot send JSON).
    """

    @web.middleware
    async def keep_to_itself(request: web.Request, handler: Any) -> web.StreamResponse:
        if not hosts.allows(request.headers.get("Host")):
            return web.json_response(
                {"error": "this sandbox only answers to its own address"}, status=421
            )
        origin = request.headers.get("Origin")
        if origin is not None and not hosts.allows_origin(origin):
            return web.json_response({"error": "the sandbox only answers its own page"}, status=403)
        if request.method == "POST" and request.content_type != "application/json":
            return web.json_response(
                {"error": "send JSON (Content-Type: application/json)"}, status=415
            )
        response: web.StreamResponse = await handler(request)
        return response

    return keep_to_itself


STATIC_TYPES = {".js": "text/javascript", ".css": "text/css", ".svg": "image/svg+xml"}

TIMER_WHAT = {
    "turn": "the turn timer plays for a late player",
    "warn": "a late player is told the turn timer is about to play",
    "lobby_expiry": "a table nobody started closes",
    "start": "a game's start is finished (hands sent, players called)",
    "spaye.close_day": "today's Späye closes",
    "spaye.remind_close": "a reminder that today's Späye closes soon",
    "spaye.closed_post": "the closed day's summary is posted",
    "spaye.title_dm": "the month's titles are sent by DM",
    "spaye.announce": "the month's titles are announced",
    "spaye.auto_open": "today's Späye opens by itself",
    "spaye.invite_expiry": "a däye challenge expires",
    "boards.season_announce": "the season's podiums are announced",
    "night.remind_day": "those in a game night are reminded of it the day before",
    "night.remind_hour": "those in a game night are reminded of it an hour before",
    "night.calloff": "a game night's minimum of players is checked",
    "night.start": "a game night reaches its hour",
    "night.tables": "a game night opens the tables its waiting list filled",
    "night.next_week": "a weekly game night plans the next week's",
    "night.poll_end": "a game night's poll ends and its evening is chosen",
}
"""What each kind of timer does, for the clock's "next deadline" button (never its raw kind)."""


def timer_what(kind: str) -> str:
    """``papayoo.warn`` -> ``Papayoo: a late player is told ...``."""
    if kind in TIMER_WHAT:
        return TIMER_WHAT[kind][0].upper() + TIMER_WHAT[kind][1:]
    game, _, part = kind.partition(".")
    what = TIMER_WHAT.get(part)
    title = t(f"help.{game}.title", "en") if has_key(f"help.{game}.title") else game
    return f"{title}: {what}" if what else kind


async def json_object(request: web.Request) -> dict[str, Any]:
    """The request's body, a JSON object (``Refused`` 400 otherwise)."""
    try:
        body = await request.json()
    except ValueError:  # not JSON, or not UTF-8
        raise Refused(400, "expected a JSON object") from None
    if not isinstance(body, dict):
        raise Refused(400, "expected a JSON object")
    return body


def _static(name: str) -> bytes:
    return resources.files("bot.sandbox").joinpath("static", name).read_bytes()


def _static_files() -> dict[str, str]:
    """The page's script, style sheets and pictures by name, with their content type: only
    these are served (a name is never a path)."""
    folder = resources.files("bot.sandbox").joinpath("static")
    out = {}
    for entry in folder.iterdir():
        ext = entry.name[entry.name.rfind(".") :]
        if entry.is_file() and ext in STATIC_TYPES:
            out[entry.name] = STATIC_TYPES[ext]
    return out


class SandboxPage:
    """Serves the page for one :class:`SandboxDiscord` and the bot running against it."""

    def __init__(
        self,
        fake: SandboxDiscord,
        bot: GamenightBot,
        store: WorldStore,
        clock: SandboxClock,
        hosts: AllowedHosts | None = None,
    ) -> None:
        self.fake = fake
        #: The names the page answers to (default: this machine's, on any port).
        self.hosts = hosts or AllowedHosts()
        self._static = _static_files()
        self.bot = bot
        self.store = store
        self.clock = clock
        self.views: dict[int, set[web.WebSocketResponse]] = {}
        self._save_lock = asyncio.Lock()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._playing: asyncio.Task[Any] | None = None
        self._play_shown = 0.0
        fake.on_change = self.on_change
        fake.on_threads = self.on_threads
        fake.on_events = self.on_events

    def app(self) -> web.Application:
        app = web.Application(client_max_size=1024 * 1024, middlewares=[guard(self.hosts)])
        r = app.router
        r.add_get("/", self.index)
        r.add_get("/static/{name}", self.static)
        r.add_get("/ws", self.socket)
        r.add_get("/api/state", self.state)
        r.add_post("/api/act", self.act)
        r.add_post("/api/clock", self.move_clock)
        r.add_post("/api/play", self.play_day)
        r.add_post("/api/user", self.change_user)
        r.add_get("/attachments/{attachment_id:\\d+}/{filename}", self.attachment)
        r.add_get("/emojis/{emoji_id:\\d+}.{ext:png|gif|webp|jpg|jpeg}", self.emoji)
        return app

    async def close_views(self) -> None:
        """Stop playing a day and close every open view (before the server stops: it waits
        for open sockets and requests)."""
        playing = self._playing
        if playing is not None and not playing.done():
            playing.cancel()
            await asyncio.gather(playing, return_exceptions=True)
        for sockets in list(self.views.values()):
            for ws in list(sockets):
                with contextlib.suppress(Exception):
                    await ws.close(code=1001, message=b"the sandbox stopped")

    async def close(self) -> None:
        """Close the views, finish pushing and saving, save the whole world."""
        await self.close_views()
        if self._tasks:
            await asyncio.gather(*self._tasks, return_exceptions=True)
        await self.save_all()

    # -- static ---------------------------------------------------------------------------

    async def index(self, request: web.Request) -> web.Response:
        return web.Response(body=_static("index.html"), content_type="text/html", charset="utf-8")

    async def static(self, request: web.Request) -> web.Response:
        name = request.match_info["name"]
        if name not in self._static:
            raise web.HTTPNotFound()
        return web.Response(body=_static(name), content_type=self._static[name], charset="utf-8")

    async def attachment(self, request: web.Request) -> web.Response:
        try:
            data = self.fake.attachment_data[int(request.match_info["attachment_id"])]
        except (KeyError, ValueError):
            raise web.HTTPNotFound() from None
        ctype = mimetypes.guess_type(request.match_info["filename"])[0]
        return web.Response(body=data, content_type=ctype or "application/octet-stream")

    async def emoji(self, request: web.Request) -> web.Response:
        """An application emoji's picture, as Discord's CDN serves it (the bot's card art)."""
        try:
            found = self.fake.application_emojis[int(request.match_info["emoji_id"])]
        except (KeyError, ValueError):
            raise web.HTTPNotFound() from None
        return web.Response(
            body=found.data,
            content_type=found.content_type,
            headers={"Cache-Control": "public, max-age=86400, immutable"},
        )

    # -- who is who -----------------------------------------------------------------------

    def _user(self, raw: Any) -> FakeUser:
        try:
            user = self.fake.users[int(raw)]
        except (KeyError, TypeError, ValueError):
            raise Refused(404, f"there is no colleague {raw!r} in this sandbox") from None
        if user.bot:
            raise Refused(403, "the page acts as colleagues, not as the bot")
        return user

    def _context(self, viewer: FakeUser) -> RenderContext:
        fake = self.fake
        guild = fake.office
        users = {u.id: (u.global_name or u.name) for u in fake.users.values()}
        for member in guild.members.values():
            if member.nick:
                users[member.id] = member.nick
        return RenderContext(
            viewer=viewer.id,
            users=users,
            roles={r.id: r.name for r in guild.roles[1:]},
            channels={c.id: str(c.name) for c in guild.channels if c.type == 0},
            threads={t.id: str(t.name) for t in guild.threads if fake.sees_thread(viewer, t)},
            members=[u.id for u in fake.colleagues() if u.id in guild.members],
            bot_ids=frozenset({fake.bot_user.id}),
        )

    def _users_json(self) -> list[dict[str, Any]]:
        guild = self.fake.office
        return [
            {
                "id": str(u.id),
                "name": u.global_name or u.name,
                "locale": u.locale,
                "dms_open": u.dms_open,
                "owner": guild.owner_id == u.id,
            }
            for u in self.fake.colleagues()
        ]

    def _commands(self, user: FakeUser, channel: FakeChannel) -> list[dict[str, Any]]:
        fake = self.fake
        schemas = dict(fake.global_commands)
        if channel.guild is not None:
            schemas.update(fake.guild_commands.get(channel.guild.id, {}))

        def allowed(schema: dict[str, Any]) -> bool:
            try:
                fake._check_command_allowed(schema, user, channel)
            except PermissionError:
                return False
            return True

        return command_menu(list(schemas.values()), user.locale, allowed)

    async def _clock_json(self) -> dict[str, Any]:
        now = self.clock.now()
        zone_name, closing = "UTC", None
        guild = self.fake.guild
        if guild is not None and self.bot.is_ready():
            settings = await self.bot.guild_settings(self.bot.get_guild(guild.id) or guild.id)
            zone_name = settings.timezone
            closing = await self._closing(guild.id, settings)
        local = now.astimezone(ZoneInfo(zone_name))
        pending = [t for t in await self.bot.timers.pending() if t.due_at > now]
        upcoming = min(pending, key=lambda t: t.due_at) if pending else None
        return {
            "now": now.isoformat(),
            "label": local.strftime("%a %d %b %Y, %H:%M"),
            "zone": zone_name,
            "offset_seconds": self.clock.offset.total_seconds(),
            "closing": closing,
            "next_timer": None
            if upcoming is None
            else {
                "kind": upcoming.kind,
                "what": timer_what(upcoming.kind),
                "at": upcoming.due_at.astimezone(ZoneInfo(zone_name)).strftime("%a %H:%M"),
            },
        }

    async def _closing(self, guild_id: int, settings: Any) -> str | None:
        """The Späye day's closing time (``HH:MM``): a Späye setting, or a server setting in
        a bot from before Späye had its own settings."""
        closing = getattr(await spaye_settings(self.bot, guild_id), "closing_time", None)
        return closing or getattr(settings, "spaye_close", None)

    # -- live views -----------------------------------------------------------------------

    def _visible(self, user: FakeUser) -> list[FakeMessage]:
        per_channel: dict[int, list[FakeMessage]] = {}
        for msg in sorted(self.fake.messages.values(), key=lambda m: m.id):
            if not msg.deleted and self.fake.can_see(user, msg):
                per_channel.setdefault(msg.channel.id, []).append(msg)
        return [m for msgs in per_channel.values() for m in msgs[-HISTORY:]]

    def _msg_frame(self, msg: FakeMessage, ctx: RenderContext) -> dict[str, Any]:
        data = msg.to_json()
        if msg.poll is not None:  # "your vote", as the viewer's own client shows it
            data["poll"] = msg.poll.to_json(viewer=ctx.viewer)
        return {
            "t": "msg",
            "channel": str(msg.channel.id),
            "id": str(msg.id),
            "html": render_message(data, ctx),
            "loading": msg.loading,
        }

    def _events_frame(self, user: FakeUser) -> dict[str, Any]:
        """The server's scheduled events not yet over, soonest first, as ``user`` sees them."""
        events = sorted(
            self.fake.office.scheduled_events.values(),
            key=lambda e: (e.scheduled_start_time, e.id),
        )
        mine = {e.id for e in events if user.id in e.interested}
        shown = [e.to_json(with_user_count=True) for e in events]
        return {"t": "events", "html": render_events(shown, mine)}

    def on_events(self) -> None:
        """A scheduled event or its interested list changed: every view redraws its list, and
        the world is saved."""
        for user_id, sockets in self.views.items():
            if sockets:
                self._spawn(self._send(sockets, self._events_frame(self.fake.users[user_id])))
        self._spawn(self._save_world())

    async def _save_world(self) -> None:
        async with self._save_lock:
            try:
                await self.store.save_world(self.fake)
            except Exception:
                log.exception("sandbox: the world could not be saved")

    async def socket(self, request: web.Request) -> web.StreamResponse:
        try:
            user = self._user(request.query.get("user"))
        except Refused as err:
            return web.json_response({"error": str(err)}, status=err.status)
        ws = web.WebSocketResponse(heartbeat=30)
        await ws.prepare(request)
        self.views.setdefault(user.id, set()).add(ws)
        try:
            await ws.send_str(json.dumps(await self._hello(user)))
            ctx = self._context(user)
            frames = [self._msg_frame(m, ctx) for m in self._visible(user)]
            await ws.send_str(json.dumps({"t": "batch", "items": frames}))
            await ws.send_str(json.dumps(self._events_frame(user)))
            async for msg in ws:
                if msg.type in (WSMsgType.CLOSE, WSMsgType.ERROR):
                    break
        finally:
            self.views.get(user.id, set()).discard(ws)
        return ws

    def _channels_json(self, user: FakeUser) -> list[dict[str, Any]]:
        """The channels a colleague sees, each text channel followed by its threads (the
        ones they may see, archived ones too, as Discord lists them under the channel), then
        their DMs with the bot."""
        fake = self.fake
        guild = fake.office
        channels: list[dict[str, Any]] = []
        for c in guild.channels:
            if c.type != 0:
                continue
            channels.append({"id": str(c.id), "name": c.name, "kind": "text", "topic": c.topic})
            channels.extend(
                {
                    "id": str(t.id),
                    "name": t.name,
                    "kind": "thread",
                    "topic": None,
                    "parent": str(c.id),
                    "parent_name": c.name,
                    "archived": t.archived,
                    "locked": t.locked,
                    "private": t.type == PRIVATE_THREAD,
                    "messages": t.message_count,
                }
                for t in fake.threads(c)
                if fake.sees_thread(user, t)
            )
        dm = fake.get_dm_channel(user)
        channels.append({"id": str(dm.id), "name": fake.bot_user.name, "kind": "dm", "topic": None})
        return channels

    def on_threads(self) -> None:
        """A thread changed: every view gets its channel list again; the world is saved."""
        for user_id, sockets in self.views.items():
            if sockets:
                frame = {"t": "channels", "channels": self._channels_json(self.fake.users[user_id])}
                self._spawn(self._send(sockets, frame))
        self._spawn(self._save_world())

    async def _hello(self, user: FakeUser) -> dict[str, Any]:
        guild = self.fake.office
        channels = self._channels_json(user)
        return {
            "t": "hello",
            "me": str(user.id),
            "guild": guild.name,
            "bot": self.fake.bot_user.name,
            "users": self._users_json(),
            "locales": LOCALES,
            "channels": channels,
            "roles": [{"id": str(r.id), "name": r.name} for r in guild.roles[1:]],
            "locale": user.locale,
            "commands": self._command_lists(user),
            "clock": await self._clock_json(),
        }

    def _command_lists(self, user: FakeUser) -> dict[str, list[dict[str, Any]]]:
        """The commands ``user`` may use in the server's channels and in their DMs, named in
        their language."""
        return {
            "text": self._commands(user, self.fake.office.channels[0]),
            "dm": self._commands(user, self.fake.get_dm_channel(user)),
        }

    def on_change(self, batch: list[FakeMessage]) -> None:
        """Push changed messages to the views that may see them, then save them."""
        for user_id, sockets in self.views.items():
            if not sockets:
                continue
            user = self.fake.users[user_id]
            ctx = self._context(user)
            frames: list[dict[str, Any]] = []
            for msg in batch:
                if not self.fake.can_see(user, msg):
                    continue
                if msg.deleted:
                    frames.append({"t": "del", "id": str(msg.id)})
                else:
                    frames.append(self._msg_frame(msg, ctx))
            if frames:
                self._spawn(self._send(sockets, {"t": "batch", "items": frames}))
        self._spawn(self._save(batch))

    async def broadcast(self, frame: dict[str, Any]) -> None:
        for sockets in self.views.values():
            await self._send(sockets, frame)

    async def _send(self, sockets: set[web.WebSocketResponse], frame: dict[str, Any]) -> None:
        text = json.dumps(frame)
        for ws in list(sockets):
            if ws.closed:
                sockets.discard(ws)
                continue
            with contextlib.suppress(ConnectionError, RuntimeError):
                await ws.send_str(text)

    async def _save(self, batch: list[FakeMessage]) -> None:
        async with self._save_lock:
            try:
                await self.store.save_messages(self.fake, batch)
            except Exception:
                log.exception("sandbox: messages could not be saved")

    async def save_all(self) -> None:
        async with self._save_lock:
            await self.store.save_world(self.fake)
            await self.store.save_messages(self.fake, list(self.fake.messages.values()))

    async def save_emojis(self) -> None:
        """Keep the application's emojis once the bot has uploaded its card art."""
        async with self._save_lock:
            try:
                await self.store.save_emojis(self.fake)
            except Exception:
                log.exception("sandbox: the card emojis could not be saved")

    def _spawn(self, coro: Any) -> None:
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    # -- state ----------------------------------------------------------------------------

    async def state(self, request: web.Request) -> web.Response:
        return web.json_response({"users": self._users_json(), "clock": await self._clock_json()})

    # -- acting as a colleague ------------------------------------------------------------

    async def act(self, request: web.Request) -> web.Response:
        try:
            body = await json_object(request)
            user = self._user(body.get("user"))
            answer = await self._act(user, body)
        except Refused as err:
            return web.json_response({"error": str(err)}, status=err.status)
        except CommandRefused as err:
            return web.json_response({"error": str(err), "refused": True}, status=400)
        except (ValueError, TypeError, LookupError, PermissionError) as err:
            return web.json_response({"error": str(err), "refused": True}, status=400)
        except RuntimeError as err:
            return web.json_response({"error": f"the bot is not connected ({err})"}, status=503)
        except TimeoutError:  # no choices from the bot in time, as a click it never answered
            return web.json_response(
                {"ok": False, "error": f"{self.fake.bot_user.name} did not respond"}
            )
        return web.json_response(answer)

    def _channel(self, user: FakeUser, raw: Any) -> FakeChannel:
        try:
            channel = self.fake.channels[int(raw)]
        except (KeyError, TypeError, ValueError):
            raise Refused(404, f"there is no channel {raw!r}") from None
        if channel.is_dm and channel.recipient is not user:
            raise Refused(403, "that is someone else's direct messages")
        if channel.guild is not None and user.id not in channel.guild.members:
            raise Refused(403, "that colleague is not in the server")
        if channel.is_thread and not self.fake.sees_thread(user, channel):
            raise Refused(403, "that colleague cannot see this thread")
        return channel

    def _message(self, user: FakeUser, raw: Any) -> FakeMessage:
        try:
            msg = self.fake.messages[int(raw)]
        except (KeyError, TypeError, ValueError):
            raise Refused(404, f"there is no message {raw!r}") from None
        if msg.deleted or not self.fake.can_see(user, msg):
            raise Refused(403, "that colleague cannot see this message")
        return msg

    def _entity(self, raw: Any) -> Any:
        guild = self.fake.office
        try:
            ident = int(raw)
        except (TypeError, ValueError):
            raise Refused(400, f"{raw!r} is not an id") from None
        if ident in self.fake.users:
            return self.fake.users[ident]
        for role in guild.roles:
            if role.id == ident:
                return role
        if ident in self.fake.channels:
            return self.fake.channels[ident]
        raise Refused(400, f"nothing has the id {ident}")

    async def _act(self, user: FakeUser, body: dict[str, Any]) -> dict[str, Any]:
        fake = self.fake
        kind = body.get("kind")
        if kind in ("slash", "autocomplete"):
            channel = self._channel(user, body.get("channel"))
            path = " ".join(str(body.get("command") or "").strip().lstrip("/").split())
            if not path:
                raise CommandRefused("type / and pick a command")
            schema = fake._find_command_schema(channel.guild, path.split()[0])
            if schema is None:
                raise CommandRefused(f"/{path.split()[0]} is not a command of this bot")
            fake._check_command_allowed(schema, user, channel)
            leaf = find_leaf(schema, path)
            raw = body.get("options") or {}
            if not isinstance(raw, dict):
                raise CommandRefused("options must be an object")
            if kind == "autocomplete":
                focused = str(body.get("focused") or "")
                completes = {
                    o.get("name") for o in leaf.get("options") or [] if o.get("autocomplete")
                }
                if focused not in completes:
                    # Discord asks the bot only about an option that completes.
                    raise CommandRefused(f"/{path} has no option {focused!r} to complete")
                others = {k: v for k, v in raw.items() if k != focused}
                options = parse_options(leaf, path, others, channel.guild, fake.users, partial=True)
                options[focused] = str(raw.get(focused) or "")
                choices = await fake.autocomplete(
                    user, channel, path, options, focused, timeout=ANSWER_TIMEOUT
                )
                return {"ok": True, "choices": choices}
            options = parse_options(leaf, path, raw, channel.guild, fake.users)
            result = await fake.slash(
                user, channel, path, options, timeout=ANSWER_TIMEOUT, settle=0
            )
        elif kind == "click":
            msg = self._message(user, body.get("message"))
            result = await fake.click(
                user, msg, str(body.get("custom_id")), timeout=ANSWER_TIMEOUT, settle=0
            )
        elif kind == "select":
            msg = self._message(user, body.get("message"))
            custom_id = str(body.get("custom_id"))
            comp = fake._find_component(msg, types={3, 5, 6, 7, 8}, custom_id=custom_id, label=None)
            chosen = [str(v) for v in body.get("values") or []]
            picked: list[Any] = chosen if comp["type"] == 3 else [self._entity(v) for v in chosen]
            result = await fake.select(
                user, msg, custom_id, picked, timeout=ANSWER_TIMEOUT, settle=0
            )
        elif kind == "modal":
            try:
                origin = fake.interactions[int(body.get("interaction") or 0)]
            except (KeyError, ValueError):
                raise Refused(404, "that form is no longer open") from None
            if origin.user is not user or origin.modal is None:
                raise Refused(403, "that form was shown to someone else")
            fields = body.get("values") or {}
            if not isinstance(fields, dict):
                raise Refused(400, "values must be an object")
            result = await fake.submit_modal(
                user,
                None,
                fields,
                from_interaction=InteractionResult(fake, origin),
                timeout=ANSWER_TIMEOUT,
                settle=0,
            )
        elif kind == "vote":
            return await self._vote(user, body)
        elif kind == "interest":
            return await self._interest(user, body)
        else:
            raise Refused(400, f"unknown action {kind!r}")
        return self._answer(user, result)

    async def _vote(self, user: FakeUser, body: dict[str, Any]) -> dict[str, Any]:
        """The colleague clicks a poll's answer: their vote, or its removal when it was
        theirs; in a single-choice poll a click on another answer moves the vote there."""
        msg = self._message(user, body.get("message"))
        poll = msg.poll
        if poll is None:
            raise Refused(400, "that message has no poll")
        try:
            answer = poll.answer_id(int(body.get("answer") or 0))
        except (TypeError, ValueError):
            raise Refused(400, "that poll has no such answer") from None
        mine = poll.voted_by(user)
        if answer in mine:
            await self.fake.unvote(user, msg, answer)
        else:
            if mine and not poll.allow_multiselect:
                await self.fake.unvote(user, msg)
            await self.fake.vote(user, msg, answer)
        return {"ok": True}

    async def _interest(self, user: FakeUser, body: dict[str, Any]) -> dict[str, Any]:
        """The colleague clicks an event's "Interested": they are, or no longer are."""
        try:
            event = self.fake.office.scheduled_events[int(body.get("event") or 0)]
        except (KeyError, TypeError, ValueError):
            raise Refused(404, "that event is over or was deleted") from None
        if user.id in event.interested:
            await self.fake.mark_not_interested(user, event)
        else:
            await self.fake.mark_interested(user, event)
        return {"ok": True, "interested": user.id in event.interested}

    def _answer(self, user: FakeUser, result: InteractionResult) -> dict[str, Any]:
        if not result.answered:
            return {
                "ok": False,
                "error": f"{self.fake.bot_user.name} did not respond: the interaction failed",
            }
        answer: dict[str, Any] = {"ok": True, "callback": result.callback_type}
        if result.modal is not None:
            answer["modal"] = render_modal(result.modal, self._context(user), result.interaction.id)
        if result.response is not None:
            answer["message"] = str(result.response.id)
            answer["channel"] = str(result.response.channel.id)
        return answer

    # -- time and colleagues --------------------------------------------------------------

    async def move_clock(self, request: web.Request) -> web.Response:
        try:
            body = await json_object(request)
            target = await self._target(str(body.get("to")))
        except Refused as err:
            return web.json_response({"error": str(err)}, status=err.status)
        moved = self.clock.advance_to(target)
        await self.fake.run_due()  # the polls, events and idle threads the move ended
        await self.store.save_world(self.fake)
        if moved:
            log.info("sandbox clock moved", extra={"by": str(moved), "now": self.clock.now()})
            await self.bot.timers.catch_up()
        clock = await self._clock_json()
        await self.broadcast({"t": "clock", "clock": clock})
        return web.json_response(
            {"ok": True, "moved_seconds": moved.total_seconds(), "clock": clock}
        )

    async def _target(self, to: str) -> datetime:
        now = self.clock.now()
        guild = self.fake.office
        settings = await self.bot.guild_settings(self.bot.get_guild(guild.id) or guild.id)
        zone = ZoneInfo(settings.timezone)
        step = {"10m": timedelta(minutes=10), "hour": timedelta(hours=1), "day": timedelta(days=1)}
        if to in step:
            return now + step[to]
        if to == "closing":
            closing = await self._closing(guild.id, settings)
            if closing is None:
                raise Refused(400, "this bot has no closing time")
            day = local_date(now, zone)
            target = at_local(day, closing, zone)
            if target <= now:
                target = at_local(day + timedelta(days=1), closing, zone)
            return target + timedelta(seconds=1)
        if to == "month_end":
            local = now.astimezone(zone)
            first = date(local.year + local.month // 12, local.month % 12 + 1, 1)
            return datetime.combine(first, time(0, 0, 1), zone).astimezone(UTC)
        if to == "next_timer":
            due = [t.due_at for t in await self.bot.timers.pending() if t.due_at > now]
            if not due:
                raise Refused(400, "no deadline is pending")
            soonest: datetime = min(due)
            return soonest + timedelta(seconds=1)
        raise Refused(400, f"unknown time step {to!r}")

    async def play_day(self, request: web.Request) -> web.Response:
        """The simulated colleagues play the rest of today's Späye, each move an interaction
        as their click would be (:class:`~bot.sandbox.office.DayPlayer`); answers once the
        day is over, or with the reason it could not go on."""
        if self._playing is not None and not self._playing.done():
            return web.json_response(
                {"error": "the colleagues are already playing the day"}, status=409
            )
        player = DayPlayer(self.fake, self.bot, on_move=self._played)
        task = asyncio.get_running_loop().create_task(player.play(), name="sandbox-play-day")
        self._playing = task
        await self.broadcast({"t": "play", "running": True, "moves": 0})
        answer: dict[str, Any]
        status = 200
        try:
            played = await asyncio.shield(task)
        except PlayRefused as err:
            answer, status = {"error": str(err)}, 409
        except RuntimeError as err:
            answer, status = {"error": f"the bot is not connected ({err})"}, 503
        except asyncio.CancelledError:
            if not task.cancelled():
                raise
            answer, status = {"error": "the sandbox stopped"}, 503
        else:
            answer = {
                "ok": True,
                "moves": played.moves,
                "status": played.status,
                "seconds": round(played.seconds, 1),
            }
            log.info("sandbox day played", extra=answer)
        clock = await self._clock_json()
        await self.broadcast({"t": "play", "running": False, **answer})
        await self.broadcast({"t": "clock", "clock": clock})
        return web.json_response(answer, status=status)

    def _played(self, moves: int) -> None:
        now = asyncio.get_running_loop().time()
        if now - self._play_shown >= 0.3:
            self._play_shown = now
            self._spawn(self.broadcast({"t": "play", "running": True, "moves": moves}))

    async def change_user(self, request: web.Request) -> web.Response:
        try:
            body = await json_object(request)
            user = self._user(body.get("user"))
        except Refused as err:
            return web.json_response({"error": str(err)}, status=err.status)
        locale, dms_open = body.get("locale"), body.get("dms_open")
        if "locale" in body and (not isinstance(locale, str) or locale not in LOCALES):
            return web.json_response({"error": "unknown language"}, status=400)
        if "dms_open" in body and not isinstance(dms_open, bool):
            return web.json_response({"error": "dms_open is true or false"}, status=400)
        if isinstance(locale, str):
            user.locale = locale
        if isinstance(dms_open, bool):
            user.dms_open = dms_open
        await self.store.save_world(self.fake)
        await self.broadcast({"t": "users", "users": self._users_json()})
        if isinstance(locale, str):
            # Every view of this colleague (side by side with others, or twice) takes the
            # language at once: the command names and the times, its messages kept.
            frame = {"t": "locale", "locale": locale, "commands": self._command_lists(user)}
            await self._send(self.views.get(user.id, set()), frame)
        return web.json_response({"ok": True})
