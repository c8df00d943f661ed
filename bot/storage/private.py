"""Private content kept for users whose DMs are closed (``pending_private``), and the DM
channel of each user (``dm_channels``)."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any

from bot.clock import Clock, to_iso
from bot.storage.db import Database
from bot.storage.models import PendingPrivate

__all__ = ["PrivateStore"]


def _row(row: sqlite3.Row) -> PendingPrivate:
    return PendingPrivate(
        user_id=row["user_id"],
        key=row["key"],
        content=row["content"],
        embeds=json.loads(row["embeds"]) if row["embeds"] else [],
        notified=bool(row["notified"]),
        locale=row["locale"],
    )


class PrivateStore:
    """One row per (user, key): the latest content for that key replaces the older one."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock
        self._waiting: set[int] | None = None
        """Users who may have something pending (read once, then kept up to date): every
        interaction asks, and almost always for nobody."""
        self._puts = 0

    async def put(
        self,
        user_id: int,
        key: str,
        content: str | None,
        embeds: Sequence[dict[str, Any]] = (),
        locale: str | None = None,
    ) -> None:
        """Keep ``content``/``embeds`` for ``user_id`` under ``key``, replacing an older one."""
        await self._db.execute(
            "INSERT INTO pending_private (user_id, key, content, embeds, pending, notified,"
            " locale, updated_at) VALUES (?, ?, ?, ?, 1, 0, ?, ?)"
            " ON CONFLICT (user_id, key) DO UPDATE SET content = excluded.content,"
            " embeds = excluded.embeds, pending = 1, locale = excluded.locale,"
            " updated_at = excluded.updated_at",
            (
                user_id,
                key,
                content,
                json.dumps(list(embeds)) if embeds else None,
                locale,
                to_iso(self._clock.now()),
            ),
        )
        self._puts += 1
        if self._waiting is not None:
            self._waiting.add(user_id)

    async def pending(self, user_id: int) -> list[PendingPrivate]:
        """What waits for the user, oldest first."""
        rows = await self._db.fetchall(
            "SELECT user_id, key, content, embeds, notified, locale FROM pending_private"
            " WHERE user_id = ? AND pending = 1 ORDER BY updated_at, key",
            (user_id,),
        )
        return [_row(row) for row in rows]

    async def has_pending(self, user_id: int) -> bool:
        if self._waiting is None:
            rows = await self._db.fetchall(
                "SELECT DISTINCT user_id FROM pending_private WHERE pending = 1"
            )
            self._waiting = {row[0] for row in rows}
        if user_id not in self._waiting:
            return False
        puts = self._puts
        row = await self._db.fetchone(
            "SELECT 1 FROM pending_private WHERE user_id = ? AND pending = 1 LIMIT 1", (user_id,)
        )
        if row is None and puts == self._puts:  # nothing kept meanwhile
            self._waiting.discard(user_id)
        return row is not None

    async def delivered(self, user_id: int, key: str) -> None:
        """The content was shown: drop it, remember the user was told their DMs are closed."""
        await self._db.execute(
            "UPDATE pending_private SET pending = 0, notified = 1, content = NULL,"
            " embeds = NULL, updated_at = ? WHERE user_id = ? AND key = ?",
            (to_iso(self._clock.now()), user_id, key),
        )

    async def discard(self, user_id: int, key: str) -> None:
        """Newer content reached the user another way (a DM went through, "Show my hand")."""
        await self._db.execute(
            "UPDATE pending_private SET pending = 0, content = NULL, embeds = NULL"
            " WHERE user_id = ? AND key = ?",
            (user_id, key),
        )

    async def forget_user(self, user_id: int) -> int:
        """Delete everything kept for a user (data deletion request)."""
        await self._db.execute("DELETE FROM dm_channels WHERE user_id = ?", (user_id,))
        return await self._db.execute("DELETE FROM pending_private WHERE user_id = ?", (user_id,))

    async def dm_channel(self, user_id: int) -> int | None:
        """The id of the user's DM channel, if the bot ever opened it."""
        value = await self._db.fetchval(
            "SELECT channel_id FROM dm_channels WHERE user_id = ?", (user_id,)
        )
        return None if value is None else int(value)

    async def remember_dm(self, user_id: int, channel_id: int) -> None:
        await self._db.execute(
            "INSERT INTO dm_channels (user_id, channel_id, updated_at) VALUES (?, ?, ?)"
            " ON CONFLICT (user_id) DO UPDATE SET channel_id = excluded.channel_id,"
            " updated_at = excluded.updated_at",
            (user_id, channel_id, to_iso(self._clock.now())),
        )
