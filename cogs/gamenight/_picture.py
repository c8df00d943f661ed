"""The night's champion and podium as a picture (Pillow): the three best on pedestals, then
everyone's night points as bars.

Pure drawing: it gets the standings (:func:`bot.nights.points.standings`), display names and
the words to write, and returns PNG bytes. The fonts and the name cleaning are the month
pictures' (:mod:`bot.drawing`; a glyph a font lacks is drawn as a box, so any display name renders).
"""

from __future__ import annotations

import io
from collections.abc import Callable, Mapping, Sequence

from PIL import Image, ImageDraw

from bot.drawing import BACKGROUND, GOLD, MUTED, TEXT, clean, fit, font
from bot.nights import Standing

__all__ = ["MAX_ROWS", "night_picture"]

WIDTH = 1000
MARGIN = 30
ROW = 26
MAX_ROWS = 60
"""Bars drawn; a longer night says how many more (the board lists everyone)."""
PEDESTALS = ((2, 150, (192, 192, 200)), (1, 200, GOLD), (3, 110, (205, 127, 50)))
"""Left to right: (rank, height, colour)."""
BAR = (88, 101, 242)
PODIUM_HEIGHT = 330


def night_picture(
    standings: Sequence[Standing], names: Mapping[str, str], words: Mapping[str, str]
) -> bytes:
    """PNG bytes of the night's podium and standings.

    ``words``: ``title`` (the heading), ``points`` (the unit, after a number) and ``more``
    (with ``{n}``). Standings of people who played no table are left out."""
    played = [s for s in standings if s.tables]
    shown = played[:MAX_ROWS]
    bars_top = MARGIN + 60 + PODIUM_HEIGHT
    height = bars_top + max(len(shown), 1) * ROW + (ROW if len(played) > MAX_ROWS else 0)
    image = Image.new("RGB", (WIDTH, height + MARGIN), BACKGROUND)
    draw = ImageDraw.Draw(image)

    def name_of(player: str) -> str:
        return clean(names.get(player) or f"#{player[-4:]}")

    title = fit(draw, words["title"], WIDTH - 2 * MARGIN, font(36))
    draw.text((MARGIN, MARGIN), title, fill=TEXT, font=font(36))
    _podium(draw, played, name_of, words, MARGIN + 60)
    _bars(draw, shown, name_of, bars_top)
    if len(played) > MAX_ROWS:
        more = words["more"].replace("{n}", str(len(played) - MAX_ROWS))
        draw.text((MARGIN, bars_top + len(shown) * ROW), more, fill=MUTED, font=font(16))
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def _podium(
    draw: ImageDraw.ImageDraw,
    played: Sequence[Standing],
    name_of: Callable[[str], str],
    words: Mapping[str, str],
    top: int,
) -> None:
    width = (WIDTH - 2 * MARGIN) // 3
    base = top + PODIUM_HEIGHT - 30
    for i, (rank, rise, colour) in enumerate(PEDESTALS):
        left = MARGIN + i * width + 20
        right = left + width - 40
        draw.rectangle((left, base - rise, right, base), fill=colour)
        draw.text((left + 10, base - rise + 8), str(rank), fill=BACKGROUND, font=font(40))
        there = [s for s in played if s.rank == rank]
        y = base - rise - 30 * (min(len(there), 3) + 1) - 6
        for standing in there[:3]:
            who = fit(draw, name_of(standing.player), right - left, font(22))
            draw.text((left, y), who, fill=TEXT, font=font(22))
            y += 30
        if there:
            score = f"{there[0].shown()} {words['points']}"
            draw.text((left, y), score, fill=MUTED, font=font(18))


def _bars(
    draw: ImageDraw.ImageDraw,
    shown: Sequence[Standing],
    name_of: Callable[[str], str],
    top: int,
) -> None:
    label_width = (WIDTH - 2 * MARGIN) * 0.35
    bar_left = MARGIN + label_width + 8
    bar_room = WIDTH - 2 * MARGIN - label_width - 80
    best = max((float(s.points) for s in shown), default=0.0) or 1.0
    y = top
    for standing in shown:
        label = fit(draw, f"{standing.rank}. {name_of(standing.player)}", label_width, font(16))
        draw.text((MARGIN, y), label, fill=TEXT, font=font(16))
        length = round(bar_room * float(standing.points) / best) if standing.points else 0
        if length:
            draw.rectangle((bar_left, y + 3, bar_left + length, y + ROW - 7), fill=BAR)
        draw.text((bar_left + length + 6, y), standing.shown(), fill=MUTED, font=font(16))
        y += ROW
