"""How a finished game reads, and what a hand alone is told: Speahx's game-over table and
hands, the cards a player drew (in their own view and hand only), Papayoo's last trick shown
once, the final record that tells the players."""

from __future__ import annotations

import importlib
from collections import Counter
from typing import Any

import pytest

from bot.engine.papayoo import Papayoo
from bot.seated import HandContext, TableContext
from cogs.papayoo._render import PapayooRenderer
from tests.cogs.conftest import MakeBot
from tests.cogs.test_speahx import table
from tests.fakediscord import FakeDiscord

COGS = ["cogs.speahx"]


@pytest.fixture(autouse=True)
def same_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    module = importlib.import_module("bot.seated.start")
    monkeypatch.setattr(module, "new_seed", lambda: 20251123)


@pytest.mark.e2e
async def test_speahx_drawn_cards_game_over_table_hands_and_record(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        seats = table(fake, bot, ["Ana", "Bob", "Dan"])
        await seats.open_and_start({"turn_seconds": 0})
        render = seats.cog.render

        # The first move refills from the stock: its player alone is told what they drew.
        stored = await seats.stored()
        drawer = stored.game.to_act()[0]
        stock = list(stored.game._stock)  # type: ignore[attr-defined]
        await seats.act(drawer, stored.game.auto_action(drawer))
        after = await seats.stored()
        hand = after.game.view(drawer)["you"]["hand"]
        refill = next(e for e in after.game.public_view()["last"] if e["type"] == "refill")
        count = refill["count"]
        drawn = render.hand_order(stock[len(stock) - count :])
        assert count > 0 and not Counter(drawn) - Counter(hand)
        said = f"You drew {render.arts(drawn, 400)}."
        assert said in seats.hand(seats.user(drawer)).text
        for user in seats.users:
            if str(user.id) != drawer:
                assert "You drew" not in seats.hand(user).text
        assert "You drew" not in fake.channel_messages(seats.channel)[0].text
        # They are in the saved game, in the drawer's own view alone: a hand drawn from it
        # alone (as after a restart) says it too.
        assert render.hand_order(after.game.view(drawer)["you"]["drawn"]) == drawn
        for user in seats.users:
            if str(user.id) != drawer:
                assert after.game.view(str(user.id))["you"]["drawn"] == []
        assert "you" not in after.game.public_view()
        alone = HandContext(game_id=1, view=after.game.view(drawer), locale="en", current=False)
        assert said in (render.hand(alone).description or "")

        await seats.play_auto()
        stored = await seats.stored()
        assert stored.status == "over"
        over = stored.game.public_view()
        loser = str(over["loser"])
        last = over["last"]
        finisher = next(e["player"] for e in last if e["type"] == "out")

        # The table says the game is over, with the places and the loser marked.
        board = fake.channel_messages(seats.channel)[0].text
        assert "Speahx #1 · game over" in board and "players ·" not in board
        assert "To follow" not in board and "▶" not in board
        assert "Final places" in board
        assert f"💀 <@{loser}>: place 3, loses" in board
        assert f"🏁 <@{finisher}>: out, place 2" in board
        assert f"💀 <@{loser}> keeps cards to the end and loses." in board  # third person

        # Every hand says it is over, with its player's place, and no live-game line.
        for user in seats.users:
            text = seats.hand(user).text
            assert "Speahx #1 · game over" in text
            assert "To follow" not in text and "Your table cards" not in text
            assert "Not your turn" not in text and "The game is over" in text
            place = stored.game.result()["scores"][str(user.id)]
            if str(user.id) == loser:
                assert f"💀 You finish last: place {place}." in text
                assert "💀 You keep cards to the end and lose." in text
            else:
                assert f"🏁 You have finished: place {place}." in text
        # Their own move in the second person, in their own hand only.
        mine = seats.hand(seats.user(finisher)).text
        assert "🏁 You have no card left: out, place 2." in mine
        assert f"🏁 <@{finisher}> has no card left" in seats.hand(seats.user(loser)).text

        # The result record notifies the players, once.
        record = await fake.wait_for(  # posted once the last move is answered
            lambda: next(
                (m for m in fake.channel_messages(seats.channel)[-1:] if "game over" in m.text),
                None,
            )
        )
        assert "game over" in record.text and "💀" in record.text
        for user in seats.users:
            assert f"<@{user.id}>" in record.content
        assert record.content.endswith("Speahx #1 is over.")
        assert {u.id for u in record.mentions} == {u.id for u in seats.users}
        told = [m for m in fake.channel_messages(seats.channel) if "is over" in m.content]
        assert told == [record]
    await bot.store.close()


@pytest.mark.e2e
async def test_the_final_record_mentions_no_computer_seat(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        seats = table(fake, bot, ["Ana"])
        ana = seats.users[0]
        lobby = await fake.slash(ana, seats.channel, "speahx begin", {"turn_seconds": 0})
        lobby_id = int(fake.buttons(lobby)[0].custom_id.split(":")[2])
        custom_id = f"gns:speahx_lobby:{lobby_id}:add_computer"
        assert (await fake.select(ana, lobby, custom_id, ["easy"])).callback_type == 7
        assert (await fake.click(ana, lobby, label="Start")).callback_type == 7
        await seats.cog.settle()
        seats.game_id = (await bot.store.games.find(kind="speahx"))[0].id
        me = str(ana.id)
        for _ in range(2000):
            stored = await seats.stored()
            if not stored.is_active:
                break
            await seats.act(me, stored.game.auto_action(me))
        record = await fake.wait_for(  # posted once the last move is answered
            lambda: next(
                (m for m in fake.channel_messages(seats.channel)[-1:] if "is over" in m.content),
                None,
            )
        )
        assert record.content == f"<@{me}>: Speahx #1 is over."
        assert "Computer" not in record.content
    await bot.store.close()


def test_papayoo_final_table_shows_the_last_trick_once() -> None:
    render = PapayooRenderer()
    players = ["1", "2", "3", "4"]
    game = Papayoo.new(players, 7, {"rounds": 1})
    events: list[dict[str, Any]] = []
    while not game.is_over():
        player = game.to_act()[0]
        events = game.apply(player, game.auto_action(player))
    view = game.public_view()
    assert view["phase"] == "over"
    last = render.event_lines(events, view, "en")
    won = render.won_line(view["last_trick"], view, "en")
    assert won in last  # the hands still tell it
    embed = render.table(TableContext(game_id=3, view=view, locale="en", last=last))
    text = "\n".join(f"{f.name}\n{f.value}" for f in embed.fields)
    assert embed.title == "Papayoo #3 · game over"
    assert "Previous trick" in text and "took it" in text
    assert "takes the trick" not in text
    assert "Round 1 is over" in text
