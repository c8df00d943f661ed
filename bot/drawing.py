"""What the bot's Pillow pictures share (the month's table, the season's podiums, a game
night's podium): the dark background and its text colours, the font, display names made
drawable and fitted, and PNG bytes that are the same for the same picture.

Fonts: DejaVu Sans when the system has it (most Linux machines; many scripts), otherwise
Pillow's built-in font; a glyph a font lacks is drawn as a box, never an error, so any
display name renders.
"""

from __future__ import annotations

import io
import unicodedata
from functools import lru_cache

from PIL import Image, ImageDraw, ImageFont

__all__ = [
    "BACKGROUND",
    "FONT_FILES",
    "GOLD",
    "MUTED",
    "TEXT",
    "Font",
    "clean",
    "fit",
    "font",
    "png_bytes",
]

BACKGROUND = (32, 34, 37)
TEXT = (235, 235, 235)
MUTED = (160, 160, 165)
GOLD = (230, 180, 40)

FONT_FILES = ("DejaVuSans.ttf", "dejavu/DejaVuSans.ttf", "DejaVuSans-Bold.ttf")

Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


@lru_cache(maxsize=16)
def font(size: int) -> Font:
    """DejaVu Sans if the system has it, else Pillow's own font at that size."""
    for name in FONT_FILES:
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    return ImageFont.load_default(size=size)


def clean(name: str) -> str:
    """A display name made drawable: control and format characters become spaces."""
    text = "".join(" " if unicodedata.category(ch)[0] == "C" else ch for ch in name)
    return " ".join(text.split()) or "?"


def fit(draw: ImageDraw.ImageDraw, text: str, width: float, face: Font) -> str:
    """``text`` cut with an ellipsis to fit ``width`` pixels."""
    if draw.textlength(text, font=face) <= width:
        return text
    while text and draw.textlength(text + "…", font=face) > width:
        text = text[:-1]
    return text + "…"


def png_bytes(image: Image.Image) -> bytes:
    """The picture as PNG: no timestamp nor metadata, fixed compression, so the same
    picture always gives the same bytes."""
    out = io.BytesIO()
    image.save(out, format="PNG", compress_level=6)
    return out.getvalue()
