"""Columns of a code block measured as a monospace font shows them (bot.columns)."""

from __future__ import annotations

import pytest

from bot.columns import clip, display_width, ljust, rjust


@pytest.mark.parametrize(
    ("text", "width"),
    [
        ("Ana", 3),
        ("🎉 Ana", 6),  # an emoji takes two columns
        ("李小龙", 6),  # so does a CJK character
        ("Zoe\u0308", 3),  # a combining diaeresis takes none
        ("Zoë", 3),
        ("👩\u200d💻 Dev", 6),  # a ZWJ sequence is one emoji
        ("🇫🇷 Léa", 6),  # a flag is one emoji
        ("❤️ Bob", 6),  # an emoji with its variation selector
        ("", 0),
    ],
)
def test_display_width_counts_columns_not_code_points(text: str, width: int) -> None:
    assert display_width(text) == width
    assert display_width(ljust(text, 12)) == 12 and ljust(text, 12).startswith(text)
    assert display_width(rjust(text, 12)) == 12 and rjust(text, 12).endswith(text)


def test_clip_cuts_by_columns_and_never_inside_an_emoji_or_an_accent() -> None:
    assert clip("Ana", 12) == "Ana"
    assert clip("李小龙李小龙李小龙", 12) == "李小龙李小…"
    assert display_width(clip("李小龙李小龙李小龙", 12)) == 11
    assert clip("👩\u200d💻👩\u200d💻👩\u200d💻👩\u200d💻", 6) == "👩\u200d💻👩\u200d💻…"
    cut = clip("Zoe\u0308" * 6, 6)
    assert cut == "Zoe\u0308Zo…" and display_width(cut) == 6
    assert clip("🎉" * 10, 12) == "🎉" * 5 + "…"
