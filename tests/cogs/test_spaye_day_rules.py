"""The seed's last rules and a calmer channel, end to end through the fake Discord
(docs/rules/spaye.md: the day, its exercise, späyins of the month; the issue's points)."""

from __future__ import annotations

import asyncio
from datetime import date

import pytest

from bot.clock import FakeClock
from bot.engine.spaye import SpayeGame
from bot.spaye_settings import update_spaye_settings
from cogs.spaye._calendar import schedule_closing
from cogs.spaye._opening import day_meta
from tests.cogs.conftest import MakeBot, Office
from tests.cogs.test_spaye_support import COGS, NK, SpayeDriver, rounds_table

pytestmark = pytest.mark.e2e


async def test_opening_after_closing_time_is_refused_with_the_next_opening(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    """Friday 09:00 UTC, closing at 08:30: no Späye today, and the answer says when."""
    fake = office.fake
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await update_spaye_settings(bot, office.guild.id, {"closing_time": "08:30"})
        p = SpayeDriver(fake, bot, office.guild, office.general)
        late = await p.slash(office.bob, "spaye start")
        assert late.ephemeral and "08:30" in late.text
        saturday = int(clock.now().replace(day=15, hour=0, minute=0).timestamp())
        assert f"<t:{saturday}:F>" in late.text
        assert await bot.store.days.get(office.guild.id, date(2025, 3, 14)) is None
        assert not await bot.store.games.find(kind="spaye")


async def test_voided_days_spayins_are_spayins_of_the_month(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    """Dan played only on a voided day: the Grand Späyin may still share with him."""
    fake = office.fake
    ana, bob, _, dan, eve = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        # yesterday Ana and Dan played a däye, then cards were left at closing time
        yesterday = SpayeGame.with_table(rounds_table([("KH", "2S")], [NK, "4C", "5C"], 0))
        yesterday.apply(str(ana.id), {"type": "challenge", "target": str(dan.id)})
        yesterday.apply(str(dan.id), {"type": "accept"})
        march_13 = date(2025, 3, 13)
        game_id = await bot.store.days.open_day(
            office.guild.id, march_13, office.general.id, yesterday, day_meta(march_13)
        )
        await schedule_closing(bot, office.guild.id, march_13, game_id)
        await bot.timers.run_due()  # its closing time has passed: voided
        day = await bot.store.days.get(office.guild.id, march_13)
        assert day is not None and day.status == "voided"

        p = SpayeDriver(fake, bot, office.guild, office.general)
        opened = await p.slash(bob, "spaye start")
        assert not opened.ephemeral
        today = await bot.store.days.get(office.guild.id, date(2025, 3, 14))
        assert today is not None
        stored = await bot.store.games.require(today.game_id)
        assert stored.game.to_dict()["options"]["month_spayins"] == [str(ana.id), str(dan.id)]
        assert str(eve.id) not in stored.game.to_dict()["options"]["month_spayins"]


async def test_the_grand_spayins_partner_menu_lists_only_eligible_spayins(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    ana, bob, cid, dan, eve = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await bot.store.titles.award(office.guild.id, "2025-02", "grand_spayin", ana.id)
        p = SpayeDriver(fake, bot, office.guild, office.general)
        # Dan played earlier this month: that day remembers his name
        earlier = await p.store_day([NK, "4C", "5C"], day=date(2025, 3, 10))
        await bot.store.games.update_meta(earlier.id, {"names": {str(dan.id): "Dan"}})
        await p.store_day(
            rounds_table([(NK, "8D")], [NK, "4C", "5C"], 0),
            bonuses={"grand_spayin": str(ana.id)},
            month_spayins=[str(dan.id)],
        )
        await p.daye([ana, bob])
        menu = await p.click(ana, await p.exercise_message(1), p.cid("bonus", 1))
        assert menu.response is not None
        (select,) = fake.selects(menu.response)
        values = [o["value"] for o in select["options"]]
        assert values == [str(bob.id), str(dan.id)]  # today's opponent first, then the month
        assert [o["label"] for o in select["options"]] == ["Bob", "Dan"]
        assert str(cid.id) not in values and str(eve.id) not in values


async def test_the_exercise_is_proposed_and_agreed_before_the_first_daye(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    _, bob, cid, dan, eve = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(rounds_table([("KH", "2S")], [NK, "4C", "5C"], 0))
        proposed = await p.slash(bob, "spaye exercise", {"name": "squats"})
        assert not proposed.ephemeral and "squats" in proposed.text
        state = (
            await p.stored()
        ).game.dumps()  # the day, not the row: a message id may be saved late

        second = await p.slash(cid, "spaye exercise", {"name": "plank"})
        assert second.ephemeral and "already proposed squats" in second.text
        own = await p.click(bob, proposed, p.cid("agree", 1))
        assert own.ephemeral and "second colleague" in own.text
        assert (await p.stored()).game.dumps() == state
        assert (await p.view())["exercise"] == "push-ups"

        agreed = await p.click(cid, proposed, p.cid("agree", 1))
        assert agreed.callback_type == 7 and "now **squats**" in agreed.text
        assert not fake.buttons(agreed)
        assert (await p.view())["exercise"] == "squats"

        await p.daye([dan, eve])
        state = (
            await p.stored()
        ).game.dumps()  # the day, not the row: a message id may be saved late
        late = await p.slash(cid, "spaye exercise", {"name": "burpees"})
        assert late.ephemeral and "fixed since the first däye" in late.text
        assert (await p.stored()).game.dumps() == state


async def test_after_a_committee_approval_the_exercise_shows_the_new_reps(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    _, bob, cid, _, _ = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(rounds_table([(NK, "8D")], [NK, "4C", "5C"], 0))
        await p.daye([bob, cid])
        record = await p.exercise_message(1)
        assert "**8 push-ups**" in record.text
        asked = await p.ask_committee(bob, 1, "5", "squats")
        assert asked.callback_type == 7  # the request shows on the exercise's own message
        assert "**5 squats**" in record.text and p.cid("approve", "1-1") in str(record.components)
        approved = await p.click(cid, record, p.cid("approve", "1-1"))
        assert approved.callback_type == 7
        assert "**5 squats**" in record.text and "**8 push-ups**" not in record.text
        assert "Approved by" in record.text
        await p.exercise(bob, 1)
        assert (await p.view())["points"][str(bob.id)]["reps"] == 5


async def test_a_ties_reveal_stays_shown_after_the_redraw(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    _, bob, cid, _, _ = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(rounds_table([("7H", "7S"), ("9C", "3D")], [NK, "4C", "5C"], 0))
        posted = await p.challenge(bob, cid)
        await p.answer(cid, posted)
        await p.draw(bob)
        await p.draw(cid)
        message = posted.response
        assert message is not None
        assert "7♥" in message.text and "7♠" in message.text and "Tie" in message.text
        await p.draw(bob)  # the first redraw click
        assert "7♥" in message.text and "7♠" in message.text and "Tie" in message.text
        await p.draw(cid)
        assert "7♥" in message.text and "7♠" in message.text  # still the däye's history
        assert await fake.wait_for(  # the reveal below
            lambda: "9♣" in fake.channel_messages(office.general)[-1].text
        )


async def test_at_most_two_new_channel_messages_per_daye(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    """A win, a tie then a win, a nikäye with the committee, a decline and an expiry: two
    new messages per däye played (the challenge, the reveal), none for the rest."""
    fake = office.fake
    ana, bob, cid, dan, _ = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        rounds = [("KH", "2S"), ("7H", "7S"), ("9C", "3D"), (NK, "8D"), ("5C", "QS")]
        await p.store_day(rounds_table(rounds, [NK, "4C", "5D"], 0))
        before = len(fake.channel_messages(office.general))
        await p.daye([ana, bob])
        posted = await p.challenge(cid, dan)
        await p.answer(dan, posted)
        for _ in range(2):
            await p.draw(cid)
            await p.draw(dan)
        await p.daye([bob, dan])
        await p.ask_committee(bob, 1, "6", "squats")
        record = p.newest(p.cid("approve", "1-1"))
        await p.click(dan, record, p.cid("approve", "1-1"))
        await p.exercise(bob, 1)
        refused = await p.challenge(ana, cid)
        await p.answer(cid, refused, "decline")
        await p.daye([ana, cid])
        dayes = (await p.view())["dayes"]
        assert dayes == 4
        expected = 2 * dayes + 1  # and the declined challenge's own message
        await fake.wait_for(lambda: len(fake.channel_messages(office.general)) - before >= expected)
        await asyncio.sleep(0.2)  # nothing more comes
        assert len(fake.channel_messages(office.general)) - before == expected


def test_help_states_the_rules_as_the_engine_plays_them() -> None:
    """/help's three contradictions are gone and the final's victory points are stated one
    way: at stake with the exercise."""
    from bot.i18n import t

    for locale in ("en", "fr"):
        text = "\n".join(t(f"help.spaye.{k}", locale) for k in ("rules", "rulings", "bot_rulings"))
        assert "/spaye exerci" in text
        if locale == "en":
            assert "or the committee role" not in text and "and members of the committee" in text
            assert "always holds a nikäye" not in text and "at least one nikäye" in text
            assert "every exercise is settled (confirmed, given up or lapsed)" in text
            assert "cancels" not in text  # one way: at stake with the exercise
            assert "are at stake with their exercise" in text
        else:
            assert "ou le rôle du comité" not in text and "et les membres du rôle" in text
            assert "contient toujours un nikäye" not in text and "au moins un nikäye" in text
            assert "chaque exercice est réglé (confirmé, abandonné ou caduc)" in text
