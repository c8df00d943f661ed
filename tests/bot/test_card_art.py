"""The card faces (bot/cardart.py): every card drawn, as Discord takes an emoji, the same
bytes every time, in the right colours."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from PIL import Image

from bot.cardart import (
    ART_KEYS,
    BACK,
    BLACK,
    CARD_BOX,
    PAPAYOO_FACE,
    PAYOO_GREEN,
    RED,
    SIZE,
    SUIT_CENTRE,
    all_art,
    art_hash,
    art_key,
    card_png,
)
from bot.emojis import emoji_name, parse_name
from bot.engine.cards import JOKER, NIKAYE, papayoo_deck, standard_deck
from bot.engine.spaye.rules import spaye_deck
from bot.engine.speahx import ALL_CARDS as SPEAHX_CARDS

MAX_EMOJI_BYTES = 256 * 1024


def picture(key: str) -> Image.Image:
    image = Image.open(io.BytesIO(card_png(key)))
    image.load()
    return image


def pixels(image: Image.Image) -> list[tuple[int, ...]]:
    """Every pixel, row by row (``getdata`` is deprecated in new Pillows)."""
    access = image.load()
    assert access is not None
    width, height = image.size
    return [tuple(access[x, y]) for y in range(height) for x in range(width)]  # type: ignore[arg-type]


def close(colour: tuple[int, ...], want: tuple[int, int, int], slack: int = 40) -> bool:
    return all(abs(a - b) <= slack for a, b in zip(colour[:3], want, strict=True))


def test_every_card_of_every_game_has_art() -> None:
    codes = {
        *standard_deck(),
        *papayoo_deck(3),
        *spaye_deck(),
        *SPEAHX_CARDS,
        JOKER,
        NIKAYE,
        BACK,
    }
    for code in codes:
        assert art_key(code) == code, code
    # The Papayoo card of each suit the die may choose has its own, marked art.
    for suit in "SHDC":
        assert art_key(f"7{suit}", papayoo=f"7{suit}") == f"PY7{suit}"
        assert art_key(f"7{suit}", papayoo="7X") == f"7{suit}"
    assert art_key("8H", papayoo="7H") == "8H"
    assert art_key("ZZ") is None and art_key("P21") is None and art_key("11S") is None
    assert len(ART_KEYS) == len(set(ART_KEYS)) == 83
    assert set(ART_KEYS) == codes | {f"PY7{s}" for s in "SHDC"}


def test_every_picture_is_a_small_transparent_png() -> None:
    art = all_art()
    assert list(art) == list(ART_KEYS)
    for key, data in art.items():
        assert data.startswith(b"\x89PNG\r\n\x1a\n"), key
        assert len(data) < MAX_EMOJI_BYTES // 10, (key, len(data))  # far under 256 KiB
        image = picture(key)
        assert image.format == "PNG" and image.mode == "RGBA" and image.size == (SIZE, SIZE)
        # Transparent corners (the card's corners are round), an opaque middle.
        for corner in ((0, 0), (SIZE - 1, 0), (0, SIZE - 1), (SIZE - 1, SIZE - 1)):
            assert image.getpixel(corner)[3] == 0, (key, corner)  # type: ignore[index]
        assert image.getpixel((CARD_BOX[0] + 2, CARD_BOX[1] + 2))[3] == 0  # type: ignore[index]
        assert image.getpixel((SIZE // 2, SIZE // 2))[3] == 255  # type: ignore[index]


def test_the_same_art_gives_the_same_bytes() -> None:
    first = {key: card_png(key) for key in ART_KEYS}
    card_png.cache_clear()
    again = {key: card_png(key) for key in ART_KEYS}
    assert first == again
    # Another process draws the same bytes too (nothing depends on the process: no time,
    # no random, no set order).
    code = (
        "import hashlib; from bot.cardart import all_art;"
        "print(hashlib.sha256(b''.join(all_art().values())).hexdigest())"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
    )
    import hashlib

    assert out.stdout.strip() == hashlib.sha256(b"".join(first.values())).hexdigest()
    # Different cards, different pictures (and so different emoji names).
    assert len({art_hash(data) for data in first.values()}) == len(ART_KEYS)


def test_emoji_names_encode_the_card_and_its_art() -> None:
    for key in ART_KEYS:
        data = card_png(key)
        name = emoji_name(key, data)
        assert 2 <= len(name) <= 32 and name.replace("_", "").isalnum() and name.isascii()
        assert parse_name(name) == (key, art_hash(data))
    assert emoji_name("7H", card_png("7H")) != emoji_name("7H", card_png("8H"))
    assert parse_name("my_own_emoji") is None and parse_name("gn_7H_XYZ") is None


@pytest.mark.parametrize("suit", ["H", "D"])
def test_hearts_and_diamonds_are_red(suit: str) -> None:
    for rank in ("2", "10", "Q", "A"):
        ink = picture(rank + suit).getpixel(SUIT_CENTRE)
        assert isinstance(ink, tuple) and close(ink, RED), (rank + suit, ink)
        assert ink[0] > 150 and ink[1] < 80 and ink[2] < 80


@pytest.mark.parametrize("suit", ["S", "C"])
def test_spades_and_clubs_are_black(suit: str) -> None:
    for rank in ("2", "10", "Q", "A"):
        ink = picture(rank + suit).getpixel(SUIT_CENTRE)
        assert isinstance(ink, tuple) and close(ink, BLACK), (rank + suit, ink)
        assert max(ink[:3]) < 70


def test_rank_is_drawn_in_the_suits_colour() -> None:
    """The rank's ink (the most common coloured pixel of the top half) is the suit's."""
    for code, want in (("10H", RED), ("KD", RED), ("10S", BLACK), ("JC", BLACK)):
        image = picture(code).crop((CARD_BOX[0] + 6, CARD_BOX[1] + 6, CARD_BOX[2] - 6, 64))
        inks = [px for px in pixels(image) if px[3] == 255 and min(px[:3]) < 200]
        assert len(inks) > 200, code  # a big rank
        assert sum(close(px, want, 60) for px in inks) > 0.8 * len(inks), code


def test_papayoo_payoo_joker_nikaye_and_back_look_their_own() -> None:
    for n in (1, 13, 20):
        ink = picture(f"P{n}").getpixel(SUIT_CENTRE)
        assert isinstance(ink, tuple) and close(ink, PAYOO_GREEN), (n, ink)
    # The Papayoo card: the suit's colour on a gold face, unlike the plain 7.
    for suit, want in (("H", RED), ("S", BLACK)):
        marked, plain = picture(f"PY7{suit}"), picture(f"7{suit}")
        assert close(marked.getpixel(SUIT_CENTRE), want)  # type: ignore[arg-type]
        face = marked.getpixel((CARD_BOX[0] + 12, SIZE - 12))
        assert isinstance(face, tuple) and close(face, PAPAYOO_FACE, 10)
        assert plain.getpixel((CARD_BOX[0] + 12, SIZE - 12))[:3] == (255, 255, 255)  # type: ignore[index]
    distinct = {card_png(k) for k in (JOKER, NIKAYE, BACK, "7H", "PY7H", "P7")}
    assert len(distinct) == 6
    back = picture(BACK).getpixel((CARD_BOX[0] + 6, SIZE // 2))
    assert isinstance(back, tuple) and back[2] > back[0] + 60  # blue


def test_readable_at_22_pixels() -> None:
    """Shrunk to Discord's inline size, a red and a black card still differ in colour and
    the rank and the suit still leave ink of their colour."""
    for code, want in (("7H", RED), ("7S", BLACK), ("10D", RED), ("10C", BLACK)):
        small = picture(code).resize((22, 22), Image.Resampling.LANCZOS)
        inks = [px for px in pixels(small) if px[3] > 200 and close(px, want, 70)]
        assert len(inks) >= 25, (code, len(inks))
