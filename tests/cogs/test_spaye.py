"""Späye on Discord, end to end: the real bot against the fake Discord (docs/rules/spaye.md).

Decks are stacked (see ``test_spaye_support``): the day is stored with a known table, and
every move is a slash command, a click, a select or a modal, as colleagues would do it.
"""

from __future__ import annotations

import asyncio
from typing import Any

import discord
import pytest

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.i18n import t
from bot.spaye_settings import update_spaye_settings
from cogs.spaye._click import EXPIRY_KIND
from tests.cogs.conftest import MakeBot, Office
from tests.cogs.test_spaye_support import COGS, NK, TODAY, SpayeDriver, rounds_table

pytestmark = pytest.mark.e2e


def ids(*users: object) -> list[str]:
    return [str(u.id) for u in users]  # type: ignore[attr-defined]


# -- a full day ------------------------------------------------------------------------------

FULL_DAY_ROUNDS = [
    ("KH", "2S"),  # däye 1, Ana v Bob: Ana wins
    ("7H", "7S"),  # däye 2, Cid v Dan: a tie...
    ("9C", "3D"),  # ... drawn again: Cid wins
    (NK, "8D"),  # däye 3, Ana v Cid: Ana is nikäyé (8), shares it as Grand Späyin with Bob
    ("5C", NK),  # däye 4, Bob v Dan: Dan is nikäyé (5), the committee approves 3 squats
    ("QS", NK),  # däye 5, Ana v Bob: the third nikäye: Bob (12) gives up; one goes back
]
FULL_DAY_FINAL = ["4H", "6C", "JD"]  # the reinserted nikäye replaces the JD


