"""Storage: migrations, pragmas, act() atomicity and races, restart safety, the small stores."""

from __future__ import annotations

import asyncio
import sqlite3
from collections.abc import Iterator
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import aiosqlite
import pytest
from pydantic import ValidationError

from bot.clock import FakeClock
from bot.engine import GAMES, SYSTEM, IllegalAction
from bot.storage import (
    MIGRATIONS,
    Database,
    DayAlreadyOpened,
    GameClosed,
    GameNotFound,
    Placements,
    PlayerResult,
    Store,
    StoredGame,
    migrate,
)
from bot.storage.migrations import Migration
from tests.bot.conftest import CounterGame, new_counter

pytestmark = pytest.mark.usefixtures("counter_kind")

TABLES = {
    "games",
    "guild_settings",
    "timers",
    "pending_private",
    "spaye_days",
    "month_titles",
    "game_results",
    "scheduler_runs",
    "job_runs",
    "game_numbers",
}


class FakeSpaye(CounterGame):
    kind = "spaye"


@pytest.fixture
def spaye_kind() -> Iterator[None]:
    before = GAMES.get("spaye")
    GAMES["spaye"] = FakeSpaye
    try:
        yield
    finally:
        if before is None:
            GAMES.pop("spaye", None)
        else:
            GAMES["spaye"] = before


def new_spaye() -> FakeSpaye:
    game = FakeSpaye(["111", "222"], 2)
    return game


# -- schema ----------------------------------------------------------------------------------


async def test_migrations_create_tables_and_record_version(store: Store) -> None:
    rows = await store.db.fetchall("SELECT name FROM sqlite_master WHERE type = 'table'")
    assert {row["name"] for row in rows} >= TABLES
    assert await store.db.pragma("user_version") == max(m.version for m in MIGRATIONS)


async def test_migrations_are_idempotent(store: Store) -> None:
    version = await store.db.pragma("user_version")
    assert await migrate(store.db) == version
    assert await migrate(store.db) == version
    assert await store.db.pragma("user_version") == version


async def test_pragmas(store: Store) -> None:
    assert await store.db.pragma("journal_mode") == "wal"
    assert await store.db.pragma("foreign_keys") == 1
    # The writer never waits on the event loop: a locked database is waited for in a thread.
    assert await store.db.pragma("busy_timeout") == 0
    assert await store.db.pragma("synchronous") == 1  # NORMAL


async def test_failed_migration_leaves_nothing(db_path: Path) -> None:
    db = Database(db_path)
    await db.open()
    broken = (*MIGRATIONS, Migration(len(MIGRATIONS) + 1, "broken", "CREATE TABLE x (a);\nNOPE;"))
    with pytest.raises(aiosqlite.OperationalError):
        await migrate(db, broken)
    assert await db.pragma("user_version") == 0
    assert await db.fetchval("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'") == 0
    await db.close()


async def test_newer_database_is_refused(store: Store) -> None:
    await store.db.execute("PRAGMA user_version = 999")
    with pytest.raises(RuntimeError, match="newer"):
        await migrate(store.db)


# -- transactions ----------------------------------------------------------------------------


async def test_nested_transaction_rolls_back_alone(store: Store) -> None:
    async with store.db.transaction() as conn:
        await conn.execute("INSERT INTO scheduler_runs VALUES ('a', '1', 'x')")
        with pytest.raises(ZeroDivisionError):
            async with store.db.transaction() as inner:
                await inner.execute("INSERT INTO scheduler_runs VALUES ('b', '1', 'x')")
                raise ZeroDivisionError
    jobs = await store.db.fetchall("SELECT job FROM scheduler_runs")
    assert [row["job"] for row in jobs] == ["a"]


