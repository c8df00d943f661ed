"""What :mod:`bot.storage.limits` counts and deletes, in SQL (run again on PostgreSQL by
tests/bot/test_postgres.py): open lobbies per member, channel and server, live games a
member sits in, and closed lobbies purged with their timers."""

from __future__ import annotations

from datetime import timedelta

import pytest
from pydantic import ValidationError

from bot.clock import FakeClock
from bot.engine import SYSTEM, new_game
from bot.limits import LimitReached, MemberLimits, member_limits, update_member_limits
from bot.storage import Store
from bot.storage.limits import OpenLobbies, count_live_games, count_open_lobbies

GUILD, OTHER_GUILD = 1, 2
HALL, ANNEX = 10, 20
KINDS = ["lobby", "papayoo"]


async def lobby(store: Store, host: str, channel: int = HALL, guild: int = GUILD) -> int:
    game = new_game("lobby", [host], 0, {"game": "papayoo"})
    return await store.games.create("lobby", guild, channel, game)


async def test_open_lobbies_are_counted_per_member_channel_and_server(store: Store) -> None:
    await lobby(store, "111")
    await lobby(store, "111")
    await lobby(store, "222", ANNEX)
    await lobby(store, "111", HALL, OTHER_GUILD)
    closed = await lobby(store, "111")
    await store.games.act(closed, "111", {"type": "cancel"})
    async with store.db.transaction() as conn:
        assert await count_open_lobbies(conn, GUILD, HALL, "111") == OpenLobbies(2, 2, 3)
        assert await count_open_lobbies(conn, GUILD, ANNEX, "222") == OpenLobbies(1, 1, 3)
        assert await count_open_lobbies(conn, 3, HALL, "111") == OpenLobbies(0, 0, 0)


async def test_live_games_count_the_seats_of_one_member_only(store: Store) -> None:
    joined = await lobby(store, "222")
    await store.games.act(joined, "111", {"type": "join"})
    await lobby(store, "111")
    players = ["111", "333", "444"]
    await store.games.create("papayoo", GUILD, HALL, new_game("papayoo", players, 1, {}))
    await store.games.create("papayoo", OTHER_GUILD, HALL, new_game("papayoo", players, 1, {}))
    async with store.db.transaction() as conn:
        assert await count_live_games(conn, GUILD, "111", KINDS) == 3
        assert await count_live_games(conn, GUILD, "111", ["papayoo"]) == 1
        assert await count_live_games(conn, GUILD, "333", KINDS) == 1
        assert await count_live_games(conn, GUILD, "11", KINDS) == 0  # not a prefix of 111
        assert await count_live_games(conn, GUILD, "1111", KINDS) == 0
        assert await count_live_games(conn, GUILD, "111", []) == 0


async def test_a_limit_raised_in_create_keeps_nothing(store: Store) -> None:
    await lobby(store, "111")

    async def full(conn: object, game_id: int) -> None:
        raise LimitReached("limits.lobbies_member", limit=1)

    game = new_game("lobby", ["111"], 0, {"game": "papayoo"})
    with pytest.raises(LimitReached):
        await store.games.create("lobby", GUILD, HALL, game, in_tx=full)
    assert len(await store.games.find(kind="lobby")) == 1
    # The number it would have taken is given to the next one.
    assert (await store.games.require(await lobby(store, "222"))).number == 2


async def test_closed_lobbies_and_their_timers_are_purged(store: Store, clock: FakeClock) -> None:
    open_id = await lobby(store, "111")
    expired = await lobby(store, "222")
    cancelled = await lobby(store, "333")
    for game_id in (open_id, expired, cancelled):
        await store.timers.put(
            "papayoo.lobby_expiry", clock.now(), {}, f"papayoo_lobby:{game_id}:expire"
        )
    await store.games.act(expired, SYSTEM, {"type": "expire"})
    await store.games.act(cancelled, "333", {"type": "cancel"})
    await store.games.delete_lobby(open_id)  # open: left as it is
    await store.games.delete_lobby(expired)
    assert await store.games.get(open_id) is not None
    assert await store.games.get(expired) is None
    assert await store.timers.get(f"papayoo_lobby:{expired}:expire") is None
    assert await store.games.purge_closed_lobbies(clock.now() - timedelta(hours=1)) == 0
    clock.advance(hours=2)
    assert await store.games.purge_closed_lobbies(clock.now() - timedelta(hours=1)) == 1
    assert await store.games.get(cancelled) is None
    assert await store.timers.get(f"papayoo_lobby:{cancelled}:expire") is None
    assert await store.timers.get(f"papayoo_lobby:{open_id}:expire") is not None


async def test_limits_are_a_servers_settings_with_defaults(store: Store) -> None:
    assert await member_limits(store, GUILD) == MemberLimits()
    assert MemberLimits().model_dump() == {
        "lobbies_per_member": 3,
        "lobbies_per_channel": 10,
        "lobbies_per_server": 50,
        "live_games_per_member": 5,
    }
    saved = await update_member_limits(store, GUILD, {"live_games_per_member": 8})
    assert saved.live_games_per_member == 8 and saved.lobbies_per_member == 3
    with pytest.raises(ValidationError):
        await update_member_limits(store, GUILD, {"lobbies_per_member": 0})
    assert await member_limits(store, GUILD) == saved
    assert await member_limits(store, OTHER_GUILD) == MemberLimits()
