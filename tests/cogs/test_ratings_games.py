"""Ratings of seated games played through the fake Discord: a rated game, a casual one
(the host's option of ``/<game> begin``, shown on the lobby and the table)."""

from __future__ import annotations

import pytest

from bot.clock import FakeClock
from bot.ratings.ledger import AWAY_MOVES
from tests.cogs.conftest import MakeBot
from tests.cogs.test_speahx import COGS, same_deal, table
from tests.fakediscord import FakeDiscord

pytestmark = pytest.mark.e2e
__fixtures__ = (same_deal,)


async def test_a_finished_game_is_rated_and_a_casual_one_is_not(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        seats = table(fake, bot, ["Ana", "Bob", "Cyd"])
        guild_id = seats.channel.guild.id  # type: ignore[union-attr]
        rated = await seats.open_and_start({"turn_seconds": 0})
        await seats.play_auto()
        verdict = await bot.store.ratings.verdict(rated)
        assert verdict is not None and verdict.rated
        season = await bot.store.ratings.current_season(guild_id, bot.clock.now())
        board = await bot.store.ratings.board(guild_id, "speahx", season)
        assert sorted(r.user_id for r in board) == sorted(u.id for u in seats.users)
        assert await bot.store.ratings.count(guild_id, "overall", season) == 3
        results = {r.user_id: r.rank for r in await bot.store.results.for_game(rated)}
        best = min(results, key=lambda u: results[u] or 99)
        assert board[0].user_id == best

        ana, bob, cyd = seats.users
        lobby = await fake.slash(ana, seats.channel, "speahx begin", {"turn_seconds": 0,
                                                                      "casual": True})  # fmt: skip
        assert "Casual game: not rated" in lobby.text, lobby.text
        for user in (bob, cyd):
            await fake.click(user, lobby, label="Join")
        await fake.click(ana, lobby, label="Start")
        await seats.cog.settle()
        casual = seats.game_id = (await bot.store.games.find(kind="speahx"))[0].id
        assert casual != rated
        stored = await seats.stored()
        assert stored.meta.get("casual") is True
        table_message = fake.message(int(stored.meta["table_id"]))
        assert "Casual game: not rated" in table_message.text, table_message.text
        await seats.play_auto()
        verdict = await bot.store.ratings.verdict(casual)
        assert verdict is not None and (verdict.rated, verdict.reason) == (False, "casual")
        assert all(r.games == 1 for r in await bot.store.ratings.board(guild_id, "speahx", season))

        # /speahx history says which game the ratings left out, as its table did
        shown = await fake.slash(bob, seats.channel, "speahx history")
        heads = {line.split("**")[1]: line for line in shown.text.split("\n") if "**" in line}
        numbers = [(await bot.store.games.require(g)).shown_number for g in (rated, casual)]
        assert "not rated" not in heads[f"Speahx #{numbers[0]}"], shown.text
        assert "Casual game: not rated" in heads[f"Speahx #{numbers[1]}"], shown.text
    await bot.store.close()


async def test_a_member_the_turn_timer_plays_for_to_the_end_finishes_last(
    fake_discord: FakeDiscord, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = fake_discord
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        seats = table(fake, bot, ["Ana", "Bob", "Cyd"])
        cyd = str(seats.users[2].id)
        game_id = await seats.open_and_start({"turn_seconds": 15})
        for _ in range(3000):
            stored = await seats.stored()
            if not stored.is_active:
                break
            player = stored.game.to_act()[0]
            if player == cyd:  # Cyd has gone: the turn timer plays for him
                clock.advance(seconds=16)
                assert await bot.timers.run_due() >= 1
                await seats.cog.settle()
            else:
                await seats.act(player, stored.game.auto_action(player))
        stored = await seats.stored()
        assert stored.status == "over"
        assert stored.meta["away"][cyd] >= AWAY_MOVES
        verdict = await bot.store.ratings.verdict(game_id)
        assert verdict is not None and verdict.rated and verdict.leavers == (int(cyd),)
        places = await bot.store.db.fetchall(
            "SELECT user_id, place FROM rating_points WHERE game_id = ? AND scope = 'speahx'",
            (game_id,),
        )
        assert {int(r["user_id"]): r["place"] for r in places}[int(cyd)] == 3
    await bot.store.close()
