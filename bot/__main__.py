"""``python -m bot``: read the settings, set up logging, run the bot until SIGINT/SIGTERM.

Exit codes: 0 after a clean shutdown, 1 when Discord refuses to start the bot or cannot be
reached (one line saying what failed and what to check), 2 when the configuration is missing
or invalid (with a short message, never a traceback).

``python -m bot --sandbox`` runs the bot against a local imitation of Discord instead, with a
page to play on (:mod:`bot.sandbox`, imported only then).

``python -m bot copy-database --to postgresql://...`` copies the configured SQLite database
into an empty PostgreSQL database (:mod:`bot.storage.copy`): exit 0 when every table's rows
arrived, 1 when nothing was copied (target not empty, counts differ, server out of reach),
2 for a missing or unsupported URL.

``python -m bot ratings rebuild [--guild ID ...]`` recomputes every rating from the stored
results (:meth:`bot.storage.ratings.RatingStore.rebuild`), in one transaction, and says how
many games it replayed and how long it took: exit 0, 1 when the database is out of reach.
The same stored results give the same numbers, those of the live updates; the bot may be
running meanwhile (the rebuild holds each server's rating updates until it commits).

With ``DATABASE_URL`` set, a PostgreSQL server out of reach at start-up is one line and
exit code 1; a ``DATABASE_URL`` that is not a PostgreSQL URL is invalid configuration (2).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys

import aiohttp
import discord
from pydantic import ValidationError

from bot.client import GamenightBot
from bot.logging import setup_logging
from bot.redaction import add_secret, url_secrets
from bot.settings import Settings, check_database_url

log = logging.getLogger("gamenight")

FIRST_RUN_HELP = """\
gamenight: DISCORD_TOKEN is missing, so the bot cannot log in.

Create a bot token:
  1. Discord Developer Portal (https://discord.com/developers/applications)
     -> New Application (or pick yours) -> Bot -> Reset Token, and copy it.
  2. Put it in a .env file next to where you start the bot (see .env.example):
         DISCORD_TOKEN=your-token
     or in the environment: export DISCORD_TOKEN=your-token
  3. Invite the bot: OAuth2 -> URL Generator, scopes "bot applications.commands",
     with the permissions listed in the README.

To try every game first, without Discord or a token: python -m bot --sandbox
"""


def load_settings() -> Settings | None:
    """The settings, or ``None`` after printing why they are invalid."""
    try:
        return Settings()
    except ValidationError as err:
        lines = [
            f"  {'.'.join(map(str, e['loc'])).upper()}: {e['msg'].removeprefix('Value error, ')}"
            for e in err.errors()
        ]
        print("gamenight: invalid configuration:\n" + "\n".join(lines), file=sys.stderr)
        return None


async def run(settings: Settings, token: str, bot: GamenightBot | None = None) -> int:
    """Run the bot until SIGINT/SIGTERM or a fatal error; returns the exit code."""
    bot = bot or GamenightBot(settings, freeze_startup=True)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    signals = (signal.SIGINT, signal.SIGTERM)
    for sig in signals:
        with contextlib.suppress(NotImplementedError):  # not on Windows
            loop.add_signal_handler(sig, stop.set)
    try:
        async with bot:
            runner = asyncio.create_task(bot.start(token), name="discord")
            stopper = asyncio.create_task(stop.wait(), name="signals")
            await asyncio.wait({runner, stopper}, return_when=asyncio.FIRST_COMPLETED)
            if stop.is_set():
                log.info("shutting down")
                await bot.close()
            stopper.cancel()
            await runner
    except DatabaseUnavailableError as err:
        return stopped(str(err))
    except discord.LoginFailure:
        return stopped(
            "Discord refused the token (401 Unauthorized): check DISCORD_TOKEN, or make a new "
            "one (Developer Portal -> Bot -> Reset Token)"
        )
    except discord.PrivilegedIntentsRequired:
        return stopped(
            "Discord refused the intents requested: check the Bot page of the Developer Portal"
        )
    except (aiohttp.ClientConnectionError, discord.GatewayNotFound, TimeoutError) as err:
        return stopped(
            f"cannot reach Discord ({describe(err)}): check the network connection, DNS, "
            "proxy or firewall to discord.com"
        )
    except discord.HTTPException as err:
        return stopped(
            f"Discord answered HTTP {err.status} at login: see https://discordstatus.com "
            "and try again later"
        )
    finally:
        for sig in signals:
            with contextlib.suppress(NotImplementedError):
                loop.remove_signal_handler(sig)
    log.info("stopped")
    return 0


class DatabaseUnavailableError(Exception):
    """Stand-in when the PostgreSQL backend is not installed (nothing raises it then)."""


with contextlib.suppress(ImportError):  # no asyncpg: SQLite only
    from bot.storage.postgres import DatabaseUnavailable as DatabaseUnavailableError  # type: ignore[assignment]


async def check_database(settings: Settings) -> str | None:
    """Why PostgreSQL (``DATABASE_URL``) cannot be used, before Discord is contacted."""
    url = settings.database_url_value
    if url is None:
        return None
    try:
        from bot.storage.postgres import PostgresDatabase
    except ImportError:
        return "DATABASE_URL needs asyncpg: pip install -e '.[postgres]'"
    db = PostgresDatabase(url)
    try:
        await db.open()
    except DatabaseUnavailableError as err:
        return str(err)
    finally:
        await db.close()
    return None


def copy_main(argv: list[str]) -> int:
    """``copy-database --to postgresql://...``"""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m bot copy-database",
        description="Copy the SQLite database (DATABASE_PATH) into an empty PostgreSQL one.",
    )
    parser.add_argument("--to", required=True, metavar="postgresql://...", dest="url")
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    try:
        url = check_database_url(args.url.strip())
    except ValueError as err:
        print(f"gamenight: copy-database: --to {err}", file=sys.stderr)
        return 2
    settings = load_settings()
    if settings is None:
        return 2
    for secret in url_secrets(url):
        add_secret(secret)
    try:
        from bot.storage.copy import copy_database
    except ImportError:
        print(
            "gamenight: copy-database needs asyncpg: pip install -e '.[postgres]'", file=sys.stderr
        )
        return 1
    return asyncio.run(copy_database(settings.database_path, url))


