"""What a board ranks: each rated game, and all of them together (``overall``)."""

from __future__ import annotations

from bot.i18n import Lang, t
from bot.ratings.ledger import OVERALL, RATED_KINDS

__all__ = ["OVERALL", "PROVISIONAL_MARK", "game_scopes", "scope_name", "scopes"]

PROVISIONAL_MARK = "🔰"
"""After a provisional player's rating (fewer games than the ratings need to settle)."""


def game_scopes() -> tuple[str, ...]:
    """The rated games, by kind."""
    return tuple(RATED_KINDS)


def scopes() -> tuple[str, ...]:
    """Every board, ``overall`` first."""
    return (OVERALL, *game_scopes())


def scope_name(scope: str, locale: Lang) -> str:
    """``All games`` / ``Tous les jeux``, or the game's title."""
    if scope == OVERALL:
        return t("boards.overall", locale)
    return t(f"help.{scope}.title", locale)
