"""PostgreSQL as the second backend (``DATABASE_URL``), on a throwaway server.

- the storage tests of test_storage.py, test_game_settings.py, test_timers.py,
  test_limits_storage.py, test_ratings_storage.py and test_nights_storage.py run again
  here, unchanged, with their ``store`` on PostgreSQL (those about SQLite itself, its
  pragmas, files and migrations, are left out: :data:`SQLITE_ONLY`);
- whole Papayoo games through the fake Discord, on PostgreSQL;
- the SQL translation (no server needed), the errors at start-up, ``copy-database``.

The server (``postgres_server`` in tests/conftest.py) is started once per session when the
PostgreSQL binaries are there; without them these tests are skipped and say why.
"""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import AsyncIterator
from datetime import date, timedelta
from pathlib import Path

import pytest

import tests.bot.test_ratings_storage as ratings_tests
import tests.cogs.test_papayoo as papayoo_tests
from bot.clock import FakeClock
from bot.engine import SYSTEM
from bot.settings import Settings
from bot.storage import MIGRATIONS, Database, PlayerResult, Store, make_database
from bot.storage.copy import copy_database
from bot.storage.dialect import translate
from bot.storage.migrations import Migration
from bot.storage.pg_schema import PG_BASELINE, PG_MIGRATIONS, TABLES, missing_twins
from tests.bot import (
    test_game_settings,
    test_limits_storage,
    test_nights_storage,
    test_ratings_storage,
    test_storage,
    test_timers,
)
from tests.bot.conftest import new_counter
from tests.bot.test_ratings_storage import ranked_kind
from tests.bot.test_storage import FakeSpaye, spaye_kind
from tests.bot.test_timers import timers
from tests.cogs.conftest import _per_route_buckets_off_at_machine_speed, seated_pace
from tests.cogs.papayoo_support import COGS
from tests.cogs.test_papayoo import same_deal
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.usefixtures("counter_kind")

__fixtures__ = (
    spaye_kind,
    timers,
    same_deal,
    seated_pace,
    _per_route_buckets_off_at_machine_speed,
    ranked_kind,
)
"""Fixtures of other files, for the tests taken from them (the cog tests' pace included)."""

ROOT = Path(__file__).resolve().parents[2]


# -- the storage tests, again, on PostgreSQL ---------------------------------------------------

SQLITE_ONLY = {
    "test_migrations_create_tables_and_record_version",  # sqlite_master
    "test_migrations_are_idempotent",  # migrate() is SQLite's (twin: test below)
    "test_pragmas",
    "test_failed_migration_leaves_nothing",  # a SQLite file (twin: test below)
    "test_newer_database_is_refused",  # PRAGMA user_version (twin: test below)
    "test_state_survives_restart",  # reopens a SQLite file (twin: test below)
    "test_closed_database_refuses",
    "test_spaye_settings_move_out_of_guild_settings_with_their_values",  # SQLite migration 5
    "test_games_already_stored_are_numbered_by_the_migration",  # SQLite migration 6
    "test_number_counters_start_at_the_numbers_already_given",  # SQLite migration 8 (twin below)
    "test_overdue_timer_fires_after_restart",  # reopens a SQLite file (twin: test below)
}
"""Tests about SQLite itself: its pragmas, its files, its data migrations."""

for _module in (
    test_storage,
    test_game_settings,
    test_timers,
    test_limits_storage,
    test_ratings_storage,
    test_nights_storage,
):
    for _name, _test in vars(_module).items():
        if _name.startswith("test_") and callable(_test) and _name not in SQLITE_ONLY:
            _params = getattr(_test, "__code__", None)
            if _params is not None and "db_path" in _params.co_varnames[: _params.co_argcount]:
                continue
            globals()[f"{_name}_on_pg"] = _test
del _module, _name, _test


async def pg_store(url: str, clock: FakeClock) -> Store:
    st = Store(make_database(Settings(database_url=url)), clock)  # type: ignore[call-arg]
    await st.open()
    return st