async def test_reads_wait_for_other_tasks_transactions(store: Store) -> None:
    inside = asyncio.Event()
    release = asyncio.Event()

    async def writer() -> None:
        with pytest.raises(RuntimeError):
            async with store.db.transaction() as conn:
                await conn.execute("INSERT INTO scheduler_runs VALUES ('w', '1', 'x')")
                inside.set()
                await release.wait()
                raise RuntimeError("roll back")

    task = asyncio.create_task(writer())
    await inside.wait()
    reader = asyncio.create_task(store.db.fetchval("SELECT COUNT(*) FROM scheduler_runs"))
    await asyncio.sleep(0)
    assert not reader.done()
    release.set()
    await task
    assert await reader == 0


# -- games -----------------------------------------------------------------------------------


async def test_create_and_get(store: Store, clock: FakeClock) -> None:
    game_id = await store.games.create("counter", 1, 2, new_counter(), {"host": 111})
    stored = await store.games.get(game_id)
    assert isinstance(stored, StoredGame)
    assert (stored.kind, stored.guild_id, stored.channel_id) == ("counter", 1, 2)
    assert stored.status == "active" and stored.version == 1
    assert stored.meta == {"host": 111}
    assert stored.created_at == clock.now()
    assert stored.game.dumps() == new_counter().dumps()
    assert await store.games.get(game_id + 1) is None
    with pytest.raises(GameNotFound):
        await store.games.require(game_id + 1)


async def test_create_refuses_wrong_kind(store: Store) -> None:
    with pytest.raises(ValueError, match="cannot be stored"):
        await store.games.create("papayoo", 1, 2, new_counter())


async def test_act_saves_state_version_and_meta(store: Store, clock: FakeClock) -> None:
    game_id = await store.games.create("counter", 1, 2, new_counter(), {"a": 1})
    clock.advance(minutes=1)
    stored, events = await store.games.act(game_id, 111, {"type": "inc"}, meta_update={"b": 2})
    assert events == [{"type": "inc", "player": "111", "total": 1}]
    assert stored.version == 2 and stored.meta == {"a": 1, "b": 2}
    reread = await store.games.require(game_id)
    assert reread.version == 2
    assert reread.game.dumps() == stored.game.dumps()
    assert reread.updated_at == clock.now()


async def test_illegal_action_writes_nothing(store: Store) -> None:
    game_id = await store.games.create("counter", 1, 2, new_counter())
    before = await store.games.require(game_id)
    with pytest.raises(IllegalAction) as info:
        await store.games.act(game_id, "222", {"type": "inc"}, meta_update={"x": 1})
    assert info.value.key == "counter.not_your_turn"
    after = await store.games.require(game_id)
    assert after.version == before.version
    assert after.meta == before.meta
    assert after.game.dumps() == before.game.dumps()


async def test_act_is_atomic_with_in_tx_writes(store: Store) -> None:
    game_id = await store.games.create("counter", 1, 2, new_counter())

    async def spend_then_fail(stored: StoredGame, events: object) -> None:
        await store.runs.claim("bonus", str(stored.id))
        raise RuntimeError("boom")

    with pytest.raises(RuntimeError):
        await store.games.act(game_id, "111", {"type": "inc"}, in_tx=spend_then_fail)
    assert (await store.games.require(game_id)).version == 1
    assert not await store.runs.has_run("bonus", str(game_id))

    async def spend(stored: StoredGame, events: object) -> None:
        assert await store.runs.claim("bonus", str(stored.id))

    await store.games.act(game_id, "111", {"type": "inc"}, in_tx=spend)
    assert await store.runs.has_run("bonus", str(game_id))


async def test_double_click_applies_once(store: Store) -> None:
    game_id = await store.games.create("counter", 1, 2, new_counter())
    outcomes = await asyncio.gather(
        store.games.act(game_id, "111", {"type": "inc"}),
        store.games.act(game_id, "111", {"type": "inc"}),
        return_exceptions=True,
    )
    applied = [o for o in outcomes if not isinstance(o, BaseException)]
    refused = [o for o in outcomes if isinstance(o, IllegalAction)]
    assert len(applied) == 1 and len(refused) == 1
    stored = await store.games.require(game_id)
    assert stored.version == 2
    assert stored.game.public_view()["total"] == 1


