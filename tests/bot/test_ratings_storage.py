"""Ratings storage (``bot.store.ratings``): the update in the result's transaction, once;
casual games, opt-outs, leavers, seasons and carry-over; the boards; the rebuild.

Also run on PostgreSQL (tests/bot/test_postgres.py)."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from bot.clock import FakeClock
from bot.engine import GAMES, SYSTEM, Event, Game
from bot.ratings.model import MU, SIGMA, display_rating, soften
from bot.storage import PlayerResult, Store, StoredGame
from tests.bot.conftest import CounterGame

GUILD = 5
ROOT = Path(__file__).resolve().parents[2]


class RankedGame(CounterGame):
    """A Papayoo stand-in: the system ends it with the ranking it is given."""

    kind = "papayoo"

    def __init__(self, players: list[str], target: int, total: int = 0, turn: int = 0,
                 ranking: list[list[str]] | None = None) -> None:  # fmt: skip
        super().__init__(players, target, total, turn)
        self.ranking = ranking

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Game:
        return cls(data["players"], data["target"], data["total"], data["turn"],
                   data.get("ranking"))  # fmt: skip

    def to_dict(self) -> dict[str, Any]:
        return {**super().to_dict(), "ranking": self.ranking}

    def apply(self, player: str, action: Mapping[str, Any]) -> list[Event]:
        if action.get("type") == "finish" and player == SYSTEM:
            self.ranking = [list(g) for g in action["ranking"]]
            return [{"type": "over"}]
        return super().apply(player, action)

    def is_over(self) -> bool:
        return self.ranking is not None

    def result(self) -> dict[str, Any]:
        return {"ranking": self.ranking or [], "scores": {}}


@pytest.fixture
def ranked_kind(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(GAMES, "papayoo", RankedGame)


async def play(
    store: Store,
    ranking: Sequence[Sequence[int]],
    *,
    meta: Mapping[str, Any] | None = None,
    guild: int = GUILD,
) -> StoredGame:
    """A game of the players in ``ranking``, finished with that ranking (groups tie)."""
    players = [str(p) for group in ranking for p in group]
    game_id = await store.games.create(
        "papayoo", guild, 1, RankedGame(players, 99), meta=dict(meta or {})
    )
    outcome = await store.games.act(
        game_id, SYSTEM, {"type": "finish", "ranking": [[str(p) for p in g] for g in ranking]}
    )
    assert outcome.game.status == "over"
    return outcome.game


async def snapshot(store: Store) -> tuple[list[tuple[Any, ...]], list[tuple[Any, ...]]]:
    ratings = await store.db.fetchall(
        "SELECT guild_id, scope, season, user_id, mu, sigma, rating, games, wins, career,"
        " last_seq FROM ratings ORDER BY guild_id, scope, season, user_id"
    )
    points = await store.db.fetchall(
        "SELECT game_id, scope, user_id, season, seq, place, mu, sigma, rating, at"
        " FROM rating_points ORDER BY game_id, scope, user_id"
    )
    return [tuple(r) for r in ratings], [tuple(r) for r in points]


@pytest.mark.usefixtures("ranked_kind")
async def test_a_finished_game_is_rated_per_game_and_overall(store: Store) -> None:
    stored = await play(store, [[1], [2], [3]])
    season = await store.ratings.current_season(GUILD, stored.updated_at)
    assert season == "2025-Q1"
    for scope in ("papayoo", "overall"):
        board = await store.ratings.board(GUILD, scope, season)
        assert [row.user_id for row in board] == [1, 2, 3]
        assert board[0].mu > MU > board[2].mu
        assert [row.games for row in board] == [1, 1, 1]
        assert [row.wins for row in board] == [1, 0, 0]
        assert all(row.provisional for row in board)
        assert board[0].rating == display_rating(board[0].mu, board[0].sigma)
    verdict = await store.ratings.verdict(stored.id)
    assert verdict is not None and verdict.rated and verdict.season == season
    history = await store.ratings.history(GUILD, "papayoo", 1)
    assert [p.game_id for p in history] == [stored.id]
    assert history[0].at == stored.updated_at
    assert await store.ratings.seasons(GUILD) == [season]


@pytest.mark.usefixtures("ranked_kind")
async def test_a_result_recorded_twice_rates_once(store: Store) -> None:
    stored = await play(store, [[1], [2]])
    before = await snapshot(store)
    lines = [PlayerResult(user_id=1, won=True, rank=1), PlayerResult(user_id=2, rank=2)]
    assert await store.ratings.record(stored, lines) is False
    async with store.db.transaction():  # a retried commit of the same result
        assert await store.ratings.record(stored, lines) is False
    # The game's result written again through the store (reopened, then over again).
    await store.games.set_status(stored.id, "active")
    again = await store.games.set_status(stored.id, "over")
    assert len(await store.results.for_game(again.id)) == 2
    assert await snapshot(store) == before
    assert len(before[1]) == 4  # two players, two scopes


@pytest.mark.usefixtures("ranked_kind")
async def test_ties_share_the_update(store: Store) -> None:
    await play(store, [[1, 2], [3]])
    board = {row.user_id: row for row in await store.ratings.board(GUILD, "papayoo", "2025-Q1")}
    assert board[1].mu == board[2].mu > board[3].mu
    assert board[1].wins == board[2].wins == 1


@pytest.mark.usefixtures("ranked_kind")
async def test_casual_and_computer_games_are_not_rated(store: Store) -> None:
    casual = await play(store, [[1], [2]], meta={"casual": True})
    assert (await store.ratings.verdict(casual.id)) == replace(
        (await store.ratings.verdict(casual.id)),  # type: ignore[type-var]
        rated=False,
        reason="casual",
    )
    lines = [PlayerResult(user_id=1, rank=1, won=True, kind="papayoo.computers")]
    lines.append(PlayerResult(user_id=2, rank=3, kind="papayoo.computers"))
    computers = replace(casual, id=casual.id + 100, meta={})
    assert await store.ratings.record(computers, lines) is True
    verdict = await store.ratings.verdict(computers.id)
    assert verdict is not None and (verdict.rated, verdict.reason) == (False, "computers")
    assert await store.ratings.count(GUILD, "papayoo", "2025-Q1") == 0
    assert await store.ratings.seasons(GUILD) == []


@pytest.mark.usefixtures("ranked_kind")
async def test_opted_out_members_are_left_out(store: Store) -> None:
    await store.ratings.set_opted_out(GUILD, 2, True)
    assert await store.ratings.is_opted_out(GUILD, 2)
    assert await store.ratings.opted_out(GUILD) == {2}
    stored = await play(store, [[1], [2], [3]])
    board = await store.ratings.board(GUILD, "overall", "2025-Q1")
    assert [row.user_id for row in board] == [1, 3]
    verdict = await store.ratings.verdict(stored.id)
    assert verdict is not None and verdict.excluded == (2,)
    points = await store.ratings.history(GUILD, "overall", 3)
    assert len(points) == 1
    two = await play(store, [[1], [2]])
    verdict = await store.ratings.verdict(two.id)
    assert verdict is not None and (verdict.rated, verdict.reason) == (False, "too_few")
    # Back in: rated again; an opted-out member's old rows stay off the boards.
    await store.ratings.set_opted_out(GUILD, 2, False)
    await play(store, [[2], [3]])
    assert await store.ratings.count(GUILD, "overall", "2025-Q1") == 3
    await store.ratings.set_opted_out(GUILD, 3, True)
    assert await store.ratings.count(GUILD, "overall", "2025-Q1") == 2
    assert await store.ratings.rank_of(GUILD, "overall", "2025-Q1", 3) is None


@pytest.mark.usefixtures("ranked_kind")
async def test_a_leaver_finishes_last(store: Store) -> None:
    stored = await play(store, [[1], [2], [3]], meta={"away": {"1": 3, "2": 2}})
    points = {
        row["user_id"]: row["place"]
        for row in await store.db.fetchall(
            "SELECT user_id, place FROM rating_points WHERE game_id = ? AND scope = 'papayoo'",
            (stored.id,),
        )
    }
    assert points == {2: 1, 3: 2, 1: 3}
    row = await store.ratings.rank_of(GUILD, "papayoo", "2025-Q1", 1)
    assert row is not None and row[0] == 3 and row[1].wins == 0


@pytest.mark.usefixtures("ranked_kind")
async def test_board_rank_and_player(store: Store) -> None:
    for _ in range(3):
        await play(store, [[1], [2], [3], [4]])
    season = "2025-Q1"
    assert await store.ratings.count(GUILD, "papayoo", season) == 4
    assert [r.user_id for r in await store.ratings.board(GUILD, "papayoo", season, offset=1,
                                                          limit=2)] == [2, 3]  # fmt: skip
    for place, user in enumerate([1, 2, 3, 4], 1):
        found = await store.ratings.rank_of(GUILD, "papayoo", season, user)
        assert found is not None and found[0] == place and found[1].user_id == user
    assert await store.ratings.rank_of(GUILD, "papayoo", season, 99) is None
    rows = await store.ratings.player(GUILD, 1, season)
    assert [(r.scope, r.games, r.wins) for r in rows] == [("overall", 3, 3), ("papayoo", 3, 3)]
    assert await store.ratings.board(GUILD, "papayoo", "2024-Q4") == []
    assert await store.ratings.board(GUILD + 1, "papayoo", season) == []


@pytest.mark.usefixtures("ranked_kind")
async def test_provisional_until_five_games(store: Store) -> None:
    for n in range(1, 7):
        await play(store, [[1], [2]])
        found = await store.ratings.rank_of(GUILD, "papayoo", "2025-Q1", 1)
        assert found is not None and found[1].provisional is (n < 5)


@pytest.mark.usefixtures("ranked_kind")
async def test_head_to_head_counts_every_finished_game(store: Store) -> None:
    await play(store, [[1], [2]])
    await play(store, [[2], [1], [3]])
    await play(store, [[1, 2]], meta={"casual": True})
    await play(store, [[3], [4]])
    h2h = await store.ratings.head_to_head(GUILD, 1, 2)
    assert (h2h.games, h2h.ahead, h2h.behind, h2h.tied) == (3, 1, 1, 1)
    assert (await store.ratings.head_to_head(GUILD, 1, 2, scope="spit")).games == 0
    assert (await store.ratings.head_to_head(GUILD, 1, 4)).games == 0


@pytest.mark.usefixtures("ranked_kind")
async def test_seasons_carry_over_softened(store: Store, clock: FakeClock) -> None:
    for _ in range(4):
        await play(store, [[1], [2]])
    old = await store.ratings.rank_of(GUILD, "papayoo", "2025-Q1", 1)
    assert old is not None
    clock.set(datetime(2025, 4, 2, 12, tzinfo=UTC))
    assert await store.ratings.current_season(GUILD, clock.now()) == "2025-Q2"
    await play(store, [[2], [1]])
    new = await store.ratings.rank_of(GUILD, "papayoo", "2025-Q2", 1)
    assert new is not None
    assert (new[1].games, new[1].wins, new[1].career) == (1, 0, 5)
    assert not new[1].provisional
    history = await store.ratings.history(GUILD, "papayoo", 1)
    assert len(history) == 5
    assert len(await store.ratings.history(GUILD, "papayoo", 1, season="2025-Q2")) == 1
    # The new season started from the old standing softened, then lost one game.
    start_mu, start_sigma = soften(old[1].mu, old[1].sigma)
    assert new[1].mu < start_mu and start_sigma > old[1].sigma
    assert await store.ratings.seasons(GUILD) == ["2025-Q2", "2025-Q1"]
    assert (await store.ratings.rank_of(GUILD, "papayoo", "2025-Q1", 1)) == old


@pytest.mark.usefixtures("ranked_kind")
async def test_season_period_setting(store: Store, clock: FakeClock) -> None:
    assert await store.ratings.season_period(GUILD) == "quarter"
    await store.ratings.set_season_period(GUILD, "month")
    assert await store.ratings.season_period(GUILD) == "month"
    assert await store.ratings.current_season(GUILD, clock.now()) == "2025-03"
    await store.settings.update(GUILD, {"timezone": "Pacific/Kiritimati"})
    clock.set(datetime(2025, 3, 31, 12, tzinfo=UTC))  # already April 1st at UTC+14
    assert await store.ratings.current_season(GUILD, clock.now()) == "2025-04"
    await store.ratings.set_season_period(GUILD, "year")
    assert await store.ratings.current_season(GUILD, clock.now()) == "2025"
    await play(store, [[1], [2]])
    assert await store.ratings.seasons(GUILD) == ["2025"]
    from pydantic import ValidationError

    with pytest.raises(ValidationError):
        await store.ratings.set_season_period(GUILD, "week")  # type: ignore[arg-type]


@pytest.mark.usefixtures("ranked_kind")
async def test_forget_deletes_the_members_ratings(store: Store) -> None:
    await play(store, [[1], [2], [3]])
    await store.ratings.set_opted_out(GUILD, 1, True)
    async with store.db.transaction():
        await store.ratings.forget(GUILD, 1)
    assert await store.ratings.player(GUILD, 1, "2025-Q1") == []
    assert await store.ratings.history(GUILD, "papayoo", 1) == []
    assert not await store.ratings.is_opted_out(GUILD, 1)
    assert await store.ratings.count(GUILD, "papayoo", "2025-Q1") == 2


@pytest.mark.usefixtures("ranked_kind")
async def test_a_forgotten_members_alias_keeps_the_others_ratings_through_a_rebuild(
    store: Store,
) -> None:
    await store.ratings.set_opted_out(GUILD, 4, True)
    for ranking in ([[1], [2], [3], [4]], [[2], [1]], [[3], [1], [2]], [[1], [4], [3]]):
        await play(store, ranking, meta={"away": {"1": 3}} if ranking[0] == [3] else None)
    await store.ratings.set_opted_out(GUILD, 4, False)
    await play(store, [[4], [1]])
    async with store.db.transaction():  # /forget-me: the seats get an alias, then this
        for user, alias in ((1, -1), (4, -2)):
            await store.db.execute(
                "UPDATE game_results SET user_id = ? WHERE guild_id = ? AND user_id = ?",
                (alias, GUILD, user),
            )
            await store.ratings.forget(GUILD, user, alias=alias)
    with pytest.raises(ValueError, match="alias"):
        await store.ratings.forget(GUILD, 2, alias=7)
    live = await snapshot(store)
    assert {row[3] for row in live[0]} == {2, 3}
    await store.ratings.rebuild()
    assert await snapshot(store) == live


@pytest.mark.usefixtures("ranked_kind")
async def test_rebuild_is_deterministic_and_equals_the_live_ratings(
    store: Store, clock: FakeClock
) -> None:
    await store.ratings.set_opted_out(GUILD, 4, True)
    orders = [[1, 2, 3, 4], [3, 1, 2], [2, 3], [4, 1, 3, 2], [1, 2]]
    for day in range(30):
        clock.advance(timedelta(days=5))
        ranking = [[p] for p in orders[day % len(orders)]]
        if day % 7 == 3:
            ranking = [[1, 2], [3]]
        await play(store, ranking, meta={"away": {"3": 4}} if day == 11 else None)
        if day == 15:
            await store.ratings.set_opted_out(GUILD, 4, False)
    await play(store, [[1], [2]], guild=GUILD + 1)
    live = await snapshot(store)
    assert len(await store.ratings.seasons(GUILD)) >= 2
    first = await store.ratings.rebuild()
    assert await snapshot(store) == live
    second = await store.ratings.rebuild([GUILD])
    assert await snapshot(store) == live
    assert (first.games, first.guilds) == (31, 2)
    assert second.games == 30


@pytest.mark.usefixtures("ranked_kind")
async def test_games_played_before_the_ratings_are_rated_at_start_up(store: Store) -> None:
    for ranking in ([[1], [2]], [[2], [1], [3]], [[3], [1]]):
        await play(store, ranking)
    await play(store, [[1], [3]], meta={"casual": True})
    live = await snapshot(store)
    for table in ("rated_games", "ratings", "rating_points", "rating_seq"):
        await store.db.execute(f"DELETE FROM {table}")  # noqa: S608
    assert await store.ratings.unseen() == [GUILD]
    report = await store.ratings.catch_up()
    assert report is not None and (report.games, report.rated) == (4, 3)
    assert await snapshot(store) == live
    assert await store.ratings.catch_up() is None


@pytest.mark.usefixtures("ranked_kind")
async def test_a_new_member_starts_as_a_newcomer(store: Store) -> None:
    await play(store, [[1], [2]])
    rows = {r.user_id: r for r in await store.ratings.board(GUILD, "overall", "2025-Q1")}
    assert rows[1].sigma < SIGMA and rows[1].mu + rows[2].mu == pytest.approx(2 * MU)


async def run_bot(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    """``python -m bot`` with ``args``, the tests' settings and database left out."""
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("DATABASE_", "DISCORD_"))}
    return await asyncio.to_thread(
        subprocess.run,
        [sys.executable, "-m", "bot", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**environ, "PYTHONPATH": str(ROOT), **env},
        timeout=60,
        check=False,
    )


@pytest.mark.usefixtures("ranked_kind")
async def test_the_rebuild_command_gives_the_live_ratings_again(
    store: Store, db_path: Path
) -> None:
    for ranking in ([[1], [2], [3]], [[3], [2]], [[2, 3], [1]]):
        await play(store, ranking)
    live = await snapshot(store)
    for _ in range(2):
        done = await run_bot("ratings", "rebuild", DATABASE_PATH=str(db_path))
        assert done.returncode == 0, done.stderr
        assert "3 finished games replayed (3 rated) in 1 server(s)" in done.stdout
        assert await snapshot(store) == live
    helped = await run_bot("ratings", "--help")
    assert helped.returncode == 0 and "rebuild" in helped.stdout
