"""The month's table for everyone: ``/spaye board`` (every späyin, paged, your own row
always shown) and the month's picture (every name drawn, whatever its script)."""

from __future__ import annotations

import io
from datetime import date

import pytest
from PIL import Image

from bot import drawing
from bot.clock import FakeClock
from bot.engine import SYSTEM
from bot.engine.spaye import SpayeGame
from cogs.spaye import _picture
from cogs.spaye._board import PAGE_ROWS
from cogs.spaye._opening import day_meta
from cogs.spaye._render_month import picture_words
from tests.cogs.conftest import MakeBot, Office
from tests.cogs.test_spaye_support import COGS, NK, SpayeDriver

NAMES = [
    "Ana", "李小龍", "محمد", "Ζωή", "Дмитрий", "😀 Zoé", "नमस्ते", "", "a\u200bb\nc\x00d",
    "Ⅻ" * 80, "🏳️‍🌈🏳️‍⚧️", "Ünïcödé ñame",
]  # fmt: skip


def standings(n: int) -> dict[str, object]:
    ids = [str(10**17 + i) for i in range(n)]
    points = {p: {"daye": i % 9, "victory": i % 4, "reps": (i * 7) % 61} for i, p in enumerate(ids)}
    return {"points": {p: {**c, "total": sum(c.values())} for p, c in points.items()}}


@pytest.mark.parametrize("fonts", ["system", "built-in"])
def test_the_month_picture_draws_every_name(fonts: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """50 späyins whose names are in many scripts (and some broken ones): a PNG of a
    sensible size, with DejaVu or with Pillow's own font when the system has none."""
    if fonts == "built-in":
        monkeypatch.setattr(drawing, "FONT_FILES", ("no-such-font.ttf",))
    _picture.font.cache_clear()
    try:
        month = standings(50)
        ids = list(month["points"])  # type: ignore[call-overload]
        names = {p: NAMES[i % len(NAMES)] for i, p in enumerate(ids)}
        holders = {"grand_spayin": ids[8], "mastaye": ids[3], "tikao": None}
        data = _picture.month_picture(month, holders, names, picture_words("2025-03", "fr"))
    finally:
        _picture.font.cache_clear()
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.width == _picture.WIDTH
    assert 50 * _picture.ROW < image.height < 50 * _picture.ROW + 600
    assert len(data) < 8 * 1024 * 1024  # well under Discord's upload limit


def test_a_huge_month_keeps_the_picture_bounded() -> None:
    month = standings(_picture.MAX_ROWS + 50)
    data = _picture.month_picture(month, {}, {}, picture_words("2025-03", "en"))
    height = Image.open(io.BytesIO(data)).height
    assert height < (_picture.MAX_ROWS + 2) * _picture.ROW + 600


def voided_day_of_many(players: list[str]) -> SpayeGame:
    """Every pair of ``players`` plays a däye (the day is then voided: all are späyins of
    the month with 0 points)."""
    game = SpayeGame.new([], 7, {})
    for a, b in zip(players[::2], players[1::2], strict=True):
        game.apply(a, {"type": "challenge", "target": b})
        game.apply(b, {"type": "accept"})
        while game.public_view()["daye"] is not None:
            game.apply(a, {"type": "draw"})
            game.apply(b, {"type": "draw"})
        for ex in game.public_view()["exercises"]:
            game.apply(ex["player"], {"type": "give_up", "id": ex["id"]})
    return game


@pytest.mark.e2e
async def test_board_lists_every_spayin_paged_with_your_own_row(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    fake = office.fake
    ana, bob, cid, dan, _ = office.colleagues
    bot = make_bot(COGS)
    async with fake.run_client(bot):
        p = SpayeDriver(fake, bot, office.guild, office.general)
        # 43 others and Dan play a voided day; Ana, Bob and Cid finish another
        others = [str(10**17 + i) for i in range(43)] + [str(dan.id)]
        void = voided_day_of_many(others)
        game_id = await bot.store.days.open_day(
            office.guild.id, date(2025, 3, 10), office.general.id, void, day_meta(date(2025, 3, 10))
        )
        await bot.store.games.act(game_id, SYSTEM, {"type": "void"})
        final = SpayeGame.with_table([NK, "4C", "5C"])
        a, b, c = (str(u.id) for u in (ana, bob, cid))
        final.apply(a, {"type": "challenge", "targets": [b, c]})
        for who in (b, c):
            final.apply(who, {"type": "accept"})
        for who in (a, b, c):
            final.apply(who, {"type": "draw"})
        game_id = await bot.store.days.open_day(
            office.guild.id,
            date(2025, 3, 12),
            office.general.id,
            final,
            day_meta(date(2025, 3, 12)),
        )
        await bot.store.games.act(game_id, a, {"type": "exercise_done", "id": 1})

        shown = await p.slash(dan, "spaye board")
        assert shown.ephemeral and shown.embed is not None
        text = shown.embed["description"]
        assert text.count(" · total ") == PAGE_ROWS + 1  # a page, and Dan's own row under it
        assert f"1. <@{ana.id}> · däye 3 · victory 3" in text
        assert f"You: 47. <@{dan.id}> · däye 0" in text
        assert "Page 1/3" in shown.embed["footer"]["text"]
        labels = [b.label for b in fake.buttons(shown)]
        assert labels == ["Previous", "Next"]

        second = await p.click(dan, shown, "gn:spaye:0:board:2025-03.2")
        assert second.callback_type == 7 and "Page 2/3" in second.embed["footer"]["text"]  # type: ignore[index]
        assert f"You: 47. <@{dan.id}>" in second.embed["description"]  # type: ignore[index]
        last = await p.click(dan, second, "gn:spaye:0:board:2025-03.3")
        assert last.callback_type == 7
        page3 = last.embed["description"]  # type: ignore[index]
        assert "Page 3/3" in last.embed["footer"]["text"]  # type: ignore[index]
        assert f"<@{dan.id}>" in page3 and "You:" not in page3  # already on this page
        mine = await p.slash(ana, "spaye board")
        assert "You:" not in mine.embed["description"]  # type: ignore[index]


@pytest.mark.e2e
async def test_bad_board_months_are_refused(
    office: Office, make_bot: MakeBot, clock: FakeClock
) -> None:
    bot = make_bot(COGS)
    async with office.fake.run_client(bot):
        p = SpayeDriver(office.fake, bot, office.guild, office.general)
        for month, says in (
            ("2025-04", "not started yet"),
            ("2025-13", "YYYY-MM"),
            ("soon", "YYYY-MM"),
        ):
            refused = await p.slash(office.bob, "spaye board", {"month": month})
            assert refused.ephemeral and refused.embed is None and says in refused.text
        past = await p.slash(office.bob, "spaye board", {"month": "2025-02"})
        assert past.embed is not None and "Nobody has played" in past.embed["description"]