async def test_many_concurrent_moves_all_saved(store: Store) -> None:
    ids = [await store.games.create("counter", 1, n, new_counter(["111"], 50)) for n in range(5)]
    await asyncio.gather(
        *(store.games.act(g, "111", {"type": "inc"}) for g in ids for _ in range(10))
    )
    for game_id in ids:
        stored = await store.games.require(game_id)
        assert stored.version == 11
        assert stored.game.public_view()["total"] == 10


async def test_finishing_records_results_and_closes(store: Store) -> None:
    game_id = await store.games.create("counter", 7, 2, new_counter(["111", "222"], 2))
    await store.games.act(game_id, "111", {"type": "inc"})
    outcome = await store.games.act(game_id, "222", {"type": "inc"})
    assert outcome.finished and outcome.game.status == "over"
    lines = await store.results.for_game(game_id)
    assert [(r.user_id, r.won, r.rank, r.points) for r in lines] == [
        (222, True, 1, 1),
        (111, False, 2, 0),
    ]
    with pytest.raises(GameClosed):
        await store.games.act(game_id, "111", {"type": "inc"})
    stats = await store.results.player(7, "counter", 222)
    assert (stats.games, stats.wins, stats.points) == (1, 1, 1)
    board = await store.results.leaderboard(7, "counter")
    assert [s.user_id for s in board] == [222, 111]


async def test_placements_count_each_place_per_kind(store: Store) -> None:
    """A player's games by the place they finished in, per kind; the guilds with games."""
    for players, guild in ((["111", "222"], 7), (["222", "111"], 7), (["111", "333"], 8)):
        game_id = await store.games.create("counter", guild, 2, new_counter(players, 2))
        for player in players:
            await store.games.act(game_id, player, {"type": "inc"})
    found = await store.results.placements(7, 111, ["counter", "nothing"])
    assert found == {"counter": Placements(games=2, wins=1, places={1: 1, 2: 1})}
    assert await store.results.placements(7, 333, ["counter"]) == {}
    assert await store.results.placements(7, 111, []) == {}
    assert await store.results.guilds() == [7, 8]


async def test_custom_results_hook(store: Store) -> None:
    store.games.register_kind(
        "counter", results=lambda s: [PlayerResult(user_id=5, points=9, details={"reps": 29})]
    )
    game_id = await store.games.create("counter", 7, 2, new_counter(["111"], 1))
    await store.games.act(game_id, "111", {"type": "inc"})
    [line] = await store.results.for_game(game_id)
    assert (line.user_id, line.points, line.details) == (5, 9, {"reps": 29})


async def test_voided_game_scores_nothing(store: Store) -> None:
    game_id = await store.games.create("counter", 7, 2, new_counter())
    outcome = await store.games.act(game_id, SYSTEM, {"type": "void"})
    assert outcome.game.status == "voided"
    assert await store.results.for_game(game_id) == []


async def test_update_meta_and_set_status(store: Store) -> None:
    game_id = await store.games.create("counter", 7, 2, new_counter())
    stored = await store.games.update_meta(game_id, {"message_id": 99})
    assert stored.meta == {"message_id": 99} and stored.version == 2
    stored = await store.games.set_status(game_id, "voided")
    assert stored.status == "voided"
    assert (await store.games.find(guild_id=7)) == []
    assert [g.id for g in await store.games.find(guild_id=7, status="voided")] == [game_id]


async def test_state_survives_restart(db_path: Path, clock: FakeClock) -> None:
    first = Store(Database(db_path), clock)
    await first.open()
    game_id = await first.games.create("counter", 1, 2, new_counter(), {"m": 1})
    stored, _ = await first.games.act(game_id, "111", {"type": "inc"})
    # No close: the process "dies" with the connection open.
    second = Store(Database(db_path), clock)
    await second.open()
    again = await second.games.require(game_id)
    assert again.version == stored.version == 2
    assert again.game.dumps() == stored.game.dumps()
    assert again.meta == {"m": 1}
    outcome = await second.games.act(game_id, "222", {"type": "inc"})
    assert outcome.game.version == 3
    await second.close()
    await first.close()


