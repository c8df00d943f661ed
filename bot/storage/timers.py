"""Durable deadlines (``timers``). The runtime side is :class:`bot.timers.TimerService`."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from datetime import datetime
from typing import Any

from bot.clock import Clock, from_iso, to_iso
from bot.storage.db import Database
from bot.storage.models import Timer

__all__ = ["TimerStore"]

_SELECT = "SELECT id, key, kind, due_at, payload, done, attempts, last_error FROM timers"


def _row_to_timer(row: sqlite3.Row) -> Timer:
    return Timer(
        id=row["id"],
        key=row["key"],
        kind=row["kind"],
        due_at=from_iso(row["due_at"]),
        payload=json.loads(row["payload"]),
        done=bool(row["done"]),
        attempts=row["attempts"],
        last_error=row["last_error"],
    )


class TimerStore:
    """Rows of ``timers``. Schedule through ``bot.timers``, which also arms the scheduler."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def put(self, kind: str, due_at: datetime, payload: Mapping[str, Any], key: str) -> str:
        """Create the timer ``key``, replacing any older one with that key (done or not).

        Inside a transaction the rows ride on its next trip (no trip of their own)."""
        body = json.dumps(dict(payload), separators=(",", ":"), sort_keys=True)
        async with self._db.transaction() as conn:
            # A new row (a new id) even for a known key: see mark_done.
            conn.defer("DELETE FROM timers WHERE key = ?", (key,))
            conn.defer(
                "INSERT INTO timers (key, kind, due_at, payload, created_at) VALUES (?, ?, ?, ?, ?)",
                (key, kind, to_iso(due_at), body, to_iso(self._clock.now())),
            )
        return key

    async def cancel(self, key: str) -> bool:
        """Forget a pending timer; returns whether there was one."""
        return await self._db.execute("DELETE FROM timers WHERE key = ? AND done = 0", (key,)) > 0

    async def get(self, key: str) -> Timer | None:
        row = await self._db.fetchone(f"{_SELECT} WHERE key = ?", (key,))
        return None if row is None else _row_to_timer(row)

    async def pending(self) -> list[Timer]:
        """Every timer not yet done, soonest first."""
        rows = await self._db.fetchall(f"{_SELECT} WHERE done = 0 ORDER BY due_at, id")
        return [_row_to_timer(row) for row in rows]

    async def due(self, now: datetime, limit: int = 100) -> list[Timer]:
        """Timers not done whose time has come, soonest first."""
        rows = await self._db.fetchall(
            f"{_SELECT} WHERE done = 0 AND due_at <= ? ORDER BY due_at, id LIMIT ?",
            (to_iso(now), limit),
        )
        return [_row_to_timer(row) for row in rows]

    async def mark_done(self, timer_id: int) -> bool:
        """Mark that very row done (a rescheduled key has a new id and stays pending)."""
        changed = await self._db.execute(
            "UPDATE timers SET done = 1, done_at = ? WHERE id = ? AND done = 0",
            (to_iso(self._clock.now()), timer_id),
        )
        return changed > 0

    async def record_failure(self, timer_id: int, error: str, retry_at: datetime | None) -> None:
        """Count a failed run: retry at ``retry_at``, or give up (done) when it is ``None``."""
        now = to_iso(self._clock.now())
        if retry_at is None:
            await self._db.execute(
                "UPDATE timers SET attempts = attempts + 1, last_error = ?, done = 1, done_at = ?"
                " WHERE id = ?",
                (error[:2000], now, timer_id),
            )
        else:
            await self._db.execute(
                "UPDATE timers SET attempts = attempts + 1, last_error = ?, due_at = ?"
                " WHERE id = ?",
                (error[:2000], to_iso(retry_at), timer_id),
            )

    async def purge_done(self, before: datetime) -> int:
        """Delete done timers finished before ``before``; returns how many."""
        return await self._db.execute(
            "DELETE FROM timers WHERE done = 1 AND done_at < ?", (to_iso(before),)
        )
