"""Spit end to end through the fake Discord: one public board, each player's own panel,
both players at once."""

from __future__ import annotations

import asyncio
import contextlib
import importlib
from typing import Any

import pytest

from bot.clock import FakeClock
from bot.engine import load_game
from bot.i18n import t
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


def seat_of(custom_id: str) -> int:
    return int(custom_id.split(":")[4].split(".")[0])


async def open_panel(fake: FakeDiscord, user: FakeUser, board: FakeMessage) -> FakeMessage:
    """**My controls** on the board: the board is refreshed in the answer, and the panel
    comes as a follow-up only the presser sees."""
    game_id = int(fake.buttons(board)[0].custom_id.split(":")[2])
    pressed = await fake.click(user, board, f"gn:spit:{game_id}:panel")
    assert pressed.callback_type == 7 and pressed.response is not None
    assert pressed.response.id == board.id and not pressed.ephemeral
    # The panel follows the answer; on a busy machine it may come after the click settled.
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(pressed.interaction.followed_up.wait(), 5.0)
    assert len(pressed.followups) == 1, pressed.followups
    panel = pressed.followups[0]
    assert panel.ephemeral and panel.visible_to is user
    return panel


async def press(
    fake: FakeDiscord, user: FakeUser, message: FakeMessage, custom_id: str, settle: float = 0.02
) -> Any:
    """A press of ``custom_id`` on ``message`` as Discord delivers it, whether the button is
    on the message or not (a stale, raced or forged press)."""
    data = {"custom_id": custom_id, "component_type": 2}
    inter = fake._new_interaction(
        3, user, message.channel, data, f"press {custom_id}", source=message
    )
    return await fake._run(inter, timeout=5.0, settle=settle)


async def panels_of(
    fake: FakeDiscord, board: FakeMessage, users: dict[str, FakeUser]
) -> dict[str, FakeMessage]:
    return {p: await open_panel(fake, u, board) for p, u in users.items()}


