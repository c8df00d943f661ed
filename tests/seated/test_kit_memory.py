"""What the kit keeps in memory per game, counted: nothing once a game has ended.

Through the fake Discord with the toy games (:mod:`tests.seated.toy`): games played to their
end (one with a computer seat, one on a public board) and games abandoned, then every old
button of theirs pressed again (an old table's "Show my hand", the kit's own hand button, a
DM hand whose last edit never came, an ephemeral copy). Each per-game structure (the kit's
:meth:`~bot.seated.base.SeatedBase.in_memory`, the click tokens, the store's cache of games,
the turn timers) holds none of them. A game that ended behind this process's back (another
process, as shards) is swept once the kit holds more games.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.engine import GAMES
from bot.seated import SeatedCog
from bot.settings import Settings
from bot.ui import ClickToken
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeMessage, FakeUser
from tests.seated.driver import Seats, two_colleagues
from tests.seated.toy import HighCard, OpenCard, install

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def toy_kind(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    install()
    monkeypatch.setattr(SeatedCog, "TABLE_EDIT_INTERVAL", 0.0)
    monkeypatch.setattr(SeatedCog, "COMPUTER_DELAY", 0.0)
    monkeypatch.setattr(SeatedCog, "NOTICE_DELAY", 3600.0)
    yield
    GAMES.pop(HighCard.kind, None)
    GAMES.pop(OpenCard.kind, None)


def toy_bot(tmp_path: Path) -> GamenightBot:
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    return GamenightBot(
        Settings(database_path=tmp_path / "toy.sqlite3"), clock, ["tests.seated.toy"]
    )


def cog_named(bot: GamenightBot, name: str) -> SeatedCog:
    cog = bot.get_cog(name)
    assert isinstance(cog, SeatedCog)
    return cog


def held(bot: GamenightBot, games: set[int]) -> dict[str, set[int]]:
    """Which of ``games`` each per-game structure holds (every kit cog, the store, timers)."""
    found: dict[str, set[int]] = {}
    for name in ("HighCard", "OpenCard"):
        for what, ids in cog_named(bot, name).in_memory().items():
            found[f"{name} {what}"] = ids & games
    armed = bot.timers.armed()
    found["turn timers"] = {
        g for g in games for kind in ("highcard", "opencard") if f"{kind}:{g}:turn" in armed
    }
    return found


def tokens(bot: GamenightBot) -> int:
    """Click tokens the kit holds (ephemeral copies, DM hands, tables)."""
    count = 0
    for name in ("HighCard", "OpenCard"):
        for live in cog_named(bot, name)._live.values():
            count += len(live.copies) + len(live.dm_tokens) + (live.table_token is not None)
    return count


def old_message(fake: FakeDiscord, message: FakeMessage, components: list[object]) -> None:
    """The message as it was before its last edit (an edit that never came): its controls."""
    message.components = copy.deepcopy(components)


def hand_button(custom_id: str) -> list[object]:
    return [
        {
            "type": 1,
            "components": [{"type": 2, "style": 1, "label": "Hand", "custom_id": custom_id}],
        }
    ]


async def controls_now(seats: Seats) -> dict[int, tuple[FakeMessage, list[object]]]:
    """The DM hand of whoever must act, with its controls as they are now."""
    stored = await seats.stored()
    user = seats.user(stored.game.to_act()[0])
    return {user.id: (seats.hand(user), copy.deepcopy(seats.hand(user).components))}


async def play_to_the_end(seats: Seats) -> None:
    """Each player moves from their DM hand; the first player also once from a "Show my
    hand" copy, so that the game holds copies and tokens of every kind while it runs."""
    stored = await seats.stored()
    first = seats.user(stored.game.to_act()[0])
    table = seats.fake.message(stored.meta["table_id"])
    shown = await seats.fake.click(first, table, f"gn:{seats.kind}:{seats.game_id}:hand")
    assert shown.ephemeral
    assert tokens(seats.bot) > 0  # while it runs, the game holds its copies' tokens
    await seats.play_auto()


