"""Persistence: every SQL statement of the bot lives in this package.

``Store`` gathers the repositories; the bot exposes it as ``bot.store`` and the connection
as ``bot.db``::

    bot.store.games      GameStore          games + act() (the one way a move is saved)
    bot.store.settings   GuildSettingsStore per-guild settings
    bot.store.game_settings  GameSettingsStore  per-guild settings of one game (JSON)
    bot.store.timers     TimerStore         durable deadlines (use bot.timers to schedule)
    bot.store.private    PrivateStore       DMs that could not be delivered
    bot.store.days       SpayeDayStore      one Späye per guild per day
    bot.store.titles     MonthTitleStore    monthly titles and their bonuses
    bot.store.results    ResultStore        finished games' lines, per-guild stats
    bot.store.runs       SchedulerRunStore  periodic jobs done (catch-up runs once)
    bot.store.ratings    RatingStore        ratings per scope and season, opt-outs, rebuild
    bot.store.nights     NightStore         game nights, answers, notices sent once, tables

Backends: SQLite (:class:`Database`, the default, ``DATABASE_PATH``) or PostgreSQL
(:class:`bot.storage.postgres.PostgresDatabase`, when ``DATABASE_URL=postgresql://...``;
needs the ``postgres`` extra). :func:`make_database` picks one from the settings. The
repositories' SQL is SQLite's; :mod:`bot.storage.dialect` translates it for PostgreSQL, and
:mod:`bot.storage.pg_schema` holds PostgreSQL's schema and migration twins.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bot.clock import Clock
from bot.storage.db import Database, DatabaseClosed, DatabaseLost
from bot.storage.game_settings import GameSettingsStore
from bot.storage.games import (
    GameClosed,
    GameNotFound,
    GameStore,
    KindHooks,
    StaleGame,
    default_results,
    default_status,
)
from bot.storage.guilds import SETTING_FIELDS, GuildSettingsStore
from bot.storage.migrations import MIGRATIONS, migrate
from bot.storage.models import (
    TITLES,
    ActOutcome,
    GameResult,
    GameStatus,
    GuildSettings,
    MonthTitle,
    PendingPrivate,
    PlayerResult,
    PlayerStats,
    SpayeDay,
    StoredGame,
    Timer,
    Title,
)
from bot.storage.nights import NightStore, StaleNight
from bot.storage.private import PrivateStore
from bot.storage.ratings import HeadToHead, RatingPoint, RatingRow, RatingStore, RebuildReport
from bot.storage.results import ResultStore, SchedulerRunStore
from bot.storage.spaye import DayAlreadyOpened, MonthTitleStore, SpayeDayStore
from bot.storage.timers import TimerStore

if TYPE_CHECKING:
    from bot.settings import Settings

__all__ = [
    "MIGRATIONS",
    "SETTING_FIELDS",
    "TITLES",
    "ActOutcome",
    "Database",
    "DatabaseClosed",
    "DatabaseLost",
    "DayAlreadyOpened",
    "GameClosed",
    "GameNotFound",
    "GameResult",
    "GameSettingsStore",
    "GameStatus",
    "GameStore",
    "GuildSettings",
    "GuildSettingsStore",
    "HeadToHead",
    "KindHooks",
    "MonthTitle",
    "MonthTitleStore",
    "NightStore",
    "PendingPrivate",
    "PlayerResult",
    "PlayerStats",
    "PrivateStore",
    "RatingPoint",
    "RatingRow",
    "RatingStore",
    "RebuildReport",
    "ResultStore",
    "SchedulerRunStore",
    "SpayeDay",
    "SpayeDayStore",
    "StaleGame",
    "StaleNight",
    "Store",
    "StoredGame",
    "Timer",
    "TimerStore",
    "Title",
    "default_results",
    "default_status",
    "is_postgres",
    "make_database",
    "migrate",
]


def make_database(settings: Settings) -> Database:
    """PostgreSQL when ``DATABASE_URL`` is set, else SQLite at ``DATABASE_PATH``."""
    url = settings.database_url_value
    if url is None:
        return Database(settings.database_path)
    from bot.storage.postgres import PostgresDatabase  # asyncpg only when it is used

    return PostgresDatabase(url)


def is_postgres(db: Database) -> bool:
    return getattr(db, "dialect", "sqlite") == "postgresql"


class Store:
    """All repositories over one :class:`Database`."""

    def __init__(self, db: Database, clock: Clock) -> None:
        self.db = db
        self.games = GameStore(db, clock)
        self.settings = GuildSettingsStore(db, clock)
        self.game_settings = GameSettingsStore(db, clock)
        self.timers = TimerStore(db, clock)
        self.private = PrivateStore(db, clock)
        self.days = SpayeDayStore(db, clock)
        self.titles = MonthTitleStore(db, clock)
        self.results = ResultStore(db)
        self.runs = SchedulerRunStore(db, clock)
        self.ratings = RatingStore(db, clock, self.settings, self.game_settings)
        self.games.rate = self.ratings.record
        self.nights = NightStore(db, clock)

    async def open(self) -> int:
        """Open the database and migrate it; returns the schema version."""
        await self.db.open()
        if is_postgres(self.db):
            from bot.storage.pg_schema import migrate_postgres
            from bot.storage.postgres import PostgresDatabase

            if isinstance(self.db, PostgresDatabase):
                return await migrate_postgres(self.db)
        return await migrate(self.db)

    async def close(self) -> None:
        await self.db.close()
