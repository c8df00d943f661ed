"""Späye, the office's daily card challenge: ``/spaye start|exercise|status|board`` and
``/daye`` (see ``_cog``), buttons and modal (``_play``, ``_views``), texts (``_render``),
opening a day (``_opening``, also by itself on workdays), the guild's Späye settings
(``_settings``), the calendar of reminders, closings and monthly titles (``_calendar``),
the month's table (``_board``) and its picture (``_picture``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.client import GamenightBot


async def setup(bot: GamenightBot) -> None:
    from cogs.spaye._cog import SpayeCog

    await bot.add_cog(SpayeCog(bot))