async def test_a_full_day_through_discord(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    """26 ordinary rounds of draws (25 däyes: one had a tie) and the final däye of three:
    ties, nikäyes, the reinsertion, the committee (a committee-role member), a bonus,
    give up, and the day's end; no card is ever shown before its reveal."""
    fake = office.fake
    ana, bob, cid, dan, eve = office.colleagues
    role = fake.add_role(office.guild, "Committee")
    fake.member(office.guild, eve).roles.append(role)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await update_spaye_settings(bot, office.guild.id, {"committee_role_id": role.id})
        await bot.store.titles.award(office.guild.id, "2025-02", "grand_spayin", ana.id)
        table = rounds_table(FULL_DAY_ROUNDS, FULL_DAY_FINAL, fillers=20)
        assert len(table) == 55
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(table, bonuses={"grand_spayin": str(ana.id)})

        pairs = [(ana, bob), (cid, dan), (ana, cid), (bob, dan), (ana, bob)]
        fillers = [(ana, bob), (cid, dan), (ana, cid), (bob, dan), (ana, dan), (bob, cid)]
        pairs += [fillers[i % len(fillers)] for i in range(20)]
        position = 0
        for number, (first, second) in enumerate(pairs, start=1):
            posted = await p.challenge(first, second)
            assert f"<@{second.id}>" in posted.text and not posted.ephemeral
            await p.answer(second, posted)
            while True:
                hidden = table[position]
                shown = p.nikayes_shown()
                drew = await p.draw(first)
                assert drew.callback_type == 7  # the draw message says who drew
                p.check_hidden(hidden, shown)
                last = await p.draw(second)
                position += 2
                view = await p.view()
                if view["daye"] is None:
                    break
                assert "tie" in (fake.channel_messages(office.general)[-1].text.lower())
            assert view["last_daye"]["number"] == number
            assert last.callback_type == 7

            if number == 3:  # Ana, nikäyé, holds the Grand Späyin bonus
                ex = await p.exercise_message(1)
                assert "Bonus" in [b.label for b in fake.buttons(ex)]
                refused = await p.click(bob, ex, p.cid("bonus", 1))
                assert refused.ephemeral and f"<@{ana.id}>" in refused.text
                menu = await p.click(ana, ex, p.cid("bonus", 1))
                assert menu.ephemeral and menu.response is not None
                shared = await p.choose(ana, menu.response, p.cid("share", 1, "gns"), bob)
                assert shared.callback_type == 7
                assert await fake.wait_for(
                    lambda: any(
                        "Grand Späyin" in m.text for m in fake.channel_messages(office.general)[-3:]
                    )
                )
                # the share's own message notifies Bob, who now owes half of it
                assert (await p.wait_newest(p.cid("done", 2))).notified == [bob.id]
                await p.exercise(ana, 1)
                await p.exercise(bob, 2)
            if number == 4:  # Dan asks the committee; Eve (committee role) approves
                asked = await p.ask_committee(dan, 3, "3", "squats")
                assert not asked.ephemeral and "3 squats" in asked.text
                # on the record, which notified Dan (who owes it) when posted, and nobody since
                assert asked.response is not None and asked.response.notified == [dan.id]
                denied = await p.click(cid, asked, p.cid("approve", "3-1"))
                assert denied.ephemeral
                approved = await p.click(eve, asked, p.cid("approve", "3-1"))
                assert approved.callback_type == 7 and f"<@{eve.id}>" in approved.text
                await p.exercise(dan, 3)
            if number == 5:  # the reveal is posted after the last draw is answered
                assert await fake.wait_for(
                    lambda: any(
                        "nikäyes" in m.text and "table" in m.text
                        for m in fake.channel_messages(office.general)[-3:]
                    )
                )
                await p.exercise(bob, 4, "giveup")

        view = await p.view()
        assert view["table"] == 3 and view["final_next"]
        alone = await p.challenge(ana, bob)
        assert alone.ephemeral and "deux collègues" in alone.text  # Ana reads French
        await p.daye([ana, bob, cid])
        assert await fake.wait_for(
            lambda: any("Final däye" in m.text for m in fake.channel_messages(office.general)[-4:])
        )
        await p.exercise(cid, 5)
        assert await fake.wait_for(
            lambda: "finished" in fake.channel_messages(office.general)[-1].text
        )

        stored = await p.stored()
        assert stored.status == "over"
        result = stored.game.result()
        a, b, c, d = ids(ana, bob, cid, dan)
        assert result["dayes"] == 26
        assert result["points"][a]["reps"] == 8  # the shared exercise's stake, all of it
        assert result["points"][b]["reps"] == 0  # a partner earns nothing; Bob gave up
        assert result["points"][d]["reps"] == 3  # the committee's squats
        assert result["points"][c]["reps"] == 10 and result["points"][c]["victory"] >= 3
        titles = await bot.store.titles.of_month(office.guild.id, "2025-02")
        assert titles[0].bonus_used_game_id == stored.id
        lines = await bot.store.results.for_game(stored.id)
        assert {line.user_id for line in lines} >= {ana.id, bob.id, cid.id, dan.id}

        status = await p.slash(dan, "spaye status")
        assert status.ephemeral
        board = await p.slash(dan, "spaye board")
        assert board.ephemeral and board.embed is not None
        bad = await p.slash(dan, "spaye board", {"month": "March"})
        assert bad.ephemeral and bad.embed is None
    assert p.results and all(r.answered for r in p.results)


# -- /spaye start ----------------------------------------------------------------------------


async def test_start_opens_one_spaye_a_day_in_the_guilds_language(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    office.guild.locale = "fr"
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        none = await p.challenge(office.bob, office.cid)
        assert none.ephemeral and "/spaye start" in none.text
        opened = await p.slash(office.bob, "spaye start", {"exercise": "squats"})
        assert not opened.ephemeral
        assert "squats" in opened.text and "Späye du jour" in opened.text
        day = await bot.store.days.get(office.guild.id, TODAY)
        assert day is not None and day.status == "active"
        timer = await bot.store.timers.get(f"spaye:{day.game_id}:close")
        assert timer is not None and not timer.done
        again = await p.slash(office.ana, "spaye start")
        assert again.ephemeral and "déjà été ouvert" in again.text and "en cours" in again.text
        assert len(await bot.store.games.find(kind="spaye")) == 1
        p.game_id = day.game_id
        status = await p.slash(office.bob, "spaye status")
        assert status.ephemeral and "55" in status.text


# -- bad input -------------------------------------------------------------------------------


async def test_refusals_change_nothing(office: Office, make_bot: MakeBot, clock: FakeClock) -> None:
    fake = office.fake
    ana, bob, cid, dan, _ = office.colleagues
    robot = fake.add_user("Robot", bot=True)
    fake.add_member(office.guild, robot)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(rounds_table([("KH", "2S"), ("3H", "9S")], [NK, "4C", "5C"], 0))
        state = (
            await p.stored()
        ).game.dumps()  # the day, not the row: a message id may be saved late

        in_dm = await fake.slash(bob, fake.dm_channel(bob), "daye", {"colleague": cid})
        assert in_dm.ephemeral and "server" in in_dm.text
        myself = await p.challenge(bob, bob)
        assert myself.ephemeral and "yourself" in myself.text
        machine = await p.challenge(bob, robot)
        assert machine.ephemeral and "Bots" in machine.text
        assert (await p.stored()).game.dumps() == state

        posted = await p.challenge(bob, cid)
        other = await p.answer(dan, posted)
        assert other.ephemeral and f"<@{cid.id}>" in other.text
        busy = await p.challenge(ana, dan)
        assert busy.ephemeral and f"<@{bob.id}>" in busy.text
        await p.answer(cid, posted)
        busy = await p.challenge(dan, ana)
        assert busy.ephemeral and "under way between" in busy.text
        # answered: the challenge's own message now carries the däye's draws
        assert [b.label for b in p.fake.buttons(posted)] == ["Draw"]

        # a double click: two Draw clicks of the same player at once, exactly one draws
        draw_msg = p.newest(p.cid("draw", "1-1"))
        assert posted.response is not None and draw_msg.id == posted.response.id
        draw_components = draw_msg.components
        both = await asyncio.gather(
            fake.click(bob, draw_msg, p.cid("draw", "1-1")),
            fake.click(bob, draw_msg, p.cid("draw", "1-1")),
        )
        assert sorted(r.ephemeral for r in both) == [False, True]
        assert (await p.view())["daye"]["drawn"] == ids(bob)
        intruder = await fake.click(dan, draw_msg, p.cid("draw", "1-1"))
        assert intruder.ephemeral and "not in this däye" in intruder.text
        await p.draw(cid)
        # a client that still shows the Draw button of the däye just revealed
        old = draw_msg.components
        draw_msg.components = draw_components
        stale = await fake.click(bob, draw_msg, p.cid("draw", "1-1"))
        assert stale.ephemeral and "over" in stale.text

        # Ana's French refusal for another player's exercise button
        await p.daye([ana, dan])  # 3H v 9S: no nikäye; then the final is next
        final = await p.daye([bob, cid, dan])
        assert final.answered
        ex = await p.exercise_message(1)
        not_mine = await p.click(ana, ex, p.cid("done", 1))
        assert not_mine.ephemeral and "est à faire par" in not_mine.text
        await p.exercise(bob, 1)
        assert (await p.stored()).status == "over"
        closed = await fake.click(bob, draw_msg, p.cid("draw", "1-1"))
        assert closed.ephemeral and "finished" in closed.text
        draw_msg.components = old


async def test_challenge_expires_on_its_timer_and_a_rerun_is_harmless(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(rounds_table([("KH", "2S")], [NK, "4C", "5C"], 0))
        posted = await p.challenge(office.ana, office.bob)
        assert not fake.dms(office.bob)  # the channel's mention is the one ping
        timer = await bot.store.timers.get(f"spaye:{p.game_id}:invite")
        assert timer is not None and timer.kind == EXPIRY_KIND
        before = len(fake.channel_messages(office.general))
        clock.advance(minutes=11)
        assert await bot.timers.run_due() >= 1
        # the challenge's own message says it expired, its buttons gone: no new message
        said = await fake.wait_for_message(office.general, lambda m: "expired" in m.text)
        assert said is not None and posted.response is not None and said.id == posted.response.id
        assert not fake.buttons(said)
        assert len(fake.channel_messages(office.general)) == before
        said.components = said.versions[0].components  # a client still showing the buttons
        late = await p.answer(office.bob, posted)
        assert late.ephemeral and "no longer open" in late.text
        state = (
            await p.stored()
        ).game.dumps()  # the day, not the row: a message id may be saved late
        await bot.timers.schedule(EXPIRY_KIND, clock.now(), timer.payload, key="spaye:rerun")
        await bot.timers.run_due()
        assert (await p.stored()).game.dumps() == state
        again = await p.challenge(office.ana, office.bob)
        assert not again.ephemeral


async def test_a_challenge_pings_once_in_the_channel_whatever_the_dms(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    """A challenged colleague learns it from the channel message that mentions them, at
    once: with closed DMs nothing waits for their first click; with open DMs no DM repeats
    the ping."""
    fake = office.fake
    fake.close_dms(office.bob)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(rounds_table([("KH", "2S"), ("3H", "9S")], [NK, "4C", "5C"], 0))
        posted = await p.challenge(office.ana, office.bob)
        assert not posted.ephemeral and f"<@{office.bob.id}>" in posted.text
        accepted = await p.answer(office.bob, posted)
        assert accepted.callback_type == 7
        assert not fake.ephemerals(office.bob) and not fake.dms(office.bob)
        await p.draw(office.ana)
        await p.draw(office.bob)
        posted = await p.challenge(office.cid, office.dan)  # Dan's DMs are open
        assert f"<@{office.dan.id}>" in posted.text
        assert not fake.dms(office.dan)
        assert fake.count("POST", "/users/@me/channels") == 0


# -- the final's recruit ---------------------------------------------------------------------


async def test_a_tie_leaving_three_cards_recruits_a_third_player(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    ana, bob, cid, dan, _ = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(["7H", "7S", "9C", NK, "2D"])
        await p.daye([ana, bob])
        recruit = p.newest(p.cid("recruit", 1, "gnu"))
        assert "recruit" in recruit.text
        blocked = await p.challenge(cid, dan)
        assert blocked.ephemeral
        nobody = await p.pick(cid, recruit, p.cid("recruit", 1, "gnu"), dan)
        assert nobody.ephemeral and "not in this däye" in nobody.text
        picked = await p.pick(ana, recruit, p.cid("recruit", 1, "gnu"), cid)
        assert picked.callback_type == 7  # the menu is taken away while Cid is asked
        assert not fake.selects(recruit) and "7♥" in recruit.text  # the tie stays shown
        offer = await p.wait_newest(f"gn:spaye:{p.game_id}:accept:")
        assert f"<@{cid.id}>" in offer.text  # a new message: it pings Cid
        declined = await p.click(cid, offer, p.custom_id(offer, f"gn:spaye:{p.game_id}:decline:"))
        assert declined.callback_type == 7
        assert await fake.wait_for(lambda: fake.selects(recruit))  # someone else, then
        offer = await p.challenge(bob, dan)  # /daye works too for the späyins
        assert not offer.ephemeral, offer.text
        assert not fake.selects(recruit)
        await p.answer(dan, offer)
        for player in (ana, bob, dan):
            await p.draw(player)
        view = await p.view()
        assert view["last_daye"]["final"] and view["table"] == 0
        assert [e["player"] for e in view["exercises"]] == ids(bob)
        # the day finished: no recruiting menu is left anywhere
        assert not any(
            "recruit" in str(c.get("custom_id"))
            for m in fake.channel_messages(office.general)
            for c in fake.components_of(m)
        )


# -- restart ---------------------------------------------------------------------------------


async def test_old_draw_button_works_after_a_crash(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    ana, bob = office.ana, office.bob
    first = make_bot(COGS)
    running = fake.run_client(first)
    await running.start()
    p = SpayeDriver(fake, first, office.guild, office.general)
    await p.store_day(rounds_table([("KH", "2S")], [NK, "4C", "5C"], 0))
    posted = await p.challenge(ana, bob)
    await p.answer(bob, posted)
    await p.draw(ana)
    draw_msg = p.newest(p.cid("draw", "1-1"))
    await running.crash()
    await first.store.close()
    await first.timers.shutdown()

    second: GamenightBot = make_bot(COGS)
    async with fake.run_client(second):
        p.bot = second
        drew = await fake.click(bob, draw_msg, p.cid("draw", "1-1"))
        assert drew.callback_type == 7
        # The reveal is a new message, posted once the draw is answered.
        reveal = await fake.wait_for(
            lambda: next(
                (m for m in fake.channel_messages(office.general)[-1:] if "K♥" in m.text), None
            )
        )
        assert "K♥" in reveal.text and "2♠" in reveal.text
        view = await p.view()
        assert view["last_daye"]["winner"] == str(ana.id)


# -- slow answers ----------------------------------------------------------------------------


@pytest.mark.parametrize("command", ["spaye status", "daye"])
async def test_a_slow_database_still_answers_in_time(
    office: Office,
    make_bot: MakeBot,
    clock: FakeClock,
    command: str,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A command whose database read is slow is deferred while it waits, so Discord never
    drops it (3 s), and answered once the read is done. The read waits for the deferral
    itself (an event), not for a fixed time."""
    fake = office.fake
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(rounds_table([("KH", "2S")], [NK, "4C", "5C"], 0))
        days_get = bot.store.days.get
        deferred = asyncio.Event()
        real_defer = discord.InteractionResponse.defer

        async def defer(self: discord.InteractionResponse[Any], **kwargs: Any) -> Any:
            answer = await real_defer(self, **kwargs)
            deferred.set()
            return answer

        monkeypatch.setattr(discord.InteractionResponse, "defer", defer)

        async def slow_get(*args: object, **kwargs: object) -> object:
            await asyncio.wait_for(deferred.wait(), 5)  # slower than the bot waits to defer
            return await days_get(*args, **kwargs)  # type: ignore[arg-type]

        bot.store.days.get = slow_get  # type: ignore[method-assign]
        options = {"colleague": office.bob} if command == "daye" else None
        answer = await fake.slash(office.ana, office.general, command, options, timeout=8)
        assert answer.deferred and answer.answered
        assert not fake.late_interactions


async def test_bad_committee_input_changes_nothing(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    """Reps in other digits than 0-9, and a nikäyé with the committee role answering their
    own request: refused, and the day is as it was."""
    fake = office.fake
    ana, dan = office.ana, office.dan
    role = fake.add_role(office.guild, "Committee")
    fake.member(office.guild, dan).roles.append(role)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await update_spaye_settings(bot, office.guild.id, {"committee_role_id": role.id})
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(rounds_table([("5C", NK)], [NK, "4D", "6D"], 0))
        await p.daye([ana, dan])  # Dan is nikäyé: 5 reps
        # The day itself, not the row's version: saving a message id after the answer is
        # no move, and may land a moment later on a loaded machine.
        state = (await p.stored()).game.dumps()
        for reps in ("²", "-1", "1.5"):
            bad = await p.ask_committee(dan, 1, reps, "squats")
            assert bad.ephemeral and "reps" in bad.text.lower(), bad.text
        assert (await p.stored()).game.dumps() == state

        asked = await p.ask_committee(dan, 1, "3", "squats")
        assert not asked.ephemeral
        state = (await p.stored()).game.dumps()
        own = await p.click(dan, asked, p.cid("approve", "1-1"))
        assert own.ephemeral
        stored = await p.stored()
        assert stored.game.dumps() == state and str(dan.id) not in stored.game.public_view().get(
            "committee", []
        )
        approved = await p.click(ana, asked, p.cid("approve", "1-1"))
        assert approved.callback_type == 7


async def test_another_servers_day_is_refused_to_clicks_and_the_committee_form(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    """Forged interactions (no client sends them): a button and a committee form naming this
    server's day, posted in another server; a form whose custom id means nothing. Each is
    refused privately in the clicker's language; the day is as it was."""
    fake = office.fake
    ana, dan = office.ana, office.dan
    elsewhere = fake.add_guild("Other office")
    theirs = fake.add_text_channel(elsewhere, "general")
    for user in (ana, dan):
        fake.add_member(elsewhere, user)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.store_day(rounds_table([("5C", NK)], [NK, "4D", "6D"], 0))
        await p.daye([ana, dan])  # Dan is nikäyé: exercise 1 is his
        state = (await p.stored()).game.dumps()

        ask = p.cid("ask", 1)
        button = {"type": 2, "style": 2, "label": "?", "custom_id": ask}
        planted = fake._new_message(
            theirs, fake.bot_user, {"components": [{"type": 1, "components": [button]}]}
        )
        clicked = await fake.click(dan, planted, ask)
        assert clicked.ephemeral and clicked.text == t("errors.other_server", "en"), clicked.text

        reps = {"type": 1, "components": [{"type": 4, "custom_id": "reps", "value": "1"}]}
        for user, custom_id, key in (
            (dan, f"gnm:spaye:{p.game_id}:ask:1", "errors.other_server"),
            (ana, "gnm:spaye:nothing", "errors.unknown_button"),
        ):
            data = {"custom_id": custom_id, "components": [reps]}
            forged = fake._new_interaction(5, user, theirs, data, "forged form")
            sent = await fake._run(forged, timeout=5.0, settle=0.05)
            locale = "fr" if user is ana else "en"
            assert sent.ephemeral and sent.text == t(key, locale), sent.text
        assert (await p.stored()).game.dumps() == state
