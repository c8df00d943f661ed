"""Papayoo's buttons and selects. Every custom id carries the game id and the turn it was
made for, so a button from yesterday still routes to its game after a restart and a button
from an earlier trick is recognised as stale.

Custom ids (``bot.ui.GameButton`` / ``GameSelect``)::

    gn:papayoo_lobby:<lobby_id>:join|leave|start|cancel
    gns:papayoo:<game_id>:choose:<round>                the pass select (exactly pass size)
    gn:papayoo:<game_id>:pass:<round>.<c1>-<c2>-...     Confirm: the chosen cards themselves
    gn:papayoo:<game_id>:play:<round>.<trick>.<card>    one card of the hand
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import discord

from bot.i18n import Lang, t
from bot.ui import GameButton, GameSelect, GameView, game_view
from cogs.papayoo._lobby import KIND as LOBBY_KIND
from cogs.papayoo._render import card, tricks_done

KIND: Final = "papayoo"
PER_ROW: Final = 5


LOBBY_STYLES: Final = {
    "join": discord.ButtonStyle.success,
    "leave": discord.ButtonStyle.secondary,
    "start": discord.ButtonStyle.primary,
    "cancel": discord.ButtonStyle.danger,
}


def lobby_view(lobby_id: int, locale: Lang) -> GameView:
    return game_view(
        *(
            GameButton(
                LOBBY_KIND,
                lobby_id,
                action,
                label=t(f"papayoo.button.{action}", locale),
                style=style,
            )
            for action, style in LOBBY_STYLES.items()
        )
    )


def pass_arg(round_no: int, choice: Sequence[str]) -> str:
    return f"{round_no}.{'-'.join(choice)}"


def play_arg(round_no: int, trick: int, code: str) -> str:
    return f"{round_no}.{trick}.{code}"


@dataclass(frozen=True, slots=True)
class Tag:
    """The turn a button was made for, read back from its custom id."""

    round: int
    trick: int | None
    cards: tuple[str, ...]


def parse_arg(arg: str | None, action: str) -> Tag | None:
    """``None`` when the argument is not one this cog wrote."""
    if not arg:
        return None
    parts = arg.split(".")
    try:
        if action == "choose" and len(parts) == 1:
            return Tag(int(parts[0]), None, ())
        if action == "pass" and len(parts) == 2:
            return Tag(int(parts[0]), None, tuple(c for c in parts[1].split("-") if c))
        if action == "play" and len(parts) == 3:
            return Tag(int(parts[0]), int(parts[1]), (parts[2],))
    except ValueError:
        return None
    return None


def pass_controls(
    game_id: int, view: Mapping[str, Any], locale: Lang, choice: Sequence[str] = ()
) -> GameView:
    """The pass select (exactly the pass size, over the hand), then Confirm."""
    size = view["pass_size"]
    chosen = set(choice)
    options = [
        discord.SelectOption(label=card(c), value=c, default=c in chosen) for c in view["hand"]
    ]
    return game_view(
        GameSelect(
            KIND,
            game_id,
            "choose",
            options,
            str(view["round"]),
            placeholder=t("papayoo.private.select", locale, size=size),
            min_values=size,
            max_values=size,
            row=0,
        ),
        GameButton(
            KIND,
            game_id,
            "pass",
            pass_arg(view["round"], choice),
            label=t("papayoo.button.confirm", locale),
            style=discord.ButtonStyle.success,
            disabled=len(choice) != size,
            row=1,
        ),
    )


def play_controls(game_id: int, view: Mapping[str, Any]) -> GameView:
    """The whole hand as buttons, only the legal cards enabled (20 cards fit in 4 rows)."""
    legal = set(view["legal"])
    trick = tricks_done(view)
    papayoo = view["papayoo"]
    items = []
    for i, code in enumerate(view["hand"]):
        style = discord.ButtonStyle.secondary
        if code in legal:
            style = discord.ButtonStyle.danger if code == papayoo else discord.ButtonStyle.primary
        items.append(
            GameButton(
                KIND,
                game_id,
                "play",
                play_arg(view["round"], trick, code),
                label=card(code),
                style=style,
                disabled=code not in legal,
                row=i // PER_ROW,
            )
        )
    return game_view(*items)


def private_controls(
    game_id: int, view: Mapping[str, Any], locale: Lang, choice: Sequence[str] = ()
) -> GameView | None:
    """What this player may do now, or ``None`` when they have nothing to do."""
    me = view.get("player")
    if me is None or me not in view["to_act"]:
        return None
    if view["phase"] == "pass":
        return pass_controls(game_id, view, locale, choice)
    if view["phase"] == "play":
        return play_controls(game_id, view)
    return None
