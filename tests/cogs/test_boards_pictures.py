"""The ratings' pictures: a season's podiums and a member's rating chart, drawn for any
name (every script, emojis, broken and very long ones), the same bytes for the same data."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from bot import drawing
from cogs.boards import _picture
from cogs.boards._picture import Podium, Series, podium_picture, rating_chart

NAMES = [
    "Ana", "李小龍", "محمد", "Ζωή", "Дмитрий", "😀 Zoé", "नमस्ते", "", "a\u200bb\nc\x00d",
    "Ⅻ" * 80, "🏳️‍🌈🏳️‍⚧️", "Ünïcödé ñame", "@everyone", "**bold** <@1>",
]  # fmt: skip
START = datetime(2025, 1, 6, 12, 0, tzinfo=UTC)


def podiums(n: int) -> list[Podium]:
    return [
        Podium(
            f"Game {i}",
            [(NAMES[(i * 3 + k) % len(NAMES)], 1500 - 40 * k) for k in range(min(3, i + 1))],
        )
        for i in range(n)
    ]


def history(n: int, base: int = 20) -> list[tuple[datetime, int]]:
    return [(START + timedelta(hours=7 * i), base + (i * 37) % 11 - 5) for i in range(n)]


@pytest.mark.parametrize("fonts", ["system", "built-in"])
def test_the_podium_picture_draws_every_name(fonts: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """Four podiums (overall and three games; the first with one place only): a PNG two
    podiums a row, with DejaVu or with Pillow's own font when the system has none."""
    if fonts == "built-in":
        monkeypatch.setattr(drawing, "FONT_FILES", ("no-such-font.ttf",))
    drawing.font.cache_clear()
    try:
        data = podium_picture("Season Q1 2025 " + "🏆" * 90, podiums(4))
    finally:
        drawing.font.cache_clear()
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.width == _picture.WIDTH
    assert image.height == _picture.MARGIN + _picture.HEADING + 2 * (_picture.PANEL[1] + 30)
    assert len(data) < 1024 * 1024


def test_every_name_in_the_podium_changes_the_picture() -> None:
    """A name is drawn (not dropped): another name, another picture."""
    one = podium_picture("Q1 2025", [Podium("Spit", [("Ana", 30), ("Bob", 28)])])
    other = podium_picture("Q1 2025", [Podium("Spit", [("Ana", 30), ("Zoé", 28)])])
    assert one != other


def test_the_pictures_are_the_same_bytes_for_the_same_data() -> None:
    assert podium_picture("Q1", podiums(3)) == podium_picture("Q1", podiums(3))
    lines = [Series("Papayoo", history(40)), Series("Spit 😀", history(12, 30))]
    assert rating_chart(lines, title="Ana") == rating_chart(list(lines), title="Ana")
    assert rating_chart(lines, title="Ana") != rating_chart(lines[:1], title="Ana")


@pytest.mark.parametrize("count", [0, 1, 2, 500])
def test_the_chart_has_its_size_for_any_number_of_games(count: int) -> None:
    data = rating_chart([Series("Overall", history(count))], title=NAMES[9])
    image = Image.open(io.BytesIO(data))
    assert image.format == "PNG" and image.size == _picture.CHART_SIZE
    assert len(data) < 256 * 1024


@settings(max_examples=30, deadline=None)
@given(
    names=st.lists(st.text(max_size=120), min_size=1, max_size=6),
    ratings=st.lists(st.integers(-10_000, 10_000), min_size=1, max_size=30),
)
def test_any_name_and_any_rating_draw(names: list[str], ratings: list[int]) -> None:
    """Any Unicode at all (surrogates aside, which Discord never sends) in any place."""
    names = [n.encode("utf-8", "replace").decode("utf-8", "replace") for n in names]
    places = [(n, r) for n, r in zip(names, ratings, strict=False)][:3]
    podium_picture(names[0], [Podium(n, places) for n in names])
    points = [(START + timedelta(days=i), r) for i, r in enumerate(ratings)]
    chart = rating_chart([Series(n, points) for n in names], title=names[-1])
    assert Image.open(io.BytesIO(chart)).size == _picture.CHART_SIZE
