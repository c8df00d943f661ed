"""Speahx end to end through the fake Discord, with the real bot and its database."""

from __future__ import annotations

import importlib
import json
import logging
from pathlib import Path
from typing import Any

import pytest

from bot.clock import FakeClock
from bot.engine import load_game
from cogs.speahx._controls import move_for
from tests.cogs.conftest import MakeBot
from tests.fakediscord import FakeDiscord
from tests.seated.driver import Seats

pytestmark = pytest.mark.e2e
COGS = ["cogs.speahx"]


@pytest.fixture(autouse=True)
def same_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module("bot.seated.start")
    monkeypatch.setattr(module, "new_seed", lambda: 20251123)


def table(fake: FakeDiscord, bot: object, names: list[str]) -> Seats:
    guild = fake.add_guild("Office")
    channel = fake.add_text_channel(guild, "games")
    users = []
    for name in names:
        user = fake.add_user(name, locale="fr" if name == "Cyd" else "en-US")
        fake.add_member(guild, user)
        users.append(user)
    return Seats(fake, bot, "speahx", channel, users)  # type: ignore[arg-type]


async def test_three_players_play_to_the_end(fake_discord: FakeDiscord, make_bot: MakeBot) -> None:
    fake = fake_discord
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        seats = table(fake, bot, ["Ana", "Bob", "Cyd"])
        await seats.open_and_start({"turn_seconds": 0})
        moves = await seats.play_auto()
        stored = await seats.stored()
        assert stored.status == "over" and moves > 10
        channel = fake.channel_messages(seats.channel)
        assert len(channel) == 3, [m.text for m in channel]  # the table, the call, the result
        assert "💀" in channel[-1].text and "🏆" in channel[-1].text
        for user in seats.users:
            assert len([m for m in fake.dms(user) if not m.deleted]) == 1
        loser = stored.game.result()["loser"]
        assert f"<@{loser}>" in channel[-1].text
    await bot.store.close()


async def test_fourteen_players_play_their_first_rounds(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        names = [f"P{i:02d}" for i in range(14)]
        seats = table(fake, bot, names)
        await seats.open_and_start({"turn_seconds": 0})
        view = (await seats.stored()).game.public_view()
        assert view["decks"] == 3 and len(view["players"]) == 14
        for _ in range(30):
            stored = await seats.stored()
            player = stored.game.to_act()[0]
            await seats.act(player, stored.game.auto_action(player))
        table_message = fake.channel_messages(seats.channel)[0]
        assert "14 players" in table_message.text and "3 deck" in table_message.text
    await bot.store.close()


async def test_a_hand_of_more_than_25_cards_plays_any_legal_group(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        seats = table(fake, bot, ["Ana", "Bob"])
        await seats.open_and_start({"turn_seconds": 0})
        # Make the game one where Ana holds a big hand: she collects until she holds > 25.
        for _ in range(400):
            stored = await seats.stored()
            player = stored.game.to_act()[0]
            hand = stored.game.view(player)["you"]["hand"]
            legal = stored.game.legal_actions(player)
            if player == str(seats.users[0].id) and len(hand) > 25:
                break
            collect = [a for a in legal if a["type"] == "collect"]
            if player == str(seats.users[0].id) and collect:
                await seats.act(player, collect[0])
            else:
                await seats.act(player, stored.game.auto_action(player))
        stored = await seats.stored()
        ana = str(seats.users[0].id)
        assert len(stored.game.view(ana)["you"]["hand"]) > 25
        legal = stored.game.legal_actions(ana)
        message = seats.hand(seats.users[0])
        assert fake.selects(message), "a big hand is offered in selects"
        plays = [a for a in legal if a["type"] == "play"]
        # The last one offered (a later select or screen), by its control: one per distinct move.
        move = move_for(stored.game.view(ana), plays[-1])
        assert move is not None
        await seats.act(ana, legal[move.index])
        after = await seats.stored()
        assert after.version == stored.version + 1
    await bot.store.close()


async def test_a_restart_mid_turn_keeps_the_hand_controls_working(
    fake_discord: FakeDiscord, make_bot: MakeBot, clock: FakeClock, db_file: Path
) -> None:
    fake = fake_discord
    bot = make_bot(COGS)
    async with fake.run_client(bot) as running:
        seats = table(fake, bot, ["Ana", "Bob", "Cyd"])
        await seats.open_and_start({"turn_seconds": 0})
        for _ in range(5):
            stored = await seats.stored()
            player = stored.game.to_act()[0]
            await seats.act(player, stored.game.auto_action(player))
        before = (await seats.stored()).game.dumps()
        await running.crash()
    await bot.store.close()
    again = make_bot(COGS)
    async with fake.run_client(again):
        seats.bot = again
        stored = await seats.stored()
        assert stored.game.dumps() == before
        player = stored.game.to_act()[0]
        await seats.act(player, stored.game.auto_action(player))
        assert json.loads((await seats.stored()).game.dumps()) != json.loads(before)
        assert load_game(before).to_act() == [player]
    await again.store.close()


async def test_a_colleague_plays_a_whole_game_against_two_computer_players(
    fake_discord: FakeDiscord,
    make_bot: MakeBot,
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The computers play Speahx with ``bot.ai`` at their level (no fallback to the timer's
    move): the colleague only ever waits for their own turn, and the game ends."""
    from bot import computers

    think = computers.think
    fallbacks: list[str | None] = []

    async def noted(*args: Any, **kwargs: Any) -> Any:
        choice = await think(*args, **kwargs)
        fallbacks.append(choice.fallback)
        return choice

    monkeypatch.setattr(computers, "think", noted)
    fake = fake_discord
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        seats = table(fake, bot, ["Ana"])
        ana = seats.users[0]
        lobby = await fake.slash(ana, seats.channel, "speahx begin", {"turn_seconds": 0})
        lobby_id = int(fake.buttons(lobby)[0].custom_id.split(":")[2])
        for level in ("easy", "hard"):
            custom_id = f"gns:speahx_lobby:{lobby_id}:add_computer"
            assert (await fake.select(ana, lobby, custom_id, [level])).callback_type == 7
        assert "🤖 Computer 2 · hard" in fake.message(lobby.response.id).text
        assert (await fake.click(ana, lobby, label="Start")).callback_type == 7
        await seats.cog.settle()
        seats.game_id = (await bot.store.games.find(kind="speahx"))[0].id
        me = str(ana.id)
        for _ in range(2000):
            stored = await seats.stored()
            if not stored.is_active:
                break
            assert stored.game.to_act() == [me], "the computers hold the game up"
            await seats.act(me, stored.game.auto_action(me))
        stored = await seats.stored()
        assert stored.status == "over"
        assert stored.meta["computers"] == {"cpu1": "easy", "cpu2": "hard"}
        assert fallbacks and set(fallbacks) == {None}  # every move was the AI's own
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert len(fake.dms(ana)) == 1  # only the colleague has a hand by DM
    await bot.store.close()
