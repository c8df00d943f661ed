"""``/<game> stats``: one colleague's record here and the most frequent winners (SQL sums;
computer seats never have a line; games with computer seats are counted apart)."""

from __future__ import annotations

from typing import Any

import discord

from bot.i18n import Lang, locale_for_user, t
from bot.present import mention
from bot.seated.base import SeatedBase
from bot.storage import PlayerStats
from bot.text import escape
from bot.ui import respond

__all__ = ["StatsRoom"]


class StatsRoom(SeatedBase):
    """``/<game> stats`` and a game's own lines in it (:meth:`stats_fields`)."""

    async def show_stats(
        self, interaction: discord.Interaction[Any], player: discord.User | None
    ) -> None:
        """``/<game> stats``: one colleague's record here and the most frequent winners (SQL
        sums; computer seats never have a line)."""
        locale = locale_for_user(interaction)
        if interaction.guild_id is None:
            await self.say(interaction, t("errors.guild_only", locale))
            return
        target = player or interaction.user
        results = self.bot.store.results
        mine = await results.player(interaction.guild_id, self.kind, target.id)
        leaders = await results.leaderboard(interaction.guild_id, self.kind, limit=5)
        name = self.render.name(locale)
        embed = discord.Embed(
            title=t("seated.stats_title", locale, game=name, name=escape(target.display_name)),
            colour=self.render.colour,
        )
        embed.add_field(name=t("seated.stats_games", locale), value=str(mine.games))
        embed.add_field(name=t("seated.stats_wins", locale), value=str(mine.wins))
        for name_key, value in self.stats_fields(mine, locale):
            embed.add_field(name=name_key, value=value)
        computers = await results.player(interaction.guild_id, self.computer_kind(), target.id)
        if computers.games:
            embed.add_field(
                name=t("seated.stats_computers", locale),
                value=t(
                    "seated.stats_computers_line",
                    locale,
                    games=computers.games,
                    wins=computers.wins,
                ),
                inline=False,
            )
        if leaders:
            embed.add_field(
                name=t("seated.stats_leaders", locale),
                value="\n".join(
                    t(
                        "seated.stats_leader_line",
                        locale,
                        rank=i,
                        player=mention(str(s.user_id)),
                        wins=s.wins,
                        games=s.games,
                    )
                    for i, s in enumerate(leaders, start=1)
                ),
                inline=False,
            )
        await respond(interaction, embed=embed, ephemeral=True)

    def stats_fields(self, stats: PlayerStats, locale: Lang) -> list[tuple[str, str]]:
        """A game's own lines of ``/<game> stats`` (e.g. Papayoo's points per round)."""
        return []
