"""Speahx for 2 to 14 players: ``/speahx begin|end|stats`` (see ``_cog``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.client import GamenightBot


async def setup(bot: GamenightBot) -> None:
    from cogs.speahx._cog import SpeahxCog

    await bot.add_cog(SpeahxCog(bot))
