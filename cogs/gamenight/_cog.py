"""``/gamenight``: plan an evening of games, gather people, then play it.

Before the hour (``_plan``, ``_rsvp``, ``_event``...): ``/gamenight plan`` stores the night,
makes its Discord scheduled event and posts its one RSVP message; the durable timers
``night.remind_day``, ``night.remind_hour``, ``night.calloff`` and ``night.start`` (payload
``{"night_id": ...}``) carry it to the hour, where :meth:`GamenightCog.start_night` takes
over.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.i18n import Lang, locale_for_user, t
from bot.storage import StoredGame
from bot.storage.models import Night
from bot.text import escape
from bot.ui import Press, reply_error, respond
from cogs.gamenight._plan import (
    CALLOFF,
    KIND,
    NEXT_WEEK,
    POLL_END,
    REMIND_DAY,
    REMIND_HOUR,
    START,
    TIMER_KINDS,
    calloff,
    cancel,
    close_poll,
    edit,
    interested,
    may_plan,
    on_press,
    plan,
    plan_next_week,
    remind,
)
from cogs.gamenight._run import TABLES, NightRunner
from cogs.gamenight._settings import config_commands, config_fields

if TYPE_CHECKING:
    from bot.client import GamenightBot

log = logging.getLogger(__name__)

RAW_EVENTS: Final = {
    "GUILD_SCHEDULED_EVENT_USER_ADD": "add",
    "GUILD_SCHEDULED_EVENT_USER_REMOVE": "remove",
    "GUILD_SCHEDULED_EVENT_DELETE": "delete",
    "GUILD_SCHEDULED_EVENT_UPDATE": "update",
}
"""The gateway events read raw: discord.py drops an Interested change of a user it has not
cached (no members intent), so the cog sees each payload before discord.py parses it."""


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
        self._parsers: dict[str, Callable[[Any], None]] = {}

    async def cog_load(self) -> None:
        self.bot.timers.register(START, self._on_start)
        self._runner_load()
        self.bot.timers.register(REMIND_DAY, self._on_remind_day)
        self.bot.timers.register(REMIND_HOUR, self._on_remind_hour)
        self.bot.timers.register(CALLOFF, self._on_calloff)
        self.bot.timers.register(NEXT_WEEK, self._on_next_week)
        self.bot.timers.register(POLL_END, self._on_poll_end)
        self.bot.actions.register(KIND, self._on_press, action="rsvp", games=False)
        self.bot.actions.register(KIND, self._on_press, action="wish", games=False)
        parsers = self.bot._connection.parsers
        for name, what in RAW_EVENTS.items():
            original = parsers.get(name)
            if original is None:
                continue
            self._parsers[name] = original
            parsers[name] = self._raw_parser(what, original)
        config = self.bot.get_cog("Config")
        if config is not None:  # loaded before us: add our /config subcommand ourselves
            config.add_game(self)  # type: ignore[attr-defined]

    async def cog_unload(self) -> None:
        config = self.bot.get_cog("Config")
        if config is not None:
            config.remove_game(self)  # type: ignore[attr-defined]
        for kind in (*TIMER_KINDS, TABLES):
            self.bot.timers.unregister(kind)
        self.bot.actions.unregister(KIND)
        self.bot._connection.parsers.update(self._parsers)
        self._parsers.clear()

    # -- /config night-planners (cogs.gamenight._settings) ----------------------------------

    def config_commands(self) -> list[app_commands.Command[Any, ..., None]]:
        return config_commands()

    async def config_fields(self, guild: discord.Guild, locale: Lang) -> list[tuple[str, str]]:
        return await config_fields(self.bot, guild, locale)

    def _raw_parser(self, what: str, original: Callable[[Any], None]) -> Callable[[Any], None]:
        def parse(data: Any) -> None:
            self.bot.dispatch("night_raw_event", what, data)
            original(data)

        return parse

    @commands.Cog.listener()
    async def on_night_raw_event(self, what: str, data: dict[str, Any]) -> None:
        try:
            guild_id = int(data["guild_id"])
            if what in ("add", "remove"):
                await interested(self.bot, guild_id, int(data["guild_scheduled_event_id"]),
                                 int(data["user_id"]), what == "add")  # fmt: skip
                return
            event_id = int(data["id"])
            if what == "update" and int(data.get("status", 1)) != 4:
                return
            night = await self.bot.store.nights.by_event(guild_id, event_id)
            if night is not None and night.status in ("planned", "polling"):
                await cancel(self.bot, night, by_hand=True)
        except Exception:
            log.exception("could not follow a scheduled event", extra={"what": what})

    async def _on_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        await on_press(self.bot, interaction, press)

    async def _on_remind_day(self, payload: dict[str, Any]) -> None:
        await remind(self.bot, payload, "remind_day")

    async def _on_remind_hour(self, payload: dict[str, Any]) -> None:
        await remind(self.bot, payload, "remind_hour")

    async def _on_calloff(self, payload: dict[str, Any]) -> None:
        await calloff(self.bot, payload)

    async def _on_poll_end(self, payload: dict[str, Any]) -> None:
        await close_poll(self.bot, payload)

    async def _on_next_week(self, payload: dict[str, Any]) -> None:
        await plan_next_week(self.bot, payload)

    async def _on_start(self, payload: dict[str, Any]) -> None:
        await self.start_night(int(payload["night_id"]))

    @gamenight.command(
        name=_("plan", key="gamenight.cmd.plan.name"),
        description=_("Plan a game night", key="gamenight.cmd.plan.description"),
    )
    @app_commands.rename(
        when=_("when", key="gamenight.cmd.plan.when.name"),
        games=_("games", key="gamenight.cmd.plan.games.name"),
        title=_("title", key="gamenight.cmd.plan.title.name"),
        min_players=_("min-players", key="gamenight.cmd.plan.min_players.name"),
        calloff_hours=_("calloff-hours", key="gamenight.cmd.plan.calloff_hours.name"),
        keep=_("keep", key="gamenight.cmd.plan.keep.name"),
        computers=_("computers", key="gamenight.cmd.plan.computers.name"),
        weekly=_("weekly", key="gamenight.cmd.plan.weekly.name"),
    )
    @app_commands.describe(
        when=_("Start, in the server's time zone: 2025-03-20 19:30",
               key="gamenight.cmd.plan.when.description"),
        games=_("Games, e.g. papayoo, spit (or any)", key="gamenight.cmd.plan.games.description"),
        title=_("The night's name", key="gamenight.cmd.plan.title.description"),
        min_players=_("Fewest players for the night to happen (default: none)",
                      key="gamenight.cmd.plan.min_players.description"),
        calloff_hours=_("How many hours before the start that minimum is checked (default 2)",
                        key="gamenight.cmd.plan.calloff_hours.description"),
        keep=_("Keep the night even below the minimum (default: call it off)",
               key="gamenight.cmd.plan.keep.description"),
        computers=_("Fill short tables with computer seats",
                    key="gamenight.cmd.plan.computers.description"),
        weekly=_("Plan the same night every week (next week's at this one's hour)",
                 key="gamenight.cmd.plan.weekly.description"),
    )  # fmt: skip
    async def plan(
        self,
        interaction: discord.Interaction[Any],
        when: str,
        games: str,
        title: app_commands.Range[str, 1, 100] | None = None,
        min_players: app_commands.Range[int, 0, 100] = 0,
        calloff_hours: app_commands.Range[int, 0, 72] = 2,
        keep: bool = False,
        computers: bool = False,
        weekly: bool = False,
    ) -> None:
        await plan(self.bot, interaction, when=when, games=games, title=title,
                   min_players=min_players, calloff_hours=calloff_hours, keep=keep,
                   computers=computers, weekly=weekly)  # fmt: skip

    @gamenight.command(
        name=_("edit", key="gamenight.cmd.edit.name"),
        description=_(
            "Change a planned game night: its time, games or title",
            key="gamenight.cmd.edit.description",
        ),
    )
    @app_commands.rename(
        night=_("night", key="gamenight.cmd.edit.night.name"),
        when=_("when", key="gamenight.cmd.edit.when.name"),
        games=_("games", key="gamenight.cmd.edit.games.name"),
        title=_("title", key="gamenight.cmd.edit.title.name"),
    )
    @app_commands.describe(
        night=_("The night's number", key="gamenight.cmd.edit.night.description"),
        when=_("New start, in the server's time zone: 2025-03-20 19:30",
               key="gamenight.cmd.edit.when.description"),
        games=_("New games, e.g. papayoo, spit (or any)", key="gamenight.cmd.edit.games.description"),
        title=_("New name of the night", key="gamenight.cmd.edit.title.description"),
    )  # fmt: skip
    async def edit(
        self,
        interaction: discord.Interaction[Any],
        night: int,
        when: str | None = None,
        games: str | None = None,
        title: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        found = await self._own_night(interaction, night)
        if found is not None:
            await edit(self.bot, interaction, found, when=when, games=games, title=title)

    async def _own_night(
        self, interaction: discord.Interaction[Any], night_id: int
    ) -> Night | None:
        """The night ``night_id`` of this server if the member may change it (its planner or
        a planner), else ``None`` after a private refusal."""
        found = await self.bot.store.nights.get(night_id)
        if interaction.guild is None or found is None or found.guild_id != interaction.guild.id:
            await reply_error(interaction, "gamenight.refused.unknown_night", night=night_id)
            return None
        if found.planner_id != interaction.user.id and not await may_plan(self.bot, interaction):
            await reply_error(interaction, "gamenight.refused.not_planner")
            return None
        if found.status not in ("planned", "polling"):
            await reply_error(interaction, "gamenight.refused.night_over")
            return None
        return found

    @gamenight.command(
        name=_("cancel", key="gamenight.cmd.cancel.name"),
        description=_("Cancel a planned game night", key="gamenight.cmd.cancel.description"),
    )
    @app_commands.rename(night=_("night", key="gamenight.cmd.cancel.night.name"))
    @app_commands.describe(
        night=_("The night's number", key="gamenight.cmd.cancel.night.description")
    )
    async def cancel(self, interaction: discord.Interaction[Any], night: int) -> None:
        found = await self._own_night(interaction, night)
        if found is None:
            return
        await interaction.response.defer(ephemeral=True, thinking=True)
        done = await cancel(self.bot, found, by_hand=False)
        key = "gamenight.cancel.done" if done else "gamenight.refused.night_over"
        await respond(interaction, t(key, locale_for_user(interaction),
                                     title=escape(found.title)), ephemeral=True)  # fmt: skip

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
