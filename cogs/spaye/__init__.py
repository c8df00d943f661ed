"""Späye, the office's daily card challenge: ``/spaye start|status|board`` and ``/daye``
(see ``_cog``), buttons and modal (``_play``, ``_views``), texts (``_render``) and the
calendar of closings and monthly titles (``_calendar``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.client import GamenightBot


async def setup(bot: GamenightBot) -> None:
    from cogs.spaye._cog import SpayeCog

    await bot.add_cog(SpayeCog(bot))
