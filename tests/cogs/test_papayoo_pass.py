"""Papayoo's pass through the fake Discord: the suggested pass in one click, or one's own
choice ticked card by card, in both languages, across a restart, and old controls refused.

The suggestion is the computer player's own pass (``cogs.papayoo._pass``); what is ticked
lives in the controls' custom ids alone, so a restart in the middle of a choice loses nothing.
"""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.clock import FakeClock
from bot.i18n import t
from cogs.papayoo._pass import suggested_pass
from tests.cogs.papayoo_support import RENDER, Table, make_bot, office
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeMessage

pytestmark = pytest.mark.e2e


@pytest.fixture(autouse=True)
def same_deal(monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.seated.start

    monkeypatch.setattr(bot.seated.start, "new_seed", lambda: 20250314)


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock(datetime(2025, 3, 14, 9, 0, tzinfo=UTC))


def controls(fake: FakeDiscord, msg: FakeMessage) -> list[list[dict[str, Any]]]:
    return [row["components"] for row in msg.components]


def labels(fake: FakeDiscord, msg: FakeMessage) -> list[str]:
    return [str(b.label) for b in fake.buttons(msg)]


def button(fake: FakeDiscord, msg: FakeMessage, label: str) -> str:
    [found] = [b.custom_id for b in fake.buttons(msg) if b.label == label]
    return str(found)


def still_showing(msg: FakeMessage, earlier: Any) -> FakeMessage:
    """The message with the controls of an ``earlier`` version again (a client that has not
    seen the edit yet)."""
    msg.components = copy.deepcopy(earlier.components)
    return msg


async def test_the_suggested_pass_is_one_click_and_choosing_oneself_survives_a_restart(
    fake_discord: FakeDiscord, tmp_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    db_path = tmp_path / "papayoo.sqlite3"
    guild, channel, users = office(fake, ["Ana", "Bob", "Cyd"], french=["Cyd"])
    ana, bob, cyd = users
    table = Table(fake, make_bot(db_path, clock), guild, channel, users)
    running = fake.run_client(table.bot)
    await running.start()
    try:
        await table.open_and_start({"rounds": 2, "turn_seconds": 0})
        stored = await table.stored()
        [ana_dm], [bob_dm], [cyd_dm] = fake.dms(ana), fake.dms(bob), fake.dms(cyd)

        # Each hand names its suggested pass and offers it in one click, or to choose.
        for user, dm, lang in ((ana, ana_dm, "en"), (bob, bob_dm, "en"), (cyd, cyd_dm, "fr")):
            view = stored.game.view(str(user.id))
            suggested = RENDER.hand_order(suggested_pass(view))
            assert len(suggested) == view["pass_size"] == 5
            assert RENDER.cards(suggested, view) in dm.text
            accept, own = t("papayoo.private.accept", lang), t("papayoo.private.own", lang)
            assert labels(fake, dm) == [accept, own]
            assert button(fake, dm, accept) == table.accept_id(stored, str(user.id))
        assert labels(fake, cyd_dm) == ["Passer celles-ci", "Choisir moi-même"]

        # Ana takes it: one click, her pass is the suggestion.
        me = str(ana.id)
        suggested = suggested_pass(stored.game.view(me))
        first = ana_dm.snapshot()
        done = await fake.click(ana, ana_dm, button(fake, ana_dm, "Pass these"))
        assert done.callback_type == 7 and not done.ephemeral
        await table.quiet()
        after = await table.stored()
        assert sorted(after.game.view(me)["passed"]) == sorted(suggested)
        assert "Your pass is locked" in ana_dm.text and fake.buttons(ana_dm) == []

        # Her "Pass these" again (a second device): the hand as it is now, nothing passed.
        again = await fake.click(ana, still_showing(ana_dm, first), first_id(first))
        assert again.callback_type == 7 and t("seated.stale", "en") in again.text
        assert "Your pass is locked" in again.text
        assert (await table.stored()).version == after.version

        # Bob chooses himself: the suggestion ticked, the hand as buttons by suit, five rows
        # of five at most, the pass button last; a tick changes no game, only his buttons.
        them = str(bob.id)
        bob_first = bob_dm.snapshot()
        own = await fake.click(bob, bob_dm, button(fake, bob_dm, "Choose myself"))
        assert own.callback_type == 7
        rows = controls(fake, bob_dm)
        assert len(rows) <= 5 and all(len(row) <= 5 for row in rows)
        cards = [b for row in rows[:-1] for b in row]
        assert len(cards) == 20  # three players: twenty cards each
        ticked = [b for b in cards if b["label"].startswith("✓ ")]
        assert len(ticked) == 5
        [[done_button, clear]] = rows[-1:]
        assert done_button["label"] == "Pass these" and not done_button.get("disabled")
        assert clear["label"] == "Untick all" and not clear.get("disabled")
        hand = RENDER.hand_order(stored.game.view(them)["hand"])
        bob_suggested = set(suggested_pass(stored.game.view(them)))
        assert {hand[k] for k, b in enumerate(cards) if b["label"].startswith("✓")} == (
            bob_suggested
        )
        # Untick the first suggested card: four of five, the pass waits.
        out = next(c for c in hand if c in bob_suggested)
        await fake.click(bob, bob_dm, cards[hand.index(out)]["custom_id"])
        waiting = controls(fake, bob_dm)[-1][0]
        assert waiting["disabled"] and "(4/5)" in waiting["label"]
        assert (await table.stored()).version == after.version
        # Tick the highest card not suggested instead.
        chosen_in = next(c for c in reversed(hand) if c not in bob_suggested)
        swapped = controls(fake, bob_dm)
        now_cards = [b for row in swapped[:-1] for b in row]
        await fake.click(bob, bob_dm, now_cards[hand.index(chosen_in)]["custom_id"])
        ready = controls(fake, bob_dm)[-1][0]
        assert not ready.get("disabled") and ready["label"] == "Pass these"
        await running.crash()
        await table.bot.store.close()
    finally:
        if running.task is not None and not running.task.done():
            await running.close()

    # The bot restarts: Bob's ticks are still on his buttons; his pass goes through.
    table.bot = make_bot(db_path, clock)
    async with fake.run_client(table.bot):
        await table.bot.caught_up()
        expected = (bob_suggested - {out}) | {chosen_in}
        passed = await fake.click(bob, bob_dm, ready["custom_id"])
        assert passed.callback_type == 7, passed.text
        await table.quiet()
        now = await table.stored()
        assert set(now.game.view(them)["passed"]) == expected
        assert "Your pass is locked" in bob_dm.text

        # His earlier "Pass these" and "Choose myself": from an earlier turn, nothing passed.
        for label in ("Pass these", "Choose myself"):
            old = next(c for c in first_row(bob_first) if c["label"] == label)["custom_id"]
            stale = await fake.click(bob, still_showing(bob_dm, bob_first), old)
            assert stale.callback_type == 7 and t("seated.stale", "en") in stale.text
            assert "Your pass is locked" in stale.text
            assert (await table.stored()).version == now.version

        # Cyd passes; the round is played out; a suggestion of round 1 pressed in round 2
        # answers with the hand of round 2 and passes nothing.
        await table.pass_cards(str(cyd.id))
        while (await table.stored()).game.public_view()["round"] == 1:
            assert await table.step()
        round_two = await table.stored()
        assert round_two.game.public_view()["phase"] == "pass"
        await fake.wait_for(lambda: "Pass these" in labels(fake, fake.message(ana_dm.id)))
        dm = fake.message(ana_dm.id)
        now_accept = button(fake, dm, "Pass these")
        assert now_accept != first_id(first)
        stale = await fake.click(ana, still_showing(dm, first), first_id(first))
        assert stale.callback_type == 7 and t("seated.stale", "en") in stale.text
        assert (await table.stored()).version == round_two.version
        assert button(fake, fake.message(dm.id), "Pass these") == now_accept
        suggestion = RENDER.hand_order(suggested_pass(round_two.game.view(me)))
        assert RENDER.cards(suggestion, round_two.game.view(me)) in stale.text
        await table.bot.store.close()


def first_row(snapshot: Any) -> list[dict[str, Any]]:
    return list(snapshot.components[0]["components"])


def first_id(snapshot: Any) -> str:
    return str(first_row(snapshot)[0]["custom_id"])


async def test_a_pass_of_ones_own_from_nothing_ticked_in_french(
    fake_discord: FakeDiscord, tmp_path: Path, clock: FakeClock
) -> None:
    fake = fake_discord
    guild, channel, users = office(fake, ["Ana", "Bob", "Cyd"], french=["Cyd"])
    cyd = users[2]
    table = Table(fake, make_bot(tmp_path / "papayoo.sqlite3", clock), guild, channel, users)
    async with fake.run_client(table.bot):
        await table.open_and_start({"rounds": 1, "turn_seconds": 0})
        stored = await table.stored()
        me = str(cyd.id)
        [dm] = fake.dms(cyd)
        await fake.click(cyd, dm, button(fake, dm, "Choisir moi-même"))
        await fake.click(cyd, dm, button(fake, dm, "Tout décocher"))
        *card_rows, [done, clear] = controls(fake, dm)
        cards = [b for row in card_rows for b in row]
        assert not any(b["label"].startswith("✓") for b in cards)
        assert done["disabled"] and done["label"] == "Choisissez 5 cartes à passer (0/5)"
        assert clear["disabled"]
        hand = RENDER.hand_order(stored.game.view(me)["hand"])
        mine = [c for c in hand if c not in suggested_pass(stored.game.view(me))][:5]
        for code in mine:
            now = [b for row in controls(fake, dm)[:-1] for b in row]
            await fake.click(cyd, dm, now[hand.index(code)]["custom_id"])
        assert (await table.stored()).version == stored.version  # ticks are no moves
        passed = await fake.click(cyd, dm, button(fake, dm, "Passer celles-ci"))
        assert passed.callback_type == 7
        await table.quiet()
        assert sorted((await table.stored()).game.view(me)["passed"]) == sorted(mine)
        assert "Votre écart est validé" in fake.message(dm.id).text
        await table.bot.store.close()
