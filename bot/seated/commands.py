"""``/<game> new|abandon|stats``: one command group per seated game, built from its spec.

The options of ``new`` are declared once (:class:`OptionSpec`) and become slash options with
Discord's own checks (ranges, choices), so every game handles them the same way. Names and
descriptions are translated through the catalogs with the keys
``<game>.cmd.name``, ``<game>.cmd.new.<option>.name`` ... (English text as the fallback).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

if TYPE_CHECKING:
    from bot.seated.cog import SeatedCog


@dataclass(frozen=True)
class OptionSpec:
    """One option of ``/<game> new``."""

    name: str
    description: str
    """English; the French comes from ``<game>.cmd.new.<name>.description``."""
    default: int | bool | str
    min: int | None = None
    max: int | None = None
    choices: Sequence[str] = ()
    engine: bool = True
    """``True``: an option of the engine's game; ``False``: the kit's (e.g. a turn timer the
    engine knows nothing of)."""

    def annotation(self) -> Any:
        if isinstance(self.default, bool):
            return bool
        if isinstance(self.default, int):
            if self.min is not None or self.max is not None:
                return app_commands.Range[int, self.min, self.max]
            return int
        return str


def _method(func: Any, name: str) -> Any:
    """Make discord.py treat a generated callback as a cog method (it gets the cog first)."""
    func.__name__ = name
    func.__qualname__ = f"SeatedCog.{name}"
    return func


def seated_group(
    kind: str, title: str, options: Sequence[OptionSpec], players: str
) -> app_commands.Group:
    """The ``/<kind>`` group; ``title`` is the game's name, ``players`` e.g. ``"3 to 8"``."""
    group = app_commands.Group(
        name=_(kind, key=f"{kind}.cmd.name"),
        description=_(f"{title} for {players} players", key=f"{kind}.cmd.description"),
        guild_only=True,
    )

    async def new(self: SeatedCog, interaction: discord.Interaction[Any], **values: Any) -> None:
        await self.open_lobby(interaction, values)

    params = [
        inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter(
            "interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction
        ),
    ]
    for opt in options:
        params.append(
            inspect.Parameter(
                opt.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=opt.annotation(),
                default=opt.default,
            )
        )
    new.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    _method(new, "new")
    if options:
        new = app_commands.describe(
            **{
                o.name: _(o.description, key=f"{kind}.cmd.new.{o.name}.description")
                for o in options
            }
        )(new)
        new = app_commands.rename(
            **{o.name: _(o.name, key=f"{kind}.cmd.new.{o.name}.name") for o in options}
        )(new)
        with_choices = {
            o.name: [app_commands.Choice(name=c, value=c) for c in o.choices]
            for o in options
            if o.choices
        }
        if with_choices:
            new = app_commands.choices(**with_choices)(new)
    group.add_command(
        app_commands.Command(
            name=_("new", key=f"{kind}.cmd.new.name"),
            description=_(
                f"Open a {title} table that others can join", key=f"{kind}.cmd.new.description"
            ),
            callback=new,
        )
    )

    async def abandon(
        self: SeatedCog,
        interaction: discord.Interaction[Any],
        game: app_commands.Range[int, 1] | None = None,
    ) -> None:
        await self.ask_abandon(interaction, game)

    abandon = app_commands.describe(
        game=_(
            f"The game's number ({title} #…), needed when several run in this channel",
            key=f"{kind}.cmd.abandon.game.description",
        )
    )(
        app_commands.rename(game=_("game", key=f"{kind}.cmd.abandon.game.name"))(
            _method(abandon, "abandon")
        )
    )
    group.add_command(
        app_commands.Command(
            name=_("abandon", key=f"{kind}.cmd.abandon.name"),
            description=_(
                f"End a running {title} game for everyone (host or Manage Server); no result is kept",
                key=f"{kind}.cmd.abandon.description",
            ),
            callback=abandon,
        )
    )

    async def stats(
        self: SeatedCog,
        interaction: discord.Interaction[Any],
        player: discord.User | None = None,
    ) -> None:
        await self.show_stats(interaction, player)

    stats = app_commands.describe(
        player=_("Whose record (default: yours)", key=f"{kind}.cmd.stats.player.description")
    )(
        app_commands.rename(player=_("player", key=f"{kind}.cmd.stats.player.name"))(
            _method(stats, "stats")
        )
    )
    group.add_command(
        app_commands.Command(
            name=_("stats", key=f"{kind}.cmd.stats.name"),
            description=_(
                f"{title} games played and won here", key=f"{kind}.cmd.stats.description"
            ),
            callback=stats,
        )
    )
    return group
