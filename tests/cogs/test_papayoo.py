"""Papayoo end to end through the fake Discord, with the real bot and its database.

Every test drives the bot as players would (slash commands, clicks on messages they can see)
and reads back what each of them saw: the channel, their DMs, their ephemerals.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import re
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import discord
import pytest

from bot.clock import FakeClock
from bot.columns import display_width
from bot.i18n import t
from bot.present import when
from bot.seated import SeatedCog
from bot.ui import button_payload, select_payload
from tests.cogs.papayoo_support import RENDER, Table, forge, join_label, make_bot, office
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeMessage, FakeUser, message_text

pytestmark = pytest.mark.e2e

CARD = re.compile(r"^(P\d{1,2}|\d{1,2}[♠♥♦♣])$")
"""How a card reads everywhere: ``7♥``, ``P12``."""


@pytest.fixture(autouse=True)
def same_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    """The same deal every run, so every case below is met the same way."""
    import bot.seated.start

    monkeypatch.setattr(bot.seated.start, "new_seed", lambda: 20250314)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "papayoo.sqlite3"


# -- reading what people saw ------------------------------------------------------------------


def seen_by(msg: FakeMessage) -> str:
    """Who may see a message: ``"channel"`` or one user's id."""
    if msg.channel.is_dm:
        return str(msg.channel.recipient.id)
    return "channel" if msg.visible_to is None else str(msg.visible_to.id)


def all_text(fake: FakeDiscord) -> list[tuple[str, str]]:
    """(who may see it, text) for every message and every earlier version of it."""
    return [
        (seen_by(msg), message_text(v.content, v.embeds, v.components))
        for msg in fake.messages.values()
        for v in msg.versions
    ]


def transcript(fake: FakeDiscord, user: FakeUser) -> list[str]:
    """Everything ``user`` was shown, every version of every message, oldest first."""
    out = []
    for msg in sorted(fake.messages.values(), key=lambda m: m.id):
        if seen_by(msg) in ("channel", str(user.id)):
            out.extend(message_text(v.content, v.embeds, v.components) for v in msg.versions)
    return out


def assert_hands_stay_private(table: Table) -> None:
    seen = all_text(table.fake)
    for owner, hands in table.hands_seen.items():
        for hand in hands:
            where = {who for who, text in seen if hand in text}
            assert where <= {str(owner)}, f"{owner}'s hand shown to {where}"
            assert str(owner) in where, "the owner never saw their hand"
    for hand in table.computer_hands:
        assert not [who for who, text in seen if hand in text], "a computer's hand was shown"


def live_controls(fake: FakeDiscord, msg: FakeMessage) -> list[dict[str, Any]]:
    return [
        c
        for c in fake.components_of(msg)
        if c.get("custom_id") and not c.get("disabled") and c.get("type") in (2, 3)
    ]


def setup(
    fake: FakeDiscord,
    db_path: Path,
    clock: FakeClock,
    names: Sequence[str],
    *,
    french: Sequence[str] = (),
    closed: Sequence[str] = (),
) -> Table:
    """A bot (not yet running) and a table of these colleagues (not yet open)."""
    guild, channel, users = office(fake, names, french=french)
    shut = {u.id for u in users if u.name in [c.lower() for c in closed]}
    for user in users:
        if user.id in shut:
            fake.close_dms(user)
    return Table(fake, make_bot(db_path, clock), guild, channel, users, closed=shut)


# -- 1. a whole game ---------------------------------------------------------------------------


