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

if TYPE_CHECKING:
    from bot.client import GamenightBot

log = logging.getLogger(__name__)

REMIND_DAY: Final = "night.remind_day"
REMIND_HOUR: Final = "night.remind_hour"
CALLOFF: Final = "night.calloff"
START: Final = "night.start"
TIMER_KINDS: Final = (REMIND_DAY, REMIND_HOUR, CALLOFF, START)


class GamenightCog(commands.Cog, name="Gamenight"):
    """Game nights: planned, answered, reminded, then seated and played."""

    gamenight = app_commands.Group(
        name=_("gamenight", key="gamenight.cmd.name"),
        description=_("Plan and play an evening of games", key="gamenight.cmd.description"),
        guild_only=True,
    )

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.timers.register(START, self._on_start)

    async def cog_unload(self) -> None:
        for kind in TIMER_KINDS:
            self.bot.timers.unregister(kind)

    async def _on_start(self, payload: dict[str, Any]) -> None:
        await self.start_night(int(payload["night_id"]))

    async def start_night(self, night_id: int) -> None:
        """The hour of night ``night_id`` (the ``night.start`` timer): seat the attendees.

        Until the seating exists, the night only stays as planned."""
        log.info("a night reached its hour", extra={"night_id": night_id})

    @gamenight.command(
        name=_("plan", key="gamenight.cmd.plan.name"),
        description=_("Plan a game night", key="gamenight.cmd.plan.description"),
    )
    async def plan(self, interaction: discord.Interaction[Any]) -> None:
        from bot.ui import reply_error

        await reply_error(interaction, "gamenight.plan.unavailable")
