"""``/<game> begin|end|stats`` (and ``challenge``): one command group per seated game,
built from its spec.

Typing ``/<game>`` lists the subcommands in alphabetical order, and Enter runs the first: so
the one that starts a game sorts first in every language (``begin`` before ``challenge``,
``end``, ``history``, ``stats``; in French ``commencer`` before ``defi``, ``historique``,
``stats``, ``terminer``), and ending a game for everyone is never what a bare Enter does.
The callbacks keep their first names (``new``, ``abandon``), as do the catalog keys
(``<game>.cmd.new.name`` ...) and the buttons' custom ids.

The options of ``new`` are declared once (:class:`OptionSpec`) and become slash options with
Discord's own checks (ranges, choices), so every game handles them the same way. Names and
descriptions are translated through the catalogs with the keys
``<game>.cmd.name``, ``<game>.cmd.new.<option>.name`` ... (English text as the fallback).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

import discord
from discord import app_commands
from discord.app_commands import locale_str as _

from bot.seated.spec import CASUAL_OPTION, Challenge, OptionSpec
from bot.ui import PUBLIC_ANSWER

__all__ = ["OptionSpec", "SeatedCommands", "seated_group"]


class SeatedCommands(Protocol):
    """What the commands call on the game's cog (:class:`bot.seated.cog.SeatedCog`)."""

    async def open_lobby(
        self, interaction: discord.Interaction[Any], values: Mapping[str, Any]
    ) -> None: ...

    async def challenge(
        self,
        interaction: discord.Interaction[Any],
        opponent: discord.User | discord.Member,
        values: Mapping[str, Any],
    ) -> None: ...

    async def ask_abandon(
        self, interaction: discord.Interaction[Any], game_id: int | None
    ) -> None: ...

    async def show_stats(
        self, interaction: discord.Interaction[Any], player: discord.User | None
    ) -> None: ...


def _method(func: Any, name: str) -> Any:
    """Make discord.py treat a generated callback as a cog method (it gets the cog first)."""
    func.__name__ = name
    func.__qualname__ = f"SeatedCog.{name}"
    return func


def _options(func: Any, options: Sequence[OptionSpec], params: list[inspect.Parameter]) -> Any:
    """``func`` taking ``options`` as keyword arguments after ``params``, each named and
    described through the catalogs (``<kind>.cmd.new.<option>.name|description``)."""
    for opt in options:
        params.append(
            inspect.Parameter(
                opt.name,
                inspect.Parameter.KEYWORD_ONLY,
                annotation=opt.annotation(),
                default=opt.default,
            )
        )
    func.__signature__ = inspect.Signature(params)
    return func


def _key(kind: str, option: OptionSpec) -> str:
    return option.key or f"{kind}.cmd.new.{option.name}"


def _described(
    func: Any,
    kind: str,
    options: Sequence[OptionSpec],
    names: Mapping[str, Any] | None = None,
    descriptions: Mapping[str, Any] | None = None,
) -> Any:
    """The catalog names and descriptions of ``options`` (and of ``names``' parameters)."""
    names = {
        **(names or {}),
        **{o.name: _(o.name, key=f"{_key(kind, o)}.name") for o in options},
    }
    descriptions = {
        **(descriptions or {}),
        **{o.name: _(o.description, key=f"{_key(kind, o)}.description") for o in options},
    }
    if descriptions:
        func = app_commands.describe(**descriptions)(func)
    if names:
        func = app_commands.rename(**names)(func)
    with_choices = {
        o.name: [app_commands.Choice(name=c, value=c) for c in o.choices]
        for o in options
        if o.choices
    }
    if with_choices:
        func = app_commands.choices(**with_choices)(func)
    return func


def _leading() -> list[inspect.Parameter]:
    """``self`` and ``interaction``: what every command callback takes first."""
    return [
        inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD),
        inspect.Parameter(
            "interaction", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.Interaction
        ),
    ]


def _challenge_command(
    kind: str, title: str, options: Sequence[OptionSpec]
) -> app_commands.Command[Any, Any, None]:
    """``/<kind> challenge opponent [options of begin]`` (:mod:`bot.seated.challenge`)."""

    async def challenge(
        self: SeatedCommands,
        interaction: discord.Interaction[Any],
        opponent: discord.User,
        **values: Any,
    ) -> None:
        await self.challenge(interaction, opponent, values)

    params = _leading()
    params.append(
        inspect.Parameter(
            "opponent", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=discord.User
        )
    )
    callback: Any = _described(
        _method(_options(challenge, options, params), "challenge"),
        kind,
        options,
        names={"opponent": _("opponent", key=f"{kind}.cmd.challenge.opponent.name")},
        descriptions={
            "opponent": _(
                "The colleague you challenge", key=f"{kind}.cmd.challenge.opponent.description"
            )
        },
    )
    return app_commands.Command(
        name=_("challenge", key=f"{kind}.cmd.challenge.name"),
        description=_(
            f"Challenge a colleague to a game of {title}", key=f"{kind}.cmd.challenge.description"
        ),
        callback=callback,
        extras=dict(PUBLIC_ANSWER),
    )


def seated_group(
    kind: str,
    title: str,
    options: Sequence[OptionSpec],
    players: str,
    *,
    challenge: Challenge | None = None,
) -> app_commands.Group:
    """The ``/<kind>`` group; ``title`` is the game's name, ``players`` e.g. ``"3 to 8"``;
    ``challenge`` (the spec's) adds ``/<kind> challenge opponent``."""
    group = app_commands.Group(
        name=_(kind, key=f"{kind}.cmd.name"),
        description=_(f"{title} for {players} players", key=f"{kind}.cmd.description"),
        guild_only=True,
    )

    async def new(
        self: SeatedCommands, interaction: discord.Interaction[Any], **values: Any
    ) -> None:
        await self.open_lobby(interaction, values)

    begin = [*options, CASUAL_OPTION]
    new = _options(new, begin, _leading())
    new = _described(_method(new, "new"), kind, begin)
    group.add_command(
        app_commands.Command(
            name=_("begin", key=f"{kind}.cmd.new.name"),
            description=_(
                f"Open a {title} table that others can join", key=f"{kind}.cmd.new.description"
            ),
            callback=new,
            extras=dict(PUBLIC_ANSWER),
        )
    )

    async def abandon(
        self: SeatedCommands,
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
            name=_("end", key=f"{kind}.cmd.abandon.name"),
            description=_(
                f"End a running {title} game for everyone (host or Manage Server); no result is kept",
                key=f"{kind}.cmd.abandon.description",
            ),
            callback=abandon,
        )
    )

    async def stats(
        self: SeatedCommands,
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
    if challenge is not None:
        group.add_command(_challenge_command(kind, title, options))
    return group
