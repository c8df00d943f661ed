"""What every Späye component handler shares: the click (:class:`Click`), the stale-move
signal (:class:`Moved`) and small readers of the day's view and of the clicked message."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

import discord

from bot.i18n import Lang
from bot.storage import StoredGame
from bot.text import clip
from bot.ui import GameView, Press, update_message
from cogs.spaye._periods import SpayeGuild

EXPIRY_KIND: Final = "spaye.invite_expiry"
BONUS_OF_ACTION: Final = {
    "bonus_share": "grand_spayin",
    "bonus_tyrant": "mastaye",
    "bonus_double": "tikao",
}


class Moved(Exception):
    """The game changed between reading it and saving a move decided on it (another click
    went first): nothing was saved and nothing was said; the click is decided again."""


def expiry_key(game_id: int) -> str:
    """One pending invitation per day at a time: each new one replaces the timer."""
    return f"spaye:{game_id}:invite"


@dataclass(frozen=True)
class Click:
    """One component interaction on a Späye day, with what every handler needs."""

    interaction: discord.Interaction[Any]
    press: Press
    stored: StoredGame
    user: str
    locale: Lang
    settings: SpayeGuild

    @property
    def public(self) -> Lang:
        return self.settings.locale

    @property
    def view(self) -> dict[str, Any]:
        return self.stored.game.public_view()


def find_exercise(view: Mapping[str, Any], eid: int | None) -> dict[str, Any] | None:
    return next((e for e in view["exercises"] if e["id"] == eid), None)


def bonus_titles(stored: StoredGame, player: str, eid: int) -> list[str]:
    """The bonuses ``player`` may use on exercise ``eid`` right now."""
    acts = stored.game.legal_actions(player)
    titles = [
        BONUS_OF_ACTION[a["type"]]
        for a in acts
        if a["type"] in BONUS_OF_ACTION and a.get("id") == eid
    ]
    return list(dict.fromkeys(titles))


def share_partners(stored: StoredGame, player: str, eid: int) -> list[str]:
    """The späyins the Grand Späyin may share exercise ``eid`` with (the engine's list)."""
    return [
        str(a["with"])
        for a in stored.game.legal_actions(player)
        if a["type"] == "bonus_share" and a.get("id") == eid
    ]


def clicked(interaction: discord.Interaction[Any], message_id: object) -> bool:
    """Whether the interaction came from the message ``message_id``."""
    message = interaction.message
    return message is not None and isinstance(message_id, int) and message.id == message_id


def message_text(interaction: discord.Interaction[Any]) -> str:
    message = interaction.message
    return message.content if message is not None else ""


async def close_with(c: Click, line: str) -> None:
    """The clicked message, its buttons gone, with ``line`` added: what the click did."""
    await update_message(
        c.interaction, clip(f"{message_text(c.interaction)}\n{line}", 2000), view=GameView()
    )


def is_bot(interaction: discord.Interaction[Any], user_id: str) -> bool:
    """Whether a user picked in a user select is a bot (from the interaction's resolved data)."""
    data: Mapping[str, Any] = interaction.data or {}
    users = (data.get("resolved") or {}).get("users") or {}
    return bool((users.get(user_id) or {}).get("bot"))
