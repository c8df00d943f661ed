"""``/leaderboard``, ``/profile`` and the season's podiums: the ratings as members see them."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bot.client import GamenightBot


async def setup(bot: GamenightBot) -> None:
    from cogs.boards._cog import BoardsCog

    await bot.add_cog(BoardsCog(bot))
