"""The bot checks what Discord guarantees today, so that it never depends on it.

Discord delivers a click only to whom the message is shown, on the message it was made on,
in the server it is in, with the values its select offered. A forged interaction (posted raw,
as an attacker could) breaks each of these; every one is refused privately, in the
clicker's language, and changes nothing:

- a click on another player's hand (their "Show my hand" copy, their DM hand);
- "Keep playing" under an abandon confirmation, pressed by someone who may not abandon;
- a custom id naming another server's game or lobby (or, in a DM, a game the clicker does
  not play in);
- a select value that is no number, a custom id whose argument means nothing.

Through the fake Discord with the real bot and the toy game (:mod:`tests.seated.toy`).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.engine import GAMES
from bot.i18n import t
from bot.seated import SeatedCog
from bot.seated import controls as seated_controls
from bot.seated.controls import stamp
from bot.settings import Settings
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeChannel, FakeGuild, FakeMessage, FakeUser
from tests.seated.toy import HighCard, OpenCard, install

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def toy_kind(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    install()
    monkeypatch.setattr(SeatedCog, "TABLE_EDIT_INTERVAL", 0.0)
    yield
    GAMES.pop(HighCard.kind, None)
    GAMES.pop(OpenCard.kind, None)


def toy_bot(tmp_path: Path, *extra: str) -> GamenightBot:
    clock = FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))
    return GamenightBot(
        Settings(database_path=tmp_path / "toy.sqlite3"), clock, ["tests.seated.toy", *extra]
    )


def office(fake: FakeDiscord) -> tuple[FakeGuild, FakeChannel, FakeUser, FakeUser, FakeUser]:
    """Ana and Bob play; Zed only works here. Bob and Zed read French."""
    guild = fake.add_guild("Office")
    channel = fake.add_text_channel(guild, "games")
    ana = fake.add_user("Ana")
    bob = fake.add_user("Bob", locale="fr")
    zed = fake.add_user("Zed", locale="fr")
    for user in (ana, bob, zed):
        fake.add_member(guild, user)
    return guild, channel, ana, bob, zed


async def start_toy(
    fake: FakeDiscord, bot: GamenightBot, channel: FakeChannel, users: Sequence[FakeUser]
) -> int:
    host, *others = users
    lobby = await fake.slash(host, channel, "highcard begin", {})
    for user in others:
        await fake.click(user, lobby, label="Join")
    started = await fake.click(host, lobby, label="Start")
    assert started.callback_type == 7, started.text
    cog = bot.get_cog("HighCard")
    assert isinstance(cog, SeatedCog)
    await cog.settle()
    return (await bot.store.games.find(kind="highcard", channel_id=channel.id))[0].id


async def forge(
    fake: FakeDiscord,
    user: FakeUser,
    message: FakeMessage,
    custom_id: str,
    values: Sequence[str] | None = None,
) -> Any:
    """A component interaction posted raw by ``user`` on ``message``: any message (another
    player's ephemeral, someone else's DM), any value. No client would send it."""
    data: dict[str, Any] = {"custom_id": custom_id, "component_type": 2}
    if values is not None:
        data = {"custom_id": custom_id, "component_type": 3, "values": list(values)}
    owner = message.channel.recipient if message.channel.is_dm else user
    assert owner is not None
    inter = fake._new_interaction(3, owner, message.channel, data, "forged", source=message)
    inter.user = user  # a DM not theirs: Discord would never deliver it
    return await fake._run(inter, timeout=5.0, settle=0.05)


def planted(fake: FakeDiscord, channel: FakeChannel, components: list[dict[str, Any]]) -> Any:
    """A message of the bot in ``channel`` carrying ``components`` (an attacker's payload
    names whatever message and components it likes)."""
    return fake._new_message(channel, fake.bot_user, {"content": "…", "components": components})


async def test_a_forged_press_on_someone_elses_hand_is_refused(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    _guild, channel, ana, bob, _zed = office(fake)
    bot = toy_bot(tmp_path)
    async with fake.run_client(bot):
        game_id = await start_toy(fake, bot, channel, [ana, bob])
        stored = await bot.store.games.require(game_id)
        assert stored.game.to_act() == [str(ana.id)]
        legal = stored.game.legal_actions(str(ana.id))
        play = f"gn:highcard:{game_id}:do:{stamp(legal)}.0"
        table = fake.message(stored.meta["table_id"])
        shown = await fake.click(ana, table, f"gn:highcard:{game_id}:hand")
        assert shown.ephemeral and shown.response is not None
        copy = fake.message(shown.response.id)
        dm = fake.dms(ana)[-1]
        edits = (len(copy.versions), len(dm.versions))

        # Bob presses Ana's "Show my hand" copy, then her DM hand.
        for message in (copy, dm):
            refused = await forge(fake, bob, message, play)
            assert refused.callback_type == 4 and refused.ephemeral, refused.text
            assert refused.text == t("seated.not_your_hand", "fr")
            assert (await bot.store.games.require(game_id)).version == stored.version
        assert (len(copy.versions), len(dm.versions)) == edits  # neither was edited

        # Ana's own copy still takes her move (it stayed her live copy).
        played = await fake.click(ana, copy, play)
        assert played.callback_type == 7, played.text
        assert (await bot.store.games.require(game_id)).version == stored.version + 1
    await bot.store.close()


async def test_keep_playing_is_refused_to_who_may_not_abandon(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    _guild, channel, ana, bob, zed = office(fake)
    bot = toy_bot(tmp_path)
    async with fake.run_client(bot):
        game_id = await start_toy(fake, bot, channel, [ana, bob])
        stored = await bot.store.games.require(game_id)
        asked = await fake.slash(ana, channel, "highcard end", {})
        assert asked.ephemeral and asked.response is not None
        confirmation = fake.message(asked.response.id)
        before = len(confirmation.versions)
        keep = f"gn:highcard:{game_id}:keep"

        for user in (zed, bob):  # not playing; playing but not the host
            refused = await forge(fake, user, confirmation, keep)
            assert refused.callback_type == 4 and refused.ephemeral, refused.text
            assert refused.text == t("errors.not_allowed", "fr")
        assert len(confirmation.versions) == before  # not edited
        after = await bot.store.games.require(game_id)
        assert after.version == stored.version and after.is_active

        kept = await fake.click(ana, asked, keep)
        assert kept.callback_type == 7 and t("seated.abandon_kept", "en") in kept.text
    await bot.store.close()


async def test_a_press_naming_another_servers_game_is_refused(
    fake_discord: FakeDiscord, tmp_path: Path
) -> None:
    fake = fake_discord
    guild, channel, ana, bob, zed = office(fake)
    elsewhere = fake.add_guild("Other office")
    theirs = fake.add_text_channel(elsewhere, "games")
    for user in (bob, zed):
        fake.add_member(elsewhere, user)
    bot = toy_bot(tmp_path)
    async with fake.run_client(bot):
        game_id = await start_toy(fake, bot, channel, [ana, bob])
        stored = await bot.store.games.require(game_id)
        lobby = await fake.slash(ana, channel, "highcard begin", {})
        assert lobby.response is not None
        lobby_id = max(g.id for g in await bot.store.games.find(guild_id=guild.id))
        lobby_before = await bot.store.games.require(lobby_id)
        other = t("errors.other_server", "fr")

        # The other server's channel shows this server's table and lobby buttons.
        table = planted(fake, theirs, fake.message(stored.meta["table_id"]).components)
        shown = await fake.click(bob, table, f"gn:highcard:{game_id}:hand")
        assert shown.ephemeral and shown.text == other, shown.text
        # The shared "Show my hand" of the private messenger too.
        button = {"type": 2, "style": 1, "label": "?", "custom_id": f"gn:hand:highcard:{game_id}"}
        hand = planted(fake, theirs, [{"type": 1, "components": [button]}])
        shown = await fake.click(bob, hand, button["custom_id"])
        assert shown.ephemeral and shown.text == other, shown.text
        lobby_copy = planted(fake, theirs, fake.message(lobby.response.id).components)
        join = next(b.custom_id for b in fake.buttons(lobby_copy) if b.label == "Join")
        assert join is not None
        joined = await fake.click(zed, lobby_copy, join)
        assert joined.ephemeral and joined.text == other, joined.text
        lobby_after = await bot.store.games.require(lobby_id)
        assert lobby_after.version == lobby_before.version
        assert str(zed.id) not in lobby_after.game.public_view()["players"]

        # In a DM: a hand's controls of a game the clicker does not play in.
        legal = stored.game.legal_actions(str(ana.id))
        play = f"gn:highcard:{game_id}:do:{stamp(legal)}.0"
        dm = planted(fake, fake.dm_channel(zed), fake.dms(ana)[-1].components)
        played = await fake.click(zed, dm, play)
        assert played.ephemeral and played.text == t("errors.not_a_player", "fr"), played.text
        assert (await bot.store.games.require(game_id)).version == stored.version
    await bot.store.close()


async def test_bad_values_in_interaction_data_are_not_understood(
    fake_discord: FakeDiscord, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = fake_discord
    _guild, channel, ana, bob, _zed = office(fake)
    monkeypatch.setattr(seated_controls, "BUTTONS_MAX", 0)  # the hand as a select
    bot = toy_bot(tmp_path, "cogs.help")
    async with fake.run_client(bot):
        game_id = await start_toy(fake, bot, channel, [bob, ana])
        stored = await bot.store.games.require(game_id)
        assert stored.game.to_act() == [str(bob.id)]
        dm = fake.dms(bob)[-1]
        [select] = fake.selects(dm)
        assert select["custom_id"].startswith(f"gns:highcard:{game_id}:do:")
        for value in ("x", "-1", "٣", "99999999999999999999999"):
            chosen = await forge(fake, bob, dm, select["custom_id"], [value])
            assert chosen.callback_type == 7, chosen.text  # the hand again, as it is now
            assert t("seated.stale", "fr") in chosen.text
            assert (await bot.store.games.require(game_id)).version == stored.version
        assert fake.selects(fake.message(dm.id)) == [select]  # still live

        # A custom id no button of the bot carries: a help page of no game, a game id no
        # database row has.
        unknown = t("errors.unknown_button", "fr")
        for custom_id in ("gn:help:0:page:nothing", f"gn:highcard:{2**64}:hand"):
            button = {"type": 2, "style": 2, "label": "?", "custom_id": custom_id}
            message = planted(fake, channel, [{"type": 1, "components": [button]}])
            pressed = await fake.click(bob, message, custom_id)
            assert pressed.ephemeral and pressed.text == unknown, pressed.text
        assert (await bot.store.games.require(game_id)).version == stored.version
    await bot.store.close()