async def test_closed_database_refuses(db_path: Path, clock: FakeClock) -> None:
    st = Store(Database(db_path), clock)
    await st.open()
    await st.close()
    await st.close()
    from bot.storage import DatabaseClosed

    with pytest.raises(DatabaseClosed):
        await st.games.get(1)


# -- Späye days and titles -------------------------------------------------------------------


@pytest.mark.usefixtures("spaye_kind")
async def test_one_spaye_per_guild_per_day(store: Store) -> None:
    day = date(2025, 3, 14)
    game_id = await store.days.open_day(1, day, 10, new_spaye())
    with pytest.raises(DayAlreadyOpened) as info:
        await store.days.open_day(1, day, 10, new_spaye())
    assert info.value.day.game_id == game_id
    await store.games.act(game_id, SYSTEM, {"type": "void"})
    assert (await store.days.get(1, day)).status == "voided"  # type: ignore[union-attr]
    with pytest.raises(DayAlreadyOpened):
        await store.days.open_day(1, day, 10, new_spaye())
    assert await store.days.open_day(2, day, 10, new_spaye()) != game_id
    assert await store.days.open_day(1, day + timedelta(days=1), 10, new_spaye())
    assert await store.db.fetchval("SELECT COUNT(*) FROM games WHERE kind = 'spaye'") == 3


@pytest.mark.usefixtures("spaye_kind")
async def test_unique_day_holds_even_in_sql(store: Store) -> None:
    game_id = await store.days.open_day(1, date(2025, 3, 14), 10, new_spaye())
    with pytest.raises(aiosqlite.IntegrityError):
        await store.db.execute(
            "INSERT INTO spaye_days (guild_id, day, game_id) VALUES (1, '2025-03-14', ?)",
            (game_id,),
        )


@pytest.mark.usefixtures("spaye_kind")
async def test_month_games_and_bonus_given_back_when_voided(store: Store) -> None:
    first = await store.days.open_day(1, date(2025, 3, 3), 10, new_spaye())
    await store.games.act(first, "111", {"type": "inc"})
    await store.games.act(first, "222", {"type": "inc"})
    assert [g.id for g in await store.days.finished_in_month(1, "2025-03")] == [first]
    assert await store.days.guilds_with_days("2025-03") == [1]

    assert await store.titles.award(1, "2025-02", "tikao", 111)
    assert not await store.titles.award(1, "2025-02", "tikao", 222)
    second = await store.days.open_day(1, date(2025, 3, 4), 10, new_spaye())
    assert await store.titles.use_bonus(1, "2025-02", "tikao", second)
    assert not await store.titles.use_bonus(1, "2025-02", "tikao", second)
    await store.games.act(second, SYSTEM, {"type": "void"})
    [title] = await store.titles.of_month(1, "2025-02")
    assert title.bonus_available and title.user_id == 111
    assert [t.title for t in await store.titles.unannounced()] == ["tikao"]
    await store.titles.mark_announced(1, "2025-02")
    assert await store.titles.unannounced() == []
    assert [t.title for t in await store.titles.held_by(1, "2025-02", 111)] == ["tikao"]


async def test_unknown_title_refused(store: Store) -> None:
    with pytest.raises(ValueError):
        await store.titles.award(1, "2025-02", "king", 1)  # type: ignore[arg-type]


# -- guild settings --------------------------------------------------------------------------


async def test_guild_settings_defaults_and_update(store: Store) -> None:
    settings = await store.settings.get(5, preferred_locale="fr")
    assert settings.timezone == "UTC"
    assert settings.locale == "fr" and not settings.locale_explicit
    new = await store.settings.update(5, {"timezone": "Europe/Paris"})
    assert new.timezone == "Europe/Paris"
    assert (await store.settings.get(5)).timezone == "Europe/Paris"
    assert await store.settings.configured_guild_ids() == [5]