async def test_a_four_round_game_reads_well_for_everyone_and_costs_about_two_calls_a_card(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd", "Dee"], french=["Cyd"])
    async with fake.run_client(table.bot):
        await play_a_whole_game(table)


async def play_a_whole_game(table: Table) -> None:
    fake = table.fake
    table.settle = 0
    users, channel = table.users, table.channel
    lobby = await fake.slash(users[0], channel, "papayoo begin", {"turn_seconds": 0})
    assert lobby.response is not None
    lobby_id = lobby.response.id
    for user in users[1:]:
        assert (await fake.click(user, lobby, label=join_label(fake, lobby))).callback_type == 7
    assert (await fake.click(users[0], lobby, label="Start")).callback_type == 7
    [game] = await table.bot.store.games.find(kind="papayoo", channel_id=channel.id)
    table.game_id = game.id
    await table.quiet()
    await table.record_hands()
    stored = await table.stored()
    assert stored.meta["table_id"] == lobby_id  # the lobby message became the table
    started = fake.channel_messages(channel)[-1]
    assert started.id != lobby_id
    assert all(f"<@{u.id}>" in started.content for u in users)
    assert {u.id for u in started.mentions} == {u.id for u in users}

    mark = fake.mark()
    for _ in range(400):
        stored = await table.stored()
        if not stored.is_active:
            break
        if stored.game.public_view()["phase"] == "pass":
            await table.record_hands()  # each round's deal, before the pass changes it
        await table.step()
    stored = await table.stored()
    assert stored.status == "over"
    cards = 4 * 60
    calls = [c for c in fake.calls_since(mark) if "/interactions/" not in c.path]
    per_card = len(calls) / cards
    print(f"REST calls per card (answers aside): {per_card:.2f} ({len(calls)} for {cards})")
    assert per_card <= 2.2

    # The channel: the table (the lobby, edited), the start ping, one record per round.
    mine = fake.channel_messages(channel)
    assert mine[0].id == lobby_id and mine[1].id == started.id
    assert len(mine) <= 10 and len(mine) == 2 + 4
    rounds = [fake.text_of(m) for m in mine[2:]]
    for n, text in enumerate(rounds, start=1):
        assert f"Papayoo #{game.shown_number} · round {n}/4 is over" in text
    assert f"Papayoo #{game.shown_number} · game over" in rounds[-1]

    # Each player's DMs hold their hand and nothing else; no live control is left on it.
    for user in users:
        [hand] = fake.dms(user)
        assert live_controls(fake, hand) == []
        assert t("seated.hand_over", "fr" if user.locale == "fr" else "en") in hand.text

    # The scores read round by round: a column per round, then the total; a row per player.
    result = stored.game.result()
    board = fake.message(lobby_id)
    assert fake.buttons(board) == []
    last_round = result["rounds"][-1]
    board_lines = [" ".join(line.split()) for line in board.text.splitlines()]
    assert "R1 R2 R3 R4 Total" in board_lines
    for user in users:
        p = str(user.id)
        name = user.global_name or user.name
        row = [name, *(str(r[p]) for r in result["rounds"]), str(result["scores"][p])]
        assert " ".join(row) in board_lines
        assert f"<@{p}>: +{last_round[p]} → {result['scores'][p]}" in rounds[-1]

    # A card reads the same on its button, in the hand and on the table (the pass's card
    # buttons mark the ticked ones).
    labels = set()
    for user in users:
        for version in fake.dms(user)[0].versions:
            text = message_text(version.content, version.embeds, [])
            for comp in version.components:
                for button in comp.get("components", []):
                    if button.get("type") == 2 and ":do:" in button["custom_id"]:
                        label = button["label"]
                        assert CARD.match(label), label
                        assert label in text
                        labels.add(label)
    assert "P12" in labels and any(label.endswith("♥") for label in labels)
    trick_lines = [
        line
        for v in board.versions
        for line in message_text(v.content, v.embeds, []).splitlines()
        if re.match(r"^◦ <@\d+> \S+$", line)
    ]
    assert trick_lines and all(CARD.match(line.split()[-1]) for line in trick_lines)

    # Each player's transcript holds every hand of theirs and nobody else's.
    for user in users:
        read = "\n".join(transcript(fake, user))
        for owner, hands in table.hands_seen.items():
            assert all((hand in read) == (owner == user.id) for hand in hands)
    assert all(len(set(hands)) == 8 for hands in table.hands_seen.values())  # 2 a round

    # The French player reads French, the others English.
    ana = transcript(fake, users[0])
    dm_fr = fake.dms(users[2])[0].versions
    assert all("Votre main" in message_text(v.content, v.embeds, []) for v in dm_fr)
    assert not any("Your hand" in message_text(v.content, v.embeds, []) for v in dm_fr)
    assert any("Your hand (15)" in text for text in ana)
    assert_hands_stay_private(table)
    cyd_dm = [message_text(v.content, v.embeds, []) for v in dm_fr]
    assert any("remporte le pli" in text for text in cyd_dm)
    assert not any("takes the trick" in text or "played" in text for text in cyd_dm)


# -- helpers for the shorter games -------------------------------------------------------------


async def start(table: Table, options: dict[str, Any] | None = None) -> int:
    """Open, join and start (one round, no turn timer unless the test says otherwise)."""
    return await table.open_and_start({"rounds": 1, "turn_seconds": 0, **(options or {})})


async def version(table: Table) -> int:
    return (await table.stored()).version


async def pass_all(table: Table) -> None:
    stored = await table.stored()
    for player in stored.game.public_view()["to_act"]:
        await table.pass_cards(player)
    await table.record_hands()


def hand_of(table: Table, user: FakeUser) -> FakeMessage:
    [dm] = table.fake.dms(user)
    return dm


def still_showing(msg: FakeMessage, earlier: Any) -> FakeMessage:
    """The message with the controls of an ``earlier`` version again: a click racing the edit
    that removed them (Discord routes a click only for controls on the message)."""
    msg.components = copy.deepcopy(earlier.components)
    return msg


def showing(msg: FakeMessage, control: dict[str, Any]) -> FakeMessage:
    """The message as a client that shows ``control`` on it (one an earlier version had,
    or one a forged client makes up)."""
    msg.components = [{"type": 1, "components": [control]}]
    return msg


def custom_ids(fake: FakeDiscord, msg: FakeMessage) -> list[str]:
    return [c["custom_id"] for c in live_controls(fake, msg)]


# -- 2. closed DMs ------------------------------------------------------------------------------


async def test_a_player_with_closed_dms_plays_from_show_my_hand_and_is_pinged_in_the_channel(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SeatedCog, "NOTICE_DELAY", 0.05)
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd"], closed=["Cyd"])
    ana, _, cyd = table.users
    async with fake.run_client(table.bot):
        game_id = await start(table)
        number = (await table.stored()).shown_number
        assert fake.dms(cyd) == []
        ping = fake.channel_messages(table.channel)[1]
        assert f"<@{cyd.id}>" in ping.content  # the start ping names everyone

        # Nobody acted: Cyd's notice is a mention in the channel, the others' a DM.
        notice = await fake.wait_for_message(
            table.channel, lambda m: m.id > ping.id and f"<@{cyd.id}>" in m.content
        )
        assert [u.id for u in notice.mentions] == [cyd.id]
        assert f"Papayoo #{number}" in notice.content and "Show my hand" in notice.content
        await fake.wait_for(lambda: len(fake.dms(ana)) == 2)
        assert "🔔 Your turn in [Papayoo #" in fake.dms(ana)[-1].content
        cog = table.bot.get_cog("Papayoo")
        assert isinstance(cog, SeatedCog)
        cog.notices.delay = 3600  # from here on, however slow the test runs, no new notice

        # Cyd passes from the ephemeral copy of his hand; his notice goes at once.
        await table.pass_cards(str(cyd.id))
        shown = fake.ephemerals(cyd)
        assert shown and all(m.visible_to is cyd for m in shown)
        await fake.wait_for(lambda: fake.message(notice.id).deleted)
        await pass_all(table)
        await fake.wait_for(lambda: len(fake.dms(ana)) == 1)

        await table.play_to_the_end()
        assert (await table.stored()).status == "over"
        assert fake.dms(cyd) == []
        assert len(await table.bot.store.results.for_game(game_id)) == 3

        # Notices came and went: the channel keeps the table, the ping and the record.
        def channel_settled() -> bool:
            return len(fake.channel_messages(table.channel)) == 3 and all(
                len(fake.dms(u)) == 1 for u in table.users if u is not cyd
            )

        await fake.wait_for(channel_settled)
        gone = [m for m in fake.channel_messages(table.channel, include_deleted=True) if m.deleted]
        assert gone and all(f"<@{cyd.id}>" in m.content for m in gone)
        assert_hands_stay_private(table)


async def test_dms_closed_mid_game_retire_the_dm_hand_and_the_channel_tells_what_to_press(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bob closes his DMs once his hand is there: at his next notice the DM copy is retired
    with one line saying where his hand is now (never left saying whose turn it was, even at
    the end), the channel notice says what to press and nothing of his settings, and a press
    on the retired copy answers privately with his hand as it is now and changes nothing."""
    monkeypatch.setattr(SeatedCog, "NOTICE_DELAY", 3600)
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd"], french=["Cyd"])
    _, bob, _ = table.users
    async with fake.run_client(table.bot):
        await start(table)
        dm = hand_of(table, bob)
        fake.close_dms(bob)
        table.closed.add(bob.id)
        await pass_all(table)  # Bob from "Show my hand"
        cog = table.bot.get_cog("Papayoo")
        assert isinstance(cog, SeatedCog)
        cog.notices.delay = 0.05  # a notice for each turn from now on
        while (await table.stored()).game.public_view()["turn"] != str(bob.id):
            await table.step()
        stored = await table.stored()
        play = table.play_id(stored, str(bob.id), stored.game.view(str(bob.id))["legal"][0])
        link = f"https://discord.com/channels/{table.guild.id}/{table.channel.id}/"
        retired = t(
            "seated.hand_retired",
            "en",
            table=f"[Papayoo #{stored.shown_number}]({link}{stored.meta['table_id']})",
        )
        await fake.wait_for(lambda: fake.message(dm.id).content == retired)
        assert dm.embeds == [] and live_controls(fake, dm) == []
        assert (await table.stored()).meta["hands"][str(bob.id)] is None

        notice = await fake.wait_for_message(
            table.channel, lambda m: f"<@{bob.id}>" in (m.content or "") and "🔔" in m.content
        )
        assert notice.content == (
            f"<@{bob.id}> 🔔 Your turn in [Papayoo #{stored.shown_number}]"
            f"({link}{stored.meta['table_id']}). Press **Show my hand** on the table to play."
        )
        assert "DM" not in notice.content and "closed" not in notice.content

        # A press on the retired copy, by a client that had not caught up with the edit.
        before = (await table.stored()).game.dumps()  # (the notice's id may still be noted)
        earlier = next(v for v in dm.versions if play in str(v.components))
        pressed = await fake.click(bob, still_showing(dm, earlier), play)
        assert pressed.ephemeral and pressed.callback_type == 4, pressed.text
        assert pressed.text.startswith(t("seated.stale", "en")) and retired in pressed.text
        hand = RENDER.hand_text(stored.game.view(str(bob.id))["hand"])
        assert hand in message_text("", pressed.response.embeds, [])
        assert (await table.stored()).game.dumps() == before
        assert fake.message(dm.id).content == retired
        dm.components = []  # the client catches up

        cog.notices.delay = 3600  # however slow the test runs, no new notice
        await table.play_to_the_end()
        await table.quiet()
        assert (await table.stored()).status == "over"
        assert fake.message(dm.id).content == retired and fake.message(dm.id).embeds == []
        assert [m.id for m in fake.dms(bob)] == [dm.id]  # his notice DM went as he passed


# -- 3. two copies of one hand ------------------------------------------------------------------


async def test_the_dm_and_the_show_my_hand_copy_always_show_the_same_hand(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd"])
    ana = table.users[0]
    me = str(ana.id)
    async with fake.run_client(table.bot):
        game_id = await start(table)
        dm = hand_of(table, ana)
        eph = await table.show_hand(ana)
        assert eph.embeds == dm.embeds
        old_pick = custom_ids(fake, eph)
        assert old_pick == custom_ids(fake, dm)
        assert old_pick[0].startswith(f"gn:papayoo:{game_id}:pick:")  # "Pass these"
        first = eph.snapshot()

        # A pass from the DM: the ephemeral copy follows, its controls gone.
        picked = await fake.click(ana, dm, old_pick[0], settle=0)
        assert picked.callback_type == 7
        await table.quiet()
        eph = fake.message(eph.id)
        assert eph.embeds == fake.message(dm.id).embeds
        assert "Your pass is locked" in eph.text and custom_ids(fake, eph) == []

        # Its old buttons, clicked as the edit lands, change nothing and refresh.
        before = await version(table)
        for old in old_pick:
            stale = await fake.click(ana, still_showing(eph, first), old)
            assert stale.callback_type == 7 and not stale.followups
            assert t("seated.stale", "en") in stale.text
            assert "Your pass is locked" in stale.text
            assert await version(table) == before

        # Play from the ephemeral copy: the DM follows, its buttons gone.
        await pass_all(table)
        while (await table.stored()).game.public_view()["turn"] != me:
            await table.step()
        eph = await table.show_hand(ana)
        old_buttons = custom_ids(fake, eph)
        assert old_buttons == custom_ids(fake, fake.message(dm.id))
        first = fake.message(dm.id).snapshot()
        played = await fake.click(ana, eph, old_buttons[0], settle=0)
        assert played.callback_type == 7
        await table.quiet()
        dm = fake.message(dm.id)
        assert dm.embeds == fake.message(eph.id).embeds
        assert custom_ids(fake, dm) == []
        before = await version(table)
        stale = await fake.click(ana, still_showing(dm, first), old_buttons[0])
        assert stale.callback_type == 7 and t("seated.stale", "en") in stale.text
        assert await version(table) == before
        assert custom_ids(fake, fake.message(dm.id)) == []
        assert "Your hand (19)" in fake.message(eph.id).text
        assert f"gn:papayoo:{game_id}:do:" in old_buttons[0]
        assert_hands_stay_private(table)


# -- 4. the turn timer --------------------------------------------------------------------------


async def test_a_player_who_sleeps_is_warned_then_the_bot_plays_for_them_even_after_a_restart(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd"])
    running = fake.run_client(table.bot)
    await running.start()
    try:
        await start(table, {"turn_seconds": 30})
        number = (await table.stored()).shown_number
        await pass_all(table)
        stored = await table.stored()
        turn = stored.game.public_view()["turn"]
        sleeper = table.user(turn)
        [timer] = [t for t in await table.bot.timers.pending() if t.kind == "papayoo.turn"]
        assert timer.due_at == clock.now() + timedelta(seconds=30)
        board = table.table_message(stored)
        assert "<t:" in board.text and f"<@{turn}>" in board.text
        dm = hand_of(table, sleeper)
        asleep = dm.snapshot()
        mine = custom_ids(fake, dm)

        # 15 s before the move: a warning, as a new DM (it notifies), with the deadline.
        clock.advance(seconds=14)
        assert await table.bot.timers.run_due() == 0
        clock.advance(seconds=2)
        assert await table.bot.timers.run_due() == 1
        warning = await fake.wait_for(lambda: fake.dms(sleeper)[1:])
        table_link = f"[Papayoo #{number}](https://discord.com/channels/"
        assert warning[0].content.startswith(f"⏳ Your turn in {table_link}")
        assert warning[0].content.endswith(
            ": the turn timer plays for you " + when(timer.due_at) + "."
        )
        # One way to say the deadline, the same wherever it is shown.
        assert f"<@{turn}> · the turn timer plays for them {when(timer.due_at)}" in board.text
        assert (await table.stored()).game.dumps() == stored.game.dumps()  # no move yet

        # Time is up: the bot plays the lowest legal card, on the table and in the hand.
        expected = stored.game.auto_action(turn)["card"]
        clock.advance(seconds=15)
        assert await table.bot.timers.run_due() == 1
        await table.quiet()
        after = await table.stored()
        assert after.game.public_view()["trick"] == [{"player": turn, "card": expected}]
        shown = RENDER.card(expected)
        said = f"⏱ Time ran out for <@{turn}>: the turn timer played {shown} for them."
        assert said in board.text
        assert f"<@{turn}> played {shown}" not in board.text  # said once
        assert f"⏱ Your time ran out, so the turn timer played for you: {shown}." in dm.text
        assert custom_ids(fake, dm) == []
        await fake.wait_for(lambda: len(fake.dms(sleeper)) == 1)  # the warning is gone

        # The sleeper's button, clicked as the bot's move lands, plays nothing more.
        stale = await fake.click(sleeper, still_showing(dm, asleep), mine[0])
        assert stale.callback_type == 7 and t("seated.stale", "en") in stale.text
        assert (await table.stored()).version == after.version

        # The next player's deadline is in the database: it fires after a crash.
        nxt = after.game.public_view()["turn"]
        expected = after.game.auto_action(nxt)["card"]
        await running.crash()
        await table.bot.store.close()
    finally:
        if running.task is not None and not running.task.done():
            await running.close()
    clock.advance(seconds=31)
    table.bot = make_bot(db_path, clock)
    async with fake.run_client(table.bot):
        await table.bot.caught_up()  # the start-up catch-up may be the one running it
        await table.bot.timers.run_due()
        await table.quiet()
        trick = (await table.stored()).game.public_view()["trick"]
        assert trick[-1] == {"player": nxt, "card": expected}
        line = (
            f"⏱ Time ran out for <@{nxt}>: the turn timer played {RENDER.card(expected)} for them."
        )
        await fake.wait_for(lambda: line in fake.message(board.id).text)
        late = table.user(nxt)
        assert "the turn timer played for you" in hand_of(table, late).text
        assert late.dm_channel is not None
        # Its warning would have come after the deadline: none was sent.
        assert len(fake.channel_messages(late.dm_channel, include_deleted=True)) == 1
        assert len(fake.channel_messages(table.channel)) == 2  # no new channel message


# -- 5. a crash ---------------------------------------------------------------------------------


async def test_after_a_crash_mid_trick_the_old_dm_buttons_still_play(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd", "Dee"])
    running = fake.run_client(table.bot)
    await running.start()
    try:
        await start(table)
        await pass_all(table)
        await table.step()
        await table.step()
        stored = await table.stored()
        turn = stored.game.public_view()["turn"]
        code = stored.game.view(turn)["legal"][0]
        custom_id = table.play_id(stored, turn, code)
        old = hand_of(table, table.user(turn))
        assert custom_id in custom_ids(fake, old)
        await running.crash()
        await table.bot.store.close()
    finally:
        if running.task is not None and not running.task.done():
            await running.close()

    table.bot = make_bot(db_path, clock)
    async with fake.run_client(table.bot):
        played = await fake.click(table.user(turn), old, custom_id)
        assert played.callback_type == 7 and custom_ids(fake, old) == []
        after = await table.stored()
        assert after.version == stored.version + 1
        assert after.game.public_view()["trick"][-1] == {"player": turn, "card": code}
        await table.quiet()
        board = table.table_message(after)
        assert f"<@{turn}> {RENDER.card(code)}" in board.text
        await table.play_to_the_end()
        assert (await table.stored()).status == "over"
        assert all(len(fake.dms(u)) == 1 for u in table.users)
        assert_hands_stay_private(table)


# -- 6. computer seats --------------------------------------------------------------------------


def lobby_id_of(fake: FakeDiscord, lobby: Any) -> int:
    return int(fake.buttons(lobby)[0].custom_id.split(":")[2])


async def seat_computer(fake: FakeDiscord, host: FakeUser, lobby: Any, level: str) -> Any:
    custom_id = f"gns:papayoo_lobby:{lobby_id_of(fake, lobby)}:add_computer"
    return await fake.select(host, lobby, custom_id, [level])


async def play_humans_to_the_end(table: Table) -> None:
    """The humans move when it is their turn; computers (``bot.ai`` at the seat's level)
    must never hold the game up: after a human's move, the computers' turns are played."""
    for _ in range(200):
        stored = await table.stored()
        if not stored.is_active:
            return
        view = stored.game.public_view()
        humans = [p for p in view["to_act"] if not p.startswith("cpu")]
        assert humans, f"the computers hold the game up: {view['to_act']}"
        if view["phase"] == "pass":
            mine = stored.game.view(humans[0])
            await table.pass_cards(humans[0], mine["hand"][-mine["pass_size"] :])
        else:
            await table.play_card(humans[0], stored.game.view(humans[0])["legal"][0])
        after = await table.stored()
        assert after.version > stored.version
        assert not after.is_active or any(not p.startswith("cpu") for p in after.game.to_act())
    raise AssertionError("the game did not end")


async def test_the_host_seats_two_computers_and_plays_a_game_against_them(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob"])
    ana, bob = table.users
    table.users = [ana]
    async with fake.run_client(table.bot):
        lobby = await fake.slash(ana, table.channel, "papayoo begin", {"rounds": 1})
        refused = await seat_computer(fake, bob, lobby, "easy")
        assert refused.ephemeral and f"Only the host (<@{ana.id}>)" in refused.text
        assert (await seat_computer(fake, ana, lobby, "normal")).callback_type == 7
        assert (await seat_computer(fake, ana, lobby, "hard")).callback_type == 7
        text = fake.message(lobby.response.id).text
        assert "🤖 Computer 1 · normal" in text and "🤖 Computer 2 · hard" in text
        assert "Players (3/8)" in text
        assert (await fake.click(ana, lobby, label="Start")).callback_type == 7
        [game] = await table.bot.store.games.find(kind="papayoo", channel_id=table.channel.id)
        table.game_id = game.id
        await table.quiet()
        await table.record_hands()
        assert game.game.public_view()["players"] == [str(ana.id), "cpu1", "cpu2"]
        assert game.meta["computers"] == {"cpu1": "normal", "cpu2": "hard"}

        await play_humans_to_the_end(table)
        stored = await table.stored()
        assert stored.status == "over"
        board = table.table_message(stored)
        assert "🤖 Computer 1" in board.text and "🤖 Computer 2" in board.text
        # Only the human got a DM (nobody to send the computers one) and a result line.
        assert len(fake.dms(ana)) == 1 and fake.dms(bob) == []
        assert fake.count("POST", "/users/@me/channels") == 1
        assert [r.user_id for r in await table.bot.store.results.for_game(game.id)] == [ana.id]
        record = fake.text_of(fake.channel_messages(table.channel)[-1])
        assert "🤖 Computer 2: +" in record
        assert_hands_stay_private(table)

        # /papayoo stats keeps games against computers apart, and never lists a computer.
        won = int(str(ana.id) in stored.game.result()["ranking"][0])
        shown = await fake.slash(ana, table.channel, "papayoo stats")
        fields = {f["name"]: f["value"] for f in shown.embed["fields"]}
        assert fields["Games played"] == "0"
        assert fields["Against computer players (kept apart)"] == f"{won} won of 1"
        assert "Computer 1" not in shown.text and "cpu" not in shown.text


async def test_a_computer_cannot_take_a_seat_at_a_full_table(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob"])
    ana, bob = table.users
    async with fake.run_client(table.bot):
        lobby = await fake.slash(ana, table.channel, "papayoo begin")
        lobby_id = lobby_id_of(fake, lobby)
        for _ in range(7):
            assert (await seat_computer(fake, ana, lobby, "easy")).callback_type == 7
        assert "Players (8/8)" in fake.message(lobby.response.id).text
        before = (await table.bot.store.games.require(lobby_id)).version
        full = await seat_computer(fake, ana, lobby, "hard")
        assert full.ephemeral and "The table is full (8 players)." in full.text
        late = await fake.click(bob, lobby, label="Join")
        assert late.ephemeral and "The table is full (8 players)." in late.text
        assert (await table.bot.store.games.require(lobby_id)).version == before
        assert "🤖 Computer 8" not in fake.message(lobby.response.id).text

        # The host frees a seat: the last computer goes, Bob may sit.
        freed = await fake.click(ana, lobby, label="Remove a computer player")
        assert freed.callback_type == 7
        assert "🤖 Computer 7" not in fake.message(lobby.response.id).text
        assert (await fake.click(bob, lobby, label="Join")).callback_type == 7
        assert "Players (8/8)" in fake.message(lobby.response.id).text


# -- 7. the lobby -------------------------------------------------------------------------------


async def test_the_lobby_refuses_clearly_and_changes_nothing(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd"], french=["Cyd"])
    ana, bob, cyd = table.users
    bot = table.bot
    async with fake.run_client(bot):
        bad = await fake.slash(ana, table.channel, "papayoo begin", {"turn_seconds": 5})
        assert bad.ephemeral and "0 (off) or from 15 to 600 seconds, not 5" in bad.text
        lobby = await fake.slash(ana, table.channel, "papayoo begin")
        lobby_id = lobby_id_of(fake, lobby)
        shown = lobby.response.snapshot()

        async def refused(user: FakeUser, label: str, needle: str) -> None:
            before = (await bot.store.games.require(lobby_id)).version
            answer = await fake.click(user, lobby, label=label)
            assert answer.ephemeral and needle in answer.text, answer.text
            assert (await bot.store.games.require(lobby_id)).version == before

        await refused(bob, "Start", f"Only the host (<@{ana.id}>) can do that.")
        await refused(bob, "Cancel", f"Only the host (<@{ana.id}>) can do that.")
        await refused(bob, "Leave", "You are not at this table.")
        await refused(ana, "Leave", "The host cannot leave")
        await refused(ana, "Join", "You are already at this table.")

        # Two devices join at the same moment: one seat, the other told so.
        both = await asyncio.gather(
            fake.click(bob, lobby, label="Join"), fake.click(bob, lobby, label="Join")
        )
        assert sorted(r.callback_type for r in both) == [4, 7]
        [told] = [r for r in both if r.ephemeral]
        assert "You are already at this table." in told.text
        stored = await bot.store.games.require(lobby_id)
        assert stored.game.public_view()["players"] == [str(ana.id), str(bob.id)]
        await refused(ana, "Start", "At least 3 players are needed; there are 2.")
        await refused(cyd, "Leave", "Vous n'êtes pas à cette table.")

        # Nobody starts it: it closes, its buttons go, no result is kept.
        clock.advance(minutes=29)
        assert await bot.timers.run_due() == 0
        clock.advance(minutes=2)
        assert await bot.timers.run_due() == 1
        closed = fake.message(lobby.response.id)
        assert fake.buttons(closed) == [] and fake.selects(closed) == []
        assert "Nobody started this table within 30 minutes: it is closed." in closed.text
        # An abandoned lobby leaves nothing behind: its row and its timer are deleted.
        assert await bot.store.games.get(lobby_id) is None
        assert await bot.store.timers.get(f"papayoo_lobby:{lobby_id}:expire") is None
        assert await bot.store.results.for_game(lobby_id) == []
        assert await bot.store.games.find(kind="papayoo") == []

        # A click that raced the closing edit is told the table is closed.
        late = await fake.click(cyd, still_showing(closed, shown), label="Join")
        assert late.ephemeral and "Cette table est fermée" in late.text, late.text
        assert await bot.store.games.get(lobby_id) is None

        # A cancelled lobby leaves no expiry timer behind.
        other = await fake.slash(ana, table.channel, "papayoo begin")
        assert len(await bot.timers.pending()) == 1
        assert (await fake.click(ana, other, label="Cancel")).callback_type == 7
        assert fake.buttons(other) == []
        assert "The host cancelled this table." in fake.message(other.response.id).text
        assert await bot.timers.pending() == []


# -- 8. bad moves -------------------------------------------------------------------------------


async def test_bad_moves_are_refused_and_change_nothing(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd", "Zed"])
    ana, bob, _, zed = table.users
    table.users = table.users[:3]
    async with fake.run_client(table.bot):
        await start(table)
        number = (await table.stored()).shown_number
        stored = await table.stored()
        before = stored.version

        async def unchanged(result: Any, needle: str) -> None:
            assert needle in result.text, result.text
            assert await version(table) == before

        # Someone who does not play asks for a hand.
        nobody = await fake.click(zed, table.table_message(stored), label="Show my hand")
        assert nobody.ephemeral
        await unchanged(nobody, "You are not playing in this game.")

        # A tampered pass on the select of earlier versions (its custom id is still taken):
        # a card Ana does not hold, or one card twice.
        me = str(ana.id)
        dm = hand_of(table, ana)
        now = dm.snapshot()
        pick = table.pick_id(stored, me)
        hand = stored.game.view(me)["hand"]
        other = stored.game.view(str(bob.id))["hand"][0]
        showing(dm, select_payload("papayoo", table.game_id, "pick", [], pick.split(":")[-1]))
        foreign = await forge(fake, ana, dm, pick, [other, *hand[:4]])
        assert foreign.ephemeral
        await unchanged(foreign, f"{RENDER.card(other)} is not in your hand.")
        twice = await forge(fake, ana, dm, pick, [hand[0], *hand[:4]])
        await unchanged(twice, "You cannot pass the same card twice.")

        # Forged pass buttons: too few cards ticked, a card beyond the hand ticked, a tick
        # that is no number: the hand as it is, nothing passed.
        accept = table.accept_id(stored, me)
        mark = accept.split(":")[-1].split(".")[0]
        forged = [
            table.pass_id(stored, me, "pick", hand[:2]),
            f"gn:papayoo:{table.game_id}:pick:{mark}.{(1 << len(hand)) | 31}",
            f"gn:papayoo:{table.game_id}:sel:{mark}.{1 << len(hand)}",
            f"gn:papayoo:{table.game_id}:pick:{mark}.x",
        ]
        for custom_id in forged:
            showing(dm, button_payload("papayoo", table.game_id, *custom_id.split(":")[3:]))
            tampered = await forge(fake, ana, dm, custom_id)
            assert tampered.callback_type == 7
            await unchanged(tampered, t("seated.stale", "en"))
            assert "Pass these" in tampered.text  # still her pass to make
        still_showing(dm, now)

        # Another player's controls: Bob's client showing Ana's "Pass these" passes nothing
        # of hers (only his own hand comes back); a hand control on the public table does
        # nothing.
        bobs = hand_of(table, bob)
        theirs = await fake.click(bob, still_showing(bobs, dm.snapshot()), accept)
        assert not theirs.ephemeral and t("seated.stale", "en") in theirs.text
        assert RENDER.card(hand[0]) not in fake.message(bobs.id).text.split("Your hand")[-1]
        assert await version(table) == before
        board = table.table_message(stored)
        untouched = board.snapshot()
        public = await fake.click(ana, still_showing(board, dm.snapshot()), accept)
        assert public.ephemeral
        await unchanged(public, "This button does nothing any more.")
        still_showing(board, untouched)

        # A double click (two devices, or an impatient finger): one card, the second quiet.
        await pass_all(table)
        stored = await table.stored()
        turn = stored.game.public_view()["turn"]
        user = table.user(turn)
        mine = hand_of(table, user)
        code = stored.game.view(turn)["legal"][0]
        custom_id = table.play_id(stored, turn, code)
        earlier = mine.snapshot()
        both = await asyncio.gather(
            fake.click(user, mine, custom_id), fake.click(user, mine, custom_id)
        )
        assert [r.callback_type for r in both] == [7, 7]
        assert not any(r.ephemeral or r.followups for r in both)
        after = await table.stored()
        assert after.version == stored.version + 1
        assert after.game.public_view()["trick"][-1] == {"player": turn, "card": code}

        # The same button once the turn came round again: an earlier turn's, nothing played.
        while (await table.stored()).game.public_view()["turn"] != turn:
            await table.step()
        before = await version(table)
        stale = await fake.click(user, still_showing(mine, earlier), custom_id)
        assert stale.callback_type == 7
        await unchanged(stale, t("seated.stale", "en"))
        assert custom_ids(fake, mine) and custom_id not in custom_ids(fake, mine)

        # After the end, a button from the game changes nothing and says it is over.
        await table.play_to_the_end()
        before = await version(table)
        over = await fake.click(user, still_showing(mine, earlier), custom_id)
        assert over.callback_type == 7 and custom_ids(fake, mine) == []
        await unchanged(over, "The game is over")
        assert f"Papayoo #{number} · game over" in over.text
        assert_hands_stay_private(table)


# -- 9. abandon ---------------------------------------------------------------------------------


async def test_the_host_abandons_a_game_after_confirming_and_everyone_sees_it_ended(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd"], french=["Cyd"])
    ana, bob, cyd = table.users
    bot = table.bot
    async with fake.run_client(bot):
        game_id = await start(table, {"turn_seconds": 30})
        number = (await table.stored()).shown_number
        await pass_all(table)
        stored = await table.stored()
        channel_before = len(fake.channel_messages(table.channel))

        # Neither a player who is not the host nor a bystander may end it.
        refused = await fake.slash(bob, table.channel, "papayoo end")
        assert refused.ephemeral and f"Only the host (<@{ana.id}>)" in refused.text
        assert fake.buttons(refused) == []
        wrong = await fake.slash(ana, table.channel, "papayoo end", {"game": number + 9})
        assert wrong.ephemeral and f"There is no Papayoo game #{number + 9}" in wrong.text

        # The host is asked first; "Keep playing" keeps it.
        asked = await fake.slash(ana, table.channel, "papayoo end")
        assert asked.ephemeral
        assert f"End Papayoo #{number} for everyone? No result is kept." in asked.text
        kept = await fake.click(ana, asked, f"gn:papayoo:{game_id}:keep")
        assert kept.callback_type == 7 and "The game goes on." in kept.text
        assert (await table.stored()).version == stored.version

        # Asked twice (two windows), confirmed in the first: ended; the second is told so.
        first = await fake.slash(ana, table.channel, "papayoo end")
        second = await fake.slash(ana, table.channel, "papayoo end")
        done = await fake.click(ana, first, f"gn:papayoo:{game_id}:abandon")
        assert done.callback_type == 7 and f"Papayoo #{number} is abandoned." in done.text
        await table.quiet()
        ended = await table.stored()
        assert ended.status == "voided"
        again = await fake.click(ana, second, f"gn:papayoo:{game_id}:abandon")
        assert again.callback_type == 7 and "This game has already ended." in again.text
        assert (await table.stored()).version == ended.version

        # One channel message says so; no result, no timer; the table and hands show it.
        said = fake.channel_messages(table.channel)[channel_before:]
        assert [m.content for m in said] == [
            f"🛑 <@{ana.id}> ended Papayoo #{number}. The game is abandoned: no result is recorded."
        ]
        assert await bot.store.results.for_game(game_id) == []
        assert await bot.timers.pending() == []
        board = table.table_message(ended)
        assert fake.buttons(board) == [] and "The game is abandoned" in board.text
        assert "<t:" not in board.text  # no deadline left on it
        for user in (ana, bob):
            dm = hand_of(table, user)
            assert custom_ids(fake, dm) == [] and t("seated.hand_abandoned", "en") in dm.text
        french = hand_of(table, cyd).text
        assert t("seated.hand_abandoned", "fr") in french
        by = f"<@{ana.id}>"
        assert t("seated.abandoned", "fr", game="Papayoo", game_id=number, player=by) in french
        none = await fake.slash(ana, table.channel, "papayoo end")
        assert none.ephemeral and "No Papayoo game is running in this channel." in none.text
        assert_hands_stay_private(table)


async def test_a_server_manager_may_abandon_someone_elses_game(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd"])
    admin = fake.add_user("Max")
    fake.add_member(table.guild, admin, permissions=discord.Permissions(manage_guild=True))
    async with fake.run_client(table.bot):
        game_id = await start(table)
        number = (await table.stored()).shown_number
        asked = await fake.slash(admin, table.channel, "papayoo end", {"game": number})
        confirm = f"gn:papayoo:{game_id}:abandon"

        # A player who is neither host nor manager, forging that confirmation, is refused.
        before = await version(table)
        forged = await forge(fake, table.users[1], asked.response, confirm)
        assert forged.ephemeral and "You are not allowed to do that." in forged.text
        assert (await table.stored()).status == "active"
        assert await version(table) == before

        done = await fake.click(admin, asked, confirm)
        assert done.callback_type == 7
        assert (await table.stored()).status == "voided"
        assert f"🛑 <@{admin.id}> ended Papayoo #{number}" in fake.text_of(
            fake.channel_messages(table.channel)[-1]
        )


# -- 10. stats ----------------------------------------------------------------------------------


async def test_stats_show_games_wins_and_points_per_round(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd"], french=["Bob"])
    ana, bob, _ = table.users
    async with fake.run_client(table.bot):
        game_id = await start(table, {"rounds": 2})
        await table.play_to_the_end()
        result = (await table.stored()).game.result()
        assert len(await table.bot.store.results.for_game(game_id)) == 3

        for user, lang in ((ana, "en"), (bob, "fr")):
            me = str(user.id)
            shown = await fake.slash(user, table.channel, "papayoo stats")
            assert shown.ephemeral
            fields = {f["name"]: f["value"] for f in shown.embed["fields"]}
            won = int(me in result["ranking"][0])
            assert fields[t("seated.stats_games", lang)] == "1"
            assert fields[t("seated.stats_wins", lang)] == str(won)
            average = f"{result['scores'][me] / 2:.1f}"
            assert fields[t("papayoo.stats.average", lang)] == average
            assert t("seated.stats_computers", lang) not in fields


async def test_when_two_players_sleep_through_the_pass_the_table_and_both_hands_say_so(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd"])
    ana, bob, cyd = table.users
    async with fake.run_client(table.bot):
        await start(table, {"turn_seconds": 30})
        await table.pass_cards(str(ana.id))
        clock.advance(seconds=31)
        assert await table.bot.timers.run_due() == 2  # the warning, then the move
        await table.quiet()
        stored = await table.stored()
        assert stored.game.public_view()["phase"] == "play"
        board = table.table_message(stored)
        last = [line for line in board.text.splitlines() if "⏱" in line]
        assert len(last) == 1 and f"<@{bob.id}>" in last[0] and f"<@{cyd.id}>" in last[0]
        for user in (bob, cyd):
            passed = stored.game.view(str(user.id))["passed"]
            [note] = [line for line in hand_of(table, user).text.splitlines() if "⏱ Your" in line]
            assert note.startswith("⏱ Your time ran out, so the turn timer played for you: Pass ")
            assert sorted(note.removesuffix(".").split()[-5:]) == sorted(
                RENDER.card(c) for c in passed
            )
        assert "Your time ran out" not in hand_of(table, ana).text


async def test_two_clicks_on_start_at_once_start_one_game(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd"])
    ana, bob, cyd = table.users
    async with fake.run_client(table.bot):
        lobby = await fake.slash(ana, table.channel, "papayoo begin", {"rounds": 1})
        for user in (bob, cyd):
            assert (await fake.click(user, lobby, label="Join")).callback_type == 7
        both = await asyncio.gather(
            fake.click(ana, lobby, label="Start"), fake.click(ana, lobby, label="Start")
        )
        await table.quiet()
        games = await table.bot.store.games.find(kind="papayoo")
        assert len(games) == 1
        [told] = [r for r in both if r.ephemeral]
        assert "This table is closed" in told.text
        assert all(len(fake.dms(u)) == 1 for u in table.users)
        assert len(fake.channel_messages(table.channel)) == 2  # the table and one ping


async def test_a_move_answered_too_late_still_shows_on_the_players_hand(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock, caplog: pytest.LogCaptureFixture
) -> None:
    """A bot under load may answer a click after Discord's 3 s: the move is done (it was
    committed), so the hand it was made on is edited directly, and no error is logged."""
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd"])
    ana = table.users[0]
    async with fake.run_client(table.bot):
        await start(table)
        stored = await table.stored()
        me = str(ana.id)
        pick = table.accept_id(stored, me)
        hand = hand_of(table, ana)
        edits = len(hand.versions)
        fake.enforce_deadline, fake.late_after = True, 0.0  # every answer comes too late
        late = await fake.click(ana, hand, pick)
        await table.quiet()
        fake.enforce_deadline = False
        assert late.callback_type is None  # Discord refused the answer
        assert [x.interaction_id for x in fake.late_interactions] == [late.interaction.id]
        fake.late_interactions.clear()  # expected here; otherwise the fixture fails the test

        after = await table.stored()
        assert after.version == stored.version + 1 and me not in after.game.to_act()
        assert len(hand.versions) > edits
        assert pick not in custom_ids(fake, hand)  # the hand no longer offers the pass
        assert not [r for r in caplog.records if r.levelno >= logging.ERROR]
        assert "interaction expired; its message edited directly" in caplog.messages


async def test_a_warning_sent_before_a_crash_is_gone_once_the_bot_has_moved(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd"])
    running = fake.run_client(table.bot)
    await running.start()
    try:
        await start(table, {"turn_seconds": 30})
        await pass_all(table)
        turn = (await table.stored()).game.public_view()["turn"]
        sleeper = table.user(turn)
        clock.advance(seconds=16)
        assert await table.bot.timers.run_due() == 1
        await fake.wait_for(lambda: len(fake.dms(sleeper)) == 2)
        await running.crash()
        await table.bot.store.close()
    finally:
        if running.task is not None and not running.task.done():
            await running.close()
    clock.advance(seconds=15)
    table.bot = make_bot(db_path, clock)
    async with fake.run_client(table.bot):
        await table.bot.caught_up()  # the start-up catch-up may be the one running it
        await table.bot.timers.run_due()
        await table.quiet()
        assert (await table.stored()).game.public_view()["trick"][0]["player"] == turn
        await fake.wait_for(lambda: len(fake.dms(sleeper)) == 1)
        assert "the turn timer played for you" in hand_of(table, sleeper).text


# -- the trick number ---------------------------------------------------------------------------


async def test_hands_and_table_agree_on_the_trick_number(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    """A waiting hand is not edited as the tricks go by, so it does not name a trick (it
    showed "trick 2/15" while the table was at 3/15): it says the round; the hand of whoever
    must play names the trick the table names."""
    fake = fake_discord
    table = setup(fake, db_path, clock, ["Ana", "Bob", "Cyd"], french=["Cyd"])
    async with fake.run_client(table.bot):
        await start(table)
        await pass_all(table)
        for _ in range(9):  # three tricks
            await table.step()
            stored = await table.stored()
            view = stored.game.public_view()
            board = table.table_message(stored).embeds[0]["title"]
            trick = re.search(r"trick (\d+)/20", board)
            assert trick is not None, board
            for user in table.users:
                title = hand_of(table, user).embeds[0]["title"]
                if view["turn"] == str(user.id):
                    french = user.name == "cyd"
                    same = board.replace("round", "manche").replace("trick", "pli")
                    assert title == (same.replace("#", "n°") if french else board)
                else:
                    assert "trick" not in title and "pli" not in title, title
                    assert title.endswith(("round 1/1", "manche 1/1")), title


# -- the scores ---------------------------------------------------------------------------------


async def test_the_scores_line_up_for_any_name_and_say_what_their_columns_are(
    fake_discord: FakeDiscord, db_path: Path, clock: FakeClock
) -> None:
    """Names with an emoji, CJK characters, a combining accent or too long for the column:
    every row of the scores takes the same columns (padded by display width, not code
    points), and a line under them explains R1…, in each reader's language."""
    fake = fake_discord
    names = ["🎉 Ana", "李小龙", "Zoe\u0308 Martin-Dupont", "👩\u200d💻 Dev"]
    table = setup(fake, db_path, clock, names, french=["李小龙"])
    async with fake.run_client(table.bot):
        await start(table)
        await pass_all(table)
        await table.step()
        stored = await table.stored()
        for message, locale in [(table.table_message(stored), "en")] + [
            (hand_of(table, u), "fr" if u.name == "李小龙" else "en")
            for u in table.users
            if str(u.id) == stored.game.public_view()["turn"]
        ]:
            [scores] = [
                f["value"]
                for f in message.embeds[0]["fields"]
                if f["name"] == t("papayoo.table.scores", locale)
            ]
            block, legend = scores.rsplit("\n", 1)
            assert legend == t("papayoo.table.scores_legend", locale)
            rows = block.removeprefix("```\n").removesuffix("\n```").splitlines()
            assert len(rows) == 5, block
            assert len({display_width(row) for row in rows}) == 1, block
            assert rows[0].split() == [t("papayoo.table.round_col", locale, round=1) + "…", "Total"]
            assert rows[3].startswith("Zoe\u0308 Martin-… ")  # 12 columns at most
            for row, name in zip(
                rows[1:], ["🎉 Ana", "李小龙", "Zoe\u0308", "👩\u200d💻 Dev"], strict=True
            ):
                assert row.startswith(name)
                # the points start in the same column on every row
                assert display_width(row[: row.index(" 0")]) == display_width(
                    rows[1][: rows[1].index(" 0")]
                )
