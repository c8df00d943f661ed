"""The record of a reveal, clicked before the bot knows its message: Discord shows a message
to everyone as soon as it is created, and a quick colleague may press its button before the
bot has read Discord's reply. Both nikäyés' buttons live on one record: the first one's
click must not take the other's away, and every line stays on the record."""

from __future__ import annotations

import pytest

from bot.fakediscord.models import FakeMessage, RecordedCall
from tests.cogs.conftest import MakeBot, Office
from tests.cogs.test_spaye_support import COGS, NK, SpayeDriver
from tests.fakediscord.driver import InteractionResult

pytestmark = pytest.mark.e2e

TABLE = [NK, NK, "KH", "2S", "9C", "3D", "8D", "5C", "4D", "6H", NK]
"""Däye 1: both draw a nikäye (each owes 20 reps), on one record; then cards left."""


async def test_a_click_before_the_record_is_known_keeps_the_other_nikayes_buttons(
    office: Office, make_bot: MakeBot
) -> None:
    fake = office.fake
    ana, bob, *_ = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        await p.open_day(TABLE)
        thread = p.thread()
        assert thread is not None
        clicks: list[InteractionResult] = []
        record: list[FakeMessage] = []
        anas: list[int] = []

        def with_buttons() -> FakeMessage | None:
            for m in fake.channel_messages(thread):
                if any(":done:" in str(c.get("custom_id")) for c in fake.components_of(m)):
                    return m
            return None

        async def press_at_once(call: RecordedCall) -> None:
            """The record was created on Discord, its reply not yet read by the bot: Ana
            presses Done on it in that gap."""
            if record or call.method != "POST" or not call.route.endswith("/messages"):
                return
            found = with_buttons()
            if found is None:
                return
            record.append(found)
            eid = next(e["id"] for e in (await p.view())["exercises"] if e["player"] == mine)
            anas.append(eid)
            clicks.append(await fake.click(ana, found, p.cid("done", eid), settle=0))

        mine = str(ana.id)
        fake.before_reply.append(press_at_once)
        await p.daye([ana, bob])
        assert await fake.wait_for(lambda: bool(clicks), timeout=10)
        fake.before_reply.clear()
        (done,) = clicks
        assert done.answered and not done.ephemeral, done.text

        view = await p.view()
        (left,) = view["exercises"]  # Ana's is done; Bob's is still owed
        assert left["player"] == str(bob.id)
        message = record[0]

        def bobs_buttons() -> bool:
            ids = [str(c.get("custom_id")) for c in fake.components_of(message)]
            return p.cid("done", left["id"]) in ids and p.cid("done", anas[0]) not in ids

        assert await fake.wait_for(bobs_buttons), fake.components_of(message)
        stored = await p.stored()
        (saved,) = stored.meta["records"].values()
        assert saved["message"] == message.id and len(saved["lines"]) == 1

        # Bob settles his on the same message; both lines stay on it
        settled = await p.exercise(bob, left["id"])
        assert settled.answered and not settled.ephemeral, settled.text
        assert await fake.wait_for(lambda: not fake.components_of(message))
        (saved,) = (await p.stored()).meta["records"].values()
        assert len(saved["lines"]) == 2
        assert all(line.split("\n")[0] in message.content for line in saved["lines"])
        assert not (await p.view())["exercises"]
        assert not fake.problems()
