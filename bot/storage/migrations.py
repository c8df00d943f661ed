"""Numbered schema migrations, applied at start-up in one transaction.

The schema version is SQLite's ``PRAGMA user_version``. To change the schema, append a
``Migration(n + 1, ...)``; never edit one that has shipped. The migrations are Python strings
(not ``.sql`` files) so they travel with the package whatever way it is installed.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

from bot.storage.db import Database

__all__ = ["MIGRATIONS", "Migration", "migrate", "split_statements"]


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


_INITIAL = """
-- One row per game of any kind. `state` is the engine's dumps(); `meta` is the cog's own
-- data (message ids, host, lobby); `version` grows by one on every save.
CREATE TABLE games (
    id          INTEGER PRIMARY KEY,
    kind        TEXT    NOT NULL,
    guild_id    INTEGER NOT NULL,
    channel_id  INTEGER NOT NULL,
    status      TEXT    NOT NULL DEFAULT 'active'
                        CHECK (status IN ('active', 'over', 'voided')),
    state       TEXT    NOT NULL CHECK (json_valid(state)),
    meta        TEXT    NOT NULL DEFAULT '{}'
                        CHECK (json_valid(meta) AND json_type(meta) = 'object'),
    version     INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
    created_at  TEXT    NOT NULL,
    updated_at  TEXT    NOT NULL
);
CREATE INDEX games_by_guild ON games (guild_id, kind, status);
CREATE INDEX games_by_channel ON games (channel_id, status);

-- Per-guild settings; a guild without a row uses the defaults. A NULL locale means
-- "the guild's preferred locale".
CREATE TABLE guild_settings (
    guild_id                  INTEGER PRIMARY KEY,
    timezone                  TEXT    NOT NULL DEFAULT 'UTC',
    spaye_close               TEXT    NOT NULL DEFAULT '23:59'
                                      CHECK (spaye_close GLOB '[0-2][0-9]:[0-5][0-9]'),
    announce_channel_id       INTEGER,
    challenge_expiry_minutes  INTEGER NOT NULL DEFAULT 10
                                      CHECK (challenge_expiry_minutes BETWEEN 1 AND 1440),
    committee_role_id         INTEGER,
    default_exercise          TEXT    NOT NULL DEFAULT 'push-ups',
    locale                    TEXT    CHECK (locale IN ('en', 'fr')),
    updated_at                TEXT    NOT NULL
);

-- Durable deadlines (a challenge expiring, a day closing). `due_at` is fixed-width UTC
-- ISO 8601 so text order is time order. Rescheduling a key replaces its row with a new
-- id (AUTOINCREMENT never reuses one), so a run marks done only the row it ran.
CREATE TABLE timers (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    key         TEXT    NOT NULL UNIQUE,
    kind        TEXT    NOT NULL,
    due_at      TEXT    NOT NULL,
    payload     TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(payload)),
    done        INTEGER NOT NULL DEFAULT 0 CHECK (done IN (0, 1)),
    attempts    INTEGER NOT NULL DEFAULT 0,
    last_error  TEXT,
    created_at  TEXT    NOT NULL,
    done_at     TEXT
);
CREATE INDEX timers_pending ON timers (due_at) WHERE done = 0;

-- Private content that could not be sent as a DM (DMs closed), shown ephemerally on the
-- user's next interaction. The row stays after delivery (pending = 0) so that the
-- "your DMs are closed" notice is given once per key.
CREATE TABLE pending_private (
    user_id     INTEGER NOT NULL,
    key         TEXT    NOT NULL,
    content     TEXT,
    embeds      TEXT    CHECK (embeds IS NULL OR json_valid(embeds)),
    pending     INTEGER NOT NULL DEFAULT 1 CHECK (pending IN (0, 1)),
    notified    INTEGER NOT NULL DEFAULT 0 CHECK (notified IN (0, 1)),
    locale      TEXT,
    updated_at  TEXT    NOT NULL,
    PRIMARY KEY (user_id, key)
) WITHOUT ROWID;

-- At most one Späye per guild per calendar day (in the guild's time zone), even voided.
CREATE TABLE spaye_days (
    guild_id  INTEGER NOT NULL,
    day       TEXT    NOT NULL
                      CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]-[0-3][0-9]'),
    game_id   INTEGER NOT NULL UNIQUE REFERENCES games (id),
    status    TEXT    NOT NULL DEFAULT 'active'
                      CHECK (status IN ('active', 'over', 'voided')),
    PRIMARY KEY (guild_id, day)
);

