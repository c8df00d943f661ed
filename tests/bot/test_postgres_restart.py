"""PostgreSQL going away during play: moves wait for it, then count once, or fail cleanly.

- through the fake Discord: a Papayoo card played while the server is stopped waits
  (the click is deferred) and counts once the server is back; a server that stays away
  longer than the bot waits gets a private "nothing changed" answer, and the same card
  played again afterwards counts once;
- the store alone: a connection lost before ``COMMIT`` is tried again on a new connection;
  a ``COMMIT`` whose answer is lost is found saved (once), or reported as unsure when the
  database does not hold it.

The server here is this module's own (it is stopped and started again).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import asyncpg
import pytest

import bot.storage.postgres as pg
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.i18n import t
from bot.settings import Settings
from bot.storage import DatabaseLost, Store
from tests.bot.conftest import CounterGame
from tests.cogs.conftest import _per_route_buckets_off_at_machine_speed, seated_pace
from tests.cogs.papayoo_support import COGS, Table, office
from tests.cogs.test_papayoo import pass_all, start
from tests.conftest import fresh_database, throwaway_postgres
from tests.fakediscord import FakeDiscord
from tests.storage_backends import PostgresServer

__fixtures__ = (seated_pace, _per_route_buckets_off_at_machine_speed)
"""The cog tests' pace (autouse there): table edits not spaced, no per-route buckets."""


@pytest.fixture(scope="module")
def server() -> Iterator[PostgresServer]:
    yield from throwaway_postgres()


@pytest.fixture
async def url(server: PostgresServer) -> AsyncIterator[str]:
    async with fresh_database(server) as made:
        yield made


async def halt(server: PostgresServer) -> None:
    await asyncio.to_thread(server.halt)


async def launch(server: PostgresServer) -> None:
    await asyncio.to_thread(server.launch)


def papayoo_table(fake: FakeDiscord, url: str, clock: FakeClock) -> Table:
    guild, channel, users = office(fake, ["Ana", "Bob", "Cyd"])
    bot = GamenightBot(Settings(database_url=url), clock, COGS)  # type: ignore[call-arg]
    return Table(fake, bot, guild, channel, users)


async def card_to_play(table: Table) -> tuple[Any, Any, str, int]:
    """Start the game and pass; then whose turn it is, their message with the card's control,
    its custom id, the game's version."""
    await start(table)
    await pass_all(table)
    stored = await table.stored()
    player = stored.game.public_view()["turn"]
    card = stored.game.view(player)["legal"][0]
    custom_id = table.play_id(stored, player, card)
    user = table.user(player)
    return user, await table.controls(user, custom_id), custom_id, stored.version


async def version_now(table: Table) -> int:
    return (await table.stored()).version


@pytest.mark.e2e
async def test_a_card_played_while_postgresql_restarts_waits_and_counts_once(
    fake_discord: FakeDiscord, url: str, server: PostgresServer, clock: FakeClock
) -> None:
    fake = fake_discord
    table = papayoo_table(fake, url, clock)
    async with fake.run_client(table.bot):
        user, msg, custom_id, version = await card_to_play(table)
        await halt(server)
        try:
            played = await fake.click(user, msg, custom_id, timeout=10)
            assert played.callback_type == 6  # deferred: the move waits for the database
        finally:
            await launch(server)
        # Then the hand itself is updated, and the move counted once.
        await fake.wait_for(lambda: "Your turn" not in fake.message(msg.id).text, timeout=20)
        assert await version_now(table) == version + 1
        assert not fake.ephemerals(user)
        assert not fake.late_interactions
        await table.play_to_the_end()  # and the game goes on to its end


