"""``/gamenight plan|cancel``, the RSVP message, the event's Interested list, reminders and
the minimum-players check, through the real bot against the fake Discord."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta

import pytest

from bot.client import GamenightBot
from bot.clock import FakeClock
from bot.fakediscord.events import CREATE_EVENTS
from bot.fakediscord.models import DEFAULT_EVERYONE_PERMISSIONS
from tests.cogs.conftest import MakeBot, Office

pytestmark = pytest.mark.e2e

COGS = ["cogs.gamenight"]
START = datetime(2025, 3, 20, 18, 30, tzinfo=UTC)  # 19:30 in Paris
WHEN = "2025-03-20 19:30"


def allow_events(office: Office) -> None:
    bot_member = office.guild.members[office.fake.bot_user.id]
    bot_member.permissions_override = DEFAULT_EVERYONE_PERMISSIONS | CREATE_EVENTS


async def set_paris(bot: GamenightBot, office: Office) -> None:
    await bot.store.settings.update(office.guild.id, {"timezone": "Europe/Paris"})


@asynccontextmanager
async def night_bot(
    office: Office, make_bot: MakeBot, cogs: Sequence[str] = COGS, *, paris: bool = True
) -> AsyncIterator[GamenightBot]:
    """The bot running against the office (in Paris time unless ``paris=False``: a restart
    finds the setting saved), its database closed afterwards."""
    bot = make_bot(cogs)
    async with office.fake.run_client(bot):
        if paris:
            await set_paris(bot, office)
        yield bot
    await bot.store.close()


async def test_a_night_is_planned_answered_and_reminded_once(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake, owner, general = office.fake, office.owner, office.general
    fake.follow_clock(clock)
    allow_events(office)
    async with night_bot(office, make_bot) as bot:
        done = await fake.slash(owner, general, "gamenight plan",
                                {"when": WHEN, "games": "papayoo, Spit", "title": "Friday @everyone"})  # fmt: skip
        assert done.ephemeral and "planned" in done.text, done.text
        [night] = await bot.store.nights.upcoming(office.guild.id)
        assert night.starts_at == START and night.games == ["papayoo", "spit"]
        event = fake.scheduled_event(night.event_id)
        assert event.name == "Friday @everyone" and event.scheduled_start_time == START.timestamp()
        message = fake.message(night.rsvp_message_id)
        assert "Friday @\u200beveryone" in message.content  # shown, never pinging
        assert [b.label for b in fake.buttons(message)] == ["I'm in", "Maybe", "Can't"]
        await fake.click(office.bob, message, label="I'm in")
        await fake.click(office.dan, message, label="Can't")
        chosen = await fake.select(office.bob, message, fake.selects(message)[0]["custom_id"],
                                   ["spit"])  # fmt: skip
        assert chosen.ephemeral and "Spit" in chosen.text
        assert await fake.mark_interested(office.cid, event)
        await fake.wait_for(lambda: "I'm in (2)" in fake.message(night.rsvp_message_id).content)
        ins = [r.user_id for r in await bot.store.nights.attendees(night.id)]
        assert sorted(ins) == sorted([office.bob.id, office.cid.id])
        assert (await bot.store.nights.rsvp(night.id, office.bob.id)).games == ["spit"]  # type: ignore[union-attr]
        assert await fake.mark_not_interested(office.cid, event)
        await fake.wait_for(lambda: "Maybe (1)" in fake.message(night.rsvp_message_id).content)
        assert (await bot.store.nights.rsvp(night.id, office.cid.id)).answer == "maybe"  # type: ignore[union-attr]
        assert [r.user_id for r in await bot.store.nights.attendees(night.id)] == [office.bob.id]
        await fake.click(office.ana, message, label="I'm in")  # Ana's Discord speaks French
        # The day before: Bob and Ana are in, each reminded in their own language; Dan said
        # no and gets nothing.
        clock.advance(START - timedelta(days=1) - clock.now() + timedelta(minutes=1))
        await bot.timers.run_due()
        assert len(fake.dms(office.bob)) == 1 and "tomorrow" in fake.dms(office.bob)[0].content
        assert [m.content.split(" : ")[0] for m in fake.dms(office.ana)] == ["Rappel"]
        assert fake.dms(office.dan) == []
    # A restart between the reminders sends nothing twice.
    async with night_bot(office, make_bot, paris=False) as bot:
        await bot.timers.run_due()
        assert len(fake.dms(office.bob)) == 1
        clock.advance(START - timedelta(hours=1) - clock.now() + timedelta(minutes=1))
        await bot.timers.run_due()
        await bot.timers.run_due()
        assert len(fake.dms(office.bob)) == 2 and "an hour" in fake.dms(office.bob)[1].content
        assert "dans une heure" in fake.dms(office.ana)[-1].content
        assert fake.dms(office.dan) == []


async def test_bad_plans_get_a_private_answer_and_change_nothing(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake, owner, general = office.fake, office.owner, office.general
    fake.follow_clock(clock)
    async with night_bot(office, make_bot, paris=False) as bot:
        lacking = await fake.slash(
            owner, general, "gamenight plan", {"when": WHEN, "games": "spit"}
        )
        assert lacking.ephemeral and "Create Events" in lacking.text, lacking.text
        allow_events(office)
        cases = {
            "2025-03-01 19:30": "already passed",
            "2026-06-01 19:30": "a year ahead",
            "next friday": "could not read",
        }
        for when, said in cases.items():
            answer = await fake.slash(
                owner, general, "gamenight plan", {"when": when, "games": "spit"}
            )
            assert answer.ephemeral and said in answer.text, answer.text
        chess = await fake.slash(owner, general, "gamenight plan", {"when": WHEN, "games": "chess"})
        assert "not a game" in chess.text
        empty = await fake.slash(owner, general, "gamenight plan", {"when": WHEN, "games": ", ,"})
        assert "at least one game" in empty.text
        eve = await fake.slash(
            office.eve, general, "gamenight plan", {"when": WHEN, "games": "spit"}
        )
        assert "may not plan" in eve.text
        ana = await fake.slash(
            office.ana, general, "gamenight plan", {"when": WHEN, "games": "spit"}
        )
        assert "Vous ne pouvez pas organiser" in ana.text, ana.text
        assert await bot.store.nights.upcoming(office.guild.id) == []
        assert fake.events_of(office.guild) == []


async def test_cancel_and_the_event_deleted_by_hand_tell_the_channel_once(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake, owner, general = office.fake, office.owner, office.general
    fake.follow_clock(clock)
    allow_events(office)
    async with night_bot(office, make_bot, paris=False) as bot:
        await fake.slash(owner, general, "gamenight plan", {"when": WHEN, "games": "any"})
        await fake.slash(
            owner, general, "gamenight plan", {"when": "2025-03-27 19:30", "games": "spit"}
        )
        first, second = await bot.store.nights.upcoming(office.guild.id)
        bob_tries = await fake.slash(office.bob, general, "gamenight cancel", {"night": first.id})
        assert "may not plan" in bob_tries.text
        done = await fake.slash(owner, general, "gamenight cancel", {"night": first.id})
        assert "cancelled" in done.text
        assert fake.scheduled_event(first.event_id).status == 4
        again = await fake.slash(owner, general, "gamenight cancel", {"night": first.id})
        assert "no longer open" in again.text
        await fake.delete_event_by_hand(owner, fake.scheduled_event(second.event_id))
        await fake.wait_for(
            lambda: any("was deleted" in m.content for m in fake.channel_messages(general))
        )
        gone = await bot.store.nights.get(second.id)
        assert gone is not None and gone.status == "cancelled"
        rsvps = {first.rsvp_message_id, second.rsvp_message_id}
        notices = [m for m in fake.channel_messages(general) if m.id not in rsvps]
        assert len(notices) == 2, [m.content for m in notices]
        assert "was deleted" in notices[1].content and "is cancelled" in notices[0].content
        assert fake.buttons(fake.message(first.rsvp_message_id)) == []  # no answers any more
        assert "cancelled" in fake.message(second.rsvp_message_id).content


async def test_below_the_minimum_the_night_is_called_off_once(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake, owner, general = office.fake, office.owner, office.general
    fake.follow_clock(clock)
    allow_events(office)
    async with night_bot(office, make_bot) as bot:
        await fake.slash(owner, general, "gamenight plan",
                         {"when": WHEN, "games": "spit", "min-players": 3, "calloff-hours": 2})  # fmt: skip
        [night] = await bot.store.nights.upcoming(office.guild.id)
        await fake.click(office.bob, fake.message(night.rsvp_message_id), label="I'm in")
        clock.advance(START - timedelta(hours=2) - clock.now() + timedelta(minutes=1))
        await bot.timers.run_due()
        await bot.timers.run_due()
        called = await bot.store.nights.get(night.id)
        assert called is not None and called.status == "called_off"
        notices = [m for m in fake.channel_messages(general) if m.id != night.rsvp_message_id]
        assert len(notices) == 1 and str(office.bob.id) in notices[0].content
        assert fake.scheduled_event(night.event_id).status == 4
        assert not (await bot.store.nights.was_sent(night.id, "remind_hour", office.bob.id))


async def test_the_planner_role_decides_who_plans_and_bots_do_not_answer(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake, owner, general = office.fake, office.owner, office.general
    fake.follow_clock(clock)
    allow_events(office)
    planners = fake.add_role(office.guild, "Planners")
    fake.member(office.guild, office.bob).roles.append(planners)
    robot = fake.add_user("Robo", bot=True)
    fake.add_member(office.guild, robot)
    async with night_bot(office, make_bot, ["cogs.config", *COGS], paris=False) as bot:
        refused = await fake.slash(
            office.bob, general, "gamenight plan", {"when": WHEN, "games": "spit"}
        )
        assert "may not plan" in refused.text
        saved = await fake.slash(owner, general, "config night-planners", {"role": planners})
        assert saved.ephemeral and "Game night planners" in saved.text, saved.text
        shown = await fake.slash(owner, general, "config show")
        assert f"<@&{planners.id}>" in shown.text
        done = await fake.slash(
            office.bob, general, "gamenight plan", {"when": WHEN, "games": "spit"}
        )
        assert "planned" in done.text, done.text
        [night] = await bot.store.nights.upcoming(office.guild.id)
        answer = await fake.click(robot, fake.message(night.rsvp_message_id), label="I'm in")
        assert answer.ephemeral and "Bots do not answer" in answer.text
        assert await bot.store.nights.rsvps(night.id) == []


async def test_edit_moves_the_event_the_message_and_the_reminders(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake, owner, general = office.fake, office.owner, office.general
    fake.follow_clock(clock)
    allow_events(office)
    async with night_bot(office, make_bot) as bot:
        await fake.slash(owner, general, "gamenight plan", {"when": WHEN, "games": "spit"})
        [night] = await bot.store.nights.upcoming(office.guild.id)
        await fake.click(office.bob, fake.message(night.rsvp_message_id), label="I'm in")
        nothing = await fake.slash(owner, general, "gamenight edit", {"night": night.id})
        assert "Give a new time" in nothing.text
        past = await fake.slash(
            owner, general, "gamenight edit", {"night": night.id, "when": "2025-03-01 10:00"}
        )
        assert "already passed" in past.text
        moved = await fake.slash(owner, general, "gamenight edit",
                                 {"night": night.id, "when": "2025-03-21 20:00", "games": "papayoo, speahx",
                                  "title": "Saturday"})  # fmt: skip
        assert "is now" in moved.text, moved.text
        later = datetime(2025, 3, 21, 19, 0, tzinfo=UTC)
        event = fake.scheduled_event(night.event_id)
        assert event.name == "Saturday" and event.scheduled_start_time == later.timestamp()
        shown = fake.message(night.rsvp_message_id).content
        assert "Saturday" in shown and "Papayoo, Speahx" in shown
        # The old day-before reminder does not fire; the new one does, once.
        clock.advance(START - timedelta(days=1) - clock.now() + timedelta(minutes=1))
        await bot.timers.run_due()
        assert fake.dms(office.bob) == []
        clock.advance(later - timedelta(days=1) - clock.now() + timedelta(minutes=1))
        await bot.timers.run_due()
        assert len(fake.dms(office.bob)) == 1


async def test_a_weekly_night_plans_the_next_once_at_the_same_local_hour(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake, owner, general = office.fake, office.owner, office.general
    fake.follow_clock(clock)
    allow_events(office)
    async with night_bot(office, make_bot) as bot:
        # Thursday 27 March 19:30 in Paris (UTC+1); a week later Paris is on summer time.
        await fake.slash(owner, general, "gamenight plan",
                         {"when": "2025-03-27 19:30", "games": "spit", "weekly": True})  # fmt: skip
        [night] = await bot.store.nights.upcoming(office.guild.id)
        assert night.weekly
        clock.advance(night.starts_at - clock.now())
        await bot.timers.run_due()
    async with night_bot(office, make_bot, paris=False) as bot:
        await bot.timers.run_due()  # after a restart: nothing planned twice
        nights = await bot.store.nights.upcoming(office.guild.id)
        following = [n for n in nights if n.id != night.id]
        assert len(following) == 1
        assert following[0].starts_at == datetime(2025, 4, 3, 17, 30, tzinfo=UTC)
        assert following[0].weekly and following[0].event_id != night.event_id
        assert len(fake.events_of(office.guild)) == 2
        assert fake.message(following[0].rsvp_message_id).channel is general


async def test_an_undecided_evening_is_polled_and_the_winner_becomes_the_night(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake, owner, general = office.fake, office.owner, office.general
    fake.follow_clock(clock)
    allow_events(office)
    async with night_bot(office, make_bot) as bot:
        eleven = " | ".join(f"2025-03-{day} 19:30" for day in range(17, 28))
        many = await fake.slash(owner, general, "gamenight plan", {"when": eleven, "games": "spit"})
        assert "at most 10 evenings" in many.text
        opened = await fake.slash(owner, general, "gamenight plan",
                                  {"when": "2025-03-20 19:30 | 2025-03-21 19:30", "games": "spit"})  # fmt: skip
        assert "poll of 2 evenings" in opened.text, opened.text
        [night] = await bot.store.nights.upcoming(office.guild.id)
        assert night.status == "polling" and night.event_id is None
        poll_message = fake.message(night.meta["poll_message_id"])
        assert [a["poll_media"]["text"] for a in poll_message.poll.to_json()["answers"]] == [
            "2025-03-20 19:30", "2025-03-21 19:30"]  # fmt: skip
        await fake.vote(office.bob, poll_message, "2025-03-21 19:30")
        await fake.vote(office.cid, poll_message, "2025-03-21 19:30")
        await fake.vote(office.dan, poll_message, "2025-03-20 19:30")
        assert fake.events_of(office.guild) == []
        clock.advance(timedelta(hours=24, minutes=1))
        await bot.timers.run_due()
        planned = await bot.store.nights.get(night.id)
        assert planned is not None and planned.status == "planned"
        assert planned.starts_at == datetime(2025, 3, 21, 18, 30, tzinfo=UTC)
        [event] = fake.events_of(office.guild)
        assert event.scheduled_start_time == planned.starts_at.timestamp()
        assert planned.rsvp_message_id is not None
        assert [b.label for b in fake.buttons(fake.message(planned.rsvp_message_id))] == [
            "I'm in", "Maybe", "Can't"]  # fmt: skip
        await bot.timers.run_due()
        assert len(fake.events_of(office.guild)) == 1
