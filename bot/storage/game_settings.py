"""Per-guild settings of one game (``game_settings``): ``bot.store.game_settings``.

Generic on purpose: the store keeps a JSON object per ``(guild, game)`` and knows nothing
of what is in it. Each game owns a pydantic model of its settings (defaults and
validation) and passes its validation to :meth:`GameSettingsStore.update`, so a bad value
is refused before anything is written::

    raw = await bot.store.game_settings.get(guild_id, "spaye")          # {} if never set
    settings = SpayeSettings.model_validate(raw)                         # defaults filled in
    await bot.store.game_settings.update(
        guild_id, "spaye", {"reminder_minutes": 30},
        validate=lambda data: SpayeSettings.model_validate(data).model_dump(),
    )
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any

from bot.clock import Clock, to_iso
from bot.storage.db import Database

__all__ = ["GameSettingsStore", "Validate"]

Validate = Callable[[dict[str, Any]], dict[str, Any]]
"""The game's check of its whole settings: returns them (defaults filled in) or raises."""


class GameSettingsStore:
    """Reads and changes one game's settings of a guild."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def get(self, guild_id: int, game: str) -> dict[str, Any]:
        """What was saved for ``game`` in the guild (``{}`` when nothing was)."""
        row = await self._db.fetchone(
            "SELECT settings FROM game_settings WHERE guild_id = ? AND game = ?",
            (guild_id, game),
        )
        data: dict[str, Any] = json.loads(row["settings"]) if row is not None else {}
        return data

    async def update(
        self,
        guild_id: int,
        game: str,
        changes: Mapping[str, Any],
        *,
        validate: Validate | None = None,
    ) -> dict[str, Any]:
        """Merge ``changes`` into the saved settings, check the result with ``validate``
        and save it in one transaction; returns what was saved. Whatever ``validate``
        raises (e.g. ``pydantic.ValidationError``) leaves everything as it was."""
        async with self._db.transaction():
            data = {**await self.get(guild_id, game), **changes}
            if validate is not None:
                data = validate(data)
            await self._db.execute(
                "INSERT INTO game_settings (guild_id, game, settings, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (guild_id, game) DO UPDATE SET"
                " settings = excluded.settings, updated_at = excluded.updated_at",
                (guild_id, game, json.dumps(data, sort_keys=True), to_iso(self._clock.now())),
            )
            return data

    async def guilds(self, game: str) -> dict[int, dict[str, Any]]:
        """Every guild that saved settings for ``game``: ``{guild_id: settings}``."""
        rows = await self._db.fetchall(
            "SELECT guild_id, settings FROM game_settings WHERE game = ? ORDER BY guild_id",
            (game,),
        )
        return {int(row["guild_id"]): json.loads(row["settings"]) for row in rows}
