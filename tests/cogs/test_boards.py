"""``/leaderboard`` and ``/profile`` through the fake Discord with the real bot: paged
boards with the viewer's own rank, provisional players marked, both languages, nobody
pinged; a profile's games, places, ratings, chart and head-to-head; every bad input a
private answer."""

from __future__ import annotations

import io
from typing import Any

import pytest
from PIL import Image

from bot.clock import FakeClock
from cogs.boards._board import PAGE_ROWS, parse_board_arg
from cogs.boards._picture import CHART_SIZE
from tests.cogs.boards_support import COGS, play, ranked_papayoo  # noqa: F401
from tests.cogs.conftest import MakeBot, Office
from tests.fakediscord import FakeDiscord
from tests.fakediscord.models import FakeUser

pytestmark = [pytest.mark.e2e, pytest.mark.usefixtures("ranked_papayoo")]

OTHERS = [10**17 + i for i in range(24)]
"""Colleagues who are not in the fake Discord: the board shows them as mentions."""


async def office_season(bot: Any, office: Office, clock: FakeClock) -> None:
    """Bob wins six games (no longer provisional); 24 others play in threes; Dan finishes
    last twice (the bottom of the board); Bob and Dan meet twice."""
    guild, channel = office.guild.id, office.general.id
    bob, dan = office.bob.id, office.dan.id
    for i in range(6):
        await play(bot, guild, channel, [[bob], [OTHERS[i]], [OTHERS[i + 6]]], clock=clock)
    for i in range(0, 24, 3):
        await play(
            bot, guild, channel, [[OTHERS[i]], [OTHERS[i + 1]], [OTHERS[i + 2]]], clock=clock
        )
    await play(bot, guild, channel, [[OTHERS[0]], [bob], [dan]], clock=clock)
    await play(bot, guild, channel, [[bob, OTHERS[3]], [dan]], clock=clock)


def test_a_board_button_names_a_known_board_and_a_season() -> None:
    assert parse_board_arg("papayoo.2025-Q1") == ("papayoo", "2025-Q1")
    assert parse_board_arg("overall.2025-03") == ("overall", "2025-03")
    for forged in ("overall.2025-Q9", "chess.2025-Q1", "papayoo", "", None, "spit.x.y"):
        assert parse_board_arg(forged) is None


def rows(text: str) -> list[str]:
    return [line for line in text.splitlines() if line[:1].isdigit()]


