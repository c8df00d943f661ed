"""Durable deadlines (``timers``) and the runs of periodic jobs (``job_runs``). The runtime
side is :class:`bot.timers.TimerService`.

Several processes may share the database (the bot as shards): a timer, or one fire of a
periodic job, runs in the one process whose claim took it. A claim names its process
(``owner``) and holds until ``lease_until``; the process renews it while the work runs and
clears it when done, and a claim whose lease has passed (its process died) is void: another
process takes it with the same conditional statement.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Collection, Mapping
from datetime import datetime
from typing import Any

from bot.clock import Clock, from_iso, to_iso
from bot.storage.db import Database
from bot.storage.models import Timer

__all__ = ["JobRunStore", "TimerStore"]

_SELECT = (
    "SELECT id, key, kind, due_at, payload, done, attempts, last_error, claimed_by,"
    " lease_until FROM timers"
)


def _row_to_timer(row: sqlite3.Row) -> Timer:
    lease = row["lease_until"]
    return Timer(
        id=row["id"],
        key=row["key"],
        kind=row["kind"],
        due_at=from_iso(row["due_at"]),
        payload=json.loads(row["payload"]),
        done=bool(row["done"]),
        attempts=row["attempts"],
        last_error=row["last_error"],
        claimed_by=row["claimed_by"],
        lease_until=None if lease is None else from_iso(lease),
    )


class TimerStore:
    """Rows of ``timers``. Schedule through ``bot.timers``, which also arms the scheduler."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock
        self.jobs = JobRunStore(db, clock)
        """The runs of periodic jobs (``job_runs``)."""

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

    async def add(
        self,
        kind: str,
        due_at: datetime,
        payload: Mapping[str, Any],
        key: str,
        *,
        again_if_done: bool = False,
    ) -> bool:
        """Create the timer ``key`` unless a row with that key exists (pending, running in
        another process, or done; with ``again_if_done``, pending or running): whether this
        call created it. Processes that each add the same key make one timer, and none
        replaces a row another process is running."""
        body = json.dumps(dict(payload), separators=(",", ":"), sort_keys=True)
        async with self._db.transaction() as conn:
            if again_if_done:
                conn.defer("DELETE FROM timers WHERE key = ? AND done = 1", (key,))
            async with conn.execute(
                "INSERT INTO timers (key, kind, due_at, payload, created_at)"
                " VALUES (?, ?, ?, ?, ?) ON CONFLICT (key) DO NOTHING",
                (key, kind, to_iso(due_at), body, to_iso(self._clock.now())),
            ) as cur:
                return cur.rowcount > 0

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
        """Timers not done whose time has come and that no process holds, soonest first."""
        at = to_iso(now)
        rows = await self._db.fetchall(
            f"{_SELECT} WHERE done = 0 AND due_at <= ?"
            " AND (lease_until IS NULL OR lease_until < ?) ORDER BY due_at, id LIMIT ?",
            (at, at, limit),
        )
        return [_row_to_timer(row) for row in rows]

    async def claim(self, timer_id: int, owner: str, now: datetime, lease_until: datetime) -> bool:
        """Take that row for ``owner`` until ``lease_until``, if it is due at ``now``, not
        done, and nobody holds it; returns whether this call took it (one statement: of
        processes claiming the same row, one gets it)."""
        at = to_iso(now)
        changed = await self._db.execute(
            "UPDATE timers SET claimed_by = ?, lease_until = ?"
            " WHERE id = ? AND done = 0 AND due_at <= ?"
            " AND (lease_until IS NULL OR lease_until < ?)",
            (owner, to_iso(lease_until), timer_id, at, at),
        )
        return changed > 0

    async def renew(self, timer_id: int, owner: str, lease_until: datetime) -> bool:
        """Push the lease ``owner`` holds on that row to ``lease_until``; ``False`` if it no
        longer holds it."""
        changed = await self._db.execute(
            "UPDATE timers SET lease_until = ? WHERE id = ? AND claimed_by = ? AND done = 0",
            (to_iso(lease_until), timer_id, owner),
        )
        return changed > 0

    async def release(self, timer_id: int, owner: str) -> bool:
        """Give back a claim without running the timer (it stays pending for anyone)."""
        changed = await self._db.execute(
            "UPDATE timers SET claimed_by = NULL, lease_until = NULL"
            " WHERE id = ? AND claimed_by = ? AND done = 0",
            (timer_id, owner),
        )
        return changed > 0

    async def mark_done(self, timer_id: int) -> bool:
        """Mark that very row done (a rescheduled key has a new id and stays pending)."""
        changed = await self._db.execute(
            "UPDATE timers SET done = 1, done_at = ?, lease_until = NULL WHERE id = ? AND done = 0",
            (to_iso(self._clock.now()), timer_id),
        )
        return changed > 0

    async def record_failure(
        self, timer_id: int, error: str, retry_at: datetime | None, owner: str
    ) -> bool:
        """Count ``owner``'s failed run: retry at ``retry_at`` (by any process: the claim is
        given back), or give up (done) when it is ``None``. Only while ``owner`` still holds
        the claim: a run whose lease passed and was taken over leaves the row to the process
        running it now. Returns whether the row was changed."""
        if retry_at is None:
            changed = await self._db.execute(
                "UPDATE timers SET attempts = attempts + 1, last_error = ?, done = 1, done_at = ?,"
                " lease_until = NULL WHERE id = ? AND done = 0 AND claimed_by = ?",
                (error[:2000], to_iso(self._clock.now()), timer_id, owner),
            )
        else:
            changed = await self._db.execute(
                "UPDATE timers SET attempts = attempts + 1, last_error = ?, due_at = ?,"
                " claimed_by = NULL, lease_until = NULL"
                " WHERE id = ? AND done = 0 AND claimed_by = ?",
                (error[:2000], to_iso(retry_at), timer_id, owner),
            )
        return changed > 0

    async def purge_done(self, before: datetime) -> int:
        """Delete done timers finished before ``before``; returns how many."""
        return await self._db.execute(
            "DELETE FROM timers WHERE done = 1 AND done_at < ?", (to_iso(before),)
        )