@pytest.fixture
async def store(postgres_url: str, clock: FakeClock) -> AsyncIterator[Store]:
    st = await pg_store(postgres_url, clock)
    try:
        yield st
    finally:
        await st.close()


# -- PostgreSQL's own schema and migrations ----------------------------------------------------


async def test_schema_has_every_table_and_the_version(store: Store) -> None:
    tables = set(await store.db.table_names())  # type: ignore[attr-defined]
    assert tables == {*TABLES, "schema_version"}
    assert await store.db.pragma("user_version") == max(m.version for m in MIGRATIONS)


def test_every_sqlite_migration_has_its_postgresql_twin() -> None:
    assert missing_twins() == [], (
        "add the PostgreSQL twin of each to PG_MIGRATIONS in bot/storage/pg_schema.py"
    )
    assert max(m.version for m in PG_MIGRATIONS) == max(m.version for m in MIGRATIONS)


def test_a_migration_without_twin_is_named() -> None:
    later = (*MIGRATIONS, Migration(PG_BASELINE + 50, "later", "SELECT 1;"))
    assert [m.version for m in missing_twins(later)] == [PG_BASELINE + 50]


async def test_migrations_are_idempotent_and_a_newer_database_is_refused(
    postgres_url: str, clock: FakeClock
) -> None:
    from bot.storage.pg_schema import migrate_postgres

    st = await pg_store(postgres_url, clock)
    try:
        version = await st.db.pragma("user_version")
        assert await migrate_postgres(st.db) == version  # type: ignore[arg-type]
        assert await st.db.pragma("user_version") == version
        await st.db.execute("UPDATE schema_version SET version = 999")
        with pytest.raises(RuntimeError, match="newer"):
            await migrate_postgres(st.db)  # type: ignore[arg-type]
    finally:
        await st.close()


async def test_a_failed_migration_leaves_nothing(postgres_url: str, clock: FakeClock) -> None:
    from bot.storage.pg_schema import migrate_postgres

    db = make_database(Settings(database_url=postgres_url))  # type: ignore[call-arg]
    await db.open()
    broken = (
        *PG_MIGRATIONS,
        Migration(PG_BASELINE + 50, "broken", "CREATE TABLE x (a int); NOPE;"),
    )
    with pytest.raises(Exception, match="syntax"):
        await migrate_postgres(db, broken, broken)  # type: ignore[arg-type]
    assert await db.pragma("user_version") == 0
    assert await db.table_names() == []  # type: ignore[attr-defined]
    await db.close()


async def test_state_and_timers_survive_a_restart(postgres_url: str, clock: FakeClock) -> None:
    first = await pg_store(postgres_url, clock)
    game_id = await first.games.create("counter", 1, 10, new_counter())
    await first.games.act(game_id, "111", {"type": "inc"})
    await first.timers.put("x", clock.now() + timedelta(minutes=1), {"a": 1}, "k1")
    await first.close()
    second = await pg_store(postgres_url, clock)
    try:
        stored = await second.games.require(game_id)
        assert stored.version == 2
        assert stored.game.to_dict()["total"] == 1  # type: ignore[attr-defined]
        clock.advance(timedelta(minutes=2))
        assert [t.key for t in await second.timers.due(clock.now())] == ["k1"]
    finally:
        await second.close()


# -- the repositories' key operations ------------------------------------------------------------


