"""Card faces drawn with Pillow: one small picture per card the bot shows, for Discord emojis.

Every picture is a 128×128 PNG (RGBA, transparent around the card's rounded corners) with
a big rank over a big suit symbol, so that it still reads at the 22 px Discord shows an
emoji at in text: red for hearts and diamonds, black for spades and clubs, green for
Papayoo's payoo suit; the Papayoo card (the 7 of the suit the die chose) on a gold face;
a purple joker, a teal nikäye and a blue card back.

Art keys (:data:`ART_KEYS`, what :func:`art_key` maps a card code to):

=============  ==============================================================
``2S``..``AC``  the 52 standard cards (every game)
``1S``..``1C``  Papayoo's 1s (its 2..10 are the standard cards' art)
``P1``..``P20`` Papayoo's payoo suit
``PY7S``..      the Papayoo card, one per suit the die may choose (``PY`` + code)
``JK``          a joker (Speahx)
``NK``          a nikäye (Späye)
``BACK``        a card face down
=============  ==============================================================

The same art always gives the same bytes (no timestamp, fixed compression), so a hash of
the bytes (:func:`art_hash`) tells whether an uploaded emoji is still current. The bytes
depend on Pillow's own font (Aileron, built in since Pillow 10.1: no font file of the
system is read) and on Pillow's FreeType and zlib: another Pillow may draw other bytes,
and the emojis are then uploaded once more.
"""

from __future__ import annotations

import hashlib
import io
import math
from collections.abc import Iterable
from functools import lru_cache
from typing import Final

from PIL import Image, ImageDraw, ImageFont

from bot.engine.cards import JOKER, NIKAYE, RANKS, SUITS

__all__ = [
    "ART_KEYS",
    "BACK",
    "BLACK",
    "PAPAYOO_MARK",
    "PAYOO_GREEN",
    "RED",
    "SIZE",
    "SUIT_CENTRE",
    "all_art",
    "art_hash",
    "art_key",
    "card_png",
    "colour_of",
]

SIZE: Final = 128
"""Pixels a side: Discord shows emojis at up to 128 px (48 in a message of emojis only)."""
SCALE: Final = 4
"""Drawn this many times larger, then reduced: smooth edges without anti-aliased shapes."""
BACK: Final = "BACK"
"""The art key (and card code) of a card face down."""
PAPAYOO_MARK: Final = "PY"
"""Prefix of the Papayoo card's art key: ``PY7H`` is the 7 of hearts as the Papayoo."""

RED: Final = (200, 24, 40)
BLACK: Final = (22, 22, 28)
PAYOO_GREEN: Final = (18, 140, 72)
JOKER_PURPLE: Final = (126, 52, 170)
NIKAYE_TEAL: Final = (0, 128, 140)
BACK_BLUE: Final = (38, 78, 170)
FACE: Final = (255, 255, 255)
PAPAYOO_FACE: Final = (255, 214, 72)
EDGE: Final = (120, 120, 128)
GOLD_EDGE: Final = (176, 120, 0)

CARD_BOX: Final = (8, 2, 120, 126)
"""The card's rectangle in the 128 px picture; outside it (and its round corners) is clear."""
RADIUS: Final = 14
RANK_CENTRE: Final = (64, 38)
SUIT_CENTRE: Final = (64, 92)
"""Where the suit symbol's middle is (a pixel there has the suit's colour)."""
SUIT_SIZE: Final = 50
"""Width and height of the suit symbol, in the 128 px picture."""

PAYOO_NUMBERS: Final = range(1, 21)
PAPAYOO_SUITED: Final = range(1, 11)


def _keys() -> tuple[str, ...]:
    standard = [rank + suit for suit in SUITS for rank in RANKS]
    ones = [f"1{suit}" for suit in SUITS]
    payoo = [f"P{n}" for n in PAYOO_NUMBERS]
    papayoo = [f"{PAPAYOO_MARK}7{suit}" for suit in SUITS]
    return (*standard, *ones, *payoo, *papayoo, JOKER, NIKAYE, BACK)


ART_KEYS: Final = _keys()
"""Every picture the bot has, in a fixed order (83)."""
_KNOWN: Final = frozenset(ART_KEYS)


def art_key(code: str, *, papayoo: str | None = None) -> str | None:
    """The art of a card code: ``"10H" -> "10H"``, ``"P13" -> "P13"``, ``"JK"``, ``"NK"``,
    ``"BACK"``; with ``papayoo`` (the Papayoo card's code, ``"7H"``) that card gets its
    marked art (``"PY7H"``). ``None`` for a code without art."""
    key = PAPAYOO_MARK + code if papayoo is not None and code == papayoo else code
    return key if key in _KNOWN else None


def colour_of(key: str) -> tuple[int, int, int]:
    """The ink of an art key: its suit's colour, or the special card's own."""
    if key == JOKER:
        return JOKER_PURPLE
    if key == NIKAYE:
        return NIKAYE_TEAL
    if key == BACK:
        return BACK_BLUE
    if key.startswith("P") and not key.startswith(PAPAYOO_MARK):
        return PAYOO_GREEN
    return RED if key[-1] in ("H", "D") else BLACK


