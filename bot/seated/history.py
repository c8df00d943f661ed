"""``/<game> history``: the last games of the server, newest first, paged.

Each game shows its number (as players know it, Papayoo #4), when it ended (a Discord
timestamp, drawn in each reader's own time zone and language) and its seats in final order
with their places and what the game scores (Papayoo's points, Spit's cards left, Speahx's
loser), computer seats by their names. An abandoned game (``/<game> end``) is listed too,
marked so, its seats in playing order: players remember it was played, and it kept no
result. A game left out of the ratings says why, as its table did (casual, or computers
played). Names are the display names the players had at the table, escaped (they never
ping and never become markdown); a member the bot forgot shows as a former member.

The answer is private and answers the interaction (no bot-token call); Previous / Next are
persistent buttons (``gn:<game>:0:history:<page>``) that work after a restart, each press
answered by editing the message it is on.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import discord

from bot.engine.lobby import is_computer
from bot.i18n import Lang, locale_for_user, t
from bot.present import is_former, mention
from bot.seated.base import SeatedBase
from bot.seated.render import unrated_note
from bot.storage.records import PlayedGame
from bot.text import clip, escape
from bot.ui import GameButton, GameView, Press, respond, say, update_message

__all__ = ["HISTORY_ACTION", "PAGE_GAMES", "HistoryRoom"]

PAGE_GAMES: Final = 6
"""Games per page: eight seats each still fit an embed's description."""
HISTORY_ACTION: Final = "history"
NAME_MAX: Final = 32
"""A display name is 32 characters at most on Discord; an older, longer one is cut."""


class HistoryRoom(SeatedBase):
    """``/<game> history`` and its Previous / Next buttons."""

    def register_history(self) -> None:
        self.bot.actions.register(
            self.kind, self.on_history_page, action=HISTORY_ACTION, games=False
        )

    async def show_history(self, interaction: discord.Interaction[Any]) -> None:
        """The first page, privately; no game yet: a private line saying so."""
        locale = locale_for_user(interaction)
        if interaction.guild_id is None:
            await self.say(interaction, t("errors.guild_only", locale))
            return
        page = await self.history_page(interaction.guild_id, 1, locale)
        if page is None:
            await self.say(
                interaction, t("seated.history.none", locale, game=self.render.name(locale))
            )
            return
        embed, view = page
        await respond(interaction, embed=embed, view=view, ephemeral=True)

    async def on_history_page(self, interaction: discord.Interaction[Any], press: Press) -> None:
        """Previous / Next: the page asked for, in place (the last one if games went)."""
        locale = locale_for_user(interaction)
        wanted = press.arg or ""
        if interaction.guild_id is None or not (wanted.isascii() and wanted.isdigit()):
            await say(interaction, t("errors.unknown_button", locale))
            return
        page = await self.history_page(interaction.guild_id, int(wanted), locale)
        if page is None:
            await update_message(
                interaction,
                t("seated.history.none", locale, game=self.render.name(locale)),
                embed=None,
                view=GameView(),
            )
            return
        embed, view = page
        await update_message(interaction, embed=embed, view=view)

    async def history_page(
        self, guild_id: int, page: int, locale: Lang
    ) -> tuple[discord.Embed, GameView] | None:
        """Page ``page`` (from 1, kept within the pages there are) of the server's games and
        its buttons; ``None`` when the server has played none."""
        records = self.bot.store.records
        total = await records.count_played(guild_id, self.kind)
        if total == 0:
            return None
        pages = -(-total // PAGE_GAMES)
        page = min(max(page, 1), pages)
        games = await records.played(
            guild_id, self.kind, offset=(page - 1) * PAGE_GAMES, limit=PAGE_GAMES
        )
        name = self.render.name(locale)
        blocks = [self.history_block(played, locale) for played in games]
        embed = discord.Embed(
            title=t("seated.history.title", locale, game=name),
            description=clip("\n\n".join(blocks), 4096),
            colour=self.render.colour,
        )
        embed.set_footer(
            text=t("seated.history.footer", locale, page=page, pages=pages, games=total)
        )
        if pages == 1:
            return embed, GameView()
        view = GameView(
            GameButton(
                self.kind,
                0,
                HISTORY_ACTION,
                str(page - 1),
                label=t("seated.history.previous", locale),
                disabled=page <= 1,
            ),
            GameButton(
                self.kind,
                0,
                HISTORY_ACTION,
                str(page + 1),
                label=t("seated.history.next", locale),
                disabled=page >= pages,
            ),
        )
        return embed, view

    def history_block(self, played: PlayedGame, locale: Lang) -> str:
        """One game: its number and date, then its seats."""
        stored = played.stored
        names: Mapping[str, str] = stored.meta.get("names") or {}
        head = t(
            "seated.history.game",
            locale,
            game=self.render.name(locale),
            number=stored.shown_number,
            at=f"<t:{int(played.ended_at.timestamp())}:f>",
        )
        if played.abandoned:
            players = [str(p) for p in self.public(stored).get("players") or []]
            seats = " · ".join(self._seat_name(p, names, locale) for p in players)
            return f"{head} · {t('seated.history.abandoned', locale)}\n{seats}"
        result = stored.game.result()
        seated = [str(p) for group in result.get("ranking") or [] for p in group]
        note = unrated_note(bool(stored.meta.get("casual")), any(map(is_computer, seated)), locale)
        if note:  # as the table said: a game the ratings left out
            head = f"{head} · {note}"
        seats_shown = []
        place = 1
        for group in result.get("ranking") or []:
            for player in group:
                player = str(player)
                score = self.render.history_score(player, result, locale)
                line = t(
                    "seated.history.seat",
                    locale,
                    place=place,
                    player=self._seat_name(player, names, locale),
                )
                seats_shown.append(f"{line} ({score})" if score else line)
            place += len(group)
        return head + "\n" + " · ".join(seats_shown)

    @staticmethod
    def _seat_name(player: str, names: Mapping[str, str], locale: Lang) -> str:
        """A seat as plain text that never pings: the name the player had at the table
        (escaped), a computer's or a former member's name, else their mention (which an
        embed never pings either)."""
        if is_computer(player) or is_former(player):
            return mention(player, locale)
        name = names.get(player)
        return escape(clip(name, NAME_MAX)) if name else mention(player, locale)
