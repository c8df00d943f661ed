"""Spit for 2 players in real time: ``/spit challenge|begin|end|stats`` (see ``_cog``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.client import GamenightBot


async def setup(bot: GamenightBot) -> None:
    from cogs.spit._cog import SpitCog

    await bot.add_cog(SpitCog(bot))