@pytest.mark.e2e
async def test_a_server_away_too_long_is_told_privately_and_nothing_changes(
    fake_discord: FakeDiscord,
    url: str,
    server: PostgresServer,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = fake_discord
    table = papayoo_table(fake, url, clock)
    async with fake.run_client(table.bot):
        user, msg, custom_id, version = await card_to_play(table)
        monkeypatch.setattr(pg, "RECONNECT_SECONDS", 0.5)
        told = t("errors.database_lost", "en")
        await halt(server)
        try:
            played = await fake.click(user, msg, custom_id, timeout=10)
            assert played.callback_type == 6
            await fake.wait_for(
                lambda: [m for m in fake.ephemerals(user) if m.text == told], timeout=20
            )
        finally:
            await launch(server)
        assert await version_now(table) == version  # nothing changed
        again = await fake.click(user, msg, custom_id, timeout=10)
        assert again.callback_type == 7, again.text
        await table.quiet()
        assert await version_now(table) == version + 1


@pytest.mark.e2e
async def test_a_slash_command_while_postgresql_is_down_is_deferred_then_answered(
    fake_discord: FakeDiscord, url: str, server: PostgresServer, clock: FakeClock
) -> None:
    """``/papayoo stats`` defers nothing itself: the command tree acknowledges it (privately,
    as its answer is private) while its reads wait for the server."""
    fake = fake_discord
    table = papayoo_table(fake, url, clock)
    ana = table.users[0]
    async with fake.run_client(table.bot):
        await halt(server)
        try:
            shown = await fake.slash(ana, table.channel, "papayoo stats", timeout=5)
            assert shown.callback_type == 5  # deferred: "is thinking", not dropped
            assert shown.ephemeral
            assert shown.response is not None and shown.response.loading
        finally:
            await launch(server)
        await fake.wait_for(lambda: shown.embed is not None, timeout=40)
        assert shown.ephemeral and shown.response is not None and not shown.response.loading
        assert t("seated.stats_games", "en") in {f["name"] for f in shown.embed["fields"]}
        assert not fake.late_interactions


@pytest.mark.e2e
async def test_a_slash_command_while_postgresql_stays_away_is_told_privately(
    fake_discord: FakeDiscord,
    url: str,
    server: PostgresServer,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = fake_discord
    table = papayoo_table(fake, url, clock)
    ana = table.users[0]
    async with fake.run_client(table.bot):
        # Longer than the 2 s after which the tree acknowledges, shorter than a test's wait.
        monkeypatch.setattr(pg, "RECONNECT_SECONDS", 4.0)
        await halt(server)
        try:
            shown = await fake.slash(ana, table.channel, "papayoo stats", timeout=20)
        finally:
            await launch(server)
        assert shown.callback_type == 5
        assert shown.ephemeral and shown.text == t("errors.database_lost", "en")
        assert not [m for m in fake.channel_messages(table.channel) if m.interaction]
        assert not fake.late_interactions


# -- the store alone -------------------------------------------------------------------------


@pytest.fixture
async def store(url: str, clock: FakeClock) -> AsyncIterator[Store]:
    from bot.storage import make_database

    st = Store(make_database(Settings(database_url=url)), clock)  # type: ignore[call-arg]
    await st.open()
    try:
        yield st
    finally:
        await st.close()


def break_at(
    monkeypatch: pytest.MonkeyPatch,
    statement: str,
    *,
    after: bool,
    error: type[Exception] = asyncpg.ConnectionDoesNotExistError,
) -> list[str]:
    """The writer's next ``statement`` (a prefix) loses its connection: sent and done, then
    the answer lost (``after``), or never sent; asyncpg raises ``error``. Returns the
    statements seen."""
    seen: list[str] = []
    real = pg._command

    async def command(conn: asyncpg.Connection, sql: str, params: Any) -> Any:
        seen.append(sql)
        if sql.startswith(statement) and seen.count(sql) == 1:
            if after:
                await real(conn, sql, params)
            conn.terminate()
            raise error("connection was closed in the middle")
        return await real(conn, sql, params)

    monkeypatch.setattr(pg, "_command", command)
    return seen


async def counter_game(store: Store) -> int:
    return await store.games.create("counter", 1, 2, CounterGame(["1", "2"], 9))


async def total(store: Store, game_id: int) -> tuple[int, int]:
    """The game's version and count, as the database holds them."""
    row = await store.db.fetchone("SELECT version, state FROM games WHERE id = ?", (game_id,))
    assert row is not None
    return row["version"], CounterGame.from_dict(json.loads(row["state"])).total  # type: ignore[attr-defined]


@pytest.mark.usefixtures("counter_kind")
@pytest.mark.parametrize(
    "error",
    [
        asyncpg.ConnectionDoesNotExistError,
        # seen when the server shut down in the middle of a statement:
        asyncpg.InternalClientError,
    ],
)
async def test_a_connection_lost_before_commit_is_tried_again(
    store: Store, monkeypatch: pytest.MonkeyPatch, error: type[Exception]
) -> None:
    game_id = await counter_game(store)
    seen = break_at(monkeypatch, "UPDATE games", after=False, error=error)
    stored, _ = await store.games.act(game_id, "1", {"type": "inc"})
    assert stored.version == 2
    assert sum(s.startswith("UPDATE games") for s in seen) == 2  # lost, then tried again
    assert await total(store, game_id) == (2, 1)


@pytest.mark.usefixtures("counter_kind")
@pytest.mark.parametrize("saved", [True, False], ids=["saved", "not saved"])
async def test_a_commit_whose_answer_is_lost_counts_once(
    store: Store, monkeypatch: pytest.MonkeyPatch, saved: bool
) -> None:
    """The database holds the move (its version and state): found saved, once. It does not:
    the player is told it may not count (``committed`` unknown), and it can be made again."""
    game_id = await counter_game(store)
    break_at(monkeypatch, "COMMIT", after=saved)
    if saved:
        stored, _ = await store.games.act(game_id, "1", {"type": "inc"})
        assert stored.version == 2
    else:
        with pytest.raises(DatabaseLost) as lost:
            await store.games.act(game_id, "1", {"type": "inc"})
        assert lost.value.committed is None
    assert await total(store, game_id) == ((2, 1) if saved else (1, 0))
    await store.games.act(game_id, "2" if saved else "1", {"type": "inc"})  # it goes on
    assert await total(store, game_id) == ((3, 2) if saved else (2, 1))
