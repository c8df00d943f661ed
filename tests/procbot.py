"""The bot in its own OS process, against a fake Discord that a test runs on 127.0.0.1: for
the tests that kill it with SIGKILL (nothing of the bot runs on, nothing is closed).

    python -m tests.procbot API_BASE GATEWAY_URL DATABASE_PATH COG [COG ...]

It prints ``ready`` once connected, its guilds received and its start-up catch-up done.
Claims on timers are shortened (a lease of 2 s, swept every second) so that the process
started after a kill takes over the dead one's work in seconds rather than a minute; the
rest is the bot as ``python -m bot`` runs it.
"""

from __future__ import annotations

import asyncio
import sys
from datetime import timedelta
from pathlib import Path

import discord
import yarl

from bot import timers
from bot.__main__ import run
from bot.client import GamenightBot
from bot.clock import SystemClock
from bot.logging import setup_logging
from bot.settings import Settings

LEASE_SECONDS = 2.0


async def main(api_base: str, gateway: str, database: str, cogs: list[str]) -> int:
    discord.http.Route.BASE = api_base
    discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(gateway)
    timers.LEASE = timedelta(seconds=LEASE_SECONDS)
    timers.LEASE_RENEW_SECONDS = LEASE_SECONDS / 4
    timers.SWEEP_SECONDS = 1
    settings = Settings(database_path=Path(database))
    setup_logging(settings.log_level, settings.log_format)
    bot = GamenightBot(settings, SystemClock(), cogs)
    bot._connection.guild_ready_timeout = 0.05

    async def say_ready() -> None:
        await bot.wait_until_ready()
        await bot.caught_up()
        print("ready", flush=True)

    announce = asyncio.create_task(say_ready())
    try:
        return await run(settings, "fake-token", bot)
    finally:
        announce.cancel()


if __name__ == "__main__":
    api, gateway_url, path, *names = sys.argv[1:]
    sys.exit(asyncio.run(main(api, gateway_url, path, names)))
