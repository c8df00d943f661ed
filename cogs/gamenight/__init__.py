"""Game nights: ``/gamenight plan|edit|cancel`` before the hour, the seating and the
night's board from it (see ``_cog``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.client import GamenightBot


async def setup(bot: GamenightBot) -> None:
    from cogs.gamenight._cog import GamenightCog

    await bot.add_cog(GamenightCog(bot))
