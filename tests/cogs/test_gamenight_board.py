"""The night's board and its podium picture: pure rendering over the night's tables."""

from __future__ import annotations

import io

from PIL import Image

from bot.nights import standings
from cogs.gamenight._board import BoardTable, board_embed, night_standings, picture_words
from cogs.gamenight._picture import night_picture

ANA, BOB, CID, DAN = "101", "102", "103", "104"
TABLES = (
    BoardTable(1, "spit", 900, (ANA, BOB), ((ANA,), (BOB,))),
    BoardTable(2, "papayoo", 901, (CID, DAN, "cpu1"), (("cpu1",), (CID,), (DAN,))),
    BoardTable(3, "spit", None, ("105", "106")),
)


def test_the_standings_are_the_finished_tables_night_points() -> None:
    ranked = night_standings(TABLES, [ANA, BOB, CID, DAN, "105", "106"])
    expected = standings([t.ranking for t in TABLES[:2] if t.ranking])
    assert [(s.player, s.points) for s in ranked[:4]] == [(s.player, s.points) for s in expected]
    assert [s.player for s in ranked[:2]] == [ANA, CID]  # 100, then 50 (a computer beat Cid)
    assert {s.player for s in ranked if not s.tables} == {"105", "106"}


def test_the_board_while_playing_lists_tables_and_standings_without_a_champion() -> None:
    ranked = night_standings(TABLES, [ANA, BOB, CID, DAN])
    embed = board_embed("Friday *night*", TABLES, ranked, ["107"], "en", closed=False)
    assert embed.title == "Game night: Friday \\*night\\*"
    assert embed.description is not None and "2 of 3 tables finished" in embed.description
    assert "Champion" not in embed.description and f"<@{ANA}>: 100 pts" in embed.description
    fields = {f.name: f.value for f in embed.fields}
    assert "<#900>" in fields["Tables"] and "playing" in fields["Tables"]
    assert fields["Waiting for a table (1)"] == "<@107>"


def test_the_closed_board_crowns_the_champion_and_the_podium_in_french() -> None:
    ranked = night_standings(TABLES[:2], [ANA, BOB, CID, DAN])
    embed = board_embed("Vendredi", TABLES[:2], ranked, [], "fr", closed=True)
    assert embed.description is not None
    assert f"Champion·ne de la soirée : <@{ANA}>" in embed.description
    assert f"Deuxième : <@{CID}>" in embed.description
    assert "Troisième" in embed.description  # Bob and Dan, both 0 points, tied


def test_the_picture_is_a_png_of_the_podium_for_any_names() -> None:
    ranked = night_standings(TABLES[:2], [ANA, BOB, CID, DAN])
    names = {ANA: "Ana 🎉", BOB: "B\u202eob", CID: "x" * 200}
    data = night_picture(ranked, names, picture_words("Friday", "en"))
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.width == 1000
    assert night_picture([], {}, picture_words("Friday", "fr"))[:4] == b"\x89PNG"