class JobRunStore:
    """Rows of ``job_runs``: each fire of a periodic job, claimed by the process that runs it."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def claim(
        self, job_id: str, fire_time: datetime, owner: str, now: datetime, lease_until: datetime
    ) -> bool:
        """Take the fire ``fire_time`` of ``job_id`` for ``owner``: ``True`` if this call made
        its row, or took over a row not done whose lease had passed at ``now`` (its process
        died)."""
        fire, lease = to_iso(fire_time), to_iso(lease_until)
        made = await self._db.execute(
            "INSERT INTO job_runs (job_id, fire_time, claimed_by, lease_until) VALUES (?, ?, ?, ?)"
            " ON CONFLICT (job_id, fire_time) DO NOTHING",
            (job_id, fire, owner, lease),
        )
        if made > 0:
            return True
        taken = await self._db.execute(
            "UPDATE job_runs SET claimed_by = ?, lease_until = ?"
            " WHERE job_id = ? AND fire_time = ? AND done_at IS NULL AND lease_until < ?",
            (owner, lease, job_id, fire, to_iso(now)),
        )
        return taken > 0

    async def renew(
        self, job_id: str, fire_time: datetime, owner: str, lease_until: datetime
    ) -> bool:
        changed = await self._db.execute(
            "UPDATE job_runs SET lease_until = ?"
            " WHERE job_id = ? AND fire_time = ? AND claimed_by = ? AND done_at IS NULL",
            (to_iso(lease_until), job_id, to_iso(fire_time), owner),
        )
        return changed > 0

    async def finish(self, job_id: str, fire_time: datetime, owner: str) -> bool:
        """The fire has run: nobody runs it again."""
        changed = await self._db.execute(
            "UPDATE job_runs SET done_at = ? WHERE job_id = ? AND fire_time = ? AND claimed_by = ?",
            (to_iso(self._clock.now()), job_id, to_iso(fire_time), owner),
        )
        return changed > 0

    async def forget(self, job_id: str, fire_time: datetime, owner: str) -> bool:
        """The fire failed: its row goes, so that a later catch-up may run it again."""
        changed = await self._db.execute(
            "DELETE FROM job_runs WHERE job_id = ? AND fire_time = ? AND claimed_by = ?"
            " AND done_at IS NULL",
            (job_id, to_iso(fire_time), owner),
        )
        return changed > 0

    async def abandoned(
        self, job_ids: Collection[str], now: datetime
    ) -> list[tuple[str, datetime]]:
        """Fires of those jobs claimed by a process that died (not done, lease passed at
        ``now``)."""
        rows = await self._db.fetchall(
            "SELECT job_id, fire_time FROM job_runs WHERE done_at IS NULL AND lease_until < ?"
            " ORDER BY fire_time",
            (to_iso(now),),
        )
        return [
            (str(row["job_id"]), from_iso(row["fire_time"]))
            for row in rows
            if row["job_id"] in job_ids
        ]

    async def get(self, job_id: str, fire_time: datetime) -> dict[str, Any] | None:
        row = await self._db.fetchone(
            "SELECT job_id, fire_time, claimed_by, lease_until, done_at FROM job_runs"
            " WHERE job_id = ? AND fire_time = ?",
            (job_id, to_iso(fire_time)),
        )
        return None if row is None else dict(row)

    async def purge_done(self, before: datetime) -> int:
        return await self._db.execute(
            "DELETE FROM job_runs WHERE done_at IS NOT NULL AND done_at < ?", (to_iso(before),)
        )
