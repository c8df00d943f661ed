"""The kit's copies of a hand, what an off-turn hand shows, and the number players see.

Through the fake Discord with the toy game (:mod:`tests.seated.toy`) and Papayoo:

- one live copy: "Show my hand" pressed again retires the older ephemeral copy (through its
  own token: no bot-token call), the newer one takes the moves, the DM stays live;
- a hand off turn shows no table state (the trick, what just happened): it is not edited
  when others move, so it would go stale;
- each game has a number per server and kind (Papayoo #1, #2... whatever else was played),
  shown everywhere and taken by ``/<game> end``; custom ids keep the database id.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.budget import counts_globally
from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.i18n import t
from bot.seated import SeatedCog
from bot.seated.controls import stamp
from bot.settings import Settings
from tests.cogs.papayoo_support import Table, office
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeMessage, FakeUser
from tests.seated.driver import two_colleagues
from tests.seated.toy import install, uninstall

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def toy_kind(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    install()
    monkeypatch.setattr(SeatedCog, "TABLE_EDIT_INTERVAL", 0.0)
    monkeypatch.setattr(SeatedCog, "COMPUTER_DELAY", 0.0)
    yield
    uninstall()


def say_what_happened(cog: SeatedCog, monkeypatch: pytest.MonkeyPatch) -> None:
    """What just happened, as a game's renderer says it (the toy says nothing by itself;
    its cog is loaded as an extension, a module of its own)."""
    monkeypatch.setattr(
        cog.render,
        "event_lines",
        lambda events, view, locale: [
            f"LAST {e['player']} {e['card']}" for e in events if e.get("type") == "played"
        ],
    )


def toy_bot(tmp_path: Path) -> GamenightBot:
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    return GamenightBot(
        Settings(database_path=tmp_path / "toy.sqlite3"), clock, ["tests.seated.toy"]
    )


def cog_of(bot: GamenightBot) -> SeatedCog:
    cog = bot.get_cog("HighCard")
    assert isinstance(cog, SeatedCog)
    return cog


async def start_toy(
    fake: FakeDiscord, bot: GamenightBot, channel: FakeChannel, users: list[FakeUser]
) -> int:
    host, *others = users
    lobby = await fake.slash(host, channel, "highcard begin", {})
    for user in others:
        await fake.click(user, lobby, label="Join")
    started = await fake.click(host, lobby, label="Start")
    assert started.callback_type == 7, started.text
    await cog_of(bot).settle()
    return (await bot.store.games.find(kind="highcard", channel_id=channel.id))[0].id


def live_ids(fake: FakeDiscord, message: FakeMessage) -> set[str]:
    return {b.custom_id or "" for b in fake.buttons(message) if not b.disabled}


async def test_show_my_hand_again_retires_the_older_copy(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    _guild, channel, ana, bob = two_colleagues(fake)
    bot = toy_bot(tmp_path)
    async with fake.run_client(bot):
        game_id = await start_toy(fake, bot, channel, [ana, bob])
        cog = cog_of(bot)
        stored = await bot.store.games.require(game_id)
        player = stored.game.to_act()[0]
        user = ana if player == str(ana.id) else bob
        table = fake.message(stored.meta["table_id"])
        legal = stored.game.legal_actions(player)
        play = f"gn:highcard:{game_id}:do:{stamp(legal)}.0"

        first = await fake.click(user, table, f"gn:highcard:{game_id}:hand")
        assert first.ephemeral and first.response is not None
        assert play in live_ids(fake, first.response)
        # One "Show my hand" costs the same bot-token calls as before: none.
        mark = fake.mark()
        second = await fake.click(user, table, f"gn:highcard:{game_id}:hand")
        await cog.settle()
        assert second.ephemeral and second.response is not None
        assert [c.route for c in fake.calls_since(mark) if counts_globally(c.path)] == []
        older = fake.message(first.response.id)
        assert fake.text_of(older).startswith(t("seated.hand_moved", "en"))
        assert fake.components_of(older) == [] and not older.embeds
        newer = fake.message(second.response.id)
        assert play in live_ids(fake, newer)
        assert play in live_ids(fake, fake.dms(user)[-1])  # the DM stays live beside it

        # The newer copy takes the move; the older one stays retired.
        played = await fake.click(user, newer, play)
        assert played.callback_type == 7, played.text
        await cog.settle()
        assert (await bot.store.games.require(game_id)).version == stored.version + 1
        assert fake.components_of(fake.message(first.response.id)) == []
        still = fake.text_of(fake.message(second.response.id))
        assert t("seated.wait", "en") in still and t("seated.hand_moved", "en") not in still
    await bot.store.close()


async def test_an_old_tables_hand_button_retires_the_copy_before_it_too(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The persistent ``gn:hand:<kind>:<id>`` button of older tables keeps one live copy too."""
    fake = fake_discord
    _guild, channel, ana, bob = two_colleagues(fake)
    bot = toy_bot(tmp_path)
    async with fake.run_client(bot):
        game_id = await start_toy(fake, bot, channel, [ana, bob])
        stored = await bot.store.games.require(game_id)
        old_table = await fake.post_message(ana, channel, "an older table")
        old_table.components = [
            {
                "type": 1,
                "components": [
                    {
                        "type": 2,
                        "style": 1,
                        "label": "Show my hand",
                        "custom_id": f"gn:hand:highcard:{game_id}",
                    }
                ],
            }
        ]
        table = fake.message(stored.meta["table_id"])
        first = await fake.click(bob, table, f"gn:highcard:{game_id}:hand")
        second = await fake.click(bob, old_table, f"gn:hand:highcard:{game_id}")
        await cog_of(bot).settle()
        assert first.response is not None and second.response is not None
        assert fake.components_of(fake.message(first.response.id)) == []
        assert second.embed is not None and "High card" in str(second.embed.get("title"))
    await bot.store.close()