-- Monthly Späye titles; `month` is the month they were earned in, the bonus is for the
-- next one. `bonus_used_game_id` is the Späye where the bonus was spent.
CREATE TABLE month_titles (
    guild_id            INTEGER NOT NULL,
    month               TEXT    NOT NULL CHECK (month GLOB '[0-9][0-9][0-9][0-9]-[0-1][0-9]'),
    title               TEXT    NOT NULL CHECK (title IN ('grand_spayin', 'mastaye', 'tikao')),
    user_id             INTEGER NOT NULL,
    bonus_used_game_id  INTEGER REFERENCES games (id),
    announced           INTEGER NOT NULL DEFAULT 0 CHECK (announced IN (0, 1)),
    awarded_at          TEXT    NOT NULL,
    PRIMARY KEY (guild_id, month, title)
);
CREATE INDEX month_titles_by_user ON month_titles (guild_id, user_id);
CREATE INDEX month_titles_by_bonus_game ON month_titles (bonus_used_game_id)
    WHERE bonus_used_game_id IS NOT NULL;

-- One row per player of a finished game, written in the transaction that ends it.
CREATE TABLE game_results (
    game_id      INTEGER NOT NULL REFERENCES games (id) ON DELETE CASCADE,
    guild_id     INTEGER NOT NULL,
    kind         TEXT    NOT NULL,
    user_id      INTEGER NOT NULL,
    points       INTEGER NOT NULL DEFAULT 0,
    won          INTEGER NOT NULL DEFAULT 0 CHECK (won IN (0, 1)),
    rank         INTEGER CHECK (rank IS NULL OR rank >= 1),
    rounds       INTEGER NOT NULL DEFAULT 0,
    details      TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(details)),
    finished_at  TEXT    NOT NULL,
    PRIMARY KEY (game_id, user_id)
);
CREATE INDEX game_results_stats ON game_results (guild_id, kind, user_id);

-- Periodic jobs done, so a catch-up after downtime runs each period once.
CREATE TABLE scheduler_runs (
    job     TEXT NOT NULL,
    period  TEXT NOT NULL,
    ran_at  TEXT NOT NULL,
    PRIMARY KEY (job, period)
) WITHOUT ROWID;

-- A game's status is the truth: its Späye day follows it, and a voided game scores nothing
-- and gives back any title bonus spent in it.
CREATE TRIGGER games_status_changed
AFTER UPDATE OF status ON games
WHEN NEW.status <> OLD.status
BEGIN
    UPDATE spaye_days SET status = NEW.status WHERE game_id = NEW.id;
    UPDATE month_titles SET bonus_used_game_id = NULL
        WHERE NEW.status = 'voided' AND bonus_used_game_id = NEW.id;
    DELETE FROM game_results WHERE NEW.status = 'voided' AND game_id = NEW.id;
END;
"""

_GAME_SETTINGS = """
-- Per-guild settings of one game (e.g. Späye's reminder and automatic opening), as a JSON
-- object each game validates with its own model; a guild without a row uses the defaults.
CREATE TABLE game_settings (
    guild_id    INTEGER NOT NULL,
    game        TEXT    NOT NULL,
    settings    TEXT    NOT NULL DEFAULT '{}'
                        CHECK (json_valid(settings) AND json_type(settings) = 'object'),
    updated_at  TEXT    NOT NULL,
    PRIMARY KEY (guild_id, game)
) WITHOUT ROWID;
"""

_SEATED_LOBBIES = """
-- Lobbies are one engine game for every seated game (kind 'lobby', the game it gathers
-- players for in its state); Papayoo's own lobbies become such lobbies.
UPDATE games
   SET kind = 'lobby',
       state = json_set(state, '$.kind', 'lobby', '$.game', 'papayoo', '$.computers', json('{}'))
 WHERE kind = 'papayoo_lobby';
"""

_DM_CHANNELS = """
-- The DM channel of each user the bot has written to: a hand or a notice needs no
-- channel lookup on Discord once it is known, across restarts.
CREATE TABLE dm_channels (
    user_id     INTEGER PRIMARY KEY,
    channel_id  INTEGER NOT NULL,
    updated_at  TEXT    NOT NULL
);
"""

_SPAYE_SETTINGS = """
-- Each game's settings are its own: Späye's closing time, challenge expiry, committee role,
-- default exercise and announcement channel move from guild_settings into its JSON object
-- in game_settings (merged with what Späye kept there already), every server's values kept.
INSERT INTO game_settings (guild_id, game, settings, updated_at)
SELECT guild_id, 'spaye',
       json_object('closing_time', spaye_close,
                   'challenge_expiry_minutes', challenge_expiry_minutes,
                   'committee_role_id', committee_role_id,
                   'default_exercise', default_exercise,
                   'announce_channel_id', announce_channel_id),
       updated_at
  FROM guild_settings WHERE true
    ON CONFLICT (guild_id, game) DO UPDATE
   SET settings = json_patch(game_settings.settings, excluded.settings);
ALTER TABLE guild_settings DROP COLUMN spaye_close;
ALTER TABLE guild_settings DROP COLUMN challenge_expiry_minutes;
ALTER TABLE guild_settings DROP COLUMN committee_role_id;
ALTER TABLE guild_settings DROP COLUMN default_exercise;
ALTER TABLE guild_settings DROP COLUMN announce_channel_id;
"""

_GAME_NUMBERS = """
-- A number per server and kind, the one players see: the 4th Papayoo of a server is
-- Papayoo #4 whatever other games were played between (the id stays the database's, in
-- custom ids and links). Existing games are numbered in the order they were created.
ALTER TABLE games ADD COLUMN number INTEGER NOT NULL DEFAULT 0;
UPDATE games
   SET number = (SELECT count(*) FROM games AS g
                  WHERE g.guild_id = games.guild_id AND g.kind = games.kind AND g.id <= games.id)
 WHERE true;