@pytest.mark.usefixtures("spaye_kind")
async def test_key_operations(store: Store, clock: FakeClock) -> None:
    big = 1_234_567_890_123_456_789  # a Discord snowflake does not fit 32 bits
    game_id = await store.games.create("counter", big, big + 1, new_counter(), {"m": 1})
    stored = await store.games.require(game_id)
    assert (stored.guild_id, stored.channel_id, stored.number) == (big, big + 1, 1)
    await store.games.act(game_id, "111", {"type": "inc"})
    # Another process saves the game: the cached copy is stale, act() reloads and retries.
    await store.db.execute("UPDATE games SET version = version + 1 WHERE id = ?", (game_id,))
    outcome = await store.games.act(game_id, "222", {"type": "inc"})
    assert outcome.game.version == 4
    assert [g.id for g in await store.games.find(guild_id=big)] == [game_id]
    assert (await store.games.by_number(big, "counter", 1)).id == game_id  # type: ignore[union-attr]
    await store.games.act(game_id, "111", {"type": "inc"})
    assert (await store.games.require(game_id)).status == "over"
    lines = await store.results.for_game(game_id)
    assert [(r.user_id, r.won, r.rank) for r in lines] == [(111, True, 1), (222, False, 2)]
    board = await store.results.leaderboard(big, "counter")
    assert [(p.user_id, p.wins, p.games) for p in board] == [(111, 1, 1), (222, 0, 1)]
    assert (await store.results.player(big, "counter", 111)).points == 1

    # Späye days, titles and the month's runs (INSERT OR IGNORE, substr, ? || column).
    day = date(2025, 3, 14)
    spaye = await store.days.open_day(big, day, 10, FakeSpaye(["111", "222"], 2))
    assert [d.game_id for d in await store.days.active()] == [spaye]
    assert await store.titles.award(big, "2025-03", "tikao", 111)
    assert not await store.titles.award(big, "2025-03", "tikao", 222)
    assert await store.titles.use_bonus(big, "2025-03", "tikao", spaye)
    assert await store.days.unsettled_months("titles", "2025-03") == [(big, "2025-03")]
    assert await store.runs.claim(f"titles:{big}", "2025-03")
    assert not await store.runs.claim(f"titles:{big}", "2025-03")
    assert await store.days.unsettled_months("titles", "2025-03") == []
    await store.games.act(spaye, SYSTEM, {"type": "void"})
    assert (await store.days.get(big, day)).status == "voided"  # type: ignore[union-attr]
    assert (await store.titles.of_month(big, "2025-03"))[0].bonus_used_game_id is None

    # Settings, private messages, timers.
    await store.settings.update(big, {"timezone": "Europe/Paris", "locale": "fr"})
    assert (await store.settings.get(big)).locale == "fr"
    await store.game_settings.update(big, "spaye", {"x": 1})
    assert await store.game_settings.guilds("spaye") == {big: {"x": 1}}
    await store.private.put(big, "hand", "cards", [{"title": "t"}])
    assert await store.private.has_pending(big)
    await store.private.remember_dm(big, big + 5)
    assert await store.private.dm_channel(big) == big + 5
    assert await store.private.forget_user(big) == 1
    await store.timers.put("k", clock.now(), {"a": 1}, "t1")
    due = await store.timers.due(clock.now())
    assert [t.key for t in due] == ["t1"]
    assert await store.timers.mark_done(due[0].id)
    assert not await store.timers.mark_done(due[0].id)


async def test_the_game_number_race_is_held_by_the_lock(store: Store) -> None:
    ids = await asyncio.gather(
        *(store.games.create("counter", 7, 10, new_counter()) for _ in range(20))
    )
    numbers = sorted([(await store.games.require(i)).number for i in ids])
    assert numbers == list(range(1, 21))


async def test_the_game_number_race_between_two_processes(
    postgres_url: str, clock: FakeClock
) -> None:
    """Two processes (two database objects, each with its own writer and lock) creating games
    in one server and kind at once: the counter row's lock gives each its own number."""
    first = await pg_store(postgres_url, clock)
    second = await pg_store(postgres_url, clock)
    try:
        ids = await asyncio.gather(
            *(
                (first if n % 2 else second).games.create("counter", 7, 10, new_counter())
                for n in range(20)
            )
        )
        assert len(set(ids)) == 20
        numbers = sorted([(await first.games.require(i)).number for i in ids])
        assert numbers == list(range(1, 21))
        assert (
            await first.db.fetchval(
                "SELECT last FROM game_numbers WHERE guild_id = ? AND kind = ?", (7, "counter")
            )
            == 20
        )
    finally:
        await first.close()
        await second.close()


