"""Späye's calendar: one Späye per guild per day, and the monthly titles with their bonuses."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from datetime import date
from typing import Any

from bot.clock import Clock, from_iso, to_iso
from bot.engine import Game
from bot.storage.db import Database
from bot.storage.games import fetch_game, insert_game
from bot.storage.models import TITLES, MonthTitle, SpayeDay, StoredGame, Title

__all__ = ["DayAlreadyOpened", "MonthTitleStore", "SpayeDayStore"]


class DayAlreadyOpened(Exception):
    """The guild already had its Späye that day (even if it was voided)."""

    def __init__(self, day: SpayeDay) -> None:
        super().__init__(f"guild {day.guild_id} already had its Späye on {day.day.isoformat()}")
        self.day = day


def _day(row: sqlite3.Row) -> SpayeDay:
    return SpayeDay(
        guild_id=row["guild_id"],
        day=date.fromisoformat(row["day"]),
        game_id=row["game_id"],
        status=row["status"],
    )


class SpayeDayStore:
    """``spaye_days``: the UNIQUE (guild, day) key makes a second Späye that day impossible."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def open_day(
        self,
        guild_id: int,
        day: date,
        channel_id: int,
        game: Game,
        meta: Mapping[str, Any] | None = None,
    ) -> int:
        """Store the day's Späye and claim the day in one transaction; returns the game id.

        Raises :class:`DayAlreadyOpened` (nothing written) if the guild had one that day.
        """
        async with self._db.transaction() as conn:
            existing = await self._get(conn, guild_id, day)
            if existing is not None:
                raise DayAlreadyOpened(existing)
            game_id = await insert_game(
                conn,
                kind="spaye",
                guild_id=guild_id,
                channel_id=channel_id,
                game=game,
                meta=meta or {},
                now=to_iso(self._clock.now()),
            )
            await conn.execute(
                "INSERT INTO spaye_days (guild_id, day, game_id) VALUES (?, ?, ?)",
                (guild_id, day.isoformat(), game_id),
            )
            return game_id

    @staticmethod
    async def _get(conn: Any, guild_id: int, day: date) -> SpayeDay | None:
        async with conn.execute(
            "SELECT guild_id, day, game_id, status FROM spaye_days WHERE guild_id = ? AND day = ?",
            (guild_id, day.isoformat()),
        ) as cur:
            row = await cur.fetchone()
        return None if row is None else _day(row)

    async def get(self, guild_id: int, day: date) -> SpayeDay | None:
        """The guild's Späye of ``day`` (its calendar day in the guild's time zone), if any."""
        async with self._db.read() as conn:
            return await self._get(conn, guild_id, day)

    async def active(self) -> list[SpayeDay]:
        """Every Späye still running, in any guild (to re-arm closings at start-up)."""
        rows = await self._db.fetchall(
            "SELECT guild_id, day, game_id, status FROM spaye_days WHERE status = 'active'"
            " ORDER BY day, guild_id"
        )
        return [_day(row) for row in rows]

    async def finished_in_month(self, guild_id: int, month: str) -> list[StoredGame]:
        """The guild's finished (not voided) Späyes of ``month`` (``YYYY-MM``), oldest first."""
        return await self._in_month(guild_id, month, ("over",))

    async def closed_in_month(self, guild_id: int, month: str) -> list[StoredGame]:
        """The guild's finished *and voided* Späyes of ``month``, oldest first: a voided day
        scores nothing, but its späyins played (they are späyins of the month)."""
        return await self._in_month(guild_id, month, ("over", "voided"))

    async def _in_month(
        self, guild_id: int, month: str, statuses: tuple[str, ...]
    ) -> list[StoredGame]:
        rows = await self._db.fetchall(
            "SELECT game_id FROM spaye_days WHERE guild_id = ? AND status IN (?, ?)"
            " AND substr(day, 1, 7) = ? ORDER BY day",
            (guild_id, statuses[0], statuses[-1], month),
        )
        games = []
        async with self._db.read() as conn:
            for row in rows:
                stored = await fetch_game(conn, row["game_id"])
                if stored is not None:
                    games.append(stored)
        return games

    async def unsettled_months(self, job: str, through: str) -> list[tuple[int, str]]:
        """``(guild_id, month)`` pairs up to ``through`` (``YYYY-MM``) where the guild opened a
        Späye and ``scheduler_runs`` has no ``(f"{job}:{guild_id}", month)`` claim yet, oldest
        month first (the months whose end is still to be dealt with)."""
        rows = await self._db.fetchall(
            "SELECT DISTINCT d.guild_id, substr(d.day, 1, 7) AS month FROM spaye_days d"
            " WHERE substr(d.day, 1, 7) <= ? AND NOT EXISTS (SELECT 1 FROM scheduler_runs r"
            " WHERE r.job = ? || d.guild_id AND r.period = substr(d.day, 1, 7))"
            " ORDER BY month, d.guild_id",
            (through, f"{job}:"),
        )
        return [(int(row["guild_id"]), str(row["month"])) for row in rows]

    async def guilds_with_days(self, month: str) -> list[int]:
        """Guilds that opened at least one Späye in ``month``."""
        rows = await self._db.fetchall(
            "SELECT DISTINCT guild_id FROM spaye_days WHERE substr(day, 1, 7) = ?"
            " ORDER BY guild_id",
            (month,),
        )
        return [int(row["guild_id"]) for row in rows]


