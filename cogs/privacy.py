"""A member's own data: ``/privacy`` (out of the ratings and boards, or back in) and
``/forget-me`` (what the bot keeps, and for how long: the README's "What is stored").

``/privacy`` shows the member's choice in this server and one button that changes it: **Keep
me out** or **Count me in**. Each button names the choice it makes (``gn:privacy:0:out``,
``gn:privacy:0:in``), so pressing an old one twice changes nothing more. Kept out, a member
is left out of the ratings of the games they play from then on (the others are rated among
themselves) and off every board; their place in the games and the stats stays.

``/forget-me``: a member asks the bot to forget them. It is irreversible, so it is asked twice, as sites ask before deleting an account: the
command says what goes and what stays, with one button, **Forget me…**; the button opens
a form where the member types a word (FORGET, or OUBLIER in French). Only then is
everything done, in one transaction (:meth:`bot.storage.records.RecordStore.forget_member`):
their direct-message records, ratings and opt-outs deleted, their seats in the history kept
for the other players' results but made a "Former member" with no id (so their statistics
are gone too).

A member who sits in a running game (an open table, a game under way, today's Späye) is
told which one and that nothing was deleted: a game in play needs its players, and its
result is recorded when it ends. They may ask again once it is over.

Every answer is private; the button and the form are persistent (``gn:privacy:0:forget``,
``gnm:privacy:0:forget``): they work after a restart.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.i18n import LOCALES, Lang, has_key, locale_for_user, t
from bot.present import and_list
from bot.storage.records import StillPlaying
from bot.text import clip
from bot.ui import GameButton, GameView, Press, acknowledged, respond, say, update_message

if TYPE_CHECKING:
    from bot.client import GamenightBot

__all__ = ["FORGET_MODAL", "KIND", "PrivacyCog", "confirmed"]

KIND: Final = "privacy"
FORGET_ACTION: Final = "forget"
OUT_ACTION: Final = "out"
IN_ACTION: Final = "in"
FORGET_MODAL: Final = "gnm:privacy:0:forget"
WORD_FIELD: Final = "word"
LOBBY: Final = "lobby"


def confirmed(typed: str) -> bool:
    """Whether the member typed the word of confirmation (either language's, any case)."""
    word = typed.strip().casefold()
    return bool(word) and word in {t("records.forget.word", lang).casefold() for lang in LOCALES}


def _game_names(games: list[tuple[str, int]], locale: Lang) -> str:
    """The running games a member sits in, as they know them (Papayoo #4, an open table)."""
    names = []
    for kind, number in games:
        if kind == LOBBY:
            names.append(t("records.forget.open_table", locale))
        elif has_key(f"help.{kind}.title"):
            names.append(
                t(
                    "records.forget.game",
                    locale,
                    game=t(f"help.{kind}.title", locale),
                    number=number,
                )
            )
        else:
            names.append(f"{kind} #{number}")
    return and_list(dict.fromkeys(names), locale)


class ForgetModal(discord.ui.Modal):
    """The word that confirms. Its submission is answered by the cog's listener through
    the custom id, so a form opened before a restart still works."""

    def __init__(self, locale: Lang) -> None:
        super().__init__(
            title=clip(t("records.forget.modal_title", locale), 45),
            custom_id=FORGET_MODAL,
            timeout=900,  # frees memory only: the listener answers a late submission anyway
        )
        word = t("records.forget.word", locale)
        self.add_item(
            discord.ui.TextInput(
                label=clip(t("records.forget.modal_label", locale, word=word), 45),
                custom_id=WORD_FIELD,
                required=True,
                max_length=20,
            )
        )

    async def on_submit(self, interaction: discord.Interaction[Any]) -> None:
        """Answered by :meth:`PrivacyCog.on_interaction`."""


def _typed(data: dict[str, Any]) -> str:
    """The text of the form's one field, from the submission's raw data."""
    for row in data.get("components") or []:
        for comp in [*(row.get("components") or []), row.get("component") or {}]:
            if comp.get("custom_id") == WORD_FIELD:
                return str(comp.get("value") or "")
    return ""


class PrivacyCog(commands.Cog, name="Privacy"):
    """A member's own data: ``/privacy`` and ``/forget-me``."""

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.actions.register(KIND, self.on_forget_press, action=FORGET_ACTION, games=False)
        for action in (OUT_ACTION, IN_ACTION):
            self.bot.actions.register(KIND, self.on_choice_press, action=action, games=False)

    async def cog_unload(self) -> None:
        self.bot.actions.unregister(KIND)

    # -- /privacy ---------------------------------------------------------------------------

    @app_commands.command(
        name=_("privacy", key="cmd.privacy.name"),
        description=_(
            "Keep out of this server's ratings and leaderboards, or come back in",
            key="cmd.privacy.description",
        ),
    )
    @app_commands.guild_only()
    async def privacy(self, interaction: discord.Interaction[Any]) -> None:
        """The member's choice in this server, and the button that changes it."""
        locale = locale_for_user(interaction)
        if interaction.guild_id is None:
            raise app_commands.NoPrivateMessage()
        out = await self.bot.store.ratings.is_opted_out(interaction.guild_id, interaction.user.id)
        await respond(
            interaction,
            self._choice_text(out, locale),
            view=self._choice_view(out, locale),
            ephemeral=True,
        )

    async def on_choice_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        """**Keep me out** / **Count me in**: saved, then said, on the same message."""
        locale = locale_for_user(interaction)
        if interaction.guild_id is None:
            await say(interaction, t("errors.unknown_button", locale))
            return
        out = press.action == OUT_ACTION
        await self.bot.store.ratings.set_opted_out(interaction.guild_id, interaction.user.id, out)
        saved = t("records.privacy.saved_out" if out else "records.privacy.saved_in", locale)
        await update_message(
            interaction,
            f"{saved}\n\n{self._choice_text(out, locale)}",
            view=self._choice_view(out, locale),
        )

    @staticmethod
    def _choice_text(out: bool, locale: Lang) -> str:
        return t("records.privacy.out" if out else "records.privacy.in", locale)

    @staticmethod
    def _choice_view(out: bool, locale: Lang) -> GameView:
        action = IN_ACTION if out else OUT_ACTION
        return GameView(
            GameButton(
                KIND,
                0,
                action,
                label=t(f"records.privacy.button_{action}", locale),
                style=discord.ButtonStyle.primary if out else discord.ButtonStyle.secondary,
            )
        )

    # -- /forget-me -------------------------------------------------------------------------

    @app_commands.command(
        name=_("forget-me", key="cmd.forget-me.name"),
        description=_(
            "Delete what Gamenight keeps about you (asks you to confirm)",
            key="cmd.forget-me.description",
        ),
    )
    async def forget_me(self, interaction: discord.Interaction[Any]) -> None:
        """What goes and what stays, and the button that opens the confirmation; a member in
        a running game is told so at once."""
        locale = locale_for_user(interaction)
        running = await self.bot.store.records.running_games(interaction.user.id)
        if running:
            await say(interaction, self._playing(running, locale))
            return
        button = GameButton(
            KIND,
            0,
            FORGET_ACTION,
            label=t("records.forget.button", locale),
            style=discord.ButtonStyle.danger,
        )
        await respond(
            interaction, t("records.forget.ask", locale), view=GameView(button), ephemeral=True
        )

    async def on_forget_press(self, interaction: discord.Interaction[Any], press: Press) -> None:
        """**Forget me…**: the form where the member types the word."""
        await interaction.response.send_modal(ForgetModal(locale_for_user(interaction)))

    @commands.Cog.listener()
    async def on_interaction(self, interaction: discord.Interaction[Any]) -> None:
        if interaction.type is not discord.InteractionType.modal_submit:
            return
        data: dict[str, Any] = dict(interaction.data or {})
        if data.get("custom_id") != FORGET_MODAL:
            return
        async with acknowledged(interaction):
            await self.forget(interaction, _typed(data))

    async def forget(self, interaction: discord.Interaction[Any], typed: str) -> None:
        """The form sent: the word checked, then the member forgotten, or told why not."""
        locale = locale_for_user(interaction)
        word = t("records.forget.word", locale)
        if not confirmed(typed):
            await say(interaction, t("records.forget.wrong_word", locale, word=word))
            return
        here = frozenset({interaction.guild_id}) if interaction.guild_id else frozenset()
        try:
            done = await self.bot.store.records.forget_member(interaction.user.id, guilds=here)
        except StillPlaying as err:
            await say(interaction, self._playing(err.games, locale))
            return
        await say(interaction, t("records.forget.done", locale, games=done.games))

    @staticmethod
    def _playing(games: list[tuple[str, int]], locale: Lang) -> str:
        return t(
            "records.forget.playing", locale, games=_game_names(games, locale), count=len(games)
        )


async def setup(bot: GamenightBot) -> None:
    await bot.add_cog(PrivacyCog(bot))
