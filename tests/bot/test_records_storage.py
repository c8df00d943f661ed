"""What :mod:`bot.storage.records` reads and changes, in SQL (run again on PostgreSQL by
tests/bot/test_postgres.py): a server's games played, its export lines, and forgetting a
member, after which their id is nowhere in the database and the others' results are the
same."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest

from bot.clock import FakeClock
from bot.engine import new_game
from bot.storage import Store
from bot.storage.pg_schema import TABLES
from bot.storage.records import StillPlaying
from tests.bot.conftest import CounterGame, new_counter
from tests.bot.test_ratings_storage import GUILD as RATED
from tests.bot.test_ratings_storage import play, ranked_kind, snapshot

__all__ = ["ranked_kind"]  # a fixture: Papayoo's stand-in for the rated games

GUILD, OTHER = 1, 2
HALL = 10
ANA, BOB, CID = 111_111_111_111_111_111, 222_222_222_222_222_222, 333_333_333_333_333_333
"""Ids as long as Discord's (one is never part of another)."""


async def finished(store: Store, players: list[int], guild: int = GUILD) -> int:
    """A counter game of ``players`` played to its end (its results recorded)."""
    ids = [str(p) for p in players]
    game_id = await store.games.create(
        "counter", guild, HALL, new_counter(ids, len(ids)), {"names": {p: f"N{p}" for p in ids}}
    )
    for player in ids:
        await store.games.act(game_id, player, {"type": "inc"})
    return game_id


async def everything(store: Store) -> list[tuple[str, dict[str, Any]]]:
    """Every row of every table, as ``(table, {column: value})``."""
    rows = []
    for table in TABLES:
        for row in await store.db.fetchall(f"SELECT * FROM {table}"):  # noqa: S608 (names)
            rows.append((table, dict(row)))
    return rows


async def where_is(store: Store, user_id: int) -> list[tuple[str, str]]:
    """Every ``(table, column)`` where a value holds the id: scanned, not listed, so a new
    table or column that keeps a member's id is found too."""
    return [
        (table, column)
        for table, row in await everything(store)
        for column, value in row.items()
        if mentions(value, user_id)
    ]