async def test_the_board_is_paged_with_your_own_rank_and_provisional_marks(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake, dan, bob = office.fake, office.dan, office.bob
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await office_season(bot, office, clock)
        shown = await fake.slash(dan, office.general, "leaderboard")
        assert shown.ephemeral and shown.embed is not None
        embed = shown.embed
        assert embed["title"] == "Leaderboard · All games · Q1 2025"
        lines = rows(embed["description"])
        assert len(lines) == PAGE_ROWS
        assert lines[0].startswith(f"1. <@{bob.id}> · **") and "🔰" not in lines[0]
        assert "8 games, 7 wins" in lines[0]
        assert all("🔰" in line for line in lines[1:])
        ranked = await bot.store.ratings.rank_of(office.guild.id, "overall", "2025-Q1", dan.id)
        assert ranked is not None and ranked[0] > PAGE_ROWS
        assert f"You: {ranked[0]}. <@{dan.id}> · **" in embed["description"]
        assert embed["footer"]["text"] == "Page 1/3 · 🔰 provisional: fewer than 5 games"
        assert [(b.label, b.disabled) for b in fake.buttons(shown)] == [
            ("Previous", True),
            ("Next", False),
        ]
        assert shown.response is not None and shown.response.notified == []

        where = (ranked[0] - 1) // PAGE_ROWS + 1
        his = await fake.click(dan, shown, f"gn:boards:{where}:page:overall.2025-Q1")
        assert his.callback_type == 7  # the same message, edited through the click
        page = his.embed
        assert page is not None and page["footer"]["text"].startswith(f"Page {where}/3")
        assert f"{ranked[0]}. <@{dan.id}>" in page["description"]
        assert "You:" not in page["description"]  # Dan's row is on this page
        last = await fake.click(dan, his, "gn:boards:3:page:overall.2025-Q1")
        assert last.embed is not None and rows(last.embed["description"])[-1].startswith("26. ")

    again = make_bot(COGS)  # yesterday's buttons after a restart
    async with fake.run_client(again):
        second = await fake.click(dan, last, "gn:boards:2:page:overall.2025-Q1")
        assert second.callback_type == 7 and second.embed is not None
        assert second.embed["footer"]["text"].startswith("Page 2/3")
        assert rows(second.embed["description"])[0].startswith("11. ")


async def test_a_game_board_in_french_and_a_season_by_its_label(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake, ana = office.fake, office.ana
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await play(bot, office.guild.id, office.general.id, [[office.bob.id], [office.cid.id]])
        offered = await fake.autocomplete(
            ana, office.general, "leaderboard", {"season": "T1"}, "season"
        )
        assert offered == [{"name": "T1 2025", "value": "2025-Q1"}]
        shown = await fake.slash(
            ana, office.general, "leaderboard", {"game": "papayoo", "season": "T1 2025"}
        )
        assert shown.ephemeral and shown.embed is not None
        assert shown.embed["title"] == "Classement · Papayoo · T1 2025"
        assert rows(shown.embed["description"]) == [
            f"1. <@{office.bob.id}> · **{rating(shown, 0)}** · 1 partie, 1 victoire",
            f"2. <@{office.cid.id}> · **{rating(shown, 1)}** · 1 partie, 0 victoire",
        ]
        assert "Vous n'avez pas encore de classement ici." in shown.embed["description"]
        assert shown.embed["footer"]["text"] == "🔰 provisoire : moins de 5 parties"
        assert fake.buttons(shown) == []


def rating(shown: Any, index: int) -> str:
    line = rows(shown.embed["description"])[index]
    return line.split("**")[1]


@pytest.mark.parametrize(
    ("options", "says"),
    [
        ({"season": "2019-Q1"}, "No season `2019-Q1` here. Seasons with rated games: Q1 2025."),
        ({"season": "<@1> **x**"}, "No season `<@1> **x**` here."),
        ({"game": "spit"}, "Nobody is rated in Spit for Q1 2025 yet"),
        ({"season": "2025-Q2"}, "No season `2025-Q2` here."),
    ],
)
async def test_a_board_that_does_not_exist_is_a_private_answer(
    office: Office, make_bot: MakeBot, options: dict[str, str], says: str
) -> None:
    fake = office.fake
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await play(bot, office.guild.id, office.general.id, [[office.bob.id], [office.cid.id]])
        shown = await fake.slash(office.eve, office.general, "leaderboard", options)
        assert shown.ephemeral and says in shown.text, shown.text
        assert shown.response is not None and shown.response.notified == []


async def test_no_rated_game_yet_is_a_private_answer(office: Office, make_bot: MakeBot) -> None:
    fake = office.fake
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        shown = await fake.slash(office.ana, office.general, "leaderboard")
        assert shown.ephemeral
        assert shown.text == (
            "Personne n'est classé en Tous les jeux pour T1 2025 : aucune partie classée n'a"
            " été finie."
        )


async def test_a_member_out_of_the_ratings_is_on_no_board(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await office_season(bot, office, clock)
        await bot.store.ratings.set_opted_out(office.guild.id, office.dan.id, True)
        shown = await fake.slash(office.dan, office.general, "leaderboard")
        assert shown.embed is not None
        assert "You keep out of the ratings (/privacy)." in shown.embed["description"]
        assert shown.embed["footer"]["text"].startswith("Page 1/3")  # 25 players
        seen = shown.embed["description"]
        for page in (2, 3):
            shown = await fake.click(office.dan, shown, f"gn:boards:{page}:page:overall.2025-Q1")
            assert shown.embed is not None
            seen += "\n" + shown.embed["description"]
        assert f"<@{office.dan.id}>" not in seen and len(rows(seen)) == 25


# -- /profile ---------------------------------------------------------------------------


def chart_of(fake: FakeDiscord, shown: Any) -> Image.Image:
    message = shown.response
    assert message is not None
    [attachment] = message.attachments
    assert attachment["filename"] == "rating.png"
    assert shown.embed["image"]["url"] == "attachment://rating.png"
    return Image.open(io.BytesIO(fake.attachment_data[int(attachment["id"])]))


async def test_a_profile_shows_games_places_ratings_a_chart_and_the_head_to_head(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake, bob, dan = office.fake, office.bob, office.dan
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await office_season(bot, office, clock)
        shown = await fake.slash(dan, office.general, "profile", {"colleague": bob})
        assert shown.ephemeral and shown.embed is not None
        embed = shown.embed
        assert embed["title"] == "Bob's profile"
        assert embed["description"] == f"<@{bob.id}> · ratings of Q1 2025"
        fields = {f["name"]: f["value"] for f in embed["fields"]}
        papayoo = fields["Papayoo"].splitlines()
        assert papayoo[:2] == ["8 games, 7 wins", "1st ×7 · 2nd ×1"]
        assert papayoo[2].startswith("Rating: **") and "🔰" not in papayoo[2]
        assert fields["All games"].startswith("Rating: **")
        assert fields["Against you"] == (
            "All games: 2 games together · you ahead 0, behind 2, tied 0"
        )
        assert chart_of(fake, shown).size == CHART_SIZE
        assert shown.response is not None and shown.response.notified == []

        mine = await fake.slash(dan, office.general, "profile")
        assert mine.embed is not None
        assert "Against you" not in {f["name"] for f in mine.embed["fields"]}
        papayoo = {f["name"]: f["value"] for f in mine.embed["fields"]}["Papayoo"]
        assert "2 games, 0 wins" in papayoo and "🔰" in papayoo and "3rd ×2" in papayoo


async def test_a_profile_counts_games_with_computers_and_unrated_ones(
    office: Office, make_bot: MakeBot
) -> None:
    fake, ana = office.fake, office.ana
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        guild, channel = office.guild.id, office.general.id
        await play(bot, guild, channel, [[ana.id], [office.bob.id]], meta={"casual": True})
        verdict = await bot.store.ratings.verdict((await bot.store.games.find(status="over"))[0].id)
        assert verdict is not None and not verdict.rated, verdict
        shown = await fake.slash(ana, office.general, "profile")
        assert shown.embed is not None
        papayoo = {f["name"]: f["value"] for f in shown.embed["fields"]}["Papayoo"]
        assert papayoo.splitlines() == ["1 partie, 1 victoire", "1er ×1", "Pas classé cette saison"]
        assert shown.response is not None and shown.response.attachments == []


@pytest.mark.parametrize("who", ["a bot", "never played", "me never played", "opted out"])
async def test_a_profile_that_cannot_be_shown_is_a_private_answer(
    office: Office, make_bot: MakeBot, fake_discord: FakeDiscord, who: str
) -> None:
    fake = office.fake
    robot: FakeUser = fake.add_user("Robot", bot=True)
    fake.add_member(office.guild, robot)
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        await play(bot, office.guild.id, office.general.id, [[office.bob.id], [office.cid.id]])
        await bot.store.ratings.set_opted_out(office.guild.id, office.cid.id, True)
        asker, options, says = {
            "a bot": (office.bob, {"colleague": robot}, "Robot is a bot: bots have no profile."),
            "never played": (office.bob, {"colleague": office.eve}, "Eve has not finished a game"),
            "me never played": (office.eve, {}, "You have not finished a game here yet"),
            "opted out": (office.bob, {"colleague": office.cid}, "Cid keeps out of the ratings"),
        }[who]
        shown = await fake.slash(asker, office.general, "profile", options)
        assert shown.ephemeral and says in shown.text, shown.text
        assert shown.embed is None
