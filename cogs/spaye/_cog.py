"""``/spaye start|status|board`` and ``/daye``: the day's Späye on Discord.

``/spaye start`` opens the guild's one Späye of the day (``bot.store.days.open_day``) and
arms its closing (the calendar); ``/daye`` challenges colleagues. Everything after that is
buttons, selects and a modal, handled by :class:`cogs.spaye._table.SpayeTable`.

Tests and tools that need a known deck store a day themselves: build the game with
``SpayeGame.with_table(...)`` and pass it with :func:`cogs.spaye._opening.day_meta` to
``open_day``.
"""

from __future__ import annotations

import logging
from dataclasses import replace
from datetime import date, timedelta
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.clock import at_local
from bot.engine import Event
from bot.i18n import Lang, locale_for_user, t
from bot.storage import (
    DayAlreadyOpened,
    PlayerResult,
    SpayeDay,
    StoredGame,
    default_results,
)
from bot.ui import PUBLIC_ANSWER, Press, acknowledged, auto_defer, respond, say, update_message
from cogs.spaye import _render as render
from cogs.spaye._board import board, board_view, parse_board_arg
from cogs.spaye._calendar import start_calendar
from cogs.spaye._click import EXPIRY_KIND
from cogs.spaye._naming import exercise_named
from cogs.spaye._opening import open_spaye
from cogs.spaye._periods import SpayeGuild, closing_instant, guild_settings
from cogs.spaye._settings import config_commands, config_fields
from cogs.spaye._table import SpayeTable
from cogs.spaye._thread import settled_place, start_thread
from cogs.spaye._views import KIND, MODAL_PREFIX, SpayeUserSelect

if TYPE_CHECKING:
    from bot.client import GamenightBot

log = logging.getLogger("gamenight.spaye")

DAYS_LOOKED_BACK = 62
"""Days whose threads ``/daye`` recognises as another day's (about two months)."""


def spaye_results(stored: StoredGame) -> list[PlayerResult]:
    """The engine's ranking and totals, with each player's three columns as details."""
    result = stored.game.result()
    points: dict[str, dict[str, int]] = result.get("points") or {}
    return [
        replace(
            line, rounds=int(result.get("dayes") or 0), details=points.get(str(line.user_id), {})
        )
        for line in default_results(stored)
    ]


