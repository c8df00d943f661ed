"""A toy game on the seated-game kit, lobby to result, through the fake Discord."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import get_args, get_type_hints

import pytest

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.engine.cards import value
from bot.seated import GameHooks, SeatedCog, SeatedRenderer
from bot.seated.controls import stamp
from bot.settings import Settings
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeMessage
from tests.seated.driver import Seats, two_colleagues
from tests.seated.toy import DEAL, install, uninstall

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def toy_kind(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    install()
    monkeypatch.setattr(SeatedCog, "TABLE_EDIT_INTERVAL", 0.0)
    monkeypatch.setattr(SeatedCog, "COMPUTER_DELAY", 0.0)
    yield
    uninstall()


async def test_a_toy_game_runs_from_lobby_to_result(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    guild = fake.add_guild("Office")
    channel = fake.add_text_channel(guild, "games")
    ana, bob = fake.add_user("Ana"), fake.add_user("Bob", locale="fr")
    for user in (ana, bob):
        fake.add_member(guild, user)
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    bot = GamenightBot(
        Settings(database_path=tmp_path / "toy.sqlite3"), clock, ["tests.seated.toy"]
    )
    async with fake.run_client(bot):
        lobby = await fake.slash(ana, channel, "highcard begin", {})
        assert "High card" in lobby.text and not lobby.ephemeral
        await fake.click(bob, lobby, label="Join")
        seated = await fake.select(ana, lobby, "gns:highcard_lobby:1:add_computer", ["easy"])
        assert "Computer 1" in seated.text
        started = await fake.click(ana, lobby, label="Start")
        assert started.callback_type == 7
        cog = bot.get_cog("HighCard")
        assert isinstance(cog, SeatedCog)
        await cog.settle()
        games = await bot.store.games.find(kind="highcard")
        game_id = games[0].id
        for _ in range(20):
            stored = await bot.store.games.require(game_id)
            if not stored.is_active:
                break
            player = stored.game.to_act()[0]
            user = ana if player == str(ana.id) else bob
            legal = stored.game.legal_actions(player)
            custom_id = f"gn:highcard:{game_id}:do:{stamp(legal)}.0"
            hand = fake.dms(user)[-1]
            played = await fake.click(user, hand, custom_id)
            assert played.callback_type == 7, played.text
            await cog.settle()
        stored = await bot.store.games.require(game_id)
        assert stored.status == "over"
        texts = [m.text for m in fake.channel_messages(channel)]
        assert len(texts) == 3, texts  # the table (the lobby, edited), the call, the result
        assert "game over" in texts[-1] and "🏆" in texts[-1]
        assert all(len(fake.dms(u)) == 1 for u in (ana, bob))
        assert not fake.buttons(fake.dms(ana)[-1]) or all(
            b.disabled for b in fake.buttons(fake.dms(ana)[-1])
        )
        results = await bot.store.results.for_game(game_id)
        assert {r.user_id for r in results} == {ana.id, bob.id}  # the computer has no line
        assert {r.kind for r in results} == {"highcard.computers"}  # kept apart
        stats = await fake.slash(bob, channel, "highcard stats", {})
        assert stats.ephemeral and "Parties jouées: 0" in stats.text and "sur 1" in stats.text
    await bot.store.close()


async def test_a_public_board_is_played_on_the_table_itself(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    _guild, channel, ana, bob = two_colleagues(fake)
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    bot = GamenightBot(
        Settings(database_path=tmp_path / "toy.sqlite3"), clock, ["tests.seated.toy"]
    )
    async with fake.run_client(bot):
        lobby = await fake.slash(ana, channel, "opencard begin", {})
        await fake.click(bob, lobby, label="Join")
        board = await fake.click(ana, lobby, label="Start")
        cog = bot.get_cog("OpenCard")
        assert isinstance(cog, SeatedCog)
        await cog.settle()
        game_id = (await bot.store.games.find(kind="opencard"))[0].id
        assert fake.dms(ana) == [] and fake.dms(bob) == []  # nothing is hidden: no hands
        stored = await bot.store.games.require(game_id)
        first = stored.game.to_act()[0]
        mover, other = (ana, bob) if first == str(ana.id) else (bob, ana)
        legal = stored.game.legal_actions(first)
        seat = stored.game.public_view()["players"].index(first)
        mine = f"gn:opencard:{game_id}:do:{stamp(legal)}.{seat}.0"
        # The other player presses the mover's control: a quiet refresh, nothing played.
        mark = fake.mark()
        refused = await fake.click(other, board, mine)
        assert refused.callback_type == 7 and not refused.ephemeral
        assert (await bot.store.games.require(game_id)).version == stored.version
        # Both press it at once: only the owner's counts, both see the board at once.
        both = await asyncio.gather(fake.click(mover, board, mine), fake.click(other, board, mine))
        assert [r.callback_type for r in both] == [7, 7]
        await cog.settle()
        after = await bot.store.games.require(game_id)
        assert after.version == stored.version + 1
        assert after.game.to_act() == [str(other.id)]
        assert len([c for c in fake.calls_since(mark) if "callback" not in c.route]) <= 1
    await bot.store.close()


async def test_the_kit_checks_the_turn_timer_of_every_game(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The toy declares a ``turn_seconds`` option and no check of its own: the kit refuses a
    timer out of bounds (in its generic words, the toy's catalog having none) and opens the
    table for 0 (off) or a timer in bounds."""
    fake = fake_discord
    guild = fake.add_guild("Office")
    channel = fake.add_text_channel(guild, "games")
    ana = fake.add_user("Ana")
    fake.add_member(guild, ana)
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    bot = GamenightBot(
        Settings(database_path=tmp_path / "toy.sqlite3"), clock, ["tests.seated.toy"]
    )
    async with fake.run_client(bot):
        bad = await fake.slash(ana, channel, "highcard begin", {"turn_seconds": 5})
        assert bad.ephemeral
        assert "between 15 and 600" in bad.text
        assert await bot.store.games.find(kind="lobby") == []
        for seconds in (0, 30):
            lobby = await fake.slash(ana, channel, "highcard begin", {"turn_seconds": seconds})
            assert "High card" in lobby.text and not lobby.ephemeral