CREATE UNIQUE INDEX games_by_number ON games (guild_id, kind, number);
"""

_EXACTLY_ONCE = """
-- Several processes on one database (the bot as shards). A due timer runs in the one
-- process whose claim (a conditional UPDATE) took it: `claimed_by` is that process's token,
-- `lease_until` (UTC ISO 8601, like `due_at`) the instant past which the claim is void, so
-- a timer held by a process that died is taken by another once its lease has passed.
ALTER TABLE timers ADD COLUMN claimed_by TEXT;
ALTER TABLE timers ADD COLUMN lease_until TEXT;

-- Each fire of a periodic job (its id and the instant it was scheduled for) runs in one
-- process: the one whose INSERT made the row. `done_at` is set when it has run; a row
-- still not done past `lease_until` (its process died) is taken over by another.
CREATE TABLE job_runs (
    job_id       TEXT NOT NULL,
    fire_time    TEXT NOT NULL,
    claimed_by   TEXT NOT NULL,
    lease_until  TEXT NOT NULL,
    done_at      TEXT,
    PRIMARY KEY (job_id, fire_time)
);
CREATE INDEX job_runs_unfinished ON job_runs (lease_until) WHERE done_at IS NULL;
"""

_NUMBER_COUNTERS = """
-- The last number given per server and kind (see migration 6): a new game takes its number
-- by bumping its row (an upsert, which holds the row until the commit), not by reading
-- max(number) from games, which two processes on PostgreSQL could read at once. The
-- counters start at the numbers already given.
CREATE TABLE game_numbers (
    guild_id  INTEGER NOT NULL,
    kind      TEXT    NOT NULL,
    last      INTEGER NOT NULL,
    PRIMARY KEY (guild_id, kind)
);
INSERT INTO game_numbers (guild_id, kind, last)
SELECT guild_id, kind, max(number) FROM games GROUP BY guild_id, kind;
"""

_RATINGS = """
-- Ratings (bot.storage.ratings). `rated_games` is the marker of a finished game the
-- ratings have seen, once (its primary key): whether it was rated, in which season, in
-- which order (`seq`, per server: the order of the live updates, replayed by the rebuild),
-- and who was left out (`excluded`, members out of the ratings then) or finished last for
-- leaving (`leavers`). `ratings` is each member's standing per scope (a game kind or
-- 'overall') and season; `rating_points` what each rated game made of it (the history).
-- `rating_seq` hands out `seq`: its upsert holds the server's row until the commit, so the
-- updates of one server are one after the other, also across processes.
CREATE TABLE rated_games (
    game_id   INTEGER PRIMARY KEY,
    guild_id  INTEGER NOT NULL,
    seq       INTEGER NOT NULL,
    kind      TEXT    NOT NULL,
    season    TEXT    NOT NULL,
    rated     INTEGER NOT NULL CHECK (rated IN (0, 1)),
    reason    TEXT    NOT NULL DEFAULT '',
    excluded  TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(excluded)),
    leavers   TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(leavers)),
    rated_at  TEXT    NOT NULL
);
CREATE UNIQUE INDEX rated_games_in_order ON rated_games (guild_id, seq);
CREATE INDEX rated_games_by_season ON rated_games (guild_id, season, rated);

