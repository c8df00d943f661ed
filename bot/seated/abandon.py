"""``/<game> end``: the host or a manager ends a running game for everyone, after a
confirmation; no result is kept."""

from __future__ import annotations

import logging
from typing import Any

import discord

from bot.i18n import Lang, locale_for_user, t
from bot.present import mention
from bot.seated.base import Live
from bot.seated.publish import PublishRoom
from bot.storage import StoredGame
from bot.ui import GameButton, GameView, Press, respond, update_message

__all__ = ["AbandonRoom"]

log = logging.getLogger("gamenight.seated")


class AbandonRoom(PublishRoom):
    """Abandon, asked then confirmed (its buttons are the game's: ``abandon`` / ``keep``)."""

    async def ask_abandon(self, interaction: discord.Interaction[Any], number: int | None) -> None:
        """``/<game> end [game]``: the host or a manager is asked to confirm. ``number``
        is the game's number as players see it in this server (``Papayoo #4``)."""
        locale = locale_for_user(interaction)
        target = await self._game_to_abandon(interaction, number, locale)
        if target is None:
            return
        if not self._may_abandon(interaction, target):
            host = target.meta.get("host")
            await self.say(
                interaction,
                t("seated.abandon_not_allowed", locale, host=mention(str(host)) if host else "—"),
            )
            return
        name = self.render.name(locale)
        await respond(
            interaction,
            t("seated.abandon_confirm", locale, game=name, game_id=target.shown_number),
            view=GameView(
                GameButton(
                    self.kind,
                    target.id,
                    "abandon",
                    label=t("seated.abandon_yes", locale),
                    style=discord.ButtonStyle.danger,
                ),
                GameButton(self.kind, target.id, "keep", label=t("seated.abandon_no", locale)),
            ),
            ephemeral=True,
        )

    def _may_abandon(self, interaction: discord.Interaction[Any], stored: StoredGame) -> bool:
        return str(interaction.user.id) == str(stored.meta.get("host")) or bool(
            interaction.permissions.manage_guild
        )

    async def _game_to_abandon(
        self, interaction: discord.Interaction[Any], number: int | None, locale: Lang
    ) -> StoredGame | None:
        name = self.render.name(locale)
        if number is not None:
            guild = interaction.guild_id
            stored = (
                None
                if guild is None
                else await self.bot.store.games.by_number(guild, self.kind, number)
            )
            if stored is None:
                await self.say(
                    interaction, t("seated.abandon_unknown", locale, game=name, game_id=number)
                )
                return None
            if not stored.is_active:
                await self.say(interaction, t("game.closed", locale))
                return None
            return stored
        running = await self.bot.store.games.find(
            guild_id=interaction.guild_id, kind=self.kind, channel_id=interaction.channel_id
        )
        if len(running) == 1:
            return running[0]
        if not running:
            await self.say(interaction, t("seated.abandon_none", locale, game=name))
        else:
            numbers = ", ".join(f"#{g.shown_number}" for g in reversed(running))
            await self.say(interaction, t("seated.abandon_which", locale, game=name, games=numbers))
        return None

    async def _confirm_abandon(
        self, interaction: discord.Interaction[Any], press: Press, stored: StoredGame, locale: Lang
    ) -> None:
        # The confirmation is shown to whoever asked, who may abandon: both its buttons are
        # theirs alone (Discord shows it to nobody else; a forged click is refused).
        if not self._may_abandon(interaction, stored):
            await self.say(interaction, t("errors.not_allowed", locale))
            return
        if press.action == "keep":
            await update_message(interaction, t("seated.abandon_kept", locale), view=GameView())
            return
        if not stored.is_active:
            await update_message(interaction, t("seated.abandon_already", locale), view=GameView())
            return
        ended = await self.bot.store.games.set_status(stored.id, "voided")
        await self.bot.timers.cancel(self.turn_key(stored.id))
        await self.bot.timers.cancel(self.warn_key(stored.id))
        public = self.public_locale(ended)
        name = self.render.name(public)
        by = mention(str(interaction.user.id))
        await update_message(
            interaction,
            t("seated.abandon_done_you", locale, game=name, game_id=ended.shown_number),
            view=GameView(),
        )
        note = t("seated.abandoned", public, game=name, game_id=ended.shown_number, player=by)
        # Kept for the table's last edit (the game is over: _publish forgets it after).
        self._live.setdefault(ended.id, Live()).last = {
            lang: [
                t(
                    "seated.abandoned",
                    lang,
                    game=self.render.name(lang),
                    game_id=ended.shown_number,
                    player=by,
                )
            ]
            for lang in self.locales(ended)
        }
        self._publish(ended, [], before=stored.game.to_act(), actor=None)
        try:
            await self.channel(ended).send(note, allowed_mentions=discord.AllowedMentions.none())
        except discord.HTTPException:
            log.exception("could not announce an abandoned game", extra={"game_id": ended.id})