def labels(message: FakeMessage) -> list[list[str]]:
    """A message's buttons, row by row: each one's label (its art's name when it has no
    label), ``~`` before a disabled one."""
    return [
        [
            ("~" if c.get("disabled") else "")
            + str(c.get("label") or (c.get("emoji") or {}).get("name"))
            for c in row["components"]
        ]
        for row in message.components
    ]


def toy_bot(tmp_path: Path) -> GamenightBot:
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    return GamenightBot(
        Settings(database_path=tmp_path / "toy.sqlite3"), clock, ["tests.seated.toy"]
    )


async def test_a_draw_move_sits_beside_the_card_buttons(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """The guide's promise: a hand of card buttons, a row per suit, and the moves that play
    no single card (Draw) as buttons of their own on the last row; the first table shows
    the game's deal_event; a draw is committed and told on the table."""
    fake = fake_discord
    _guild, channel, ana, bob = two_colleagues(fake)
    bot = toy_bot(tmp_path)
    async with fake.run_client(bot):
        seats = Seats(fake, bot, "highcard", channel, [ana, bob])
        game_id = await seats.open_and_start()
        table = fake.channel_messages(channel)[0]
        assert "Three cards each, 2 in the stock." in fake.text_of(table)
        first = (await seats.stored()).game.to_act()[0]
        hand = seats.hand(seats.user(first))
        rows = labels(hand)
        assert len(rows) == 4 and rows[-1] == ["Draw"], rows  # three suits, then Draw
        assert sorted(len(r) for r in rows[:-1]) == [1, 1, 1]
        await seats.act(first, {"type": "draw"})
        stored = await seats.stored()
        assert stored.game.public_view()["stock"] == 1
        assert len(stored.game.view(first)["you"]["hand"]) == 4
        assert stored.game.to_act() != [first]
        assert "drew a card" in fake.text_of(fake.message(table.id))
        assert game_id == stored.id
    await bot.store.close()


async def test_naming_a_suit_is_one_label_with_a_parameter_in_each_language(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    """Who plays an 8 names a suit: four actions read from one catalog key with ``{suit}``,
    in the player's language, beside their hand (greyed, nothing else to play); the table
    shows the suit named, and once over the final scores from ``TableContext.result()``."""
    fake = fake_discord
    guild, channel, ana, bob = two_colleagues(fake)
    cyd = fake.add_user("Cyd", locale="fr")
    fake.add_member(guild, cyd)
    bot = toy_bot(tmp_path)
    async with fake.run_client(bot):
        seats = Seats(fake, bot, "highcard", channel, [ana, bob, cyd])
        await seats.open_and_start()
        players = (await seats.stored()).game.public_view()["players"]
        eight = players[next(i for i, h in enumerate(DEAL) if "8D" in h)]
        for _ in range(len(players) + 1):
            stored = await seats.stored()
            player = stored.game.to_act()[0]
            hand = stored.game.view(player)["you"]["hand"]
            await seats.act(player, {"type": "play", "card": "8D" if "8D" in hand else hand[0]})
            if player == eight and "8D" in hand:
                break
        stored = await seats.stored()
        assert stored.game.to_act() == [eight]
        rows = labels(seats.hand(seats.user(eight)))
        assert all(label.startswith("~") for row in rows[:-1] for label in row), rows
        names = {"en": "Name", "fr": "Annoncer"}[seats.user(eight).locale or "en"]
        assert rows[-1] == [f"{names} {s}" for s in "♠♥♦♣"], rows
        await seats.act(eight, {"type": "name", "suit": "H"})
        table = fake.channel_messages(channel)[0]
        assert "Suit named: ♥" in fake.text_of(fake.message(table.id))
        await seats.play_auto()
        stored = await seats.stored()
        assert stored.status == "over"
        scores = stored.game.result()["scores"]
        shown = fake.text_of(fake.message(table.id))
        assert "Final scores" in shown
        assert all(f"<@{p}> · {scores[p]}" in shown for p in players), shown
        assert scores == {
            p: sum(value(c) + (c.endswith("H")) for c in cards)
            for p, cards in stored.game.public_view()["played"].items()
        }
    await bot.store.close()


def test_a_hook_override_needs_nothing_but_bot_seated() -> None:
    """Every type a hook of :class:`GameHooks` or a renderer's control hook takes or
    returns is exported by ``bot.seated``, as the guide says."""
    import bot.seated

    needed: set[str] = set()
    for owner in (GameHooks, SeatedRenderer):
        for name, member in vars(owner).items():
            if callable(member) and not name.startswith("_"):
                for hint in get_type_hints(member).values():
                    needed |= {
                        a.__name__
                        for a in (hint, *get_args(hint))
                        if isinstance(a, type) and a.__module__.startswith("bot.")
                    }
    assert needed and needed <= set(bot.seated.__all__), needed - set(bot.seated.__all__)
    for name in ("Lang", "PayloadView", "button_payload", "action_button", "stamp", "group_rows"):
        assert name in bot.seated.__all__