# -- shapes, in the big (SCALE×) picture ---------------------------------------------------


Point = tuple[float, float]


def _big(value: float) -> float:
    return value * SCALE


def _heart(
    draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, fill: tuple[int, ...]
) -> None:
    r = size * 0.27
    top = cy - size * 0.22
    draw.ellipse((cx - 2 * r, top - r, cx, top + r), fill=fill)
    draw.ellipse((cx, top - r, cx + 2 * r, top + r), fill=fill)
    draw.polygon(
        [
            (cx - 1.96 * r, top + 0.35 * r),
            (cx, top - 0.2 * r),
            (cx + 1.96 * r, top + 0.35 * r),
            (cx, cy + size / 2),
        ],
        fill=fill,
    )


def _diamond(
    draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, fill: tuple[int, ...]
) -> None:
    w, h = size * 0.4, size * 0.5
    draw.polygon([(cx, cy - h), (cx + w, cy), (cx, cy + h), (cx - w, cy)], fill=fill)


def _stem(
    draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, fill: tuple[int, ...]
) -> None:
    draw.polygon(
        [(cx, cy), (cx + size * 0.2, cy + size / 2), (cx - size * 0.2, cy + size / 2)], fill=fill
    )


def _spade(
    draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, fill: tuple[int, ...]
) -> None:
    r = size * 0.25
    base = cy + size * 0.1
    draw.ellipse((cx - 2 * r, base - r, cx, base + r), fill=fill)
    draw.ellipse((cx, base - r, cx + 2 * r, base + r), fill=fill)
    draw.polygon(
        [
            (cx - 1.96 * r, base - 0.35 * r),
            (cx, cy - size / 2),
            (cx + 1.96 * r, base - 0.35 * r),
            (cx, base + 0.9 * r),
        ],
        fill=fill,
    )
    _stem(draw, cx, cy + size * 0.05, size, fill)


def _club(
    draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, fill: tuple[int, ...]
) -> None:
    r = size * 0.21
    for x, y in (
        (cx, cy - size * 0.26),
        (cx - size * 0.25, cy + size * 0.06),
        (cx + size * 0.25, cy + size * 0.06),
    ):
        draw.ellipse((x - r, y - r, x + r, y + r), fill=fill)
    draw.rectangle((cx - r * 0.5, cy - size * 0.2, cx + r * 0.5, cy + size * 0.1), fill=fill)
    _stem(draw, cx, cy + size * 0.02, size, fill)


def _star_points(cx: float, cy: float, size: float, points: int = 5) -> list[Point]:
    outer, inner = size / 2, size * 0.21
    out: list[Point] = []
    for i in range(points * 2):
        angle = math.pi * i / points - math.pi / 2
        r = outer if i % 2 == 0 else inner
        out.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    return out


def _star(
    draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, fill: tuple[int, ...]
) -> None:
    draw.polygon(_star_points(cx, cy + size * 0.05, size * 1.1), fill=fill)


def _payoo(
    draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, fill: tuple[int, ...]
) -> None:
    """Papayoo's payoo suit: a ring with a dot, unlike any French suit."""
    r = size / 2
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=fill)
    inner = r * 0.55
    draw.ellipse((cx - inner, cy - inner, cx + inner, cy + inner), fill=FACE)
    dot = r * 0.25
    draw.ellipse((cx - dot, cy - dot, cx + dot, cy + dot), fill=fill)


def _eye(
    draw: ImageDraw.ImageDraw, cx: float, cy: float, size: float, fill: tuple[int, ...]
) -> None:
    """The nikäye's mark: an eye (a lens with a pupil)."""
    w, h = size / 2, size * 0.3
    draw.ellipse((cx - w, cy - h, cx + w, cy + h), fill=fill)
    r = h * 0.75
    draw.ellipse((cx - r, cy - r, cx + r, cy + r), fill=FACE)
    p = r * 0.55
    draw.ellipse((cx - p, cy - p, cx + p, cy + p), fill=fill)


SHAPES: Final = {
    "S": _spade,
    "H": _heart,
    "D": _diamond,
    "C": _club,
    "P": _payoo,
    JOKER: _star,
    NIKAYE: _eye,
}


@lru_cache(maxsize=8)
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """Pillow's built-in font (no file of the system is read)."""
    return ImageFont.load_default(size=size)


