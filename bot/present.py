"""The one presentation layer: how players, suits, times and refusals are written on Discord.

The engine names players by their id (a Discord user id, or ``cpuN`` for a computer seat)
and never writes Discord markup; everything a reader sees goes through these helpers, so a
player is written the same way in every game, every refusal is translated the same way and
the Discord side of answering lives in :mod:`bot.ui` (``say``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any, Final

from bot.engine.base import IllegalAction
from bot.engine.cards import SUIT_SYMBOLS
from bot.engine.lobby import is_computer
from bot.i18n import Lang, has_key, t

__all__ = [
    "SUIT_SYMBOLS",
    "ParamFormatter",
    "and_list",
    "is_former",
    "mention",
    "mentions",
    "refusal",
    "when",
]

ParamFormatter = Callable[[str, Any, Lang], "str | None"]
"""A game's own way to show a refusal's parameter (a card, a title); ``None``: not its own."""

PLAYER_PARAMS: Final = ("player", "host", "by", "offer", "mate")
"""Refusal parameters that hold one player."""
PLAYERS_PARAMS: Final = ("players", "targets")
"""Refusal parameters that hold several players."""


def mention(player: str | int, locale: Lang = "en") -> str:
    """A colleague as a mention; a computer seat by its name (it has no Discord account),
    and a member the bot forgot (``/forget-me``: a negative stand-in id) as a former member."""
    who = str(player)
    if is_computer(who):
        return t("seated.computer", locale, n=who.removeprefix("cpu"))
    if is_former(who):
        return t("records.former_member", locale)
    return f"<@{who}>"


def is_former(player: str | int) -> bool:
    """A seat of a member who asked to be forgotten (a negative stand-in id, never a
    Discord one: :mod:`bot.storage.records`)."""
    return str(player).startswith("-")


def and_list(items: Iterable[str], locale: Lang) -> str:
    """``A``, ``A and B``, ``A, B and C`` in the reader's language."""
    names = list(items)
    if len(names) <= 1:
        return "".join(names)
    return t("list.and", locale, first=", ".join(names[:-1]), last=names[-1])


def mentions(players: Iterable[str | int], locale: Lang = "en") -> str:
    """Several players as ``@A, @B and @C`` in the reader's language."""
    return and_list((mention(p, locale) for p in players), locale)


def when(deadline: datetime) -> str:
    """A Discord timestamp counting down in every reader's own time zone."""
    return f"<t:{int(deadline.timestamp())}:R>"


def refusal(err: IllegalAction, locale: Lang, format_param: ParamFormatter | None = None) -> str:
    """An engine refusal in the reader's language: players as mentions, and whatever the
    game shows its own way (``format_param``) as the table shows it. English when the
    catalog has no text for the refusal's key."""
    params: dict[str, Any] = dict(err.params)
    for name, value in err.params.items():
        shown = format_param(name, value, locale) if format_param is not None else None
        if shown is not None:
            params[name] = shown
        elif name in PLAYER_PARAMS and isinstance(value, str | int):
            params[name] = mention(value, locale)
        elif name in PLAYERS_PARAMS and isinstance(value, list | tuple):
            params[name] = mentions(value, locale)
    if err.key and has_key(err.key, locale):
        return t(err.key, locale, **params)
    return str(err)