def mentions(value: Any, user_id: int) -> bool:
    """Whether a stored value holds the id (as a number, or its digits in a text)."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value == user_id
    return isinstance(value, str) and str(user_id) in value


async def test_games_played_are_listed_newest_first_with_their_end(
    store: Store, clock: FakeClock, counter_kind: type[CounterGame]
) -> None:
    first = await finished(store, [ANA, BOB])
    clock.advance(timedelta(minutes=5))
    second = await finished(store, [BOB, CID])
    running = await store.games.create("counter", GUILD, HALL, new_counter([str(ANA)], 3))
    voided = await store.games.create("counter", GUILD, HALL, new_counter([str(CID)], 3))
    await store.games.set_status(voided, "voided")
    await finished(store, [ANA, BOB], OTHER)
    assert await store.records.count_played(GUILD, "counter") == 3
    played = await store.records.played(GUILD, "counter", limit=2)
    assert [p.stored.id for p in played] == [voided, second]
    assert played[0].abandoned and not played[1].abandoned
    assert played[1].ended_at == clock.now()
    older = await store.records.played(GUILD, "counter", offset=2, limit=2)
    assert [p.stored.id for p in older] == [first] and older[0].stored.number == 1
    assert running not in [p.stored.id for p in played + older]
    assert await store.records.count_played(GUILD, "papayoo") == 0


async def test_export_lines_come_game_after_game_by_rank(
    store: Store, counter_kind: type[CounterGame], monkeypatch: pytest.MonkeyPatch
) -> None:
    from bot.storage import records

    monkeypatch.setattr(records, "EXPORT_ROWS", 7)
    games = [await finished(store, [ANA, BOB, CID]) for _ in range(5)]
    await finished(store, [ANA, BOB], OTHER)
    chunks = [chunk async for chunk in store.records.export_lines(GUILD)]
    assert [len(c) for c in chunks] == [6, 6, 3]
    lines = [line for chunk in chunks for line in chunk]
    assert [line.game_id for line in lines] == [g for g in games for _ in range(3)]
    assert lines[0].rank == 1 and lines[0].won and lines[0].name == f"N{lines[0].user_id}"
    assert {line.number for line in lines} == {1, 2, 3, 4, 5}
    assert [line async for line in store.records.export_lines(3)] == []


async def test_a_forgotten_member_is_nowhere_and_the_others_keep_their_results(
    store: Store, counter_kind: type[CounterGame]
) -> None:
    played = [await finished(store, [ANA, BOB, CID]) for _ in range(2)]
    await finished(store, [BOB, CID])
    await finished(store, [ANA, BOB], OTHER)
    lobby = await store.games.create(
        "lobby", GUILD, HALL, new_game("lobby", [str(BOB)], 0, {"game": "speahx"})
    )
    await store.games.act(lobby, str(ANA), {"type": "join"}, meta_update={f"name:{ANA}": "Ana"})
    await store.games.act(lobby, str(ANA), {"type": "leave"})
    await store.games.act(lobby, str(BOB), {"type": "cancel"})
    await store.titles.award(GUILD, "2025-02", "mastaye", ANA)
    await store.titles.award(GUILD, "2025-02", "tikao", BOB)
    await store.timers.put("spaye.titles", store.games._clock.now(), {"user_id": ANA},
                           key=f"spaye:titles:{GUILD}:2025-02:{ANA}")  # fmt: skip
    await store.private.put(ANA, "papayoo:1:hand", "your hand", locale="fr")
    await store.private.remember_dm(ANA, 999)
    await store.private.remember_dm(BOB, 998)
    before = {
        (guild, user): await store.results.player(guild, "counter", user)
        for guild in (GUILD, OTHER)
        for user in (BOB, CID)
    }
    lines_before = {g: await store.results.for_game(g) for g in played}
    assert {table for table, _ in await where_is(store, ANA)} >= {
        "games", "game_results", "month_titles", "timers", "pending_private", "dm_channels",
    }  # fmt: skip

    done = await store.records.forget_member(ANA)

    assert done.pseudonym < 0 and done.results == 3 and done.titles == 1
    assert done.games == 3 and done.guilds == {GUILD, OTHER}  # the lobby is no game
    assert await where_is(store, ANA) == []
    for (guild, user), stats in before.items():
        assert await store.results.player(guild, "counter", user) == stats
    for game_id, lines in lines_before.items():
        after = await store.results.for_game(game_id)
        swap = {ANA: done.pseudonym}
        assert after == [
            line.__class__(**{**vars_of(line), "user_id": swap.get(line.user_id, line.user_id)})
            for line in lines
        ]
        stored = await store.games.require(game_id)
        assert str(done.pseudonym) in stored.game.to_dict()["players"]
        assert stored.meta["names"] == {str(BOB): f"N{BOB}", str(CID): f"N{CID}"}
    assert await store.private.dm_channel(ANA) is None and await store.private.dm_channel(BOB)
    assert await store.private.pending(ANA) == []
    assert [t.user_id for t in await store.titles.of_month(GUILD, "2025-02")] == [
        done.pseudonym,
        BOB,
    ]
    assert (await store.results.player(GUILD, "counter", ANA)).games == 0
    leaders = [s.user_id for s in await store.results.leaderboard(GUILD, "counter")]
    assert leaders and ANA not in leaders and done.pseudonym not in leaders


def vars_of(line: Any) -> dict[str, Any]:
    return {name: getattr(line, name) for name in line.__dataclass_fields__}


async def test_a_member_at_a_running_game_is_not_forgotten(
    store: Store, counter_kind: type[CounterGame]
) -> None:
    await finished(store, [ANA, BOB])
    running = await store.games.create("counter", GUILD, HALL, new_counter([str(BOB), str(ANA)]))
    await store.private.remember_dm(ANA, 999)
    assert await store.records.running_games(ANA) == [("counter", 2)]
    assert await store.records.running_games(CID) == []
    before = await everything(store)
    with pytest.raises(StillPlaying) as refused:
        await store.records.forget_member(ANA)
    assert refused.value.games == [("counter", 2)]
    assert await everything(store) == before
    await store.games.set_status(running, "voided")
    done = await store.records.forget_member(ANA)
    assert done.results == 1 and await store.private.dm_channel(ANA) is None


@pytest.mark.usefixtures("ranked_kind")
async def test_forgetting_keeps_the_others_ratings_and_a_rebuild_gives_them_again(
    store: Store, clock: FakeClock
) -> None:

    await store.ratings.set_opted_out(RATED, BOB, True)
    for day, ranking in enumerate([[[ANA], [BOB], [CID]], [[CID], [ANA]], [[ANA, CID], [BOB]]]):
        clock.advance(timedelta(days=1))
        await play(store, ranking, meta={"left": [str(ANA)]} if day == 1 else None)
        if day == 0:
            await store.ratings.set_opted_out(RATED, BOB, False)
    await store.ratings.set_opted_out(RATED, ANA, True)
    others = [row for row in (await snapshot(store))[0] if row[3] != ANA]

    done = await store.records.forget_member(ANA)

    assert RATED in done.guilds
    assert await store.ratings.player(RATED, ANA, "2025-Q1") == []
    assert not await store.ratings.is_opted_out(RATED, ANA)
    assert (await snapshot(store))[0] == others
    assert await where_is(store, ANA) == []
    # A rebuild replays the same games with the stand-in: the others' numbers again, and
    # the stand-in never on a board.
    await store.ratings.rebuild()
    again = (await snapshot(store))[0]
    assert [row for row in again if row[3] != done.pseudonym] == others
    boards = await store.ratings.board(RATED, "overall", "2025-Q1")
    assert done.pseudonym not in [row.user_id for row in boards] and boards


@pytest.mark.usefixtures("ranked_kind")
async def test_export_lines_say_who_a_game_rated(store: Store) -> None:
    await store.ratings.set_opted_out(RATED, CID, True)
    await play(store, [[ANA], [BOB], [CID]])
    [lines] = [chunk async for chunk in store.records.export_lines(RATED)]
    assert {line.user_id: line.rated for line in lines} == {ANA: True, BOB: True, CID: False}
    assert [line.rank for line in lines] == [1, 2, 3]


async def test_a_forgotten_member_leaves_no_trace_in_game_nights(
    store: Store, clock: FakeClock
) -> None:
    """A night they planned, answered, were reminded of and sat at keeps its rows, with the
    stand-in; the others' answers stay theirs."""
    night = await store.nights.create(
        guild_id=GUILD,
        channel_id=HALL,
        title="Friday",
        starts_at=clock.now() + timedelta(days=2),
        planner_id=ANA,
        games=["papayoo"],
        meta={"asked": [ANA, BOB]},
    )
    await store.nights.set_rsvp(night.id, ANA, "in", ["papayoo"])
    await store.nights.set_rsvp(night.id, BOB, "maybe")
    assert await store.nights.mark_sent(night.id, "remind_day", ANA)
    await store.nights.add_table(night.id, 1, "papayoo")
    await store.nights.set_seat(night.id, ANA, 1, "seated")
    forgotten = await store.records.forget_member(ANA, guilds=frozenset({GUILD}))
    assert await where_is(store, ANA) == []
    answers = {r.user_id: r.answer for r in await store.nights.rsvps(night.id)}
    assert answers == {forgotten.pseudonym: "in", BOB: "maybe"}
    again = await store.nights.get(night.id)
    assert again is not None and again.planner_id == forgotten.pseudonym