def _title(row: sqlite3.Row) -> MonthTitle:
    return MonthTitle(
        guild_id=row["guild_id"],
        month=row["month"],
        title=row["title"],
        user_id=row["user_id"],
        bonus_used_game_id=row["bonus_used_game_id"],
        announced=bool(row["announced"]),
        awarded_at=from_iso(row["awarded_at"]),
    )


_TITLE_COLUMNS = (
    "SELECT guild_id, month, title, user_id, bonus_used_game_id, announced, awarded_at"
    " FROM month_titles"
)


class MonthTitleStore:
    """``month_titles``: who holds Grand Späyin, Mastäye and Tikäo, and their bonus."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self._db = db
        self._clock = clock

    async def award(self, guild_id: int, month: str, title: Title, user_id: int) -> bool:
        """Give ``title`` of ``month`` to ``user_id``; ``False`` if it was already awarded."""
        if title not in TITLES:
            raise ValueError(f"unknown title {title!r}")
        changed = await self._db.execute(
            "INSERT OR IGNORE INTO month_titles (guild_id, month, title, user_id, awarded_at)"
            " VALUES (?, ?, ?, ?, ?)",
            (guild_id, month, title, user_id, to_iso(self._clock.now())),
        )
        return changed > 0

    async def of_month(self, guild_id: int, month: str) -> list[MonthTitle]:
        """The titles earned in ``month`` (their bonuses are for the month after)."""
        rows = await self._db.fetchall(
            f"{_TITLE_COLUMNS} WHERE guild_id = ? AND month = ? ORDER BY title",
            (guild_id, month),
        )
        return [_title(row) for row in rows]

    async def held_by(self, guild_id: int, month: str, user_id: int) -> list[MonthTitle]:
        """The titles ``user_id`` earned in ``month``."""
        rows = await self._db.fetchall(
            f"{_TITLE_COLUMNS} WHERE guild_id = ? AND month = ? AND user_id = ? ORDER BY title",
            (guild_id, month, user_id),
        )
        return [_title(row) for row in rows]

    async def use_bonus(self, guild_id: int, month: str, title: Title, game_id: int) -> bool:
        """Spend the bonus of ``title`` (earned in ``month``) in Späye ``game_id``.

        ``False`` when it was already spent. Call it from ``act(..., in_tx=...)`` so the bonus
        is spent in the same transaction as the move that uses it.
        """
        changed = await self._db.execute(
            "UPDATE month_titles SET bonus_used_game_id = ? WHERE guild_id = ? AND month = ?"
            " AND title = ? AND bonus_used_game_id IS NULL",
            (game_id, guild_id, month, title),
        )
        return changed > 0

    async def unannounced(self) -> list[MonthTitle]:
        """Titles awarded but not yet announced (an announcement failed or the bot stopped)."""
        rows = await self._db.fetchall(
            f"{_TITLE_COLUMNS} WHERE announced = 0 ORDER BY guild_id, month, title"
        )
        return [_title(row) for row in rows]

    async def mark_announced(self, guild_id: int, month: str) -> None:
        await self._db.execute(
            "UPDATE month_titles SET announced = 1 WHERE guild_id = ? AND month = ?",
            (guild_id, month),
        )
