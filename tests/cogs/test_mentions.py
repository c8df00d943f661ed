"""Who a message notifies, and what member-written text does in public messages, end to end.

The fake Discord records, for every new message, the users Discord would notify: those its
content mentions that its ``allowed_mentions`` lets through. An exercise's name written as
``<@Eve> **x**`` with a heading on a second line, through every command that takes one, must
notify nobody (Eve never plays), show as written on one line, and leave the bold of the
messages around it intact; the pings that remain are the ones a message means.
"""

from __future__ import annotations

import importlib
import re

import pytest

from bot.clock import FakeClock
from bot.seated import SeatedCog
from bot.spaye_settings import spaye_settings
from bot.text import plain
from tests.cogs.conftest import MakeBot, Office
from tests.cogs.test_spaye_support import COGS, NK, SpayeDriver, rounds_table
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeMessage, FakeUser

pytestmark = pytest.mark.e2e


def hostile(user: FakeUser) -> str:
    return f"<@{user.id}> **x**\n# boom"


def public(fake: FakeDiscord) -> list[FakeMessage]:
    return [m for m in fake.messages.values() if not m.ephemeral and m.channel.guild is not None]


def notified(fake: FakeDiscord) -> set[int]:
    return {u for m in fake.messages.values() for u in m.notified}


def shows_exercise_safely(text: str, eve: FakeUser) -> None:
    """The hostile name shows as written, inert and on the line it was put in."""
    assert f"<@\u200b{eve.id}\\>" in text and "\\*\\*x\\*\\* \\# boom" in text
    assert f"<@{eve.id}>" not in text
    assert not any(line.lstrip().startswith("#") for line in text.splitlines())


async def test_an_exercise_from_spaye_start_pings_nobody(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    ana, bob, cid, _, eve = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        opened = await p.slash(bob, "spaye start", {"exercise": hostile(eve)})
        assert not opened.ephemeral and opened.response is not None
        shows_exercise_safely(opened.text, eve)
        assert opened.response.notified == []
        day = await bot.store.days.get(office.guild.id, clock.now().date())
        assert day is not None
        p.game_id = day.game_id
        assert plain((await p.view())["exercise"]) == f"<@{eve.id}> **x** # boom"

        posted = await p.challenge(ana, cid)  # typed in the channel: the thread has it
        assert posted.ephemeral and (await p.invitation()).notified == [cid.id]
        assert notified(fake) == {cid.id}


async def test_an_exercise_from_spaye_exercise_reaches_the_records_inert(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    """Proposed with /spaye exercise and agreed, the name is in the nikäye's record: the
    record notifies the one who owes the exercise, the challenge the one challenged."""
    fake = office.fake
    ana, bob, cid, _, eve = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(rounds_table([(NK, "8D")], ["4C", "5C", "6C"], 0))
        proposed = await p.slash(bob, "spaye exercise", {"name": hostile(eve)})
        assert not proposed.ephemeral, proposed.text
        shows_exercise_safely(proposed.text, eve)
        agreed = await p.click(cid, proposed, p.cid("agree", 1))
        assert agreed.callback_type == 7
        shows_exercise_safely(agreed.text, eve)

        posted = await p.challenge(ana, cid)
        assert posted.response is not None and posted.response.notified == [cid.id]
        await p.answer(cid, posted)
        await p.draw(ana)  # Ana draws the nikäye: she owes the exercise
        await p.draw(cid)
        record = await p.wait_newest(p.cid("done", 1))
        shows_exercise_safely(record.content, eve)
        assert record.notified == [ana.id]
        assert notified(fake) == {ana.id, cid.id}
        for message in public(fake):
            assert "\n#" not in message.content and not message.content.startswith("#")


async def test_an_exercise_from_config_exercise_is_stored_neutral(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    eve = office.eve
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        saved = await fake.slash(
            office.owner, office.general, "config exercise", {"name": hostile(eve)}
        )
        assert saved.ephemeral, saved.text
        settings = await spaye_settings(bot, office.guild.id)
        assert settings.default_exercise == f"<@\u200b{eve.id}\\> \\*\\*x\\*\\* \\# boom"
        opened = await fake.slash(office.bob, office.general, "spaye start")
        assert opened.response is not None and not opened.ephemeral
        shows_exercise_safely(opened.text, eve)
        assert notified(fake) == set()


async def test_the_committee_form_neutralises_the_name(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    ana, _, cid, _, eve = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(rounds_table([(NK, "8D")], ["4C", "5C", "6C"], 0))
        await p.daye([ana, cid])
        asked = await p.ask_committee(ana, 1, "", hostile(eve))
        assert not asked.ephemeral or asked.callback_type == 7, asked.text
        request = (await p.view())["exercises"][0]["request"]
        assert plain(request["exercise"]) == f"<@{eve.id}> **x** # boom"
        assert eve.id not in notified(fake)
        for message in public(fake):
            assert f"<@{eve.id}>" not in message.content


async def test_a_spit_player_named_in_markdown_shows_as_written(
    fake_discord: FakeDiscord, make_bot: MakeBot, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importlib.import_module("bot.seated.start"), "new_seed", lambda: 7)
    fake = fake_discord
    guild = fake.add_guild("Office")
    channel = fake.add_text_channel(guild, "games")
    ana, bob = fake.add_user("Ana", global_name="__x__"), fake.add_user("Bob")
    fake.add_member(guild, ana)
    fake.add_member(guild, bob)
    bot = make_bot(["cogs.spit"])
    async with fake.run_client(bot):
        asked = await fake.slash(ana, channel, "spit challenge", {"opponent": bob})
        assert asked.response is not None and asked.response.notified == [bob.id]
        accepted = await fake.click(bob, asked, label="Accept")
        cog = bot.get_cog("Spit")
        assert isinstance(cog, SeatedCog)
        await cog.settle()
        board = accepted.response
        assert board is not None
        embed = board.embeds[0]
        assert "\\_\\_x\\_\\_" in embed["title"]
        assert any("\\_\\_x\\_\\_" in f["name"] for f in embed["fields"])
        assert not re.search(r"(?<!\\)__x", embed["title"])
        # the game's start calls its two players, and nobody else is ever notified
        assert any(set(m.notified) == {ana.id, bob.id} for m in public(fake))
        assert notified(fake) == {ana.id, bob.id}


@pytest.mark.parametrize("command", ["config exercise", "spaye exercise"])
async def test_a_name_too_long_is_refused_with_its_limit(
    office: Office, make_bot: MakeBot, clock: FakeClock, command: str
) -> None:
    """Discord keeps these options to 100 characters; the bot refuses longer ones itself
    (in the member's language, naming the limit) and stores nothing."""
    fake = office.fake
    ana = office.ana  # French
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(rounds_table([(NK, "8D")], ["4C", "5C", "6C"], 0))
        before = (await p.stored()).game.dumps()
        user = office.owner if command.startswith("config") else ana
        refused = await p.slash(user, command, {"name": "squats\n" * 20})
        assert refused.ephemeral and "100" in refused.text, refused.text
        assert (await p.stored()).game.dumps() == before
        assert (await spaye_settings(bot, office.guild.id)).default_exercise == "push-ups"
        said = "Le nom d'un exercice a 100" if user is ana else "An exercise's name has 100"
        assert said in refused.text and "139" in refused.text  # 20 words, one line
