"""``/gamenight``: plan an evening of games, gather people, then play it.

Before the hour (``_plan``, ``_rsvp``, ``_event``...): ``/gamenight plan`` stores the night,
makes its Discord scheduled event and posts its one RSVP message; the durable timers
``night.remind_day``, ``night.remind_hour``, ``night.calloff`` and ``night.start`` (payload
``{"night_id": ...}``) carry it to the hour, where :meth:`GamenightCog.start_night` takes
over.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any, Final

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.storage import StoredGame
from cogs.gamenight._run import TABLES, NightRunner

if TYPE_CHECKING:
    from bot.client import GamenightBot

log = logging.getLogger(__name__)

REMIND_DAY: Final = "night.remind_day"
REMIND_HOUR: Final = "night.remind_hour"
CALLOFF: Final = "night.calloff"
START: Final = "night.start"
TIMER_KINDS: Final = (REMIND_DAY, REMIND_HOUR, CALLOFF, START)


class GamenightCog(NightRunner, commands.Cog, name="Gamenight"):
    """Game nights: planned, answered, reminded, then seated and played."""

    gamenight = app_commands.Group(
        name=_("gamenight", key="gamenight.cmd.name"),
        description=_("Plan and play an evening of games", key="gamenight.cmd.description"),
        guild_only=True,
    )

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot
        self._runner_init()

    async def cog_load(self) -> None:
        self.bot.timers.register(START, self._on_start)
        self._runner_load()

    async def cog_unload(self) -> None:
        for kind in (*TIMER_KINDS, TABLES):
            self.bot.timers.unregister(kind)

    async def _on_start(self, payload: dict[str, Any]) -> None:
        await self.start_night(int(payload["night_id"]))

    @gamenight.command(
        name=_("plan", key="gamenight.cmd.plan.name"),
        description=_("Plan a game night", key="gamenight.cmd.plan.description"),
    )
    async def plan(self, interaction: discord.Interaction[Any]) -> None:
        from bot.ui import reply_error

        await reply_error(interaction, "gamenight.plan.unavailable")

    # -- from the hour (``_run``) -------------------------------------------------------------

    @commands.Cog.listener()
    async def on_ready(self) -> None:
        await self.resume_nights()

    @commands.Cog.listener()
    async def on_seated_game_over(self, stored: StoredGame) -> None:
        await self.on_game_over(stored)

    @gamenight.command(
        name=_("join", key="gamenight.cmd.join.name"),
        description=_(
            "Join the game night being played: a table, or its waiting list",
            key="gamenight.cmd.join.description",
        ),
    )
    async def join(self, interaction: discord.Interaction[Any]) -> None:
        await self.join_night(interaction)

    @gamenight.command(
        name=_("leave", key="gamenight.cmd.leave.name"),
        description=_(
            "Leave the game night being played (or its waiting list)",
            key="gamenight.cmd.leave.description",
        ),
    )
    async def leave(self, interaction: discord.Interaction[Any]) -> None:
        await self.leave_night(interaction)
