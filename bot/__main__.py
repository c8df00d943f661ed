"""``python -m bot``: read the settings, set up logging, run the bot until SIGINT/SIGTERM.

Exit codes: 0 after a clean shutdown, 1 when Discord refuses to start the bot, 2 when the
configuration is missing or invalid (with a short message, never a traceback).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import signal
import sys

import discord
from pydantic import ValidationError

from bot.client import GamenightBot
from bot.logging import setup_logging
from bot.settings import Settings

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
"""


def load_settings() -> Settings | None:
    """The settings, or ``None`` after printing why they are invalid."""
    try:
        return Settings()
    except ValidationError as err:
        lines = [f"  {'.'.join(map(str, e['loc'])).upper()}: {e['msg']}" for e in err.errors()]
        print("gamenight: invalid configuration:\n" + "\n".join(lines), file=sys.stderr)
        return None


async def run(settings: Settings, token: str, bot: GamenightBot | None = None) -> int:
    """Run the bot until SIGINT/SIGTERM or a fatal error; returns the exit code."""
    bot = bot or GamenightBot(settings)
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
    except discord.LoginFailure:
        log.error("Discord refused the token: check DISCORD_TOKEN (Bot -> Reset Token)")
        return 1
    except discord.PrivilegedIntentsRequired:
        log.error("Discord refused the intents requested")
        return 1
    finally:
        for sig in signals:
            with contextlib.suppress(NotImplementedError):
                loop.remove_signal_handler(sig)
    log.info("stopped")
    return 0


def main() -> int:
    settings = load_settings()
    if settings is None:
        return 2
    if settings.discord_token is None:
        print(FIRST_RUN_HELP, file=sys.stderr, end="")
        return 2
    setup_logging(settings.log_level, settings.log_format)
    log.info(
        "starting",
        extra={"database": str(settings.database_path), "dev_guild_id": settings.dev_guild_id},
    )
    try:
        return asyncio.run(run(settings, settings.discord_token.get_secret_value()))
    except KeyboardInterrupt:
        return 0
    except Exception:
        log.exception("the bot stopped on an error")
        return 1


if __name__ == "__main__":
    sys.exit(main())