def _text(
    draw: ImageDraw.ImageDraw, text: str, centre: Point, fill: tuple[int, ...], box: float
) -> None:
    """``text`` as big as fits a ``box``-wide, 56 px-high space, bold (a stroke of its ink)."""
    size = _big(58)
    face = _font(int(size))
    stroke = int(_big(2.5))
    left, top, right, bottom = draw.textbbox((0, 0), text, font=face, stroke_width=stroke)
    width = right - left
    if width > box:
        face = _font(int(size * box / width))
        left, top, right, bottom = draw.textbbox((0, 0), text, font=face, stroke_width=stroke)
    x = centre[0] - (left + right) / 2
    y = centre[1] - (top + bottom) / 2
    draw.text((x, y), text, font=face, fill=fill, stroke_width=stroke, stroke_fill=fill)


def _rank_text(key: str) -> str:
    if key.startswith(PAPAYOO_MARK):
        return key[len(PAPAYOO_MARK) : -1]
    if key == JOKER:
        return "JK"
    if key == NIKAYE:
        return "NK"
    if key.startswith("P"):
        return key[1:]
    return key[:-1]


def _symbol(key: str) -> str:
    if key in (JOKER, NIKAYE):
        return key
    if key.startswith("P") and not key.startswith(PAPAYOO_MARK):
        return "P"
    return key[-1]


def _card(face: tuple[int, int, int], edge: tuple[int, int, int], edge_width: float) -> Image.Image:
    image = Image.new("RGBA", (SIZE * SCALE, SIZE * SCALE), (0, 0, 0, 0))
    draw = ImageDraw.Draw(image)
    box = tuple(_big(v) for v in CARD_BOX)
    draw.rounded_rectangle(box, radius=_big(RADIUS), fill=edge)
    inset = _big(edge_width)
    inner = (box[0] + inset, box[1] + inset, box[2] - inset, box[3] - inset)
    draw.rounded_rectangle(inner, radius=_big(RADIUS) - inset, fill=face)
    return image


def _draw_back() -> Image.Image:
    image = _card(BACK_BLUE, (20, 40, 100), 3)
    draw = ImageDraw.Draw(image)
    x0, y0, x1, y1 = (_big(v) for v in CARD_BOX)
    margin = _big(11)
    pattern = (x0 + margin, y0 + margin, x1 - margin, y1 - margin)
    draw.rounded_rectangle(pattern, radius=_big(6), outline=FACE, width=int(_big(3)))
    step = _big(12)
    light = (110, 150, 230)
    # A lattice of diagonals, clipped to the inner frame by drawing on a mask.
    lattice = Image.new("L", image.size, 0)
    ldraw = ImageDraw.Draw(lattice)
    span = int(pattern[3] - pattern[1] + pattern[2] - pattern[0])
    for offset in range(0, span + 1, int(step)):
        ldraw.line(
            (pattern[0] + offset, pattern[1], pattern[0], pattern[1] + offset),
            fill=255,
            width=int(_big(2)),
        )
        ldraw.line(
            (pattern[2] - offset, pattern[1], pattern[2], pattern[1] + offset),
            fill=255,
            width=int(_big(2)),
        )
    clip = Image.new("L", image.size, 0)
    inset = _big(5)
    ImageDraw.Draw(clip).rectangle(
        (pattern[0] + inset, pattern[1] + inset, pattern[2] - inset, pattern[3] - inset), fill=255
    )
    lattice = Image.composite(lattice, Image.new("L", image.size, 0), clip)
    image.paste(Image.new("RGBA", image.size, (*light, 255)), (0, 0), lattice)
    centre = (_big(64), _big(64))
    _star(draw, centre[0], centre[1] - _big(3), _big(40), (*FACE, 255))
    return image


def _draw(key: str) -> Image.Image:
    if key == BACK:
        return _draw_back()
    papayoo = key.startswith(PAPAYOO_MARK)
    image = _card(PAPAYOO_FACE, GOLD_EDGE, 5) if papayoo else _card(FACE, EDGE, 2)
    draw = ImageDraw.Draw(image)
    ink = (*colour_of(key.removeprefix(PAPAYOO_MARK)), 255)
    inner_width = _big(CARD_BOX[2] - CARD_BOX[0] - 14)
    _text(draw, _rank_text(key), (_big(RANK_CENTRE[0]), _big(RANK_CENTRE[1])), ink, inner_width)
    shape = SHAPES[_symbol(key)]
    shape(draw, _big(SUIT_CENTRE[0]), _big(SUIT_CENTRE[1]), _big(SUIT_SIZE), ink)
    return image


@lru_cache(maxsize=len(ART_KEYS))
def card_png(key: str) -> bytes:
    """The PNG of one art key (:data:`ART_KEYS`); the same bytes every time."""
    if key not in _KNOWN:
        raise KeyError(f"no card art for {key!r}")
    image = _draw(key).resize((SIZE, SIZE), Image.Resampling.LANCZOS)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()


def all_art(keys: Iterable[str] = ART_KEYS) -> dict[str, bytes]:
    """Every art key's PNG (the first call draws them, about a second of CPU)."""
    return {key: card_png(key) for key in keys}


def art_hash(png: bytes) -> str:
    """Six hex digits of the picture's SHA-256: part of its emoji's name."""
    return hashlib.sha256(png).hexdigest()[:6]
