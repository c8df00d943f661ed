"""Who may plan game nights: ``/config night-planners role:`` (a role, or empty for the
default: members who may create events), and its line of ``/config show``."""

from __future__ import annotations

from typing import Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

from bot.i18n import Lang, locale_for_user, t
from cogs.gamenight._plan import SETTINGS

__all__ = ["config_commands", "config_fields"]


@app_commands.rename(role=_("role"))
@app_commands.describe(role=_("Leave empty: members who may create events"))
async def night_planners(
    interaction: discord.Interaction[Any], role: discord.Role | None = None
) -> None:
    guild = interaction.guild
    if guild is None:
        raise app_commands.NoPrivateMessage()
    bot: Any = interaction.client
    await bot.store.game_settings.update(
        guild.id, SETTINGS, {"planner_role": role.id if role else None}
    )
    locale = locale_for_user(interaction)
    label, shown = shown_field(role.id if role else None, locale)
    await interaction.response.send_message(
        t("config.saved", locale, setting=label, value=shown), ephemeral=True
    )


def shown_field(role_id: int | None, locale: Lang) -> tuple[str, str]:
    value = f"<@&{role_id}>" if role_id else t("gamenight.config.planners_default", locale)
    return t("gamenight.config.planners", locale), value


def config_commands() -> list[app_commands.Command[Any, ..., None]]:
    """New ``/config`` subcommands at each call (the ``Config`` cog adds them)."""
    return [
        app_commands.Command(
            name="night-planners",
            description="Who may plan game nights",
            callback=night_planners,
        )
    ]


async def config_fields(bot: Any, guild: discord.Guild, locale: Lang) -> list[tuple[str, str]]:
    saved = await bot.store.game_settings.get(guild.id, SETTINGS)
    role = saved.get("planner_role")
    return [shown_field(int(role) if role else None, locale)]
