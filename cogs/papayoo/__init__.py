"""Papayoo for 3 to 8 players: ``/papayoo begin`` and ``/papayoo stats`` (see ``_cog``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.client import GamenightBot


async def setup(bot: GamenightBot) -> None:
    from cogs.papayoo._cog import PapayooCog

    await bot.add_cog(PapayooCog(bot))
