"""``/privacy`` and ``/forget-me`` end to end through the fake Discord, with the real bot."""

from __future__ import annotations

import pytest

from tests.bot.test_records_storage import everything, where_is
from tests.cogs.conftest import MakeBot, Office
from tests.cogs.test_speahx import same_deal
from tests.fakediscord import FakeDiscord
from tests.seated.driver import Seats

pytestmark = pytest.mark.e2e
COGS = ["cogs.privacy", "cogs.speahx"]

__fixtures__ = (same_deal,)
"""The same deal as the Speahx tests (autouse)."""


async def test_privacy_shows_the_choice_and_changes_it(
    fake_discord: FakeDiscord, make_bot: MakeBot, office: Office
) -> None:
    fake = fake_discord
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        bob, ana, guild = office.bob, office.ana, office.guild.id
        shown = await fake.slash(bob, office.general, "privacy")
        assert shown.ephemeral and "You are counted" in shown.text
        assert [b.label for b in shown.buttons] == ["Keep me out"]
        out = await fake.click(bob, shown.response, label="Keep me out")
        assert out.callback_type == 7 and "Saved: you are now kept out" in out.text
        assert await bot.store.ratings.is_opted_out(guild, bob.id)
        assert [b.label for b in out.buttons] == ["Count me in"]
        back = await fake.click(bob, out.response, label="Count me in")
        assert "counted in the ratings and leaderboards here again" in back.text
        assert not await bot.store.ratings.is_opted_out(guild, bob.id)
        # In French, for Ana; her choice is hers alone.
        french = await fake.slash(ana, office.general, "privacy")
        assert "Vous êtes compté" in french.text
        gone = await fake.click(ana, french.response, label="Me retirer")
        assert "C'est noté" in gone.text and await bot.store.ratings.opted_out(guild) == {ana.id}
    await bot.store.close()


async def test_forget_me_asks_for_the_word_then_forgets_the_member_everywhere(
    fake_discord: FakeDiscord, make_bot: MakeBot, office: Office
) -> None:
    fake = fake_discord
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        ana, bob, cid = office.ana, office.bob, office.cid
        seats = Seats(fake, bot, "speahx", office.general, [bob, ana, cid])
        await seats.open_and_start({"turn_seconds": 0})
        await seats.play_auto()
        assert (await seats.stored()).status == "over"
        stats = {
            u.id: await bot.store.results.player(office.guild.id, "speahx", u.id)
            for u in (bob, cid)
        }

        # At an open table: told so, nothing deleted.
        lobby = await fake.slash(bob, office.general, "speahx begin", {"turn_seconds": 0})
        joined = await fake.click(ana, lobby, label="Join")
        assert joined.callback_type == 7, joined.text
        playing = await fake.slash(ana, office.general, "forget-me")
        assert playing.ephemeral and "une table ouverte" in playing.text and not playing.buttons
        left = await fake.click(ana, lobby.response, label="Leave")
        assert left.callback_type == 7, left.text

        # Asked twice: the button, then the word in a form.
        asked = await fake.slash(ana, office.general, "forget-me")
        assert asked.ephemeral and "irréversible" in asked.text
        [button] = asked.buttons
        assert button.label == "M'oublier…"
        form = await fake.click(ana, asked.response, label="M'oublier…")
        assert form.callback_type == 9 and form.modal is not None
        before = await everything(bot.store)
        wrong = await fake.submit_modal(ana, None, {"word": "oui"}, from_interaction=form)
        assert wrong.ephemeral and "rien n'a été supprimé" in wrong.text
        assert await everything(bot.store) == before

        form = await fake.click(ana, asked.response, label="M'oublier…")
        done = await fake.submit_modal(ana, None, {"word": " oublier "}, from_interaction=form)
        assert done.ephemeral and "Gamenight vous a oublié" in done.text, done.text
        assert "1 partie" in done.text

        assert await where_is(bot.store, ana.id) == []
        for user in (bob, cid):
            assert (
                await bot.store.results.player(office.guild.id, "speahx", user.id) == stats[user.id]
            )

        # The history shows her seat as a former member's, in its place.
        shown = await fake.slash(bob, office.general, "speahx history")
        assert "Former member" in shown.text and "Bob" in shown.text and "Ana" not in shown.text
    await bot.store.close()
