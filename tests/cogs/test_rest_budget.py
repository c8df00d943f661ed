"""The REST budget end to end: a seated game against the fake Discord with Discord's limits.

What players wait for goes first, edits of a clicked message use its interaction's token,
closed DMs and a lost channel permission are handled once, an outage loses nothing, and a
start waits in its lobby while the budget is taken.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.clock import FakeClock
from bot.seated.cog import SeatedCog
from tests.cogs.papayoo_support import join_label
from tests.cogs.test_papayoo import setup, start
from tests.fakediscord import FakeDiscord

pytestmark = [pytest.mark.e2e, pytest.mark.discord_limits]


def bot_token_calls(fake: FakeDiscord, since: int) -> list[str]:
    """Calls made with the bot's token (interaction answers and webhooks aside)."""
    return [
        f"{c.method} {c.route}"
        for c in fake.calls_since(since)
        if not c.path.startswith(("/interactions/", "/webhooks/"))
    ]


async def test_a_whole_game_costs_well_under_one_bot_token_call_a_card(
    fake_discord: FakeDiscord, db_file: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    table = setup(fake, db_file, clock, ["Ana", "Bob", "Cyd", "Dee"])
    table.settle = 0
    async with fake.run_client(table.bot):
        await start(table, {"rounds": 1, "turn_seconds": 0})
        table.wait_quiet = False  # players act once they see their controls, as people do
        mark = fake.mark()
        await table.play_to_the_end()
        table.wait_quiet = True
        await table.quiet()
        calls = bot_token_calls(fake, mark)
        cards = 60
        # The hands and the table are edited with the token of the latest click on them;
        # the bot's token posts the round records and the odd edit of a hand never clicked.
        assert len(calls) / cards <= 0.2, calls
        assert fake.rate_limit_counts().get("global", 0) == 0
        assert table.bot.budget.figures.global_429 == 0


async def test_once_tokens_have_expired_the_bot_token_takes_over_within_one_call_a_card(
    fake_discord: FakeDiscord, db_file: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bot.seated.base.EPHEMERAL_TTL", 0.0)  # no token is trusted
    fake = fake_discord
    table = setup(fake, db_file, clock, ["Ana", "Bob", "Cyd", "Dee"])
    table.settle = 0
    async with fake.run_client(table.bot):
        await start(table, {"rounds": 1, "turn_seconds": 0})
        await table.step()  # the pass
        table.wait_quiet = False
        mark = fake.mark()
        for _ in range(16):
            await table.step()
        table.wait_quiet = True
        await table.quiet()
        calls = bot_token_calls(fake, mark)
        # The table (coalesced: one edit a second at most) and the next player's hand.
        assert len(calls) / 16 <= 2.0, calls
        assert not [c for c in fake.calls_since(mark) if c.status == 401]


async def test_a_player_who_closes_their_dms_mid_game_is_pinged_in_the_channel_once(
    fake_discord: FakeDiscord, db_file: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(SeatedCog, "NOTICE_DELAY", 0.05)
    fake = fake_discord
    table = setup(fake, db_file, clock, ["Ana", "Bob", "Cyd"])
    ana, bob, cyd = table.users
    async with fake.run_client(table.bot):
        game_id = await start(table, {"turn_seconds": 0})
        cog = table.bot.get_cog("Papayoo")
        assert isinstance(cog, SeatedCog)
        await fake.wait_for(lambda: len(fake.dms(cyd)) == 2)  # his hand and a DM notice
        cog.notices.delay = 3600
        for user in (ana, bob):
            await table.pass_cards(str(user.id))
        fake.close_dms(cyd)
        table.closed.add(cyd.id)
        mark = fake.mark()
        # Cyd's next notice cannot be a DM any more: it is a mention in the channel.
        await cog.notices.warn(game_id, [str(cyd.id)])  # as the turn timer does
        notice = await fake.wait_for_message(
            table.channel, lambda m: [u.id for u in m.mentions] == [cyd.id]
        )
        assert f"#{(await table.stored()).shown_number}" in notice.content
        assert [u.id for u in notice.mentions] == [cyd.id]
        stored = await table.stored()
        assert not stored.meta["hands"].get(str(cyd.id))  # remembered with the game
        assert table.bot.private.known_closed(cyd.id)
        await table.pass_cards(str(cyd.id))  # from "Show my hand"
        await table.quiet()
        refused = [c for c in fake.calls_since(mark) if c.status == 403]
        assert len(refused) == 1, refused  # found out once, never asked again
        await fake.wait_for(lambda: fake.message(notice.id).deleted)


async def test_a_table_discord_refuses_to_edit_tells_the_host_once(
    fake_discord: FakeDiscord, db_file: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("bot.seated.base.EPHEMERAL_TTL", 0.0)  # the table uses the bot's token
    fake = fake_discord
    table = setup(fake, db_file, clock, ["Ana", "Bob", "Cyd"])
    ana = table.users[0]
    async with fake.run_client(table.bot):
        await start(table, {"turn_seconds": 0})
        mark = fake.mark()
        me = table.guild.members[fake.bot_user.id]
        me.permissions_override = 0  # the bot lost its permissions on the server
        dms_before = len(fake.dms(ana))
        await table.step()  # the pass
        for _ in range(3):
            await table.step()
        await table.quiet()
        refused = [c for c in fake.calls_since(mark) if c.status == 403]
        assert len(refused) == 1, refused  # not retried in a loop
        told = fake.dms(ana)[dms_before:]
        assert len([m for m in told if "can no longer update the table" in m.content]) == 1


async def test_an_outage_loses_nothing_and_every_game_goes_on(
    fake_discord: FakeDiscord, db_file: Path, clock: FakeClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Time scaled down tenfold: a 0.2 s outage against a first backoff of 0.1 s (1 s and
    # 2 s in production) goes through the same failures, backoffs and probe.
    monkeypatch.setattr("bot.budget.BACKOFF_MIN", 0.1)
    fake = fake_discord
    table = setup(fake, db_file, clock, ["Ana", "Bob", "Cyd"])
    table.settle = 0
    async with fake.run_client(table.bot):
        await start(table, {"turn_seconds": 0})
        await table.step()  # the pass
        stored = await table.stored()
        player = stored.game.public_view()["turn"]
        legal = stored.game.view(player)["legal"]
        custom_id = table.play_id(stored, player, legal[0])
        msg = await table.controls(table.user(player), custom_id)
        fake.outage(0.2)
        await fake.click(table.user(player), msg, custom_id, settle=0, timeout=10)
        after = await table.stored()
        assert after.version == stored.version + 1  # committed although nobody saw it
        # Once Discord is back, the player's hand, the table and the next player catch up.
        nxt = after.game.public_view()["turn"]
        next_id = table.play_id(after, nxt, after.game.view(nxt)["legal"][0])
        found = await fake.wait_for(
            lambda: any(
                c.get("custom_id") == next_id and not c.get("disabled")
                for m in table.private_messages(table.user(nxt))
                for c in fake.components_of(m)
            ),
            timeout=30,
        )
        assert found
        await table.play_card(nxt)
        assert (await table.stored()).version == after.version + 1
        fake.late_interactions.clear()  # the click made during the outage got no answer


async def test_a_start_waits_in_its_lobby_while_the_budget_is_taken(
    fake_discord: FakeDiscord,
    db_file: Path,
    clock: FakeClock,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr("bot.seated.lobby.WAITING_POLL", 0.05)
    fake = fake_discord
    table = setup(fake, db_file, clock, ["Ana", "Bob", "Cyd"])
    ana, bob, cyd = table.users
    async with fake.run_client(table.bot):
        busy = [True]
        monkeypatch.setattr(table.bot.budget, "congested", lambda: busy[0])
        lobby = await fake.slash(ana, table.channel, "papayoo begin", {})
        for user in (bob, cyd):
            await fake.click(user, lobby, label=join_label(fake, lobby))
        waiting = await fake.click(ana, lobby, label="Start")
        assert waiting.callback_type == 7
        assert "busy" in waiting.text and "starts by itself" in waiting.text
        assert await table.bot.store.games.find(kind="papayoo", channel_id=table.channel.id) == []
        busy[0] = False
        games = await fake.wait_for(
            lambda: table.bot.store.games.find(kind="papayoo", channel_id=table.channel.id)
        )
        assert games
        [game] = await table.bot.store.games.find(kind="papayoo", channel_id=table.channel.id)
        table.game_id = game.id
        await table.quiet()
        await fake.wait_for(lambda: all(len(fake.dms(u)) == 1 for u in table.users))
        assert "busy" not in fake.message(lobby.response.id).text  # the lobby became the table
