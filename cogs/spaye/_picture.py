"""The month's table as a picture (Pillow): a podium of the three titles, then every
späyin's three counters as bars, one panel per column.

Pure drawing: it gets the standings, the titleholders, display names and the words to
write, and returns PNG bytes. Fonts: DejaVu Sans when the system has it (most Linux
machines; many scripts), otherwise Pillow's built-in font; a glyph a font lacks is drawn
as a box, never an error, so any display name renders.
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from PIL import Image, ImageDraw

from bot.drawing import BACKGROUND, GOLD, MUTED, TEXT, clean, fit, font
from bot.engine.spaye import COLUMNS, TITLE_OF_COLUMN

__all__ = ["MAX_ROWS", "month_picture"]

WIDTH = 1200
MARGIN = 30
ROW = 26
MAX_ROWS = 100
"""Bars per column; a longer month says how many more (the text lists everyone)."""
COLOURS = {"daye": (88, 101, 242), "victory": (230, 126, 34), "reps": (46, 204, 113)}
PODIUM = (("victory", 150, 2), ("daye", 200, 1), ("reps", 110, 3))
"""Left to right: (column, pedestal height, place)."""


def month_picture(
    standings: Mapping[str, Any],
    holders: Mapping[str, str | None],
    names: Mapping[str, str],
    words: Mapping[str, str],
) -> bytes:
    """PNG bytes of the month's table.

    ``words``: ``title`` (the heading), ``nobody``, ``more`` (with ``{n}``), and one entry
    per column (``daye``, ``victory``, ``reps``) and per title (``grand_spayin``...).
    """
    points: Mapping[str, Mapping[str, int]] = standings["points"]
    players = list(points)
    shown = min(len(players), MAX_ROWS)
    panels_top = MARGIN + 60 + 300
    height = panels_top + 50 + max(shown, 1) * ROW + (ROW if len(players) > MAX_ROWS else 0)
    image = Image.new("RGB", (WIDTH, height + MARGIN), BACKGROUND)
    draw = ImageDraw.Draw(image)

    def name_of(player: str) -> str:
        return clean(names.get(player) or f"#{player[-4:]}")

    draw.text((MARGIN, MARGIN), fit(draw, words["title"], WIDTH - 2 * MARGIN, font(36)),
              fill=TEXT, font=font(36))  # fmt: skip
    _podium(draw, points, holders, name_of, words, MARGIN + 60)
    panel = (WIDTH - 2 * MARGIN) // 3
    for i, column in enumerate(COLUMNS):
        left = MARGIN + i * panel
        _panel(draw, points, column, name_of, words, left, panels_top, panel - 20)
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=1)
    return out.getvalue()


def _podium(
    draw: ImageDraw.ImageDraw,
    points: Mapping[str, Mapping[str, int]],
    holders: Mapping[str, str | None],
    name_of: Any,
    words: Mapping[str, str],
    top: int,
) -> None:
    width = (WIDTH - 2 * MARGIN) // 3
    base = top + 290
    for i, (column, rise, place) in enumerate(PODIUM):
        title = TITLE_OF_COLUMN[column]
        left = MARGIN + i * width + 20
        right = left + width - 40
        draw.rectangle((left, base - rise, right, base), fill=COLOURS[column])
        draw.text((left + 10, base - rise + 8), str(place), fill=BACKGROUND, font=font(40))
        holder = holders.get(title)
        who = name_of(holder) if holder else words["nobody"]
        score = f"{points[holder][column]} · {words[column]}" if holder and holder in points else ""
        lines = [(words[title], font(26), GOLD), (who, font(22), TEXT), (score, font(18), MUTED)]
        y = base - rise - 96
        for text, face, colour in lines:
            draw.text((left, y), fit(draw, text, right - left, face), fill=colour, font=face)
            y += 30


def _panel(
    draw: ImageDraw.ImageDraw,
    points: Mapping[str, Mapping[str, int]],
    column: str,
    name_of: Any,
    words: Mapping[str, str],
    left: int,
    top: int,
    width: int,
) -> None:
    draw.text((left, top), words[column], fill=COLOURS[column], font=font(24))
    ranked: Sequence[str] = sorted(points, key=lambda p: -points[p][column])
    best = max((points[p][column] for p in ranked), default=0) or 1
    label_width = width * 0.45
    bar_left = left + label_width + 8
    bar_room = width - label_width - 60
    y = top + 40
    for player in ranked[:MAX_ROWS]:
        value = points[player][column]
        draw.text((left, y), fit(draw, name_of(player), label_width, font(16)),
                  fill=TEXT, font=font(16))  # fmt: skip
        length = max(2, round(bar_room * value / best)) if value else 0
        if length:
            draw.rectangle((bar_left, y + 3, bar_left + length, y + ROW - 7), fill=COLOURS[column])
        draw.text((bar_left + length + 6, y), str(value), fill=MUTED, font=font(16))
        y += ROW
    if len(ranked) > MAX_ROWS:
        more = words["more"].replace("{n}", str(len(ranked) - MAX_ROWS))
        draw.text((left, y), more, fill=MUTED, font=font(16))