async def test_guild_settings_reject_bad_values_and_change_nothing(store: Store) -> None:
    await store.settings.update(5, {"timezone": "Europe/Oslo"})
    for change in ({"timezone": "Mars/Olympus"}, {"locale": "de"}):
        with pytest.raises(ValidationError):
            await store.settings.update(5, change)
    with pytest.raises(KeyError):
        await store.settings.update(5, {"colour": "red"})
    with pytest.raises(KeyError):  # a game's setting lives with the game
        await store.settings.update(5, {"spaye_close": "18:00"})
    assert (await store.settings.get(5)).timezone == "Europe/Oslo"


async def test_spaye_settings_move_out_of_guild_settings_with_their_values(
    db_path: Path,
) -> None:
    """Schema 5 copies every server's Späye values from ``guild_settings`` into Späye's own
    settings (merged with what Späye kept there already) and drops the old columns."""
    db = Database(db_path)
    await db.open()
    before = tuple(m for m in MIGRATIONS if m.version <= 4)
    assert await migrate(db, before) == 4
    now = "2025-03-01T10:00:00.000000+00:00"
    await db.execute(
        "INSERT INTO guild_settings (guild_id, timezone, spaye_close, announce_channel_id,"
        " challenge_expiry_minutes, committee_role_id, default_exercise, locale, updated_at)"
        " VALUES (1, 'Europe/Paris', '18:30', 77, 15, 88, 'squats', 'fr', ?),"
        " (2, 'UTC', '23:59', NULL, 10, NULL, 'push-ups', NULL, ?)",
        (now, now),
    )
    await db.execute(
        "INSERT INTO game_settings (guild_id, game, settings, updated_at)"
        " VALUES (1, 'spaye', '{\"reminder_minutes\": 30}', ?)",
        (now,),
    )
    assert await migrate(db) == max(m.version for m in MIGRATIONS)
    store = Store(db, FakeClock(datetime(2025, 3, 2, tzinfo=UTC)))
    from bot.spaye_settings import SpayeSettings

    first = SpayeSettings.model_validate(await store.game_settings.get(1, "spaye"))
    assert first.closing_time == "18:30" and first.challenge_expiry_minutes == 15
    assert first.committee_role_id == 88 and first.default_exercise == "squats"
    assert first.announce_channel_id == 77 and first.reminder_minutes == 30
    second = SpayeSettings.model_validate(await store.game_settings.get(2, "spaye"))
    assert second == SpayeSettings()
    paris = await store.settings.get(1)
    assert paris.timezone == "Europe/Paris" and paris.locale == "fr" and paris.locale_explicit
    columns = {row["name"] for row in await db.fetchall("PRAGMA table_info(guild_settings)")}
    assert columns == {"guild_id", "timezone", "locale", "updated_at"}
    await db.close()


@pytest.mark.usefixtures("spaye_kind")
async def test_games_are_numbered_per_server_and_kind(store: Store) -> None:
    """The number players see counts the games of one kind in one server (1, 2, 3...),
    whatever other games or servers came between; the id stays the database's."""
    made = [
        await store.games.create(kind, guild, 2, new_counter() if kind == "counter" else game)
        for kind, guild, game in [
            ("counter", 1, None),
            ("spaye", 1, new_spaye()),
            ("counter", 2, None),
            ("counter", 1, None),
            ("spaye", 1, new_spaye()),
            ("counter", 1, None),
        ]
    ]
    numbers = [(await store.games.require(i)).number for i in made]
    assert numbers == [1, 1, 1, 2, 2, 3]
    third = await store.games.by_number(1, "counter", 3)
    assert third is not None and third.id == made[5] and third.shown_number == 3
    assert await store.games.by_number(2, "counter", 2) is None
    assert await store.games.by_number(1, "spaye", 2) is not None
    found = await store.games.find(guild_id=1, kind="counter")
    assert [g.number for g in found] == [3, 2, 1]


