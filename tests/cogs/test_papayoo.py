"""Papayoo end to end through the fake Discord, with the real bot and its database."""

from __future__ import annotations

import asyncio
import importlib
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import discord
import pytest

from bot.clock import FakeClock
from cogs.papayoo._render import card
from tests.cogs.papayoo_support import Table, forge, make_bot, office
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import message_text

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def same_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same deck order every run, so every case below is met the same way.

    The module is imported here because unloading the extension (another test's bot
    shutting down) drops it from ``sys.modules``; loading the cog reuses this one."""
    module = importlib.import_module("cogs.papayoo._cog")
    monkeypatch.setattr(module, "new_seed", lambda: 20250314)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "papayoo.sqlite3"


def all_text(table: Table) -> list[tuple[str, str]]:
    """(who may see it, text) for every message and every earlier version of it."""
    out = []
    for msg in table.fake.messages.values():
        who = "channel" if msg.visible_to is None else str(msg.visible_to.id)
        if msg.channel.is_dm:
            who = str(msg.channel.recipient.id)
        for version in msg.versions:
            out.append((who, message_text(version.content, version.embeds, version.components)))
    return out


def assert_hands_stay_private(table: Table) -> None:
    seen = all_text(table)
    for owner, hands in table.hands_seen.items():
        for hand in hands:
            where = {who for who, text in seen if hand in text}
            assert where <= {str(owner)}, f"{owner}'s hand shown to {where}"
            assert str(owner) in where, "the owner never saw their hand"


async def test_four_players_play_a_round_to_the_end(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    guild, channel, users = office(fake, ["Ana", "Bob", "Cyd", "Dee"], french=["Cyd"])
    bot = make_bot(db_path, clock)
    async with fake.run_client(bot):
        table = Table(fake, bot, guild, channel, users)
        game_id = await table.open_and_start({"rounds": 1, "turn_seconds": 0})
        stored = await table.stored()
        assert stored.game.public_view()["phase"] == "pass"
        french = fake.dms(users[2])[-1]
        assert "votre nouvelle main" in (french.content or "")
        await table.step()  # the pass
        mark = fake.mark()
        await table.step()  # a card: the answer, one table edit, the next player's DM
        assert len(fake.calls_since(mark)) == 3, fake.calls_since(mark)
        assert fake.count("POST", "/interactions/{}/{}/callback", since=mark) == 1
        assert fake.count("PATCH", "/channels/{}/messages/{}", since=mark) == 1
        assert fake.count("POST", "/channels/{}/messages", since=mark) == 1
        await table.play_to_the_end()

        stored = await table.stored()
        assert stored.status == "over"
        final = fake.channel_messages(channel)[-1]
        assert f"Papayoo #{game_id} · game over" in fake.text_of(final)
        assert "round 1/1 is over" in fake.text_of(final)
        results = await bot.store.results.for_game(game_id)
        assert len(results) == 4 and all(r.rounds == 1 for r in results)
        assert sum(r.points for r in results) == 250
        winner = next(r for r in results if r.won)
        shown = await fake.slash(winner_user(users, winner.user_id), channel, "papayoo stats")
        assert shown.ephemeral
        assert "Games played" in shown.text and f"{winner.points:.1f}" in shown.text
        assert_hands_stay_private(table)


def winner_user(users, user_id):  # type: ignore[no-untyped-def]
    return next(u for u in users if u.id == user_id)


async def test_three_players_one_with_closed_dms(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    guild, channel, users = office(fake, ["Ana", "Bob", "Cyd"], locale="fr")
    closed = users[2]
    fake.close_dms(closed)
    bot = make_bot(db_path, clock)
    async with fake.run_client(bot):
        table = Table(fake, bot, guild, channel, users, closed={closed.id})
        game_id = await table.open_and_start({"rounds": 1, "turn_seconds": 30})
        assert f"Papayoo n°{game_id} · manche 1/1 · l'écart" in fake.text_of(
            table.table_message(await table.stored())
        )
        assert fake.dms(closed) == []
        assert len(fake.dms(users[0])) == 1
        # Any interaction delivers what could not be sent, with a word about closed DMs.
        later = await fake.slash(closed, channel, "papayoo stats")
        kept = [m for m in later.followups if m.ephemeral]
        assert kept and kept[0].text.startswith("📭")
        assert table.hands_seen[closed.id][0] in kept[0].text
        await table.play_to_the_end()
        stored = await table.stored()
        assert stored.status == "over"
        assert len(await bot.store.results.for_game(stored.id)) == 3
        final = fake.text_of(fake.channel_messages(channel)[-1])
        assert f"Papayoo n°{game_id} · partie terminée" in final
        assert await bot.timers.pending() == []  # the game is over: no turn timer left
        assert fake.dms(closed) == []
        # One failed DM (the deal): the game remembers, later turns skip the DM attempt.
        refused = [c for c in fake.failed_calls() if c.status == 403]
        assert len(refused) == 1, refused
        assert stored.meta["dm_closed"] == [str(closed.id)]
        assert_hands_stay_private(table)


async def test_turn_timer_moves_for_absent_players_and_survives_a_restart(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    guild, channel, users = office(fake, ["Ana", "Bob", "Cyd"])
    bot = make_bot(db_path, clock)
    running = fake.run_client(bot)
    await running.start()
    table = Table(fake, bot, guild, channel, users)
    game_id = await table.open_and_start({"rounds": 1, "turn_seconds": 15})
    [timer] = await bot.timers.pending()
    assert timer.due_at == clock.now() + timedelta(seconds=15)
    assert "<t:" in fake.text_of(table.table_message(await table.stored()))
    ana, bob, cyd = (str(u.id) for u in users)
    await table.pass_cards(ana)
    old_pass = fake.dms(users[1])[-1]
    clock.advance(seconds=14)
    assert await bot.timers.run_due() == 0
    clock.advance(seconds=2)
    assert await bot.timers.run_due() == 1
    note = await fake.wait_for_message(channel, lambda m: "Time is up" in (m.content or ""))
    assert f"<@{bob}>" in note.content and f"<@{cyd}>" in note.content
    stored = await table.stored()
    view = stored.game.view(bob)
    assert view["phase"] == "play" and view["received"] is not None

    # Bob's pass select is from a pass the bot made for him: his message now says so and
    # offers what he may do now (no pass select any more); nothing changed in the game.
    select = fake.selects(old_pass)[0]
    chosen = [o["value"] for o in select["options"][: select["min_values"]]]
    passed = stored.game.view(bob)["passed"]
    stale = await fake.select(users[1], old_pass, select["custom_id"], chosen)
    assert stale.callback_type == 7 and stale.response is not None
    assert stale.content.startswith("⏱ Your time ran out, so the bot passed ")
    assert all(card(c) in stale.content for c in passed) and len(passed) == 5
    assert fake.selects(stale.response) == []
    assert (await table.stored()).version == stored.version

    # The player to act sleeps: the bot plays their lowest legal card, publicly.
    turn = view["turn"]
    sleeper = table.user(turn)
    expected = stored.game.auto_action(turn)["card"]  # type: ignore[attr-defined]
    asleep = await table.controls(sleeper, f"gn:papayoo:{game_id}:play:1.0.")
    clock.advance(seconds=16)
    assert await bot.timers.run_due() == 1
    note = await fake.wait_for_message(channel, lambda m: "the bot played" in (m.content or ""))
    assert note.content == f"⏱ Time is up for <@{turn}>: the bot played {card(expected)}."
    after = await table.stored()
    assert after.game.public_view()["trick"] == [{"player": turn, "card": expected}]
    button = next(b for b in fake.buttons(asleep) if not b.disabled)
    late = await fake.click(sleeper, asleep, button.custom_id)
    assert late.callback_type == 7, "the old message itself is updated, not a new one sent"
    assert late.content == f"⏱ Your time ran out, so the bot played {card(expected)} for you."
    assert fake.buttons(asleep) == []  # no live card button is left on it
    assert "is to play" in late.text
    assert (await table.stored()).version == after.version

    # A timer for a turn already played changes nothing.
    cog = bot.get_cog("Papayoo")
    await cog.on_turn_timer(  # type: ignore[union-attr]
        {"game_id": game_id, "phase": "play", "round": 1, "trick": 0, "card": 0, "player": turn}
    )
    assert (await table.stored()).version == after.version

    # The deadline is in the database: it fires after a restart.
    await running.crash()
    await bot.store.close()
    clock.advance(minutes=5)
    again = make_bot(db_path, clock)
    async with fake.run_client(again):
        next_note = await fake.wait_for_message(
            channel, lambda m: "the bot played" in (m.content or ""), after=note.id
        )
        assert next_note.id != note.id
        table.bot = again
        stored = await table.stored()
        assert len(stored.game.public_view()["trick"]) == 2
        assert [t.payload["card"] for t in await again.timers.pending()] == [2]


async def test_a_restart_mid_trick_keeps_the_old_buttons_working(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    guild, channel, users = office(fake, ["Ana", "Bob", "Cyd", "Dee"])
    bot = make_bot(db_path, clock)
    running = fake.run_client(bot)
    await running.start()
    table = Table(fake, bot, guild, channel, users)
    game_id = await table.open_and_start({"rounds": 1, "turn_seconds": 0})
    await table.step()  # the pass
    await table.step()
    await table.step()
    stored = await table.stored()
    view = stored.game.public_view()
    turn = view["turn"]
    code = stored.game.view(turn)["legal"][0]
    custom_id = f"gn:papayoo:{game_id}:play:1.0.{code}"
    old = await table.controls(table.user(turn), custom_id)
    board = table.table_message(stored)
    await running.crash()
    await bot.store.close()

    again = make_bot(db_path, clock)
    async with fake.run_client(again):
        table.bot = again
        played = await fake.click(table.user(turn), old, custom_id)
        assert played.callback_type == 7 and "You played" in played.text
        assert card(code) in fake.message(board.id).text
        assert len((await table.stored()).game.public_view()["trick"]) == 3
        await table.play_to_the_end()
        assert (await table.stored()).status == "over"
        assert_hands_stay_private(table)


async def test_the_lobby_refuses_clearly_and_changes_nothing(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    names = ["Ana", "Bob", "Cyd", "Dee", "Eve", "Fay", "Gus", "Hal", "Ivy"]
    _, channel, users = office(fake, names, french=["Ivy"])
    ana, bob, *_, ivy = users
    bot = make_bot(db_path, clock)
    async with fake.run_client(bot):
        bad = await fake.slash(ana, channel, "papayoo new", {"turn_seconds": 5})
        assert bad.ephemeral and "0 (off) or from 15 to 600" in bad.text
        lobby = await fake.slash(ana, channel, "papayoo new")
        lobby_id = int(fake.buttons(lobby)[0].custom_id.split(":")[2])

        async def refused(user, label, needle):  # type: ignore[no-untyped-def]
            version = (await bot.store.games.require(lobby_id)).version
            answer = await fake.click(user, lobby, label=label)
            assert answer.ephemeral and needle in answer.text, answer.text
            assert (await bot.store.games.require(lobby_id)).version == version

        await refused(bob, "Start", "Only the host (<@")
        await refused(bob, "Cancel", "Only the host")
        await refused(bob, "Leave", "not at this table")
        await refused(ana, "Leave", "The host cannot leave")
        assert (await fake.click(bob, lobby, label="Join")).callback_type == 7
        await refused(bob, "Join", "already at this table")
        await refused(ana, "Start", "at least 3 players; there are 2")
        for user in users[2:8]:
            assert (await fake.click(user, lobby, label="Join")).callback_type == 7
        await refused(ivy, "Join", "La table est complète (8 joueurs)")
        assert "Players (8/8)" in fake.message(lobby.response.id).text  # type: ignore[union-attr]
        assert (await fake.click(bob, lobby, label="Leave")).callback_type == 7
        assert (await fake.click(ana, lobby, label="Cancel")).callback_type == 7
        assert fake.buttons(lobby) == []
        stored = await bot.store.games.require(lobby_id)
        assert stored.status == "voided"
        assert await bot.store.games.find(kind="papayoo") == []


async def test_bad_moves_are_refused_and_change_nothing(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    guild, channel, users = office(fake, ["Ana", "Bob", "Cyd", "Zed"])
    zed = users[3]
    bot = make_bot(db_path, clock)
    async with fake.run_client(bot):
        table = Table(fake, bot, guild, channel, users[:3])
        game_id = await table.open_and_start({"rounds": 1, "turn_seconds": 0})

        async def unchanged(result, needle):  # type: ignore[no-untyped-def]
            assert result.ephemeral and needle in result.text, result.text
            assert (await table.stored()).version == version

        stored = await table.stored()
        version = stored.version
        ana = users[0]
        hand = stored.game.view(str(ana.id))["hand"]
        choose = f"gns:papayoo:{game_id}:choose:1"
        dm = fake.dms(ana)[-1]
        await unchanged(await forge(fake, ana, dm, choose, hand[:2]), "exactly 5 cards, not 2")
        picked = await fake.select(ana, dm, choose, hand[:5])
        confirm = next(b.custom_id for b in fake.buttons(picked) if ":pass:" in b.custom_id)
        short = confirm.rsplit("-", 3)[0]  # a Confirm carrying 2 cards only
        retarget(picked.response, confirm, short)
        await unchanged(await forge(fake, ana, picked.response, short), "exactly 5 cards")
        retarget(picked.response, short, confirm)
        nobody = await fake.click(zed, table.table_message(stored), label="Show my hand")
        await unchanged(nobody, "not playing in this game")

        for player in stored.game.public_view()["players"]:
            await table.pass_cards(player)
        stored = await table.stored()
        version = stored.version
        view = stored.game.public_view()
        turn, waiting = view["turn"], next(p for p in view["players"] if p != view["turn"])
        mine = stored.game.view(turn)
        prefix = f"gn:papayoo:{game_id}:play:1.0."
        msg = await table.controls(table.user(turn), prefix)
        first = prefix + mine["legal"][0]
        elsewhere = next(c for c in stored.game.view(waiting)["hand"])
        forged = prefix + elsewhere
        retarget(msg, first, forged)
        not_mine = await forge(fake, table.user(turn), msg, forged)
        await unchanged(not_mine, f"{card(elsewhere)} is not in your hand")
        retarget(msg, forged, first)
        shown = await fake.click(
            table.user(waiting), table.table_message(stored), label="Show my hand"
        )
        assert shown.response is not None and fake.buttons(shown) == []
        shown.response.components.append(
            {"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": first}]}
        )
        out_of_turn = await forge(fake, table.user(waiting), shown.response, first)
        await unchanged(out_of_turn, f"It is <@{turn}>'s turn, not yours.")
        # A card button on a shared message would be answered with the hand: refused.
        board = table.table_message(stored)
        board.components.append(
            {"type": 1, "components": [{"type": 2, "style": 1, "label": "x", "custom_id": first}]}
        )
        public = await forge(fake, table.user(turn), board, first)
        board.components.pop()
        await unchanged(public, "This button does nothing any more.")
        assert card(mine["hand"][0]) not in fake.message(board.id).text

        await table.play_card(turn)  # leads; now the follower must follow suit
        stored = await table.stored()
        version = stored.version
        follower = stored.game.public_view()["turn"]
        follow = stored.game.view(follower)
        off_suit = [c for c in follow["hand"] if c not in follow["legal"]]
        msg = await table.controls(table.user(follower), prefix)
        assert off_suit, "this deal gives the follower cards of another suit"
        bad = await forge(fake, table.user(follower), msg, prefix + off_suit[0])  # disabled
        await unchanged(bad, "You must follow")
        # The follower also opens their hand from the table, and plays from there.
        table_msg = table.table_message(await table.stored())
        await fake.click(table.user(follower), table_msg, f"gn:hand:papayoo:{game_id}")
        await table.play_card(follower)
        await table.step()  # the trick is complete
        assert any(not b.disabled for b in fake.buttons(msg))  # the DM still offers cards
        version = (await table.stored()).version
        stale = await fake.click(table.user(follower), msg, prefix + follow["legal"][-1])
        await unchanged(stale, "earlier turn")

        # A double click plays once.
        stored = await table.stored()
        turn = stored.game.public_view()["turn"]
        code = stored.game.view(turn)["legal"][0]
        custom_id = f"gn:papayoo:{game_id}:play:1.1.{code}"
        msg = await table.controls(table.user(turn), custom_id)
        both = await asyncio.gather(
            fake.click(table.user(turn), msg, custom_id),
            fake.click(table.user(turn), msg, custom_id),
        )
        assert sorted(r.callback_type for r in both) == [4, 7]
        assert (await table.stored()).version == stored.version + 1
        assert_hands_stay_private(table)


def retarget(message, old: str, new: str) -> None:  # type: ignore[no-untyped-def]
    """Rewrite one component's custom id in the fake's copy (a tampered client)."""
    for row in message.components:
        for comp in row.get("components", []):
            if comp.get("custom_id") == old:
                comp["custom_id"] = new
                comp["disabled"] = False
                return
    raise LookupError(old)


async def test_a_lobby_nobody_starts_expires_and_the_channel_is_told(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    _, channel, users = office(fake, ["Ana", "Bob"], french=["Bob"])
    ana, bob = users
    bot = make_bot(db_path, clock)
    async with fake.run_client(bot):
        lobby = await fake.slash(ana, channel, "papayoo new")
        assert lobby.response is not None
        lobby_id = int(fake.buttons(lobby)[0].custom_id.split(":")[2])
        assert (await fake.click(bob, lobby, label="Join")).callback_type == 7
        clock.advance(minutes=29)
        assert await bot.timers.run_due() == 0
        clock.advance(minutes=2)
        assert await bot.timers.run_due() == 1
        notice = await fake.wait_for_message(channel, lambda m: "⌛" in (m.content or ""))
        assert notice.content == (
            f"⌛ The Papayoo table opened by <@{ana.id}> was not started within 30 minutes"
            " and is closed. Open a new one with `/papayoo new`."
        )
        message = fake.message(lobby.response.id)
        assert fake.buttons(message) == []  # nobody is left with a live Join or Start
        assert "Nobody started this table within 30 minutes" in message.text
        assert (await bot.store.games.require(lobby_id)).status == "voided"
        assert await bot.store.results.for_game(lobby_id) == []

        # A lobby that is cancelled (or started) leaves no expiry timer behind.
        other = await fake.slash(ana, channel, "papayoo new")
        assert len(await bot.timers.pending()) == 1
        assert (await fake.click(ana, other, label="Cancel")).callback_type == 7
        assert await bot.timers.pending() == []


async def test_the_host_or_an_admin_abandons_a_running_game(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    guild, channel, users = office(fake, ["Ana", "Bob", "Cyd"])
    ana, bob, _ = users
    admin = fake.add_user("Max")
    fake.add_member(guild, admin, permissions=discord.Permissions(manage_guild=True))
    bot = make_bot(db_path, clock)
    async with fake.run_client(bot):
        table = Table(fake, bot, guild, channel, users)
        game_id = await table.open_and_start({"rounds": 1, "turn_seconds": 30})
        await table.step()  # the pass
        stored = await table.stored()
        turn = stored.game.public_view()["turn"]
        prefix = f"gn:papayoo:{game_id}:play:1.0."
        old = await table.controls(table.user(turn), prefix)

        refused = await fake.slash(bob, channel, "papayoo abandon")
        assert refused.ephemeral and f"Only the host (<@{ana.id}>)" in refused.text
        assert (await table.stored()).version == stored.version
        wrong = await fake.slash(admin, channel, "papayoo abandon", {"game": game_id + 100})
        assert wrong.ephemeral and f"no Papayoo game #{game_id + 100}" in wrong.text

        ended = await fake.slash(admin, channel, "papayoo abandon", {"game": game_id})
        assert not ended.ephemeral
        assert ended.content == (
            f"🛑 <@{admin.id}> ended Papayoo #{game_id}. The game is abandoned:"
            " no result is recorded and its buttons no longer work."
        )
        stored = await table.stored()
        assert stored.status == "voided"
        assert await bot.store.results.for_game(game_id) == []
        assert await bot.timers.pending() == []
        board = table.table_message(stored)
        assert fake.buttons(board) == [] and "ended early" in board.text

        # The player's DM still had card buttons: the click says why and strips them.
        button = next(b for b in fake.buttons(old) if not b.disabled)
        stale = await fake.click(table.user(turn), old, button.custom_id)
        assert stale.callback_type == 7
        assert (
            stale.content == f"Papayoo #{game_id} was ended early: there is nothing more to play."
        )
        assert fake.buttons(old) == []
        assert (await table.stored()).version == stored.version
        none = await fake.slash(ana, channel, "papayoo abandon")
        assert none.ephemeral and "No Papayoo game is running" in none.text

        # The host needs no permission, nor a game number when it is the only one here
        # (nor is the host lost for a game started before the meta kept it: see its lobby).
        second = await table.open_and_start({"rounds": 1, "turn_seconds": 0})
        assert second != game_id
        meta = {k: v for k, v in (await table.stored()).meta.items() if k != "host"}
        await bot.store.db.execute(
            "UPDATE games SET meta = ? WHERE id = ?", (json.dumps(meta), second)
        )
        mine = await fake.slash(ana, channel, "papayoo abandon")
        assert not mine.ephemeral and f"ended Papayoo #{second}" in mine.content
        assert (await table.stored()).status == "voided"
        assert_hands_stay_private(table)
