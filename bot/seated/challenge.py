"""Challenges: ``/<game> challenge opponent`` asks one colleague (Accept / Decline) instead
of opening a lobby anyone joins; Accept seats them and starts the game at once.

A game turns it on in its spec (``SeatedSpec(..., challenge=Challenge(minutes=10))``) and
gives it to its group (``seated_group(..., challenge=SPEC.challenge)``). A challenge is a
lobby underneath (its buttons are the lobby's, ``gn:<game>_lobby:<id>:accept|decline``), so
it expires like one. Its texts are the game's own: ``<game>.challenge.text`` (``host``,
``opponent``, ``minutes``, ``options``), ``.self``, ``.bot``, ``.closed``, ``.not_you``
(``player``) and ``.declined`` (``host``, ``opponent``).
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

import discord

from bot.engine.lobby import Lobby
from bot.i18n import locale_for_user, t
from bot.limits import LimitReached, member_limits
from bot.present import mention
from bot.seated.lobby import LobbyRoom
from bot.ui import GameView, Press, accept_decline, response_lock, update_message

__all__ = ["ChallengeRoom"]


class ChallengeRoom(LobbyRoom):
    """``/<game> challenge`` and its Accept / Decline (when the spec turns challenges on)."""

    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.User | discord.Member,
        values: Mapping[str, Any],
    ) -> None:
        """``/<game> challenge opponent``: a lobby of the challenger, offered to one colleague."""
        challenge = self.spec.challenge
        locale = locale_for_user(interaction)
        guild, channel_id = interaction.guild, interaction.channel_id
        if challenge is None or guild is None or channel_id is None:
            await self.say(interaction, t("errors.guild_only", locale))
            return
        if opponent.id == interaction.user.id:
            await self.say(interaction, t(f"{self.kind}.challenge.self", locale))
            return
        if opponent.bot:
            await self.say(interaction, t(f"{self.kind}.challenge.bot", locale))
            return
        host = str(interaction.user.id)
        made = await self._new_lobby(interaction, host, values, locale)
        if made is None:
            return
        lobby, kit = made
        limits = await member_limits(self.bot.store, guild.id)
        if not await self.lobby_allowed(interaction, limits, guild.id, channel_id, host, locale):
            return
        public = (await self.bot.guild_settings(guild)).locale
        lobby_id = await self.create_lobby(
            interaction,
            guild.id,
            channel_id,
            lobby,
            kit,
            limits,
            public,
            locale,
            challenged=str(opponent.id),
            **{f"name:{opponent.id}": opponent.display_name},
        )
        if lobby_id is None:
            return
        text = t(
            f"{self.kind}.challenge.text",
            public,
            host=mention(host),
            opponent=mention(str(opponent.id)),
            minutes=challenge.minutes,
            options=self.render.options_text(dict(values), public),
        )
        view = accept_decline(self.lobby_buttons, lobby_id, public)
        notify = discord.AllowedMentions(users=[discord.Object(id=opponent.id)])
        async with response_lock(interaction):
            if interaction.response.is_done():  # deferred meanwhile (the database was slow)
                message = await interaction.followup.send(
                    text, view=view, allowed_mentions=notify, wait=True
                )
                message_id: int | None = message.id
            else:
                sent = await interaction.response.send_message(
                    text, view=view, allowed_mentions=notify
                )
                message_id = sent.message_id
        due = self.bot.clock.now() + timedelta(minutes=challenge.minutes)
        payload = {"lobby_id": lobby_id, "message_id": message_id}
        await self.bot.timers.schedule(
            self.lobby_timer(), due, payload, key=self.lobby_key(lobby_id)
        )

    async def on_lobby_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        """Accept / Decline of a challenge; every other lobby button as a lobby does it."""
        if self.spec.challenge is None or press.action not in ("accept", "decline"):
            await super().on_lobby_press(interaction, press)
            return
        await self.on_challenge_press(interaction, press)

    async def on_challenge_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        """Only the challenged colleague answers: Decline cancels the lobby, Accept seats
        them and starts the game (as its host)."""
        locale = locale_for_user(interaction)
        user = str(interaction.user.id)
        lobby = await self.bot.store.games.get(press.game_id)
        if lobby is None or not lobby.is_active or not isinstance(lobby.game, Lobby):
            await self.say(interaction, t(f"{self.kind}.challenge.closed", locale))
            return
        if user != lobby.meta.get("challenged"):
            challenged = mention(str(lobby.meta.get("challenged")))
            await self.say(
                interaction, t(f"{self.kind}.challenge.not_you", locale, player=challenged)
            )
            return
        public = self.public_locale(lobby)
        host = lobby.game.host
        if press.action == "decline":
            await self.bot.store.games.act(
                lobby.id, host, {"type": "cancel"}, in_tx=self._lobby_closed
            )
            await update_message(
                interaction,
                t(
                    f"{self.kind}.challenge.declined",
                    public,
                    host=mention(host),
                    opponent=mention(user),
                ),
                view=GameView(),
            )
            return
        limits = await member_limits(self.bot.store, lobby.guild_id)
        try:
            await self.bot.store.games.act(
                lobby.id,
                user,
                {"type": "join"},
                meta_update={f"locale:{user}": locale},
                in_tx=self.joined_within_limit(limits, user),
            )
        except LimitReached as err:
            await self.say(interaction, t(err.key, locale, **err.params))
            return
        joined = await self.bot.store.games.require(lobby.id)
        await self._start(interaction, joined, public, locale, as_player=host)
