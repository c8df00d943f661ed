"""Spit end to end through the fake Discord: one public board, both players at once."""

from __future__ import annotations

import asyncio
import importlib
from typing import Any

import pytest

from bot.clock import FakeClock
from bot.engine import load_game
from bot.seated import SeatedCog
from cogs.spit._render import encode
from tests.cogs.conftest import MakeBot
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeMessage, FakeUser

pytestmark = pytest.mark.e2e
COGS = ["cogs.spit"]


@pytest.fixture(autouse=True)
def same_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module("bot.seated.start")
    monkeypatch.setattr(module, "new_seed", lambda: 7)


def office(fake: FakeDiscord) -> tuple[FakeChannel, FakeUser, FakeUser]:
    guild = fake.add_guild("Office")
    channel = fake.add_text_channel(guild, "games")
    ana, bob = fake.add_user("Ana"), fake.add_user("Bob", locale="fr")
    fake.add_member(guild, ana)
    fake.add_member(guild, bob)
    return channel, ana, bob


async def challenge(
    fake: FakeDiscord, bot: Any, channel: FakeChannel, ana: FakeUser, bob: FakeUser
) -> tuple[FakeMessage, int]:
    asked = await fake.slash(ana, channel, "spit challenge", {"opponent": bob})
    assert not asked.ephemeral and f"<@{bob.id}>" in asked.text
    accepted = await fake.click(bob, asked, label="Accept")
    assert accepted.callback_type == 7, accepted.text
    cog = bot.get_cog("Spit")
    assert isinstance(cog, SeatedCog)
    await cog.settle()
    game_id = (await bot.store.games.find(kind="spit"))[0].id
    assert accepted.response is not None
    return accepted.response, game_id


def control(game_id: int, seat: int, action: dict[str, Any]) -> str:
    return f"gn:spit:{game_id}:do:{seat}.{encode(action)}"


