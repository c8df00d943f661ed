"""Planning a game night in the sandbox: the owner plans it (the bot may create events
there), the event shows in the events list, a colleague answers on the RSVP message."""

from __future__ import annotations

from datetime import timedelta

from tests.sandbox.conftest import Sandbox


async def test_the_owner_plans_a_night_and_a_colleague_answers(sandbox: Sandbox) -> None:
    fake = sandbox.page.fake
    owner = str(fake.office.owner_id)
    general = fake.general()
    start = fake.clock.now() + timedelta(days=2)
    zone = (await sandbox.page.bot.guild_settings(fake.office.id)).timezone
    from zoneinfo import ZoneInfo

    when = start.astimezone(ZoneInfo(zone)).strftime("%Y-%m-%d %H:%M")
    status, answer = await sandbox.act(owner, "slash", channel=str(general.id),
                                       command="gamenight plan",
                                       options={"when": when, "games": "papayoo, spit",
                                                "title": "Sandbox night"})  # fmt: skip
    assert status == 200, answer
    [event] = fake.events_of(fake.office)
    assert event.name == "Sandbox night"
    [night] = await sandbox.page.bot.store.nights.upcoming(fake.office.id)
    bob = sandbox.user("Bob")
    message = fake.message(night.rsvp_message_id)
    custom_id = next(b.custom_id for b in fake.buttons(message) if b.label == "I'm in")
    status, answer = await sandbox.act(bob, "click", message=str(message.id), custom_id=custom_id)
    assert status == 200, answer
    assert [r.user_id for r in await sandbox.page.bot.store.nights.attendees(night.id)] == [
        int(bob)
    ]