class SpayeCog(commands.Cog, name="Späye"):
    """The office's daily Späye."""

    spaye = app_commands.Group(
        name=_("spaye", key="spaye.cmd.name"),
        description=_("Späye, the office's daily card challenge", key="spaye.cmd.description"),
        guild_only=True,
    )

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot
        self.table = SpayeTable(bot)

    async def cog_load(self) -> None:
        self.bot.store.games.register_kind(KIND, results=spaye_results)
        self.bot.actions.register(KIND, self.table.on_press, moves=True)  # the day's moves
        self.bot.actions.register(KIND, self.on_board_page, action="board", games=False)
        self.bot.add_dynamic_items(SpayeUserSelect)
        self.bot.timers.register(EXPIRY_KIND, self.table.on_expiry)
        if self.bot.db.is_open:  # loaded without a database (command checks): no calendar
            await start_calendar(self.bot)
        config = self.bot.get_cog("Config")
        if config is not None:  # loaded before us: add our /config subcommands ourselves
            config.add_game(self)  # type: ignore[attr-defined]

    async def cog_unload(self) -> None:
        config = self.bot.get_cog("Config")
        if config is not None:
            config.remove_game(self)  # type: ignore[attr-defined]
        self.bot.actions.unregister(KIND)
        self.bot.remove_dynamic_items(SpayeUserSelect)
        self.bot.timers.unregister(EXPIRY_KIND)

    # -- /config: Späye's settings (cogs.spaye._settings) ------------------------------------

    def config_commands(self) -> list[app_commands.Command[Any, ..., None]]:
        """Späye's ``/config`` subcommands (the ``Config`` cog adds them)."""
        return config_commands()

    async def config_fields(self, guild: discord.Guild, locale: Lang) -> list[tuple[str, str]]:
        """Späye's lines of ``/config show``."""
        return await config_fields(self.bot, guild, locale)

    # -- /spaye start -----------------------------------------------------------------------

    @spaye.command(
        name=_("start", key="spaye.cmd.start.name"),
        description=_("Open today's Späye", key="spaye.cmd.start.description"),
        extras=dict(PUBLIC_ANSWER),
    )
    @app_commands.rename(exercise=_("exercise", key="spaye.cmd.start.exercise.name"))
    @app_commands.describe(
        exercise=_(
            "The day's exercise (default: the server's, push-ups unless changed)",
            key="spaye.cmd.start.exercise.description",
        )
    )
    async def start(
        self,
        interaction: discord.Interaction[Any],
        exercise: app_commands.Range[str, 1, 100] | None = None,
    ) -> None:
        guild, channel_id = interaction.guild, interaction.channel_id
        if guild is None or channel_id is None:
            raise app_commands.NoPrivateMessage()
        locale = locale_for_user(interaction)
        if isinstance(interaction.channel, discord.Thread):  # the day makes its own thread
            await say(interaction, t("spaye.thread.start_in_thread", locale))
            return
        if exercise is not None:
            exercise = await exercise_named(interaction, exercise, locale)
            if exercise is None:
                return
        async with auto_defer(interaction):
            settings = await guild_settings(self.bot, guild)
            now = self.bot.clock.now()
            today = settings.today(now)
            existing = await self.bot.store.days.get(guild.id, today)
            if existing is not None:
                await say(interaction, _already(existing.status, locale))
                return
            if closing_instant(settings, today) <= now:
                await say(interaction, closed_for_today(settings, today, locale))
                return
            try:
                game_id, game = await open_spaye(
                    self.bot,
                    guild.id,
                    channel_id,
                    today,
                    exercise or settings.spaye.default_exercise,
                    interaction.user,
                )
            except DayAlreadyOpened as err:
                await say(interaction, _already(err.day.status, locale))
                return
            except ValueError:
                await say(interaction, t("spaye.start.bad_exercise", locale))
                return
            public = settings.locale
            opener = str(interaction.user.id)
            board = await respond(interaction, render.opened(opener, game.public_view(), public))
            if board is None:
                board = await interaction.original_response()
        # the answer is the day's board; its thread is started from it
        await start_thread(self.bot, game_id, board.id, settings)

    # -- /spaye status and /spaye board -------------------------------------------------------

    @spaye.command(
        name=_("status", key="spaye.cmd.status.name"),
        description=_(
            "Cards left, the däye under way, exercises to confirm",
            key="spaye.cmd.status.description",
        ),
    )
    async def status(self, interaction: discord.Interaction[Any]) -> None:
        guild = interaction.guild
        if guild is None:
            raise app_commands.NoPrivateMessage()
        locale = locale_for_user(interaction)
        async with auto_defer(interaction, ephemeral=True):
            settings = await guild_settings(self.bot, guild)
            today = settings.today(self.bot.clock.now())
            day = await self.bot.store.days.get(guild.id, today)
            if day is None:
                await say(interaction, t("spaye.daye.no_day", locale))
                return
            stored = await self.bot.store.games.require(day.game_id)
            embed = render.status_embed(stored.game.public_view(), today.isoformat(), locale)
            await respond(interaction, embed=embed, ephemeral=True)

    @spaye.command(
        name=_("exercise", key="spaye.cmd.exercise.name"),
        description=_(
            "Propose another exercise for today, before the first däye",
            key="spaye.cmd.exercise.description",
        ),
        extras=dict(PUBLIC_ANSWER),
    )
    @app_commands.rename(name=_("name", key="spaye.cmd.exercise.exercise.name"))
    @app_commands.describe(
        name=_("For example squats", key="spaye.cmd.exercise.exercise.description")
    )
    async def exercise(
        self, interaction: discord.Interaction[Any], name: app_commands.Range[str, 1, 100]
    ) -> None:
        guild = interaction.guild
        if guild is None:
            raise app_commands.NoPrivateMessage()
        locale = locale_for_user(interaction)
        named = await exercise_named(interaction, name, locale)
        if named is None:
            return
        async with auto_defer(interaction):
            found = await self.running_day(interaction, guild, locale)
            if found is None:
                return
            settings, day = found
            self.table.note_names(day.game_id, interaction.user)
            await self.table.propose(interaction, day.game_id, named, settings)

    async def running_day(
        self, interaction: discord.Interaction[Any], guild: discord.Guild, locale: Lang
    ) -> tuple[SpayeGuild, SpayeDay] | None:
        """The guild's settings and today's running Späye; else ``None``, the member told
        privately that there is none or that it is over."""
        settings = await guild_settings(self.bot, guild)
        day = await self.bot.store.days.get(guild.id, settings.today(self.bot.clock.now()))
        if day is None:
            await say(interaction, t("spaye.daye.no_day", locale))
            return None
        if day.status != "active":
            status = render.status_name(day.status, locale)
            await say(interaction, t("spaye.daye.day_over", locale, status=status))
            return None
        return settings, day

    @spaye.command(
        name=_("board", key="spaye.cmd.board.name"),
        description=_("The month's points and titles", key="spaye.cmd.board.description"),
    )
    @app_commands.rename(month=_("month", key="spaye.cmd.board.month.name"))
    @app_commands.describe(
        month=_("A month as YYYY-MM (default: this one)", key="spaye.cmd.board.month.description")
    )
    async def board(
        self,
        interaction: discord.Interaction[Any],
        month: app_commands.Range[str, 1, 20] | None = None,
    ) -> None:
        guild = interaction.guild
        if guild is None:
            raise app_commands.NoPrivateMessage()
        locale = locale_for_user(interaction)
        async with auto_defer(interaction, ephemeral=True):
            try:
                shown = await board(self.bot, guild, month, locale, viewer=str(interaction.user.id))
            except ValueError as err:
                await say(interaction, str(err))
                return
            await respond(
                interaction, embed=shown.embed, view=board_view(shown, locale), ephemeral=True
            )

    async def on_board_page(self, interaction: discord.Interaction[Any], press: Press) -> None:
        """Previous / Next under the month's table (``gn:spaye:0:board:<month>.<page>``)."""
        locale = locale_for_user(interaction)
        wanted = parse_board_arg(press.arg)
        if interaction.guild is None or wanted is None:
            await say(interaction, t("errors.unknown_button", locale))
            return
        async with auto_defer(interaction):
            try:
                shown = await board(
                    self.bot,
                    interaction.guild,
                    wanted[0],
                    locale,
                    viewer=str(interaction.user.id),
                    page=wanted[1],
                )
            except ValueError as err:
                await say(interaction, str(err))
                return
            await update_message(interaction, embed=shown.embed, view=board_view(shown, locale))

    # -- /daye --------------------------------------------------------------------------------

    @app_commands.command(
        name=_("daye", key="spaye.cmd.daye.name"),
        description=_("Challenge a colleague to a däye", key="spaye.cmd.daye.description"),
        extras=dict(PUBLIC_ANSWER),
    )
    @app_commands.rename(
        colleague=_("colleague", key="spaye.cmd.daye.colleague.name"),
        colleague2=_("colleague2", key="spaye.cmd.daye.colleague2.name"),
    )
    @app_commands.describe(
        colleague=_("The colleague you challenge", key="spaye.cmd.daye.colleague.description"),
        colleague2=_(
            "A second colleague, for the final däye (3 cards left)",
            key="spaye.cmd.daye.colleague2.description",
        ),
    )
    async def daye(
        self,
        interaction: discord.Interaction[Any],
        colleague: discord.User,
        colleague2: discord.User | None = None,
    ) -> None:
        locale = locale_for_user(interaction)
        guild = interaction.guild
        if guild is None or interaction.guild_id is None:
            await say(interaction, t("spaye.daye.guild_only", locale))
            return
        picked = [u for u in (colleague, colleague2) if u is not None]
        refusal = _bad_colleagues(picked, interaction.user.id, locale)
        if refusal is not None:
            await say(interaction, refusal)
            return
        found = await self.running_day(interaction, guild, locale)
        if found is None:
            return
        settings, day = found
        away = await self.away_from_thread(interaction, day.game_id)
        async with auto_defer(interaction, ephemeral=away is not None):
            self.table.note_names(day.game_id, interaction.user, *picked)
            targets = [str(u.id) for u in picked]
            await self.table.invite(interaction, day.game_id, targets, settings, away)

    async def away_from_thread(
        self, interaction: discord.Interaction[Any], game_id: int
    ) -> str | None:
        """``None`` when ``/daye`` is used where the day is played (its thread, or any
        channel for a day played in the channel); else the catalog key of the private
        answer: another day's thread, another thread, or a channel."""
        stored = await settled_place(self.bot, game_id)  # a day just opened: its thread
        thread_id = stored.meta.get("thread_id")
        here = interaction.channel_id
        if not isinstance(thread_id, int) or here == thread_id:
            return None
        channel = interaction.channel
        if not isinstance(channel, discord.Thread):
            return "spaye.thread.elsewhere"
        days = await self.bot.store.games.find(
            guild_id=stored.guild_id, kind=KIND, status=None, limit=DAYS_LOOKED_BACK
        )
        if any(d.meta.get("thread_id") == here for d in days):
            return "spaye.thread.other_day"
        return "spaye.thread.other_channel"

    # -- listeners ----------------------------------------------------------------------------

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        """Committee requests: the modal is answered here, by its custom id."""
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        if str(data.get("custom_id", "")).startswith(MODAL_PREFIX):
            async with acknowledged(interaction):
                await self.table.on_modal(interaction)

    @commands.Cog.listener()
    async def on_spaye_day_closed(self, stored: StoredGame, events: list[Event]) -> None:
        """A day finished at closing time: its bonuses are spent (voided: given back)."""
        if stored.status != "over":
            return
        try:
            await self.table.spend_bonuses(stored, events)
        except Exception:
            log.exception("could not spend a closed day's bonuses", extra={"game_id": stored.id})


def closed_for_today(settings: SpayeGuild, today: date, locale: Lang) -> str:
    """Past closing time no Späye opens that day: when the next one can (the day's rules in
    docs/rules/spaye.md)."""
    tomorrow = today + timedelta(days=1)
    opens = int(at_local(tomorrow, "00:00", settings.zone).timestamp())
    return render.closed_for_today(settings.spaye.closing_time, f"<t:{opens}:F>", locale)


def _already(status: str, locale: Lang) -> str:
    return t("spaye.start.already", locale, status=render.status_name(status, locale))


def _bad_colleagues(picked: list[discord.User], me: int, locale: Lang) -> str | None:
    """Why these colleagues can't be challenged (a bot, oneself, twice the same)."""
    if any(u.bot for u in picked):
        return t("spaye.daye.bot", locale)
    if any(u.id == me for u in picked):
        return t("spaye.self_challenge", locale)
    if len(picked) == 2 and picked[0].id == picked[1].id:
        return t("spaye.same_target", locale)
    return None