async def test_two_players_play_to_the_end_through_their_own_panels(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    channel, ana, bob = office(fake)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        board, game_id = await challenge(fake, bot, channel, ana, bob)
        cog = bot.get_cog("Spit")
        assert isinstance(cog, SeatedCog)
        users = {str(ana.id): ana, str(bob.id): bob}
        panels = await panels_of(fake, board, users)
        players = (await bot.store.games.require(game_id)).game.public_view()["players"]
        mark = fake.mark()
        clicks = 0
        for _ in range(3000):
            await cog.settle()
            stored = await bot.store.games.require(game_id)
            if not stored.is_active:
                break
            for p in players:  # each panel: its owner's moves only, all they may do now
                shown = fake.message(panels[p].id)
                ids = [b.custom_id for b in fake.buttons(shown)]
                assert ids and {seat_of(i) for i in ids} == {players.index(p)}, ids
                enabled = {b.custom_id for b in fake.buttons(shown) if not b.disabled}
                legal = {
                    control(game_id, players.index(p), a)
                    for a in stored.game.legal_actions(p)
                    if a["type"] != "fill"
                }
                assert legal <= enabled, (p, legal - enabled)
            assert [b.custom_id for b in fake.buttons(board)] == [f"gn:spit:{game_id}:panel"]
            moves = [
                fake.click(
                    users[p],
                    fake.message(panels[p].id),
                    control(game_id, players.index(p), stored.game.auto_action(p)),
                    settle=0,
                )
                for p in stored.game.to_act()
            ]
            answers = await asyncio.gather(*moves)
            clicks += len(answers)
            for answer in answers:  # each answered on the presser's own panel
                assert answer.callback_type == 7 and answer.ephemeral
                assert answer.response.id in {m.id for m in panels.values()}
        await cog.settle()
        stored = await bot.store.games.require(game_id)
        assert stored.status == "over"
        assert "🏆" in fake.message(board.id).text
        assert fake.buttons(board) == []
        # Panels are edited with the players' own tokens: the bot's token edits no panel,
        # and the board only where no press left a token.
        by_bot = [
            c
            for c in fake.calls_since(mark)
            if not c.route.startswith(("/webhooks", "/interactions"))
        ]
        assert all("/messages" in c.route for c in by_bot), [c.route for c in by_bot]
        assert len(by_bot) <= 3, [c.route for c in by_bot]
        # One count of cards left: the board, both panels and the result say the same.
        scores = stored.game.result()["scores"]
        sides = {f["name"]: f["value"] for f in fake.message(board.id).embeds[0]["fields"]}
        result = next(
            m for m in fake.channel_messages(channel) if "🏆" in m.text and m.id != board.id
        )
        for p in players:
            left = scores[p]
            side = next(v for v in sides.values() if v.startswith(f"<@{p}>"))
            assert f"cards left: {left}" in side, (side, scores)
            assert f"<@{p}>: {left} card" in result.text, (result.text, scores)
            panel = fake.message(panels[p].id)
            assert fake.buttons(panel) == []
            locale_left = "cards left" if p == str(ana.id) else "cartes restantes"
            assert f"{locale_left}: {left}" in panel.text.replace(" :", ":"), panel.text
        winner = stored.game.public_view()["winner"]
        assert winner is None or scores[winner] == 0
        assert fake.dms(ana) == [] and fake.dms(bob) == []
        assert fake.late_interactions == []
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


async def test_a_press_on_the_other_players_panel_changes_nothing(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    channel, ana, bob = office(fake)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        board, game_id = await challenge(fake, bot, channel, ana, bob)
        users = {str(ana.id): ana, str(bob.id): bob}
        panels = await panels_of(fake, board, users)
        stored = await bot.store.games.require(game_id)
        players = stored.game.public_view()["players"]
        ana_seat, bob_seat = players.index(str(ana.id)), players.index(str(bob.id))
        theirs = fake.message(panels[str(ana.id)].id)
        before = [(v.content, v.embeds, v.components) for v in theirs.versions]
        spit = control(game_id, ana_seat, {"type": "spit"})
        # Bob (in French) presses Ana's Spit! on Ana's panel (a forged press).
        forged = await press(fake, bob, theirs, spit)
        assert forged.callback_type == 4 and forged.ephemeral
        assert forged.response.visible_to is bob
        assert t("spit.panel.stale", "fr") in forged.text, forged.text
        assert {seat_of(b.custom_id) for b in forged.buttons} == {bob_seat}  # his panel now
        assert (await bot.store.games.require(game_id)).version == stored.version
        after = [(v.content, v.embeds, v.components) for v in theirs.versions]
        assert after == before  # Ana's panel was not touched
        # The owner's own press still plays.
        played = await fake.click(ana, theirs, spit)
        assert played.callback_type == 7 and played.response.id == theirs.id
        assert (await bot.store.games.require(game_id)).version == stored.version + 1
    await bot.store.close()


async def test_an_older_panel_answers_from_an_earlier_turn_and_plays_nothing(
    fake_discord: FakeDiscord, make_bot: MakeBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A player who opened their controls twice and presses the older panel, whose
    retirement did not reach Discord (dismissed, or its token gone)."""
    from cogs.spit._cog import SpitCog

    async def lost(*_args: Any) -> None:
        return None

    monkeypatch.setattr(SpitCog, "_retire_panel", lost)
    fake = fake_discord
    channel, ana, bob = office(fake)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        board, game_id = await challenge(fake, bot, channel, ana, bob)
        cog = bot.get_cog("Spit")
        assert isinstance(cog, SeatedCog)
        first = await open_panel(fake, ana, board)
        await open_panel(fake, ana, board)
        await cog.settle()
        stored = await bot.store.games.require(game_id)
        seat = stored.game.public_view()["players"].index(str(ana.id))
        spit = control(game_id, seat, {"type": "spit"})
        stale = await press(fake, ana, first, spit)
        assert stale.callback_type == 7 and stale.response.id == first.id
        assert t("spit.panel.stale", "en") in stale.text, stale.text
        assert spit in [b.custom_id for b in fake.buttons(first)]  # the panel as it is now
        assert (await bot.store.games.require(game_id)).version == stored.version
        # The older panel is the live one again: it plays.
        played = await fake.click(ana, first, spit)
        assert played.callback_type == 7
        assert (await bot.store.games.require(game_id)).version == stored.version + 1
    await bot.store.close()


async def test_the_boards_older_buttons_still_play(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    """A board posted before the panels carried each player's moves: a press on one still
    plays for its owner, and the other player's gets the private answer."""
    fake = fake_discord
    channel, ana, bob = office(fake)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        board, game_id = await challenge(fake, bot, channel, ana, bob)
        stored = await bot.store.games.require(game_id)
        players = stored.game.public_view()["players"]
        seat = players.index(str(ana.id))
        spit = control(game_id, seat, {"type": "spit"})
        row = {"type": 2, "style": 1, "custom_id": spit, "label": "🟦 Spit!"}
        fake.message(board.id).components = [{"type": 1, "components": [row]}]
        refused = await press(fake, bob, board, spit)
        assert refused.ephemeral and f"<@{ana.id}>" in refused.text
        assert t("spit.panel.open", "fr") in refused.text
        assert (await bot.store.games.require(game_id)).version == stored.version
        fake.message(board.id).components = [{"type": 1, "components": [row]}]
        played = await press(fake, ana, board, spit)
        assert played.callback_type == 7 and played.response.id == board.id
        assert (await bot.store.games.require(game_id)).version == stored.version + 1
        assert [b.custom_id for b in fake.buttons(board)] == [f"gn:spit:{game_id}:panel"]
    await bot.store.close()


async def test_a_restart_mid_game_keeps_the_panels_working(
    fake_discord: FakeDiscord, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = fake_discord
    channel, ana, bob = office(fake)
    bot = make_bot(COGS)
    users = {}
    async with fake.run_client(bot) as running:
        board, game_id = await challenge(fake, bot, channel, ana, bob)
        users = {str(ana.id): ana, str(bob.id): bob}
        panels = await panels_of(fake, board, users)
        cog = bot.get_cog("Spit")
        assert isinstance(cog, SeatedCog)
        for _ in range(6):
            await cog.settle()
            stored = await bot.store.games.require(game_id)
            p = stored.game.to_act()[0]
            seat = stored.game.public_view()["players"].index(p)
            move = control(game_id, seat, stored.game.auto_action(p))
            await fake.click(users[p], fake.message(panels[p].id), move)
        await cog.settle()
        before = (await bot.store.games.require(game_id)).game.dumps()
        await running.crash()
    await bot.store.close()
    again = make_bot(COGS)
    async with fake.run_client(again):
        stored = await again.store.games.require(game_id)
        assert stored.game.dumps() == before
        p = stored.game.to_act()[0]
        seat = stored.game.public_view()["players"].index(p)
        move = control(game_id, seat, stored.game.auto_action(p))
        answer = await fake.click(users[p], fake.message(panels[p].id), move)
        assert answer.callback_type == 7 and answer.response.id == panels[p].id
        assert (await again.store.games.require(game_id)).version == stored.version + 1
        assert load_game(before).to_act()
    await again.store.close()


async def test_a_slap_race_is_won_by_the_earlier_press_even_when_it_arrives_later(
    fake_discord: FakeDiscord, make_bot: MakeBot
) -> None:
    fake = fake_discord
    channel, ana, bob = office(fake)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        board, game_id = await challenge(fake, bot, channel, ana, bob)
        cog = bot.get_cog("Spit")
        assert isinstance(cog, SeatedCog)
        users = {str(ana.id): ana, str(bob.id): bob}
        panels = await panels_of(fake, board, users)
        for _ in range(3000):  # play until the first new layout is to be slapped
            await cog.settle()  # the panels show the board as it is
            stored = await bot.store.games.require(game_id)
            if stored.game.public_view()["phase"] == "slap":
                break
            p = stored.game.to_act()[0]
            seat = stored.game.public_view()["players"].index(p)
            move = control(game_id, seat, stored.game.auto_action(p))
            await press(fake, users[p], fake.message(panels[p].id), move, settle=0)
        await cog.settle()
        stored = await bot.store.games.require(game_id)
        assert stored.game.public_view()["phase"] == "slap"
        players = stored.game.public_view()["players"]
        slaps = {}
        for p in players:
            custom_id = control(game_id, players.index(p), {"type": "slap", "pile": 0})
            assert custom_id in [b.custom_id for b in fake.buttons(fake.message(panels[p].id))]
            slaps[p] = fake._new_interaction(
                3,
                users[p],
                channel,
                {"custom_id": custom_id, "component_type": 2},
                "slap",
                source=fake.message(panels[p].id),
            )
        first, second = players  # first's interaction was created (stamped by Discord) first
        assert slaps[first].id < slaps[second].id
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
        assert late.ephemeral and early.ephemeral  # each on the presser's own panel
        await cog.settle()
        text = fake.message(board.id).text
        assert f"<@{first}> slaps" in text, text  # the earlier press won the race
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
        panel = await open_panel(fake, ana, board)
        me = str(ana.id)
        for _ in range(3000):
            await cog.settle()
            stored = await bot.store.games.require(game_id)
            if not stored.is_active:
                break
            if me in stored.game.to_act():
                seat = stored.game.public_view()["players"].index(me)
                move = control(game_id, seat, stored.game.auto_action(me))
                await press(fake, ana, fake.message(panel.id), move, settle=0)
        stored = await bot.store.games.require(game_id)
        assert stored.status == "over", stored.game.public_view()["phase"]
        assert "Computer 1" in fake.message(board.id).text
        assert fake.buttons(fake.message(panel.id)) == []  # the final panel: no control
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
