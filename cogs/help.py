"""``/help [game]``: the games and their rules as this bot plays them, rulings [R] included.

The games are found, not listed: every kind registered in ``GAMES`` whose catalogs explain it.
Each game's texts live in its own catalogs (``bot/locales/<game>.en.json`` and ``.fr.json``):
``help.<game>.title|summary|rules|rulings`` (the rulings marked [R] in the rules) and, for a
game whose implementation settles more, ``help.<game>.bot_rulings``. A game is playable here
when its cog (``cogs.<game>``) is loaded. The choices of ``/help game`` are the same games,
named by their titles in each language (``help.<game>.title``).

Discord caps a message at 10 embeds and 6,000 characters, an embed's description at 4,096:
a game's embeds are packed into pages that fit, browsed with persistent buttons
(``gn:help:<page>:page:<game>``) that need nothing in memory.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import discord
from discord import app_commands
from discord.app_commands import locale_str as _
from discord.ext import commands

from bot.engine import games as _games  # noqa: F401 - registers every engine in GAMES
from bot.engine.base import GAMES
from bot.i18n import Lang, has_key, locale_for_user, t
from bot.ui import GameButton, GameView, Press, game_view, respond, say, update_message

if TYPE_CHECKING:
    from bot.client import GamenightBot


def help_games() -> tuple[str, ...]:
    """Every registered game with a ``help.<game>.title`` in the catalogs, in the order shown:
    the guild's day games (one seat, like Späye) first, then the table games, by kind."""
    explained = [kind for kind in GAMES if has_key(f"help.{kind}.title")]
    return tuple(sorted(explained, key=lambda kind: (GAMES[kind].max_players > 1, kind)))


HELP_GAMES: Final = help_games()
"""Every game the bot explains, in the order shown."""

PAGE_KIND: Final = "help"
MESSAGE_MAX: Final = 6000
"""Discord's limit on all the embeds of one message together."""
DESCRIPTION_MAX: Final = 4096
EMBEDS_MAX: Final = 10
FOOTER_ROOM: Final = 40
"""Kept free on every page for its "Page n/m" footer."""


def is_implemented(game: str) -> bool:
    """Whether the bot has an engine for ``game`` (otherwise it is not playable yet)."""
    return game in GAMES


def overview_embed(locale: Lang, playable: set[str]) -> discord.Embed:
    """The list of games, with a line each and whether it can be played here."""
    embed = discord.Embed(
        title=t("help.title", locale),
        description=t("help.overview", locale),
        colour=discord.Colour.blurple(),
    )
    for game in HELP_GAMES:
        if not is_implemented(game):
            status = t("help.coming", locale)
        else:
            status = t("help.playable" if game in playable else "help.unavailable", locale)
        embed.add_field(
            name=f"{t(f'help.{game}.title', locale)} · {status}",
            value=t(f"help.{game}.summary", locale),
            inline=False,
        )
    embed.set_footer(text=t("help.footer", locale))
    return embed


def _chunks(text: str, size: int = DESCRIPTION_MAX) -> list[str]:
    """``text`` cut between lines into pieces of at most ``size`` characters."""
    pieces: list[str] = []
    current = ""
    for line in text.split("\n"):
        candidate = f"{current}\n{line}" if current else line
        if len(candidate) <= size:
            current = candidate
            continue
        if current:
            pieces.append(current)
        while len(line) > size:  # one line longer than an embed: cut it (never in our texts)
            pieces.append(line[:size])
            line = line[size:]
        current = line
    if current:
        pieces.append(current)
    return pieces


def _section(title: str, text: str, colour: discord.Colour) -> list[discord.Embed]:
    """One titled section; a text too long for one embed continues in untitled ones."""
    return [
        discord.Embed(title=title if i == 0 else None, description=piece, colour=colour)
        for i, piece in enumerate(_chunks(text))
    ]


