"""The ratings' pictures (Pillow): a season's podiums and a member's rating over time.

Pure drawing: plain data and the words to write in, PNG bytes out (no clock, no I/O but
the fonts of :mod:`bot.drawing`); the same data always gives the same bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from PIL import Image, ImageDraw

from bot.drawing import clean, fit, font, png_bytes

__all__ = [
    "CHART_SIZE",
    "PANEL",
    "WIDTH",
    "Podium",
    "Series",
    "podium_picture",
    "rating_chart",
]

WIDTH = 1200
MARGIN = 30
PANEL = (555, 300)
"""One podium's box (width, height): two a row."""
HEADING = 70
BACKGROUND = (32, 34, 37)
PANEL_FILL = (44, 47, 51)
TEXT = (235, 235, 235)
MUTED = (160, 160, 165)
GRID = (70, 73, 78)
PLACES = ((2, 120, (192, 192, 200)), (1, 170, (230, 180, 40)), (3, 85, (205, 127, 50)))
"""Left to right: (place, pedestal height, colour): silver, gold, bronze."""
LINES = ((88, 101, 242), (230, 126, 34), (46, 204, 113), (235, 69, 158), (241, 196, 15))
"""One colour per series of the chart, in order."""
CHART_SIZE = (640, 280)


@dataclass(frozen=True)
class Podium:
    """One scope's podium: its heading and up to three ``(name, rating)``, best first."""

    heading: str
    places: Sequence[tuple[str, int]]


@dataclass(frozen=True)
class Series:
    """One line of the chart: its label and its ``(when, rating)`` points, oldest first."""

    label: str
    points: Sequence[tuple[datetime, int]]


def podium_picture(title: str, podiums: Sequence[Podium], *, nobody: str = "—") -> bytes:
    """PNG bytes of a season's podiums, two a row under ``title`` (the season's label)."""
    rows = max(1, -(-len(podiums) // 2))
    height = MARGIN + HEADING + rows * (PANEL[1] + MARGIN)
    image = Image.new("RGB", (WIDTH, height), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((MARGIN, MARGIN), fit(draw, clean(title), WIDTH - 2 * MARGIN, font(36)),
              fill=TEXT, font=font(36))  # fmt: skip
    for i, podium in enumerate(podiums):
        left = MARGIN + (i % 2) * (PANEL[0] + MARGIN)
        top = MARGIN + HEADING + (i // 2) * (PANEL[1] + MARGIN)
        _podium(draw, podium, left, top, nobody)
    return png_bytes(image)


def _podium(draw: ImageDraw.ImageDraw, podium: Podium, left: int, top: int, nobody: str) -> None:
    width, height = PANEL
    draw.rectangle((left, top, left + width, top + height), fill=PANEL_FILL)
    draw.text((left + 16, top + 12), fit(draw, clean(podium.heading), width - 32, font(26)),
              fill=TEXT, font=font(26))  # fmt: skip
    step = (width - 32) // 3
    base = top + height - 14
    for column, (place, rise, colour) in enumerate(PLACES):
        x0 = left + 16 + column * step + 6
        x1 = x0 + step - 12
        draw.rectangle((x0, base - rise, x1, base), fill=colour)
        draw.text((x0 + 10, base - rise + 6), str(place), fill=BACKGROUND, font=font(34))
        if place <= len(podium.places):
            name, rating = podium.places[place - 1]
            who, score = clean(name), str(rating)
        else:
            who, score = nobody, ""
        draw.text((x0, base - rise - 58), fit(draw, who, x1 - x0, font(20)),
                  fill=TEXT, font=font(20))  # fmt: skip
        draw.text((x0, base - rise - 30), score, fill=MUTED, font=font(18))


def rating_chart(series: Sequence[Series], *, title: str) -> bytes:
    """PNG bytes of a small chart: one line per series over a shared time axis, the lowest
    and highest rating on the left, the first and last day under it, a legend on top."""
    width, height = CHART_SIZE
    image = Image.new("RGB", CHART_SIZE, BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.text((14, 10), fit(draw, clean(title), width - 28, font(18)), fill=TEXT, font=font(18))
    box = (70, 64, width - 20, height - 40)
    draw.rectangle(box, outline=GRID)
    points = [p for s in series for p in s.points]
    _legend(draw, series, 14, 38, width - 28)
    if not points:
        return png_bytes(image)
    times = [p[0].timestamp() for p in points]
    values = [p[1] for p in points]
    low, high = min(values), max(values)
    if high == low:
        low, high = low - 1, high + 1
    start, end = min(times), max(times)
    span = (end - start) or 1.0

    def at(when: datetime, value: int) -> tuple[float, float]:
        x = box[0] + 8 + (box[2] - box[0] - 16) * ((when.timestamp() - start) / span)
        y = box[3] - 8 - (box[3] - box[1] - 16) * ((value - low) / (high - low))
        return (round(x, 1), round(y, 1))

    for value, top in ((high, box[1]), (low, box[3] - 16)):
        draw.text((8, top), fit(draw, str(value), 58, font(14)), fill=MUTED, font=font(14))
    first, last = min(p[0] for p in points), max(p[0] for p in points)
    shown = "%Y-%m-%d %H:%M" if first.date() == last.date() else "%Y-%m-%d"
    draw.text((box[0], box[3] + 8), first.strftime(shown), fill=MUTED, font=font(14))
    end_label = last.strftime(shown)
    end_x = box[2] - draw.textlength(end_label, font=font(14))
    draw.text((end_x, box[3] + 8), end_label, fill=MUTED, font=font(14))
    for i, line in enumerate(series):
        colour = LINES[i % len(LINES)]
        xy = [at(when, value) for when, value in line.points]
        if len(xy) > 1:
            draw.line(xy, fill=colour, width=3)
        for x, y in xy[-60:]:
            draw.ellipse((x - 2.5, y - 2.5, x + 2.5, y + 2.5), fill=colour)
    return png_bytes(image)


def _legend(
    draw: ImageDraw.ImageDraw, series: Sequence[Series], left: int, top: int, room: int
) -> None:
    x = float(left)
    for i, line in enumerate(series):
        label = fit(draw, clean(line.label), 150, font(14))
        size = 14 + draw.textlength(label, font=font(14))
        if x + size > left + room:
            break
        draw.rectangle((x, top + 3, x + 10, top + 13), fill=LINES[i % len(LINES)])
        draw.text((x + 14, top), label, fill=TEXT, font=font(14))
        x += size + 18
