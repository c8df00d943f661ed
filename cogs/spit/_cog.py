"""``/spit``: Spit on the seated-game kit, played on one public board.

``/spit challenge @colleague`` asks one colleague (Accept / Decline); ``/spit new`` opens a
lobby like the other games (where the host may seat a computer opponent). The kit runs the
rest: the board is the table message, every click is answered by updating it, moves are
applied in the order Discord created them (:mod:`bot.seated.order`), and the game's lock is
never held during a Discord call.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any, Final

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

from bot.engine import new_game
from bot.engine.lobby import Lobby
from bot.i18n import locale_for_user, t
from bot.seated import OptionSpec, SeatedCog, SeatedSpec, seated_group
from bot.seated.render import mention
from bot.storage import StoredGame
from bot.ui import GameButton, GameView, Press, update_message
from cogs.spit._render import SpitRenderer, decode

KIND: Final = "spit"
CHALLENGE_MINUTES: Final = 10
SPEC: Final = SeatedSpec(
    KIND,
    SpitRenderer(),
    options=(
        OptionSpec("piles", "Stock piles: 5 (1 to 5 cards) or 4 (1 to 4 cards)", 5, 4, 5),
        OptionSpec("alternate_colors", "Cards on a spit pile alternate black and red", False),
        OptionSpec("no_slap", "No slapping: who empties their stock first picks a pile", False),
    ),
    public_board=True,
)


class SpitCog(SeatedCog, name="Spit"):
    """Spit for 2 players, in real time."""

    spec = SPEC
    spit = seated_group(KIND, "Spit", SPEC.options, "2")
    COMPUTER_DELAY = 1.0
    """Scales a computer opponent's reaction time (tests set 0)."""
    REACTION: Final = {"easy": 1.6, "normal": 1.0, "hard": 0.6}
    """Seconds before a computer opponent reacts to the board, by level."""
    PER_OPTION: Final = {"easy": 0.25, "normal": 0.15, "hard": 0.08}
    """Seconds more for each move it could make: more choice, slower choice."""

    def computer_delay(self, stored: StoredGame, player: str) -> float:
        """A human-like pace: a reaction delay, plus a choice time that grows with the moves
        on offer. The move is the one it chose on that board; the kit drops it quietly if
        the board changed meanwhile."""
        level = str((stored.meta.get("computers") or {}).get(player, "normal"))
        options = len(stored.game.legal_actions(player))
        seconds = self.REACTION.get(level, 1.0) + self.PER_OPTION.get(level, 0.15) * options
        return seconds * self.COMPUTER_DELAY

    def board_action(
        self, arg: str | None, stored: StoredGame, player: str
    ) -> dict[str, Any] | None:
        """``<seat>.<move>``: the move itself, good while the board still allows it."""
        seat, _, code = (arg or "").partition(".")
        players = stored.game.public_view()["players"]
        if not seat.isdigit() or int(seat) >= len(players) or players[int(seat)] != player:
            return None
        return decode(code)

    @spit.command(
        name=_("challenge", key="spit.cmd.challenge.name"),
        description=_(
            "Challenge a colleague to a game of Spit", key="spit.cmd.challenge.description"
        ),
    )
    @app_commands.rename(
        opponent=_("opponent", key="spit.cmd.challenge.opponent.name"),
        piles=_("piles", key="spit.cmd.new.piles.name"),
        alternate_colors=_("alternate_colors", key="spit.cmd.new.alternate_colors.name"),
        no_slap=_("no_slap", key="spit.cmd.new.no_slap.name"),
    )
    @app_commands.describe(
        opponent=_("The colleague you challenge", key="spit.cmd.challenge.opponent.description"),
        piles=_(
            "Stock piles: 5 (1 to 5 cards) or 4 (1 to 4 cards)",
            key="spit.cmd.new.piles.description",
        ),
        alternate_colors=_(
            "Cards on a spit pile alternate black and red",
            key="spit.cmd.new.alternate_colors.description",
        ),
        no_slap=_(
            "No slapping: who empties their stock first picks a pile",
            key="spit.cmd.new.no_slap.description",
        ),
    )
    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.User,
        piles: app_commands.Range[int, 4, 5] = 5,
        alternate_colors: bool = False,
        no_slap: bool = False,
    ) -> None:
        locale = locale_for_user(interaction)
        guild, channel_id = interaction.guild, interaction.channel_id
        if guild is None or channel_id is None:
            await self.say(interaction, t("errors.guild_only", locale))
            return
        if opponent.id == interaction.user.id:
            await self.say(interaction, t("spit.challenge.self", locale))
            return
        if opponent.bot:
            await self.say(interaction, t("spit.challenge.bot", locale))
            return
        host = str(interaction.user.id)
        options = {"piles": piles, "alternate_colors": alternate_colors, "no_slap": no_slap}
        lobby = new_game("lobby", [host], 0, {"game": KIND, **options})
        public = (await self.bot.guild_settings(guild)).locale
        meta = {
            "locale": public,
            f"locale:{host}": locale,
            f"name:{host}": interaction.user.display_name,
            "challenged": str(opponent.id),
            f"name:{opponent.id}": opponent.display_name,
            "kit": {},
        }
        lobby_id = await self.bot.store.games.create("lobby", guild.id, channel_id, lobby, meta)
        text = t(
            "spit.challenge.text",
            public,
            host=mention(host),
            opponent=mention(str(opponent.id)),
            minutes=CHALLENGE_MINUTES,
            options=self.render.options_text(options, public),
        )
        sent = await interaction.response.send_message(
            text,
            view=GameView(
                GameButton(
                    self.lobby_buttons,
                    lobby_id,
                    "accept",
                    label=t("ui.accept", public),
                    style=discord.ButtonStyle.success,
                ),
                GameButton(
                    self.lobby_buttons,
                    lobby_id,
                    "decline",
                    label=t("ui.decline", public),
                    style=discord.ButtonStyle.danger,
                ),
            ),
            allowed_mentions=discord.AllowedMentions(users=[discord.Object(id=opponent.id)]),
        )
        due = self.bot.clock.now() + timedelta(minutes=CHALLENGE_MINUTES)
        payload = {"lobby_id": lobby_id, "message_id": sent.message_id}
        await self.bot.timers.schedule(
            self.lobby_timer(), due, payload, key=self.lobby_key(lobby_id)
        )

    async def on_lobby_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        """Accept / Decline of a challenge; every other lobby button as the kit does it."""
        if press.action not in ("accept", "decline"):
            await super().on_lobby_press(interaction, press)
            return
        locale = locale_for_user(interaction)
        user = str(interaction.user.id)
        lobby = await self.bot.store.games.require(press.game_id)
        if not lobby.is_active or not isinstance(lobby.game, Lobby):
            await self.say(interaction, t("spit.challenge.closed", locale))
            return
        if user != lobby.meta.get("challenged"):
            await self.say(
                interaction,
                t(
                    "spit.challenge.not_you",
                    locale,
                    player=mention(str(lobby.meta.get("challenged"))),
                ),
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
                t("spit.challenge.declined", public, host=mention(host), opponent=mention(user)),
                view=GameView(),
            )
            return
        await self.bot.store.games.act(
            lobby.id, user, {"type": "join"}, meta_update={f"locale:{user}": locale}
        )
        joined = await self.bot.store.games.require(lobby.id)
        await self._start(interaction, joined, public, locale, as_player=host)
