"""Finished games' results (per-guild stats) and the log of periodic jobs done."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from bot.clock import Clock, from_iso, to_iso
from bot.storage.db import Database
from bot.storage.models import GameResult, Placements, PlayerStats

__all__ = ["ResultStore", "SchedulerRunStore"]


def _result(row: sqlite3.Row) -> GameResult:
    return GameResult(
        game_id=row["game_id"],
        guild_id=row["guild_id"],
        kind=row["kind"],
        user_id=row["user_id"],
        points=row["points"],
        won=bool(row["won"]),
        rank=row["rank"],
        rounds=row["rounds"],
        details=json.loads(row["details"]),
        finished_at=from_iso(row["finished_at"]),
    )


_COLUMNS = (
    "SELECT game_id, guild_id, kind, user_id, points, won, rank, rounds, details, finished_at"
    " FROM game_results"
)


def _period(sql: str, params: list[Any], since: datetime | None, until: datetime | None) -> str:
    if since is not None:
        sql += " AND finished_at >= ?"
        params.append(to_iso(since))
    if until is not None:
        sql += " AND finished_at < ?"
        params.append(to_iso(until))
    return sql


class ResultStore:
    """``game_results``, written by ``GameStore.act`` when a game ends."""

    def __init__(self, db: Database) -> None:
        self._db = db

    async def for_game(self, game_id: int) -> list[GameResult]:
        rows = await self._db.fetchall(
            f"{_COLUMNS} WHERE game_id = ? ORDER BY rank IS NULL, rank, user_id", (game_id,)
        )
        return [_result(row) for row in rows]

    async def rows(
        self,
        guild_id: int,
        kind: str,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
    ) -> list[GameResult]:
        """Every result line of ``kind`` in the guild, in order of finishing."""
        params: list[Any] = [guild_id, kind]
        sql = _period(f"{_COLUMNS} WHERE guild_id = ? AND kind = ?", params, since, until)
        rows = await self._db.fetchall(sql + " ORDER BY finished_at, game_id, user_id", params)
        return [_result(row) for row in rows]

    async def leaderboard(
        self,
        guild_id: int,
        kind: str,
        *,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int = 10,
    ) -> list[PlayerStats]:
        """Players by wins, then games played (ties by user id). Forgotten members (a
        negative stand-in id, :mod:`bot.storage.records`) are no players to rank."""
        params: list[Any] = [guild_id, kind]
        sql = _period(
            "SELECT user_id, COUNT(*) AS games, SUM(won) AS wins, SUM(points) AS points"
            " FROM game_results WHERE guild_id = ? AND kind = ? AND user_id > 0",
            params,
            since,
            until,
        )
        sql += " GROUP BY user_id ORDER BY wins DESC, games DESC, user_id LIMIT ?"
        params.append(limit)
        rows = await self._db.fetchall(sql, params)
        return [
            PlayerStats(
                user_id=row["user_id"], games=row["games"], wins=row["wins"], points=row["points"]
            )
            for row in rows
        ]

    async def player(self, guild_id: int, kind: str, user_id: int) -> PlayerStats:
        """One player's totals (zeros if they never finished a game of ``kind`` here)."""
        row = await self._db.fetchone(
            "SELECT COUNT(*) AS games, COALESCE(SUM(won), 0) AS wins,"
            " COALESCE(SUM(points), 0) AS points, COALESCE(SUM(rounds), 0) AS rounds"
            " FROM game_results WHERE guild_id = ? AND kind = ? AND user_id = ?",
            (guild_id, kind, user_id),
        )
        if row is None:
            return PlayerStats(user_id=user_id, games=0, wins=0, points=0)
        return PlayerStats(
            user_id=user_id,
            games=row["games"],
            wins=row["wins"],
            points=row["points"],
            rounds=row["rounds"],
        )

    async def guilds(self) -> list[int]:
        """Every guild with a finished game, by id."""
        rows = await self._db.fetchall(
            "SELECT DISTINCT guild_id FROM game_results ORDER BY guild_id"
        )
        return [row["guild_id"] for row in rows]

    async def placements(
        self, guild_id: int, user_id: int, kinds: Sequence[str]
    ) -> dict[str, Placements]:
        """One player's games of each of ``kinds`` by place (a kind they never finished a
        game of is left out)."""
        if not kinds:
            return {}
        marks = ", ".join("?" for _ in kinds)
        rows = await self._db.fetchall(
            "SELECT kind, rank, COUNT(*) AS games, COALESCE(SUM(won), 0) AS wins"  # noqa: S608
            f" FROM game_results WHERE guild_id = ? AND kind IN ({marks}) AND user_id = ?"
            " GROUP BY kind, rank ORDER BY kind, rank",
            (guild_id, *kinds, user_id),
        )
        found: dict[str, Placements] = {}
        for row in rows:
            was = found.get(row["kind"], Placements(games=0, wins=0, places={}))
            places = dict(was.places)
            if row["rank"] is not None:
                places[row["rank"]] = row["games"]
            found[row["kind"]] = Placements(
                games=was.games + row["games"], wins=was.wins + row["wins"], places=places
            )
        return found


class SchedulerRunStore:
    """``scheduler_runs``: claim a (job, period) once, so catch-ups never run a period twice.

    Claim inside the transaction that does the job's work, e.g. at a month end::

        async with bot.db.transaction():
            if await bot.store.runs.claim(f"spaye.titles:{guild_id}", "2025-03"):
                await bot.store.titles.award(...)
    """

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def claim(self, job: str, period: str) -> bool:
        """``True`` the first time for this (job, period), ``False`` ever after."""
        changed = await self._db.execute(
            "INSERT OR IGNORE INTO scheduler_runs (job, period, ran_at) VALUES (?, ?, ?)",
            (job, period, to_iso(self._clock.now())),
        )
        return changed > 0

    async def has_run(self, job: str, period: str) -> bool:
        row = await self._db.fetchone(
            "SELECT 1 FROM scheduler_runs WHERE job = ? AND period = ?", (job, period)
        )
        return row is not None

    async def last_period(self, job: str) -> str | None:
        """The greatest period claimed for ``job`` (periods sort as text: use ISO dates)."""
        value = await self._db.fetchval(
            "SELECT MAX(period) FROM scheduler_runs WHERE job = ?", (job,)
        )
        return None if value is None else str(value)