async def test_a_game_made_inside_another_transaction_gets_the_next_number(store: Store) -> None:
    """A lobby's start creates its game inside the lobby's move: the number is taken there."""
    lobby = await store.games.create("counter", 1, 2, new_counter())
    first = await store.games.create("counter", 7, 2, new_counter())
    made: list[int] = []

    async def create(stored: StoredGame, events: object) -> None:
        made.append(await store.games.create("counter", 7, 2, new_counter()))

    await store.games.act(lobby, "111", {"type": "inc"}, in_tx=create)
    assert (await store.games.require(first)).number == 1
    assert (await store.games.require(made[0])).number == 2
    assert (
        await store.db.fetchval(
            "SELECT last FROM game_numbers WHERE guild_id = ? AND kind = ?", (7, "counter")
        )
        == 2
    )


async def test_a_rolled_back_creation_gives_its_number_back(store: Store) -> None:
    """The counter is bumped in the creating transaction: a rollback undoes it with the game."""
    await store.games.create("counter", 3, 2, new_counter())
    with pytest.raises(ZeroDivisionError):
        async with store.db.transaction():
            await store.games.create("counter", 3, 2, new_counter())
            raise ZeroDivisionError
    again = await store.games.create("counter", 3, 2, new_counter())
    assert (await store.games.require(again)).number == 2


async def test_games_already_stored_are_numbered_by_the_migration(db_path: Path) -> None:
    """Schema 6 numbers the games already stored per server and kind, in id order; the games
    created after it go on from there."""
    db = Database(db_path)
    await db.open()
    before = tuple(m for m in MIGRATIONS if m.version <= 5)
    assert await migrate(db, before) == 5
    now = "2025-03-01T10:00:00.000000+00:00"
    state = new_counter().dumps()
    rows = [("counter", 1), ("lobby", 1), ("counter", 1), ("counter", 2), ("counter", 1)]
    for kind, guild in rows:
        await db.execute(
            "INSERT INTO games (kind, guild_id, channel_id, status, state, meta, version,"
            " created_at, updated_at) VALUES (?, ?, 9, 'over', ?, '{}', 1, ?, ?)",
            (kind, guild, state, now, now),
        )
    assert await migrate(db) == max(m.version for m in MIGRATIONS)
    numbered = await db.fetchall("SELECT kind, guild_id, number FROM games ORDER BY id")
    assert [tuple(r) for r in numbered] == [
        ("counter", 1, 1),
        ("lobby", 1, 1),
        ("counter", 1, 2),
        ("counter", 2, 1),
        ("counter", 1, 3),
    ]
    store = Store(db, FakeClock(datetime(2025, 3, 2, tzinfo=UTC)))
    fresh = await store.games.create("counter", 1, 9, new_counter())
    assert (await store.games.require(fresh)).number == 4
    with pytest.raises(sqlite3.IntegrityError):
        await db.execute("UPDATE games SET number = 1 WHERE id = ?", (fresh,))
    await db.close()


