"""Per-guild settings (``guild_settings``). Cogs use ``bot.store.settings``.

Only what the whole server shares (its time zone and language); each game keeps its own
settings in ``bot.store.game_settings`` (:mod:`bot.storage.game_settings`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bot.clock import Clock, to_iso
from bot.i18n import normalize_locale
from bot.storage.db import Database
from bot.storage.models import GuildSettings

__all__ = ["SETTING_FIELDS", "GuildSettingsStore"]

SETTING_FIELDS = ("timezone", "locale")
"""The settings an admin can change (``locale=None`` means "follow the guild's locale")."""


class GuildSettingsStore:
    """Reads and changes :class:`GuildSettings`; a guild never configured gets the defaults."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def get(self, guild_id: int, preferred_locale: str | None = None) -> GuildSettings:
        """The guild's settings. ``preferred_locale`` (``guild.preferred_locale``) fills
        ``locale`` unless an admin chose one."""
        row = await self._db.fetchone(
            "SELECT timezone, locale FROM guild_settings WHERE guild_id = ?",
            (guild_id,),
        )
        values: dict[str, Any] = dict(row) if row is not None else {}
        chosen = values.pop("locale", None)
        return GuildSettings(
            guild_id=guild_id,
            **values,
            locale=normalize_locale(chosen or preferred_locale),
            locale_explicit=chosen is not None,
        )

    async def update(
        self,
        guild_id: int,
        changes: Mapping[str, Any],
        preferred_locale: str | None = None,
    ) -> GuildSettings:
        """Validate and save ``changes`` (keys from :data:`SETTING_FIELDS`); returns the result.

        Raises ``pydantic.ValidationError`` (nothing saved) for a bad value, ``KeyError`` for an
        unknown field.
        """
        unknown = sorted(set(changes) - set(SETTING_FIELDS))
        if unknown:
            raise KeyError(f"unknown setting(s): {', '.join(unknown)}")
        async with self._db.transaction():
            current = await self.get(guild_id, preferred_locale)
            data = current.model_dump()
            data.update(changes)
            if "locale" in changes:
                data["locale_explicit"] = changes["locale"] is not None
                if changes["locale"] is None:
                    data["locale"] = normalize_locale(preferred_locale)
            new = GuildSettings.model_validate(data)
            await self._db.execute(
                "INSERT INTO guild_settings (guild_id, timezone, locale, updated_at)"
                " VALUES (?, ?, ?, ?) ON CONFLICT (guild_id) DO UPDATE SET"
                " timezone = excluded.timezone, locale = excluded.locale,"
                " updated_at = excluded.updated_at",
                (
                    guild_id,
                    new.timezone,
                    new.locale if new.locale_explicit else None,
                    to_iso(self._clock.now()),
                ),
            )
            return new

    async def configured_guild_ids(self) -> list[int]:
        """Ids of the guilds that have changed at least one setting."""
        rows = await self._db.fetchall("SELECT guild_id FROM guild_settings ORDER BY guild_id")
        return [int(row["guild_id"]) for row in rows]