async def test_two_players_click_at_once_to_the_end(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    channel, ana, bob = office(fake)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        board, game_id = await challenge(fake, bot, channel, ana, bob)
        users = {str(ana.id): ana, str(bob.id): bob}
        for _ in range(3000):
            stored = await bot.store.games.require(game_id)
            if not stored.is_active:
                break
            players = stored.game.public_view()["players"]
            clicks = [
                fake.click(
                    users[p],
                    board,
                    control(game_id, players.index(p), stored.game.auto_action(p)),
                    settle=0,
                )
                for p in stored.game.to_act()
            ]
            answers = await asyncio.gather(*clicks)
            assert all(a.callback_type == 7 and not a.ephemeral for a in answers)
        stored = await bot.store.games.require(game_id)
        assert stored.status == "over"
        assert "🏆" in fake.message(board.id).text
        assert fake.dms(ana) == [] and fake.dms(bob) == []
        assert fake.late_interactions == []
    await bot.store.close()


async def test_a_click_on_the_other_players_controls_changes_nothing(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    channel, ana, bob = office(fake)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        board, game_id = await challenge(fake, bot, channel, ana, bob)
        stored = await bot.store.games.require(game_id)
        players = stored.game.public_view()["players"]
        seat = players.index(str(ana.id))
        mine = control(game_id, seat, stored.game.auto_action(str(ana.id)))
        answer = await fake.click(bob, board, mine)
        assert answer.ephemeral and f"<@{ana.id}>" in answer.text  # whose they are, privately
        assert (await bot.store.games.require(game_id)).version == stored.version
    await bot.store.close()


async def test_challenging_yourself_or_a_bot_is_refused(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    channel, ana, _ = office(fake)
    robot = fake.add_user("Robo", bot=True)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        itself = await fake.slash(ana, channel, "spit challenge", {"opponent": ana})
        assert itself.ephemeral and "yourself" in itself.text
        machine = await fake.slash(ana, channel, "spit challenge", {"opponent": robot})
        assert machine.ephemeral and "Bots" in machine.text
        assert await bot.store.games.find(kind="lobby") == []
    await bot.store.close()


async def test_a_restart_mid_game_keeps_the_board_working(
    fake_discord: FakeDiscord, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = fake_discord
    channel, ana, bob = office(fake)
    bot = make_bot(COGS)
    async with fake.run_client(bot) as running:
        board, game_id = await challenge(fake, bot, channel, ana, bob)
        users = {str(ana.id): ana, str(bob.id): bob}
        for _ in range(6):
            stored = await bot.store.games.require(game_id)
            p = stored.game.to_act()[0]
            seat = stored.game.public_view()["players"].index(p)
            await fake.click(users[p], board, control(game_id, seat, stored.game.auto_action(p)))
        before = (await bot.store.games.require(game_id)).game.dumps()
        await running.crash()
    await bot.store.close()
    again = make_bot(COGS)
    async with fake.run_client(again):
        stored = await again.store.games.require(game_id)
        assert stored.game.dumps() == before
        p = stored.game.to_act()[0]
        seat = stored.game.public_view()["players"].index(p)
        answer = await fake.click(
            users[p], board, control(game_id, seat, stored.game.auto_action(p))
        )
        assert answer.callback_type == 7
        assert (await again.store.games.require(game_id)).version == stored.version + 1
        assert load_game(before).to_act()
    await again.store.close()


async def test_a_slap_race_is_won_by_the_earlier_click_even_when_it_arrives_later(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    channel, ana, bob = office(fake)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        board, game_id = await challenge(fake, bot, channel, ana, bob)
        users = {str(ana.id): ana, str(bob.id): bob}
        for _ in range(3000):  # play until the first new layout is to be slapped
            stored = await bot.store.games.require(game_id)
            if stored.game.public_view()["phase"] == "slap":
                break
            p = stored.game.to_act()[0]
            seat = stored.game.public_view()["players"].index(p)
            await fake.click(
                users[p], board, control(game_id, seat, stored.game.auto_action(p)), settle=0
            )
        stored = await bot.store.games.require(game_id)
        assert stored.game.public_view()["phase"] == "slap"
        players = stored.game.public_view()["players"]
        slaps = {}
        for p in players:
            seat = players.index(p)
            custom_id = control(game_id, seat, {"type": "slap", "pile": 0})
            slaps[p] = fake._new_interaction(
                3,
                users[p],
                channel,
                {"custom_id": custom_id, "component_type": 2},
                "slap",
                source=fake.message(board.id),
            )
        first, second = players  # first's interaction was created (stamped by Discord) first
        assert slaps[first].id < slaps[second].id
        cog = bot.get_cog("Spit")
        assert isinstance(cog, SeatedCog)
        # The later-arriving click must land within the window; on a loaded machine the
        # fake's delivery of it can take longer than the 15 ms the bot waits, so the test
        # waits longer: it checks the order, not how short the window may be.
        cog.order.window = 1.0

        async def later() -> Any:
            await asyncio.sleep(0.005)
            return await fake._run(slaps[first], timeout=5.0, settle=0.05)

        late, early = await asyncio.gather(
            later(), fake._run(slaps[second], timeout=5.0, settle=0.05)
        )
        assert late.callback_type == 7 and early.callback_type == 7
        await cog.settle()
        text = fake.message(board.id).text
        assert f"<@{first}> slaps" in text, text  # the earlier click won the race
        assert f"<@{second}> slaps" not in text
        assert (await bot.store.games.require(game_id)).game.public_view()["phase"] != "slap"
    await bot.store.close()


async def test_a_colleague_plays_spit_against_a_computer(
    fake_discord: FakeDiscord, make_bot: MakeBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    from cogs.spit._cog import SpitCog

    monkeypatch.setattr(SpitCog, "COMPUTER_DELAY", 0.0)
    fake = fake_discord
    channel, ana, _ = office(fake)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        lobby = await fake.slash(ana, channel, "spit begin", {})
        await fake.select(ana, lobby, fake.selects(lobby)[0]["custom_id"], ["hard"])
        board = (await fake.click(ana, lobby, label="Start")).response
        assert board is not None
        cog = bot.get_cog("Spit")
        assert isinstance(cog, SeatedCog)
        game_id = (await bot.store.games.find(kind="spit"))[0].id
        me = str(ana.id)
        for _ in range(3000):
            await cog.settle()
            stored = await bot.store.games.require(game_id)
            if not stored.is_active:
                break
            if me in stored.game.to_act():
                seat = stored.game.public_view()["players"].index(me)
                await fake.click(
                    ana, board, control(game_id, seat, stored.game.auto_action(me)), settle=0
                )
        stored = await bot.store.games.require(game_id)
        assert stored.status == "over", stored.game.public_view()["phase"]
        assert "Computer 1" in fake.message(board.id).text
        results = await bot.store.results.for_game(game_id)
        assert [(r.user_id, r.kind) for r in results] == [(ana.id, "spit.computers")]
    await bot.store.close()


def test_a_computer_opponent_reacts_like_a_person_of_its_level() -> None:
    from types import SimpleNamespace

    from bot.engine import new_game
    from cogs.spit._cog import SpitCog

    game = new_game("spit", ["100", "cpu1"], 7, {})
    while "cpu1" not in game.to_act() or len(game.legal_actions("cpu1")) < 2:
        mover = game.to_act()[0]
        game.apply(mover, game.auto_action(mover))

    def delay(level: str, options: int | None = None) -> float:
        seen = SimpleNamespace(meta={"computers": {"cpu1": level}}, game=game)
        if options is not None:  # the same opponent on a board with fewer moves on offer
            seen.game = SimpleNamespace(legal_actions=lambda _p: [None] * options)
        return SpitCog.computer_delay(SpitCog, seen, "cpu1")  # type: ignore[arg-type]

    assert delay("easy") > delay("normal") > delay("hard") > 0
    assert delay("normal", options=6) > delay("normal", options=1)