async def test_number_counters_start_at_the_numbers_already_given(db_path: Path) -> None:
    """Schema 8 sets each server and kind's counter to the largest number of its games; the
    games created after it go on from there."""
    db = Database(db_path)
    await db.open()
    before = tuple(m for m in MIGRATIONS if m.version <= 7)
    assert await migrate(db, before) == 7
    now = "2025-03-01T10:00:00.000000+00:00"
    state = new_counter().dumps()
    rows = [("counter", 1, 1), ("lobby", 1, 1), ("counter", 1, 2), ("counter", 2, 1)]
    rows.append(("counter", 1, 5))  # a gap (a number is never given twice, not even freed)
    for kind, guild, number in rows:
        await db.execute(
            "INSERT INTO games (kind, guild_id, channel_id, status, state, meta, version,"
            " created_at, updated_at, number) VALUES (?, ?, 9, 'over', ?, '{}', 1, ?, ?, ?)",
            (kind, guild, state, now, now, number),
        )
    assert await migrate(db) == max(m.version for m in MIGRATIONS)
    counters = await db.fetchall(
        "SELECT guild_id, kind, last FROM game_numbers ORDER BY guild_id, kind"
    )
    assert [tuple(r) for r in counters] == [(1, "counter", 5), (1, "lobby", 1), (2, "counter", 1)]
    store = Store(db, FakeClock(datetime(2025, 3, 2, tzinfo=UTC)))
    made = [
        await store.games.create(kind, guild, 9, new_counter())
        for kind, guild in [("counter", 1), ("counter", 2), ("counter", 3)]
    ]
    assert [(await store.games.require(i)).number for i in made] == [6, 2, 1]
    await db.close()


async def test_guild_locale_explicit_then_auto(store: Store) -> None:
    chosen = await store.settings.update(5, {"locale": "fr"}, preferred_locale="en-US")
    assert chosen.locale == "fr" and chosen.locale_explicit
    assert (await store.settings.get(5, preferred_locale="en-US")).locale == "fr"
    auto = await store.settings.update(5, {"locale": None}, preferred_locale="en-US")
    assert auto.locale == "en" and not auto.locale_explicit
    assert (await store.settings.get(5, preferred_locale="fr")).locale == "fr"


def test_guild_settings_local_time() -> None:
    from bot.storage import GuildSettings

    paris = GuildSettings(guild_id=1, timezone="Europe/Paris")
    late = datetime(2025, 3, 14, 23, 30, tzinfo=UTC)  # 00:30 on the 15th in Paris
    assert paris.today(late) == date(2025, 3, 15)


# -- timers, private, runs -------------------------------------------------------------------


async def test_timer_store(store: Store, clock: FakeClock) -> None:
    due = clock.now() + timedelta(minutes=10)
    assert await store.timers.put("k", due, {"a": 1}, "key1") == "key1"
    first = await store.timers.get("key1")
    await store.timers.put("k", due + timedelta(minutes=1), {"a": 2}, "key1")
    replaced = await store.timers.get("key1")
    assert first is not None and replaced is not None
    assert replaced.id != first.id and replaced.payload == {"a": 2}
    assert [t.key for t in await store.timers.pending()] == ["key1"]
    assert await store.timers.due(clock.now()) == []
    assert [t.key for t in await store.timers.due(due + timedelta(minutes=1))] == ["key1"]
    assert not await store.timers.mark_done(first.id)
    assert await store.timers.mark_done(replaced.id)
    assert await store.timers.pending() == []
    assert not await store.timers.cancel("key1")
    clock.advance(days=40)
    assert await store.timers.purge_done(clock.now()) == 1


async def test_private_store(store: Store) -> None:
    await store.private.put(1, "papayoo:4:hand", "old")
    await store.private.put(1, "papayoo:4:hand", "new", [{"title": "Hand"}])
    [item] = await store.private.pending(1)
    assert (item.content, item.embeds, item.notified) == ("new", [{"title": "Hand"}], False)
    await store.private.delivered(1, "papayoo:4:hand")
    assert await store.private.pending(1) == []
    await store.private.put(1, "papayoo:4:hand", "newer")
    [item] = await store.private.pending(1)
    assert item.notified
    await store.private.discard(1, "papayoo:4:hand")
    assert not await store.private.has_pending(1)
    assert await store.private.forget_user(1) == 1


async def test_scheduler_runs_claim_once(store: Store) -> None:
    assert await store.runs.claim("month", "2025-02")
    assert not await store.runs.claim("month", "2025-02")
    assert await store.runs.claim("month", "2025-03")
    assert await store.runs.last_period("month") == "2025-03"
    assert await store.runs.last_period("other") is None