def ratings_main(argv: list[str]) -> int:
    """``ratings rebuild [--guild ID ...]``"""
    import argparse

    parser = argparse.ArgumentParser(
        prog="python -m bot ratings", description="Gamenight's ratings, from the stored results."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="rebuild")
    rebuild = commands.add_parser(
        "rebuild",
        help="recompute every rating from the stored results",
        description="Recompute every rating from the stored results (the same numbers "
        "twice, those of the live updates), in one transaction.",
    )
    rebuild.add_argument(
        "--guild", type=int, action="append", metavar="ID", help="only this server (repeatable)"
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)
    settings = load_settings()
    if settings is None:
        return 2
    keep_out_of_logs(settings)
    try:
        return asyncio.run(rebuild_ratings(settings, args.guild))
    except DatabaseUnavailableError as err:
        return stopped(str(err))


async def rebuild_ratings(settings: Settings, guilds: list[int] | None) -> int:
    import time

    from bot.clock import SystemClock
    from bot.storage import Store, make_database

    store = Store(make_database(settings), SystemClock())
    await store.open()
    try:
        start = time.perf_counter()
        report = await store.ratings.rebuild(guilds)
        seconds = time.perf_counter() - start
    finally:
        await store.close()
    print(
        f"ratings rebuilt: {report.games} finished games replayed ({report.rated} rated) in"
        f" {report.guilds} server(s), {report.rows} ratings, {seconds:.2f} s"
    )
    return 0


def keep_out_of_logs(settings: Settings) -> None:
    """Mask the bot's token and the database's password in every log line, whatever
    library writes it (:mod:`bot.redaction`)."""
    if settings.discord_token is not None:
        add_secret(settings.discord_token.get_secret_value())
    for secret in url_secrets(settings.database_url_value or ""):
        add_secret(secret)


def stopped(reason: str) -> int:
    """One clear line on stderr (not a log record with a traceback); exit code 1."""
    print(f"gamenight: {reason}", file=sys.stderr, flush=True)
    return 1


def describe(err: BaseException) -> str:
    """The first useful words of a connection error (``Connection refused``...)."""
    cause: BaseException | None = err
    while cause is not None:
        text = getattr(cause, "strerror", None) or str(cause)
        if text:
            return str(text)
        cause = cause.__cause__ or cause.__context__
    return type(err).__name__


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["copy-database"]:
        return copy_main(argv[1:])
    if argv[:1] == ["ratings"]:
        return ratings_main(argv[1:])
    if "--sandbox" in argv:
        from bot.sandbox import main as sandbox_main

        return sandbox_main(argv)
    if argv:
        wanted = "help" if {"-h", "--help"} & set(argv) else "unknown"
        if wanted == "unknown":
            print(f"gamenight: unrecognized arguments: {' '.join(argv)}", file=sys.stderr)
        print(
            "usage: python -m bot             run the bot (DISCORD_TOKEN in .env)\n"
            "       python -m bot --sandbox   try it without Discord "
            "(python -m bot --sandbox --help)\n"
            "       python -m bot copy-database --to postgresql://...   "
            "SQLite into an empty PostgreSQL\n"
            "       python -m bot ratings rebuild   recompute every rating from the results",
            file=sys.stdout if wanted == "help" else sys.stderr,
        )
        return 0 if wanted == "help" else 2
    settings = load_settings()
    if settings is None:
        return 2
    if settings.discord_token is None:
        print(FIRST_RUN_HELP, file=sys.stderr, end="")
        return 2
    keep_out_of_logs(settings)
    setup_logging(settings.log_level, settings.log_format)
    log.info(
        "starting",
        extra={"database": settings.describe_database(), "dev_guild_id": settings.dev_guild_id},
    )
    unreachable = asyncio.run(check_database(settings))
    if unreachable is not None:
        return stopped(unreachable)
    try:
        return asyncio.run(run(settings, settings.discord_token.get_secret_value()))
    except KeyboardInterrupt:
        return 0
    except Exception:
        log.exception("the bot stopped on an error")
        return 1


if __name__ == "__main__":
    sys.exit(main())
