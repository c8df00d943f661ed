"""``/<game> history`` end to end: the server's games, newest first, paged with persistent
Previous / Next, abandoned games marked, computer seats by name, names that never ping."""

from __future__ import annotations

import pytest

from bot.seated import history
from tests.cogs.conftest import MakeBot, Office
from tests.cogs.test_rest_budget import bot_token_calls
from tests.cogs.test_speahx import same_deal
from tests.fakediscord import FakeDiscord
from tests.seated.driver import Seats

pytestmark = pytest.mark.e2e
COGS = ["cogs.speahx", "cogs.spit"]

__fixtures__ = (same_deal,)
"""The same deal as the Speahx tests (autouse)."""


async def test_history_lists_the_games_newest_first_paged(
    fake_discord: FakeDiscord,
    make_bot: MakeBot,
    office: Office,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    fake = fake_discord
    monkeypatch.setattr(history, "PAGE_GAMES", 1)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        ana, bob, cid = office.ana, office.bob, office.cid
        # No game yet: a private line, in the member's language.
        none = await fake.slash(bob, office.general, "speahx history")
        assert (
            none.ephemeral and none.text == "No game of Speahx has been played on this server yet."
        )
        none_fr = await fake.slash(ana, office.general, "speahx history")
        assert none_fr.ephemeral and "Aucune partie de Speahx" in none_fr.text

        # Game 1 played to its end; game 2 abandoned by its host.
        zed = fake.add_user("**Zed** @everyone")
        fake.add_member(office.guild, zed)
        seats = Seats(fake, bot, "speahx", office.general, [bob, cid, zed])
        first = await seats.open_and_start({"turn_seconds": 0})
        await seats.play_auto()
        over = await seats.stored()
        assert over.status == "over"
        seats = Seats(fake, bot, "speahx", office.general, [cid, bob])
        second = await seats.open_and_start({"turn_seconds": 0})
        asked = await fake.slash(cid, office.general, "speahx end", {})
        assert asked.response is not None, asked.text
        done = await fake.click(cid, asked.response, f"gn:speahx:{second}:abandon")
        assert done.callback_type == 7, done.text
        await seats.cog.settle()

        mark = len(fake.calls)
        shown = await fake.slash(bob, office.general, "speahx history")
        assert shown.ephemeral
        text = shown.text
        assert "Speahx #2" in text and "abandoned, no result kept" in text
        assert "Page 1 of 2 · 2 games" in text
        assert "<@" not in text  # the names the players had at the table, never a mention
        buttons = {b.label: b for b in shown.buttons}
        assert buttons["Previous"].disabled and not buttons["Next"].disabled
        assert buttons["Next"].custom_id == "gn:speahx:0:history:2"

        # Next: the first game, its seats in final order, the loser marked.
        ranking = [p for group in over.game.result()["ranking"] for p in group]
        # The names as they were at the table, escaped: no markdown, no mention.
        names = {
            str(bob.id): "Bob",
            str(cid.id): "Cid",
            str(zed.id): "\\*\\*Zed\\*\\* @\u200beveryone",
        }
        turned = await fake.click(bob, shown.response, label="Next")
        assert turned.callback_type == 7 and turned.response is not None
        page = turned.text
        assert "Speahx #1" in page and "Page 2 of 2" in page
        expected = " · ".join(
            f"{i}. {names[p]}" + (" (💀)" if i == len(ranking) else "")
            for i, p in enumerate(ranking, start=1)
        )
        assert expected in page, page
        assert {b.label: b.disabled for b in turned.buttons} == {"Previous": False, "Next": True}
        # Answered through the interactions: no call with the bot's token.
        assert bot_token_calls(fake, mark) == []
        assert first != second
    await bot.store.close()