async def press_old_buttons(
    fake: FakeDiscord,
    channel: FakeChannel,
    users: list[FakeUser],
    kind: str,
    game_id: int,
    hands: dict[int, tuple[FakeMessage, list[object]]],
) -> None:
    """Every old button of an ended game, pressed by each of its players."""
    old_table = await fake.post_message(users[0], channel, "an older table")
    old_message(
        fake,
        old_table,
        hand_button(f"gn:{kind}:{game_id}:hand") + hand_button(f"gn:hand:{kind}:{game_id}"),
    )
    for user in users:
        for custom_id in (f"gn:{kind}:{game_id}:hand", f"gn:hand:{kind}:{game_id}"):
            answer = await fake.click(user, old_table, custom_id)
            assert answer.ephemeral, answer.text
        if user.id in hands:
            message, components = hands[user.id]
            old_message(fake, message, components)
            ids = [c["custom_id"] for c in fake.components_of(message) if "custom_id" in c]
            assert ids, "the hand had controls while the game ran"
            await fake.click(user, message, str(ids[0]))


async def test_ended_games_leave_nothing_in_memory(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    _guild, channel, ana, bob = two_colleagues(fake)
    users = [ana, bob]
    bot = toy_bot(tmp_path)
    ended: set[int] = set()
    async with fake.run_client(bot):
        highcard = cog_named(bot, "HighCard")
        # Played to the end, three times, each player's hand pressed again afterwards.
        for _ in range(3):
            seats = Seats(fake, bot, "highcard", channel, users)
            game_id = await seats.open_and_start()
            hands = await controls_now(seats)
            await play_to_the_end(seats)
            ended.add(game_id)
            await highcard.settle()
            await press_old_buttons(fake, channel, users, "highcard", game_id, hands)
        # Abandoned mid-game, twice.
        for _ in range(2):
            seats = Seats(fake, bot, "highcard", channel, users)
            game_id = await seats.open_and_start()
            stored = await seats.stored()
            await fake.click(
                seats.user(stored.game.to_act()[0]),
                fake.message(stored.meta["table_id"]),
                f"gn:highcard:{game_id}:hand",
            )
            hands = await controls_now(seats)
            asked = await fake.slash(ana, channel, "highcard end", {})
            assert asked.response is not None, asked.text
            done = await fake.click(ana, asked.response, f"gn:highcard:{game_id}:abandon")
            assert done.callback_type == 7, done.text
            ended.add(game_id)
            await highcard.settle()
            await press_old_buttons(fake, channel, users, "highcard", game_id, hands)
        # A public board played to its end.
        board = Seats(fake, bot, "opencard", channel, users)
        game_id = await board.open_and_start()
        stored = await board.stored()
        while stored.is_active:
            player = stored.game.to_act()[0]
            legal = stored.game.legal_actions(player)
            table = fake.message(stored.meta["table_id"])
            button = next(
                str(b.custom_id)
                for b in fake.buttons(table)
                if b.custom_id and b.custom_id.endswith(f".{stored.game.players.index(player)}.0")
            )
            assert legal
            await fake.click(board.user(player), table, button)
            await cog_named(bot, "OpenCard").settle()
            stored = await board.stored()
        ended.add(game_id)
        await press_old_buttons(fake, channel, users, "opencard", game_id, {})
        for name in ("HighCard", "OpenCard"):
            await cog_named(bot, name).settle()

        assert len(ended) == 6
        assert held(bot, ended) == {k: set() for k in held(bot, ended)}
        assert tokens(bot) == 0
        assert bot.store.games.cached() == 0
    await bot.store.close()


async def test_a_game_ended_elsewhere_is_swept(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Ended by another process (here: the store, behind the kit's back), a game's memory
    goes with the next sweep, which the kit starts itself once it holds more games."""
    fake = fake_discord
    _guild, channel, ana, bob = two_colleagues(fake)
    bot = toy_bot(tmp_path)
    async with fake.run_client(bot):
        cog = cog_named(bot, "HighCard")
        seats = Seats(fake, bot, "highcard", channel, [ana, bob])
        first = await seats.open_and_start()
        stored = await seats.stored()
        shown = await fake.click(
            ana, fake.message(stored.meta["table_id"]), f"gn:highcard:{first}:hand"
        )
        assert shown.ephemeral
        assert first in cog.in_memory()["live"]
        assert isinstance(cog._live[first].copies[str(ana.id)].token, ClickToken)

        await bot.store.games.set_status(first, "voided")  # the kit never hears of it
        assert first in cog.in_memory()["live"]
        monkeypatch.setattr(cog, "_sweep_at", len(cog._live) + 1)
        second = await Seats(fake, bot, "highcard", channel, [ana, bob]).open_and_start()
        await cog.settle()
        assert {k: ids & {first} for k, ids in cog.in_memory().items()} == {
            k: set() for k in cog.in_memory()
        }
        assert second in cog.in_memory()["live"]
        assert cog._sweep_at >= 2 * len(cog._live)
    await bot.store.close()