@pytest.mark.usefixtures("ranked_kind")
async def test_ratings_between_two_processes_rate_each_game_once_in_one_order(
    postgres_url: str, clock: FakeClock
) -> None:
    """Two processes finishing games of the same members at once: each update reads the
    standings the other committed (no update lost), a game recorded by both is rated once,
    and the rebuild replays them in the order they were committed."""
    first = await pg_store(postgres_url, clock)
    second = await pg_store(postgres_url, clock)
    try:
        rankings = [[[1], [2], [3]], [[3], [1]], [[2], [3], [1]], [[1, 2], [3]]] * 5
        games = await asyncio.gather(
            *(
                ratings_tests.play(first if n % 2 else second, ranking)
                for n, ranking in enumerate(rankings)
            )
        )
        board = await first.ratings.board(ratings_tests.GUILD, "overall", "2025-Q1")
        assert {row.user_id: row.games for row in board} == {1: 20, 2: 15, 3: 20}
        seqs = await first.db.fetchall("SELECT seq FROM rated_games ORDER BY seq")
        assert len(seqs) == len(rankings)
        # The same finished game recorded by both processes at once: rated by one.
        lines = await first.results.for_game(games[0].id)
        again = [
            PlayerResult(user_id=r.user_id, rank=r.rank, won=r.won, points=r.points) for r in lines
        ]
        await first.db.execute("DELETE FROM rated_games WHERE game_id = ?", (games[0].id,))
        done = await asyncio.gather(*(st.ratings.record(games[0], again) for st in (first, second)))
        assert sorted(done) == [False, True]
        await first.ratings.rebuild()
        live = await ratings_tests.snapshot(first)
        await second.ratings.rebuild()
        assert await ratings_tests.snapshot(second) == live
    finally:
        await first.close()
        await second.close()


async def test_number_counters_start_at_the_numbers_already_given(
    postgres_url: str, clock: FakeClock
) -> None:
    """The twin of SQLite's migration 8 sets each counter to the largest number given."""
    from bot.storage.pg_schema import migrate_postgres

    db = make_database(Settings(database_url=postgres_url))  # type: ignore[call-arg]
    await db.open()
    try:
        before = tuple(m for m in PG_MIGRATIONS if m.version <= 7)
        assert await migrate_postgres(db, before, before) == 7  # type: ignore[arg-type]
        now = "2025-03-01T10:00:00.000000+00:00"
        state = new_counter().dumps()
        for kind, guild, number in [("counter", 1, 1), ("counter", 1, 4), ("lobby", 2, 1)]:
            await db.execute(
                "INSERT INTO games (kind, guild_id, channel_id, status, state, meta, version,"
                " created_at, updated_at, number) VALUES (?, ?, 9, 'over', ?, '{}', 1, ?, ?, ?)",
                (kind, guild, state, now, now, number),
            )
        assert await migrate_postgres(db) == max(m.version for m in MIGRATIONS)  # type: ignore[arg-type]
        counters = await db.fetchall(
            "SELECT guild_id, kind, last FROM game_numbers ORDER BY guild_id, kind"
        )
        assert [tuple(r) for r in counters] == [(1, "counter", 4), (2, "lobby", 1)]
    finally:
        await db.close()
    st = await pg_store(postgres_url, clock)
    try:
        fresh = await st.games.create("counter", 1, 9, new_counter())
        assert (await st.games.require(fresh)).number == 5
    finally:
        await st.close()


