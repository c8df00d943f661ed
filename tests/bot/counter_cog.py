"""A test-only cog over the test ``counter`` game: it uses the runtime the way game cogs do."""

from __future__ import annotations

from datetime import timedelta
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.ext import commands

from bot.engine import new_game
from bot.i18n import Lang, locale_for_user
from bot.private import PrivateRender, hand_key
from bot.storage import StoredGame
from bot.ui import GameButton, Press, game_view, respond, update_message

if TYPE_CHECKING:
    from bot.client import GamenightBot


class CounterCog(commands.Cog):
    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.actions.register("counter", self.on_press)
        self.bot.private.register_renderer("counter", self.render_hand)
        self.bot.timers.register("counter.nudge", self.nudge)

    async def cog_unload(self) -> None:
        self.bot.actions.unregister("counter")
        self.bot.private.unregister_renderer("counter")
        self.bot.timers.unregister("counter.nudge")

    def board(self, stored: StoredGame, locale: Lang) -> tuple[str, discord.ui.View]:
        text = f"Counter #{stored.id}: {stored.game.public_view()['total']}"
        if stored.status != "active":
            text += " (over)"
        view = game_view(
            GameButton("counter", stored.id, "inc", label="+1", disabled=not stored.is_active),
            self.bot.private.hand_button("counter", stored.id, locale),
        )
        return text, view

    @app_commands.command(name="counter", description="Start a counter game")
    async def counter(
        self, interaction: discord.Interaction[Any], opponent: discord.Member
    ) -> None:
        if interaction.guild_id is None or interaction.channel_id is None:
            raise app_commands.NoPrivateMessage()
        players = [str(interaction.user.id), str(opponent.id)]
        game = new_game("counter", players, seed=0, options={"target": 3})
        game_id = await self.bot.store.games.create(
            "counter", interaction.guild_id, interaction.channel_id, game
        )
        stored = await self.bot.store.games.require(game_id)
        text, view = self.board(stored, locale_for_user(interaction))
        await respond(interaction, text, view=view)
        for player in players:
            await self.bot.private.send(
                int(player), hand_key("counter", game_id), f"You play counter #{game_id}."
            )
        await self.bot.timers.schedule(
            "counter.nudge",
            self.bot.clock.now() + timedelta(minutes=5),
            {"game_id": game_id, "channel_id": interaction.channel_id},
            key=f"counter:{game_id}:nudge",
        )

    @app_commands.command(name="boom", description="Always fails")
    async def boom(self, interaction: discord.Interaction[Any]) -> None:
        raise RuntimeError("boom")

    async def on_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        stored, _ = await self.bot.store.games.act(
            press.game_id, interaction.user.id, {"type": press.action}
        )
        text, view = self.board(stored, locale_for_user(interaction))
        await update_message(interaction, text, view=view)

    def render_hand(self, stored: StoredGame, user_id: int, locale: Lang) -> PrivateRender:
        return f"Your view of #{stored.id}: {stored.game.view(str(user_id))}", None, None

    async def nudge(self, payload: dict[str, Any]) -> None:
        stored = await self.bot.store.games.require(payload["game_id"])
        if stored.is_active:
            channel = self.bot.get_partial_messageable(payload["channel_id"])
            await channel.send(f"Counter #{stored.id} is waiting for a move.")


async def setup(bot: GamenightBot) -> None:
    await bot.add_cog(CounterCog(bot))
