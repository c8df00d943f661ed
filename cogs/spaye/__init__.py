"""Späye, the office's daily card challenge: ``/spaye start|exercise|status|board`` and
``/daye`` (see ``_cog``); buttons, selects and modal routed by ``_table`` to ``_daye``
(challenges, invitations, draws), ``_exercises`` (records, settling, bonuses),
``_committee`` (adjustments) and ``_choice`` (the day's exercise), with ``_views`` and texts
(``_render``); opening a day (``_opening``, also by itself on workdays), Späye's settings
and their ``/config`` subcommands (``_settings``), the calendar of reminders, closings and
monthly titles (``_calendar``), the month's table (``_board``) and its picture
(``_picture``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.client import GamenightBot


async def setup(bot: GamenightBot) -> None:
    from cogs.spaye._cog import SpayeCog

    await bot.add_cog(SpayeCog(bot))