# -- the SQL translation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sqlite", "postgresql"),
    [
        ("SELECT a FROM t WHERE b = ? AND c = '?'", "SELECT a FROM t WHERE b = $1 AND c = '?'"),
        ("BEGIN IMMEDIATE", "BEGIN"),
        (
            "INSERT OR IGNORE INTO scheduler_runs (job, period, ran_at) VALUES (?, ?, ?)",
            "INSERT INTO scheduler_runs (job, period, ran_at) VALUES ($1, $2, $3)"
            " ON CONFLICT DO NOTHING",
        ),
        (
            "INSERT OR REPLACE INTO game_results (game_id, user_id, points) VALUES (?, ?, ?)",
            "INSERT INTO game_results (game_id, user_id, points) VALUES ($1, $2, $3)"
            " ON CONFLICT (game_id, user_id) DO UPDATE SET points = excluded.points",
        ),
        ("SELECT x FROM t WHERE a = :a OR b = :a", "SELECT x FROM t WHERE a = $1 OR b = $1"),
        (
            "SELECT json_extract(meta, '$.host.id') FROM games",
            "SELECT ((meta)::jsonb #>> '{host,id}') FROM games",
        ),
        (
            "SELECT strftime('%Y-%m', due_at), ifnull(a, 0) FROM t",
            "SELECT to_char(((due_at)::text)::timestamptz AT TIME ZONE 'UTC', 'YYYY-MM'),"
            " coalesce(a, 0) FROM t",
        ),
        (
            "INSERT INTO game_numbers (guild_id, kind, last) VALUES (?, ?, 1) ON CONFLICT"
            " (guild_id, kind) DO UPDATE SET last = game_numbers.last + 1 RETURNING last",
            "INSERT INTO game_numbers (guild_id, kind, last) VALUES ($1, $2, 1) ON CONFLICT"
            " (guild_id, kind) DO UPDATE SET last = game_numbers.last + 1 RETURNING last",
        ),
        (
            "SELECT group_concat(user_id, ',') FROM t",
            "SELECT string_agg((user_id)::text, ',') FROM t",
        ),
    ],
)
def test_translation(sqlite: str, postgresql: str) -> None:
    assert translate(sqlite).sql == postgresql


async def test_translated_functions_run(store: Store) -> None:
    value = await store.db.fetchval(
        "SELECT json_extract(?, '$.a.b') || strftime('%Y', ?) || ifnull(NULL, 'z')",
        ('{"a": {"b": "x"}}', "2025-03-14T09:00:00.000000+00:00"),
    )
    assert value == "x2025z"


async def test_integrity_errors_are_sqlites(store: Store) -> None:
    import sqlite3

    await store.runs.claim("a", "1")
    with pytest.raises(sqlite3.IntegrityError):
        await store.db.execute("INSERT INTO scheduler_runs VALUES ('a', '1', 'x')")


# -- a whole game through the fake Discord -----------------------------------------------------


@pytest.fixture
def on_postgres(postgres_url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The Papayoo tests' bots use PostgreSQL."""
    from bot.client import GamenightBot

    def make_bot(db_path: Path, clock: FakeClock) -> GamenightBot:
        return GamenightBot(Settings(database_url=postgres_url), clock, COGS)  # type: ignore[call-arg]

    monkeypatch.setattr(papayoo_tests, "make_bot", make_bot)
    return postgres_url


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "unused.sqlite3"


@pytest.mark.e2e
@pytest.mark.usefixtures("on_postgres")
async def test_a_whole_papayoo_game_on_postgres(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    await papayoo_tests.test_stats_show_games_wins_and_points_per_round(
        fake_discord, db_path, clock
    )
    assert not db_path.exists()


@pytest.mark.e2e
@pytest.mark.usefixtures("on_postgres")
async def test_a_four_round_papayoo_game_on_postgres(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    await papayoo_tests.test_a_four_round_game_reads_well_for_everyone_and_costs_about_two_calls_a_card(
        fake_discord, db_path, clock
    )


@pytest.mark.e2e
@pytest.mark.usefixtures("on_postgres")
async def test_a_papayoo_game_survives_a_restart_on_postgres(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    await papayoo_tests.test_a_player_who_sleeps_is_warned_then_the_bot_plays_for_them_even_after_a_restart(
        fake_discord, db_path, clock
    )


# -- errors at start-up ----------------------------------------------------------------------------


def run_bot(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "DISCORD_"))}
    return subprocess.run(
        [sys.executable, "-m", "bot", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**environ, **env},
        timeout=60,
        check=False,
    )


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mysql://u:secret@host/db", "mysql:// is not supported"),
        ("garbage", "is not a URL"),
        ("postgresql://u:secret@host:notaport/db", "is not a URL"),
    ],
)
def test_an_unsupported_database_url_exits_2(url: str, says: str, tmp_path: Path) -> None:
    done = run_bot(DATABASE_URL=url, DISCORD_TOKEN="x", DATABASE_PATH=str(tmp_path / "d.db"))
    assert done.returncode == 2
    assert "DATABASE_URL" in done.stderr and says in done.stderr
    assert "secret" not in done.stderr
    assert "Traceback" not in done.stderr


