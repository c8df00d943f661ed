"""The day's exercise: ``/spaye exercise`` proposes another one before the first däye; a
colleague's Agree replaces it."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import discord

from bot.engine import IllegalAction
from bot.i18n import locale_for_user, t
from bot.present import refusal
from bot.storage import StoredGame
from bot.ui import respond, say
from cogs.spaye import _render as render
from cogs.spaye._click import Click, close_with
from cogs.spaye._periods import SpayeGuild
from cogs.spaye._views import agree_view, parse_int

if TYPE_CHECKING:
    from cogs.spaye._table import SpayeTable


async def propose(
    table: SpayeTable,
    interaction: discord.Interaction[Any],
    stored: StoredGame,
    name: str,
    settings: SpayeGuild,
) -> None:
    locale = locale_for_user(interaction)
    number = int(stored.meta.get("proposal", 0)) + 1
    action = {"type": "propose_exercise", "exercise": name}
    try:
        after, events = await table.act(
            stored, str(interaction.user.id), action, {"proposal": number}
        )
    except IllegalAction as err:
        await say(interaction, refusal(err, locale, render.format_param))
        return
    await respond(
        interaction,
        render.exercise_choice(events, settings.locale),
        view=agree_view(after.id, number, settings.locale),
    )


async def agree(table: SpayeTable, c: Click) -> None:
    proposal = c.view["proposal"]
    if proposal is None or parse_int(c.press.arg) != c.stored.meta.get("proposal"):
        await say(c.interaction, t("spaye.stale.proposal", c.locale))
        return
    action = {"type": "agree_exercise", "exercise": proposal["exercise"]}
    _, events = await table.act(c.stored, c.user, action)
    await close_with(c, render.exercise_choice(events, c.public))
