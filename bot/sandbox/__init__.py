"""``python -m bot --sandbox``: the real bot against an in-process Discord, and a page to play.

No token and no network: :class:`~bot.sandbox.world.SandboxDiscord` (the fake Discord of
:mod:`bot.fakediscord`) serves the gateway and REST API on a free port of 127.0.0.1, the
unchanged :class:`bot.client.GamenightBot` connects to it with every cog it finds, and
:class:`~bot.sandbox.page.SandboxPage` serves a page where simulated colleagues use the
bot as they would in a Discord channel. See ``python -m bot --sandbox --help``.

This package is imported only with ``--sandbox``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import errno
import fcntl
import ipaddress
import logging
import secrets
import signal
import socket
import sys
import time
from pathlib import Path
from typing import IO, TYPE_CHECKING

from aiohttp import web
from pydantic import ValidationError

from bot.settings import Settings

if TYPE_CHECKING:
    from bot.sandbox.page import SandboxPage
    from bot.sandbox.world import SandboxDiscord

__all__ = ["DEFAULT_DATABASE", "DEFAULT_PORT", "main", "parser", "serve"]

log = logging.getLogger("gamenight.sandbox")

DEFAULT_PORT = 8765
DEFAULT_DATABASE = Path("data/sandbox.sqlite3")
TICK_SECONDS = 1.0
"""How often due timers are looked for (the sandbox clock may run ahead of the real one)."""


def parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m bot --sandbox",
        description="Try the bot without Discord: the real bot against a local imitation of "
        "Discord, with a page where simulated colleagues play.",
    )
    p.add_argument("--sandbox", action="store_true", help=argparse.SUPPRESS)
    p.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port of the page (default {DEFAULT_PORT})"
    )
    p.add_argument("--users", type=int, default=5, help="simulated colleagues, 1 to 20 (default 5)")
    p.add_argument(
        "--database",
        type=Path,
        default=DEFAULT_DATABASE,
        help=f"the sandbox's own database (default {DEFAULT_DATABASE})",
    )
    p.add_argument("--reset", action="store_true", help="delete the sandbox's database first")
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="address the page listens on (default 127.0.0.1, this machine only); anyone "
        "who reaches another address can act as every colleague. The page answers only to "
        "this name, 127.0.0.1, localhost and [::1] (and to any IP address when it listens "
        "on all of them, 0.0.0.0 or ::)",
    )
    p.add_argument(
        "--log-level",
        default="WARNING",
        type=str.upper,
        choices=["DEBUG", "INFO", "WARNING", "ERROR"],
        help="the bot's log level (default WARNING)",
    )
    return p


def _fail(message: str, stream: IO[str] | None = None) -> int:
    print(f"gamenight sandbox: {message}", file=stream or sys.stderr)
    return 1


def _is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bind(host: str, port: int) -> socket.socket:
    """The page's listening socket, bound now so a port in use is reported before anything
    starts (no SO_REUSEPORT: a second sandbox on the same port fails here)."""
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    return socket.create_server((host, port), family=family, backlog=128)


def lock(database: Path) -> IO[str] | None:
    """An exclusive lock beside the database, or ``None`` when another sandbox holds it."""
    database.parent.mkdir(parents=True, exist_ok=True)
    handle = open(database.with_name(database.name + ".lock"), "w")  # noqa: SIM115
    try:
        fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        return None
    return handle


def reset(database: Path) -> None:
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            database.with_name(database.name + suffix).unlink()


async def serve(
    args: argparse.Namespace,
    sock: socket.socket,
    *,
    ready: asyncio.Future[SandboxPage] | None = None,
    stop: asyncio.Event | None = None,
) -> int:
    """Run the sandbox on ``sock`` until ``stop`` is set (or SIGINT/SIGTERM).

    ``ready`` gets the running :class:`~bot.sandbox.page.SandboxPage` once the page answers
    (its ``fake`` and ``bot`` are the sandbox's Discord and bot).
    """
    from bot.client import GamenightBot
    from bot.sandbox.office import set_up_office
    from bot.sandbox.page import AllowedHosts, SandboxPage
    from bot.sandbox.world import SandboxClock, SandboxDiscord, WorldStore

    started = time.monotonic()
    database: Path = args.database
    clock = SandboxClock()
    store = WorldStore(database)
    app_id = await WorldStore.saved_application_id(database)
    # The bot's token on this run only: a web page cannot guess it to drive the fake Discord.
    token = secrets.token_urlsafe(32)
    fake = SandboxDiscord(clock, application_id=app_id, bot_name="Gamenight", token=token)
    await store.open()
    runner: web.AppRunner | None = None
    page: SandboxPage | None = None
    running = None
    ticker: asyncio.Task[None] | None = None
    emojis: asyncio.Task[None] | None = None
    stop = stop or asyncio.Event()
    loop = asyncio.get_running_loop()
    signals = (signal.SIGINT, signal.SIGTERM)
    for sig in signals:
        with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
            loop.add_signal_handler(sig, stop.set)
    try:
        if not await store.load_into(fake):
            fake.build(args.users)
        else:
            fake.ensure_colleagues(args.users)
        await store.save_world(fake)
        await fake.start()
        settings = sandbox_settings(database)
        bot = GamenightBot(settings, clock, autorun_timers=True)
        running = fake.run_client(bot, token, ready_timeout=60)
        await running.start()
        if not fake.set_up and await set_up_office(fake, bot):
            await store.save_world(fake)
        host, port = sock.getsockname()[:2]
        hosts = AllowedHosts.serving(host, port, getattr(args, "host", None))
        page = SandboxPage(fake, bot, store, clock, hosts)
        runner = web.AppRunner(page.app(), handle_signals=False, access_log=None)
        await runner.setup()
        await web.SockSite(runner, sock).start()
        ticker = asyncio.create_task(_tick(bot, fake), name="sandbox-timers")
        if settings.card_emojis:
            emojis = asyncio.create_task(_keep_emojis(bot, page), name="sandbox-emojis")
        shown = f"[{host}]" if ":" in host else host
        print(
            f"Gamenight sandbox: http://{shown}:{port}/  "
            f"({len(fake.colleagues())} colleagues, database {database}, "
            f"ready in {time.monotonic() - started:.1f} s; Ctrl-C to stop)",
            flush=True,
        )
        if not _is_loopback(host):
            print(
                "gamenight sandbox: warning: the page listens beyond this machine; anyone "
                "who reaches it can act as every colleague",
                file=sys.stderr,
                flush=True,
            )
        if ready is not None and not ready.done():
            ready.set_result(page)
        waiter = asyncio.create_task(stop.wait())
        client = running.task or waiter
        await asyncio.wait({waiter, client}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        if client.done() and not stop.is_set():
            return _fail(f"the bot stopped: {client.exception()!r}")
        return 0
    finally:
        for sig in signals:
            with contextlib.suppress(NotImplementedError, RuntimeError, ValueError):
                loop.remove_signal_handler(sig)
        for task in (ticker, emojis):
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
        if page is not None:
            await page.close_views()
        if runner is not None:
            await runner.cleanup()
        if running is not None:
            await running.close()
        if page is not None:
            await page.close()
        else:
            with contextlib.suppress(Exception):
                await store.save_world(fake)
        await fake.stop()
        await store.close()


def sandbox_settings(database: Path) -> Settings:
    """The bot's settings in the sandbox: its own SQLite database (never ``DATABASE_URL``,
    which names the bot's), no token, commands for every
    server (``DEV_GUILD_ID`` would name a server the sandbox does not have), and the cards
    as pictures (``CARD_EMOJIS`` on, whatever the environment says: the page shows the
    application's emojis, uploaded once and kept with the world)."""
    return Settings(
        database_path=database,
        database_url=None,
        dev_guild_id=None,
        discord_token=None,
        card_emojis=True,
    )


async def _keep_emojis(bot: object, page: SandboxPage) -> None:
    """Save the card emojis in the world once the bot's start-up sync is over."""
    await bot.card_emojis.done.wait()  # type: ignore[attr-defined]
    await page.save_emojis()


async def _tick(bot: object, fake: SandboxDiscord) -> None:
    timers = bot.timers  # type: ignore[attr-defined]
    while True:
        await asyncio.sleep(TICK_SECONDS)
        try:
            await fake.run_due()  # polls that ended, events that are over, idle threads
            await timers.run_due()
        except Exception:
            log.exception("sandbox: running due timers failed")


def main(argv: list[str]) -> int:
    """``python -m bot --sandbox [options]``; returns the exit code."""
    args = parser().parse_args(argv)
    if not 1 <= args.users <= 20:
        print("gamenight sandbox: --users must be between 1 and 20", file=sys.stderr)
        return 2
    if not 0 <= args.port <= 65535:
        print("gamenight sandbox: --port must be between 0 and 65535", file=sys.stderr)
        return 2
    try:
        sock = bind(args.host, args.port)
    except OSError as err:
        if err.errno == errno.EADDRINUSE:
            return _fail(
                f"{args.host}:{args.port} is already in use (another sandbox?); stop it "
                "or choose another port with --port N"
            )
        return _fail(f"cannot listen on {args.host}:{args.port}: {err.strerror or err}")
    try:
        sandbox_settings(args.database)
    except ValidationError as err:
        sock.close()
        lines = [f"  {'.'.join(map(str, e['loc'])).upper()}: {e['msg']}" for e in err.errors()]
        print("gamenight sandbox: invalid configuration:\n" + "\n".join(lines), file=sys.stderr)
        return 2
    held = lock(args.database)
    if held is None:
        sock.close()
        return _fail(
            f"another sandbox is using {args.database}; stop it or choose another "
            "file with --database PATH"
        )
    try:
        if args.reset:
            reset(args.database)
        from bot.logging import setup_logging

        setup_logging(args.log_level, "kv")
        return asyncio.run(serve(args, sock))
    except KeyboardInterrupt:
        return 0
    finally:
        sock.close()
        held.close()