def test_an_unreachable_postgresql_exits_1_with_one_line(tmp_path: Path) -> None:
    import socket

    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    done = run_bot(
        DATABASE_URL=f"postgresql://u:secret@127.0.0.1:{port}/db",
        DISCORD_TOKEN="x",
        LOG_LEVEL="ERROR",
    )
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "cannot reach PostgreSQL" in lines[0] and str(port) in lines[0]
    assert "secret" not in done.stderr


# -- copy-database ---------------------------------------------------------------------------------


async def sqlite_with_data(path: Path, clock: FakeClock) -> dict[str, int]:
    st = Store(Database(path), clock)
    await st.open()
    try:
        for n in range(3):
            game_id = await st.games.create("counter", 1, 10, new_counter(target=2))
            await st.games.act(game_id, "111", {"type": "inc"})
            if n:
                await st.games.act(game_id, "222", {"type": "inc"})
        await st.settings.update(1, {"timezone": "Europe/Paris"})
        await st.game_settings.update(1, "spaye", {"x": 1})
        await st.timers.put("x", clock.now(), {"a": 1}, "t1")
        await st.private.put(5, "k", "c")
        await st.private.remember_dm(5, 50)
        await st.runs.claim("j", "p")
        counts = {}
        for table in TABLES:
            counts[table] = await st.db.fetchval(f"SELECT COUNT(*) FROM {table}")  # noqa: S608
        return counts
    finally:
        await st.close()


async def test_copy_database_copies_every_row_and_the_ids_go_on(
    tmp_path: Path, postgres_url: str, clock: FakeClock
) -> None:
    source = tmp_path / "db.sqlite3"
    counts = await sqlite_with_data(source, clock)
    out: list[str] = []
    assert await copy_database(source, postgres_url, out.append) == 0
    text = "\n".join(out)
    assert "games" in text and "copied" in text, text
    st = await pg_store(postgres_url, clock)
    try:
        for table, count in counts.items():
            assert await st.db.fetchval(f"SELECT COUNT(*) FROM {table}") == count  # noqa: S608
        assert counts["games"] == 3 and counts["game_results"] == 4
        new_id = await st.games.create("counter", 1, 10, new_counter())
        assert new_id == 4  # the identity goes on after the copied ids
        assert (await st.games.require(new_id)).number == 4
        await st.timers.put("x", clock.now(), {}, "t2")
    finally:
        await st.close()
    # A second copy finds the target not empty.
    again: list[str] = []
    assert await copy_database(source, postgres_url, again.append) == 1
    assert "not empty" in "\n".join(again)


def test_copy_database_command(tmp_path: Path, postgres_url: str, clock: FakeClock) -> None:
    source = tmp_path / "db.sqlite3"
    asyncio.run(sqlite_with_data(source, clock))
    done = run_bot("copy-database", "--to", postgres_url, DATABASE_PATH=str(source))
    assert done.returncode == 0, done.stderr
    assert "games" in done.stdout and "3" in done.stdout
    done = run_bot("copy-database", "--to", postgres_url, DATABASE_PATH=str(source))
    assert done.returncode == 1
    done = run_bot("copy-database", "--to", "mysql://x/y", DATABASE_PATH=str(source))
    assert done.returncode == 2
    done = run_bot("copy-database", DATABASE_PATH=str(source))
    assert done.returncode == 2