CREATE TABLE rating_seq (
    guild_id  INTEGER PRIMARY KEY,
    last      INTEGER NOT NULL
);

CREATE TABLE ratings (
    guild_id    INTEGER NOT NULL,
    scope       TEXT    NOT NULL,
    season      TEXT    NOT NULL,
    user_id     INTEGER NOT NULL,
    mu          REAL    NOT NULL,
    sigma       REAL    NOT NULL,
    rating      INTEGER NOT NULL,
    games       INTEGER NOT NULL CHECK (games >= 0),
    wins        INTEGER NOT NULL CHECK (wins >= 0),
    career      INTEGER NOT NULL CHECK (career >= 0),
    last_seq    INTEGER NOT NULL,
    updated_at  TEXT    NOT NULL,
    PRIMARY KEY (guild_id, scope, season, user_id)
);
CREATE INDEX ratings_board ON ratings (guild_id, scope, season, rating DESC, games DESC, user_id);
CREATE INDEX ratings_by_user ON ratings (guild_id, user_id, scope, last_seq);

CREATE TABLE rating_points (
    game_id   INTEGER NOT NULL,
    scope     TEXT    NOT NULL,
    user_id   INTEGER NOT NULL,
    guild_id  INTEGER NOT NULL,
    season    TEXT    NOT NULL,
    seq       INTEGER NOT NULL,
    place     INTEGER NOT NULL CHECK (place >= 1),
    mu        REAL    NOT NULL,
    sigma     REAL    NOT NULL,
    rating    INTEGER NOT NULL,
    at        TEXT    NOT NULL,
    PRIMARY KEY (game_id, scope, user_id)
);
CREATE INDEX rating_points_by_user ON rating_points (guild_id, user_id, scope, seq);

-- Members who keep out of the ratings and boards (since `since`).
CREATE TABLE rating_opt_outs (
    guild_id  INTEGER NOT NULL,
    user_id   INTEGER NOT NULL,
    since     TEXT    NOT NULL,
    PRIMARY KEY (guild_id, user_id)
);
"""

_RESULTS_BY_PLAYER = """
-- A member's finished games (a profile's head-to-head: every game two members both played,
-- all kinds or one) found by the member, not by reading every result of the server.
CREATE INDEX game_results_by_player ON game_results (guild_id, user_id, kind);
"""

_NIGHTS = """
-- Game nights (/gamenight): one row per night; `version` grows with every update (the
-- optimistic guard of NightStore.update). `night_rsvps` holds each member's answer and
-- wished games, `night_sent` every notice sent once (reminders, call-off, seating ping:
-- its primary key is the exactly-once guard), `night_tables` and `night_seats` the tables
-- opened at the hour and who sits (or waits) where.
CREATE TABLE nights (
    id                INTEGER PRIMARY KEY AUTOINCREMENT,
    guild_id          INTEGER NOT NULL,
    channel_id        INTEGER NOT NULL,
    title             TEXT    NOT NULL,
    starts_at         TEXT    NOT NULL,
    planner_id        INTEGER NOT NULL,
    games             TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(games)),
    status            TEXT    NOT NULL DEFAULT 'planned'
                              CHECK (status IN ('planned', 'polling', 'seating', 'playing',
                                                'closed', 'cancelled', 'called_off')),
    event_id          INTEGER,
    rsvp_message_id   INTEGER,
    board_message_id  INTEGER,
    min_players       INTEGER NOT NULL DEFAULT 0 CHECK (min_players >= 0),
    calloff_minutes   INTEGER NOT NULL DEFAULT 0 CHECK (calloff_minutes >= 0),
    calloff_policy    TEXT    NOT NULL DEFAULT 'cancel' CHECK (calloff_policy IN ('cancel', 'keep')),
    allow_computers   INTEGER NOT NULL DEFAULT 0 CHECK (allow_computers IN (0, 1)),
    weekly            INTEGER NOT NULL DEFAULT 0 CHECK (weekly IN (0, 1)),
    meta              TEXT    NOT NULL DEFAULT '{}' CHECK (json_valid(meta)),
    version           INTEGER NOT NULL DEFAULT 1 CHECK (version >= 1),
    created_at        TEXT    NOT NULL,
    updated_at        TEXT    NOT NULL
);
CREATE INDEX nights_upcoming ON nights (guild_id, status, starts_at);
CREATE INDEX nights_by_event ON nights (guild_id, event_id);