async def test_a_hand_off_turn_shows_no_table_state(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """What just happened is in the hand of whoever must act now; the hand of whoever just
    played (not edited until their turn comes back) shows no move that would go stale."""
    fake = fake_discord
    _guild, channel, ana, bob = two_colleagues(fake)
    bot = toy_bot(tmp_path)
    async with fake.run_client(bot):
        game_id = await start_toy(fake, bot, channel, [ana, bob])
        say_what_happened(cog_of(bot), monkeypatch)
        stored = await bot.store.games.require(game_id)
        player = stored.game.to_act()[0]
        mover, other = (ana, bob) if player == str(ana.id) else (bob, ana)
        legal = stored.game.legal_actions(player)
        played = await fake.click(
            mover, fake.dms(mover)[-1], f"gn:highcard:{game_id}:do:{stamp(legal)}.0"
        )
        await cog_of(bot).settle()
        card = legal[0]["card"]
        mine = fake.text_of(fake.dms(mover)[-1])
        assert "LAST" not in mine and t("seated.wait", "en") in mine
        assert "LAST" not in played.text
        theirs = fake.text_of(fake.dms(other)[-1])
        assert f"LAST {player} {card}" in theirs and t("seated.your_turn", "en") in theirs
        # The hand's title leads to the table.
        title_url = fake.dms(mover)[-1].embeds[0].get("url")
        assert title_url and title_url.endswith(f"/{channel.id}/{stored.meta['table_id']}")
    await bot.store.close()


async def test_a_papayoo_hand_shows_the_trick_only_on_its_turn(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The bug: a hand showed the trick as "@Dan 4♠" while the table had 4♠ and 5♠."""
    monkeypatch.setattr(SeatedCog, "NOTICE_DELAY", 3600.0)
    fake = fake_discord
    guild, channel, users = office(fake, ["Ana", "Bob", "Cyd"])
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    bot = GamenightBot(
        Settings(database_path=tmp_path / "p.sqlite3"),
        clock,
        ["cogs.config", "cogs.help", "cogs.papayoo"],
    )
    table = Table(fake, bot, guild, channel, users)
    trick = t("papayoo.table.trick", "en")
    async with fake.run_client(bot):
        await table.open_and_start({"rounds": 1, "turn_seconds": 0})
        stored = await table.stored()
        for player in stored.game.public_view()["to_act"]:
            await table.pass_cards(player)
        order: list[str] = []
        for _ in range(2):
            stored = await table.stored()
            order.append(stored.game.public_view()["turn"])
            await table.play_card(order[-1])
        first, second = (table.user(p) for p in order)
        now = table.user((await table.stored()).game.public_view()["turn"])

        def fields(user: FakeUser) -> list[str]:
            return [f["name"] for f in table.fake.dms(user)[-1].embeds[0].get("fields", [])]

        assert trick in fields(now)  # to act: the trick as it is
        assert trick not in fields(first) and trick not in fields(second)
    await bot.store.close()


async def abandon_text(
    fake: FakeDiscord, user: FakeUser, channel: FakeChannel, options: dict[str, Any]
) -> Any:
    asked = await fake.slash(user, channel, "highcard end", options)
    assert asked.ephemeral
    return asked


async def test_games_are_numbered_per_server_and_abandoned_by_their_number(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    office_a = fake.add_guild("Office")
    games_a = fake.add_text_channel(office_a, "games")
    other_a = fake.add_text_channel(office_a, "more-games")
    office_b = fake.add_guild("Other office")
    games_b = fake.add_text_channel(office_b, "games")
    ana, bob = fake.add_user("Ana"), fake.add_user("Bob")
    for user in (ana, bob):
        fake.add_member(office_a, user)
        fake.add_member(office_b, user)
    bot = toy_bot(tmp_path)
    async with fake.run_client(bot):
        first = await start_toy(fake, bot, games_a, [ana, bob])
        elsewhere = await start_toy(fake, bot, games_b, [ana, bob])
        second = await start_toy(fake, bot, other_a, [ana, bob])
        numbers = [(await bot.store.games.require(i)).number for i in (first, elsewhere, second)]
        assert numbers == [1, 1, 2]
        assert second > 2  # the database id is not the number players see
        stored = await bot.store.games.require(second)
        table = fake.message(stored.meta["table_id"])
        assert "High card #2" in fake.text_of(table)
        call = fake.channel_messages(other_a)[-1]
        assert "High card #2 starts" in fake.text_of(call)

        unknown = await abandon_text(fake, ana, other_a, {"game": 3})
        assert "There is no High card game #3 in this server." in unknown.text
        asked = await abandon_text(fake, ana, games_a, {"game": 2})
        assert "End High card #2 for everyone?" in asked.text
        # The confirmation's custom id keeps the database id.
        done = await fake.click(ana, asked, f"gn:highcard:{second}:abandon")
        assert done.callback_type == 7 and "High card #2 is abandoned." in done.text
        assert (await bot.store.games.require(second)).status == "voided"
        assert (await bot.store.games.require(first)).status == "active"
        assert (await bot.store.games.require(elsewhere)).status == "active"
    await bot.store.close()