def game_embeds(game: str, locale: Lang) -> list[discord.Embed]:
    """A game's rules, then the rulings of the rules [R], then what the bot settles beyond."""
    rules = t(f"help.{game}.rules", locale)
    if not is_implemented(game):
        rules = f"{t('help.not_playable', locale)}\n\n{rules}"
    embeds = _section(t(f"help.{game}.title", locale), rules, discord.Colour.blurple())
    embeds += _section(
        t("help.rulings_title", locale),
        t(f"help.{game}.rulings", locale),
        discord.Colour.dark_grey(),
    )
    if has_key(f"help.{game}.bot_rulings", locale):
        embeds += _section(
            t("help.bot_rulings_title", locale),
            t(f"help.{game}.bot_rulings", locale),
            discord.Colour.dark_grey(),
        )
    return embeds


def game_pages(game: str, locale: Lang) -> list[list[discord.Embed]]:
    """``game_embeds`` packed in order into pages that each fit in one message."""
    pages: list[list[discord.Embed]] = [[]]
    size = 0
    for embed in game_embeds(game, locale):
        page = pages[-1]
        if page and (size + len(embed) > MESSAGE_MAX - FOOTER_ROOM or len(page) == EMBEDS_MAX):
            pages.append([])
            size = 0
        pages[-1].append(embed)
        size += len(embed)
    if len(pages) > 1:
        for number, page in enumerate(pages, 1):
            page[-1].set_footer(text=t("help.page", locale, page=number, pages=len(pages)))
    return pages


def page_view(game: str, page: int, pages: int, locale: Lang) -> GameView | None:
    """Previous / Next buttons between a game's pages (none when it has one page)."""
    if pages < 2:
        return None
    back, forward = max(page - 1, 0), min(page + 1, pages - 1)
    return game_view(
        GameButton(
            PAGE_KIND,
            back,
            "page",
            game,
            label=t("help.previous", locale),
            emoji="◀️",
            disabled=page == 0,
        ),
        GameButton(
            PAGE_KIND,
            forward,
            "page",
            game,
            label=t("help.next", locale),
            emoji="▶️",
            disabled=page == pages - 1,
        ),
    )


class HelpCog(commands.Cog, name="Help"):
    """How Gamenight plays its games."""

    def __init__(self, bot: GamenightBot) -> None:
        self.bot = bot

    async def cog_load(self) -> None:
        self.bot.actions.register(PAGE_KIND, self.on_page, games=False)

    async def cog_unload(self) -> None:
        self.bot.actions.unregister(PAGE_KIND)

    def playable(self) -> set[str]:
        return {
            game
            for game in HELP_GAMES
            if is_implemented(game) and f"cogs.{game}" in self.bot.extensions
        }

    @app_commands.command(
        name="help", description="The games and their rules as this bot plays them"
    )
    @app_commands.rename(game=_("game"))
    @app_commands.describe(game=_("The game to explain; leave empty for the list"))
    @app_commands.choices(
        game=[
            app_commands.Choice(
                name=_(t(f"help.{game}.title", "en"), key=f"help.{game}.title"), value=game
            )
            for game in HELP_GAMES
        ]
    )
    async def help(
        self, interaction: discord.Interaction[Any], game: app_commands.Choice[str] | None = None
    ) -> None:
        locale = locale_for_user(interaction)
        if game is None:
            await respond(
                interaction, embed=overview_embed(locale, self.playable()), ephemeral=True
            )
            return
        pages = game_pages(game.value, locale)
        view = page_view(game.value, 0, len(pages), locale)
        await respond(interaction, embeds=pages[0], view=view, ephemeral=True)

    async def on_page(self, interaction: discord.Interaction[Any], press: Press) -> None:
        """A Previous / Next button: show that page in the clicker's language."""
        game = press.arg or ""
        locale = locale_for_user(interaction)
        if game not in HELP_GAMES:  # a forged custom id: no such page
            await say(interaction, t("errors.unknown_button", locale))
            return
        pages = game_pages(game, locale)
        page = min(press.game_id, len(pages) - 1)
        await update_message(
            interaction, embeds=pages[page], view=page_view(game, page, len(pages), locale)
        )


async def setup(bot: GamenightBot) -> None:
    await bot.add_cog(HelpCog(bot))