CREATE TABLE night_rsvps (
    night_id  INTEGER NOT NULL REFERENCES nights (id) ON DELETE CASCADE,
    user_id   INTEGER NOT NULL,
    answer    TEXT    NOT NULL CHECK (answer IN ('in', 'maybe', 'no')),
    games     TEXT    NOT NULL DEFAULT '[]' CHECK (json_valid(games)),
    at        TEXT    NOT NULL,
    PRIMARY KEY (night_id, user_id)
);

CREATE TABLE night_sent (
    night_id  INTEGER NOT NULL REFERENCES nights (id) ON DELETE CASCADE,
    what      TEXT    NOT NULL,
    user_id   INTEGER NOT NULL,
    at        TEXT    NOT NULL,
    PRIMARY KEY (night_id, what, user_id)
);

CREATE TABLE night_tables (
    night_id  INTEGER NOT NULL REFERENCES nights (id) ON DELETE CASCADE,
    table_no  INTEGER NOT NULL CHECK (table_no >= 1),
    kind      TEXT    NOT NULL,
    game_id   INTEGER,
    thread_id INTEGER,
    PRIMARY KEY (night_id, table_no)
);
CREATE INDEX night_tables_by_game ON night_tables (game_id);

CREATE TABLE night_seats (
    night_id  INTEGER NOT NULL REFERENCES nights (id) ON DELETE CASCADE,
    user_id   INTEGER NOT NULL,
    table_no  INTEGER,
    status    TEXT    NOT NULL CHECK (status IN ('seated', 'waiting', 'left')),
    at        TEXT    NOT NULL,
    PRIMARY KEY (night_id, user_id)
);
"""

_RSVP_LOCALE = """
-- The language of the member's last answer (their Discord client's), for what the bot then
-- sends them alone (the reminders); NULL: answered without an interaction (the event's
-- Interested), and the server's language is used.
ALTER TABLE night_rsvps ADD COLUMN locale TEXT;
"""

MIGRATIONS: tuple[Migration, ...] = (
    Migration(1, "initial schema", _INITIAL),
    Migration(2, "per-game guild settings", _GAME_SETTINGS),
    Migration(3, "one lobby kind for every seated game", _SEATED_LOBBIES),
    Migration(4, "DM channels known per user", _DM_CHANNELS),
    Migration(5, "Späye's settings in its own per-game settings", _SPAYE_SETTINGS),
    Migration(6, "a game number per server and kind", _GAME_NUMBERS),
    Migration(7, "timers and periodic jobs claimed by one process", _EXACTLY_ONCE),
    Migration(8, "a counter of game numbers per server and kind", _NUMBER_COUNTERS),
    Migration(9, "ratings per server, scope and season", _RATINGS),
    Migration(10, "a member's finished games found by the member", _RESULTS_BY_PLAYER),
    Migration(11, "game nights, their answers, notices, tables and seats", _NIGHTS),
    Migration(12, "the language of a member's answer to a night", _RSVP_LOCALE),
)


def split_statements(sql: str) -> list[str]:
    """Cut a script into complete statements (triggers included), dropping comments-only bits."""
    statements: list[str] = []
    buffer = ""
    for line in sql.splitlines(keepends=True):
        if not buffer.strip() and (not line.strip() or line.strip().startswith("--")):
            continue
        buffer += line
        if sqlite3.complete_statement(buffer):
            statements.append(buffer.strip())
            buffer = ""
    if buffer.strip():
        raise ValueError(f"incomplete SQL statement: {buffer.strip()[:60]!r}")
    return statements


async def migrate(db: Database, migrations: tuple[Migration, ...] = MIGRATIONS) -> int:
    """Bring the schema to the latest version in one transaction; returns that version.

    Running it again is a no-op. A database newer than this code is refused.
    """
    latest = max((m.version for m in migrations), default=0)
    async with db.transaction() as conn:
        async with conn.execute("PRAGMA user_version") as cur:
            row = await cur.fetchone()
        current = int(row[0]) if row else 0
        if current > latest:
            raise RuntimeError(
                f"the database is at schema version {current}, newer than this bot ({latest})"
            )
        for migration in sorted(migrations, key=lambda m: m.version):
            if migration.version <= current:
                continue
            for statement in split_statements(migration.sql):
                await conn.execute(statement)
            await conn.execute(f"PRAGMA user_version = {int(migration.version)}")
        return max(current, latest)
