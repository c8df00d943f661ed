"""Text in the columns of a code block, measured as a monospace font shows it.

Discord's code blocks are monospace, but not every character takes one column: an emoji or a
CJK character takes two, a combining accent or a joiner none. Padding by code points misaligns
a table as soon as a name holds one of them; these helpers count display columns instead
(Unicode's East Asian Width, and the ``emoji`` package for emoji and their sequences).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterator

import emoji

__all__ = ["clip", "display_width", "ljust", "rjust"]

_ZERO_WIDTH = frozenset({"Mn", "Me", "Cf"})
"""Combining marks and format characters (joiners, variation selectors) take no column."""


def _clusters(text: str) -> Iterator[tuple[str, int]]:
    """``text`` as the pieces a reader sees (an emoji sequence, a letter with its accents),
    each with the columns it takes."""
    spans = {m["match_start"]: m["match_end"] for m in emoji.emoji_list(text)}
    i = 0
    while i < len(text):
        if i in spans:
            end = spans[i]
            yield text[i:end], 2
            i = end
            continue
        char = text[i]
        if unicodedata.category(char) in _ZERO_WIDTH:
            width = 0
        elif unicodedata.east_asian_width(char) in ("W", "F"):
            width = 2
        else:
            width = 1
        end = i + 1
        while (
            end < len(text) and end not in spans and unicodedata.category(text[end]) in ("Mn", "Me")
        ):
            end += 1  # a combining accent goes with its letter
        yield text[i:end], width
        i = end


def display_width(text: str) -> int:
    """The columns ``text`` takes in a monospace font."""
    return sum(width for _, width in _clusters(text))


def clip(text: str, width: int, ellipsis: str = "…") -> str:
    """``text`` cut to at most ``width`` columns, ending in ``ellipsis`` when cut, never in
    the middle of an emoji or between a letter and its accent."""
    if display_width(text) <= width:
        return text
    room = width - display_width(ellipsis)
    out: list[str] = []
    used = 0
    for piece, columns in _clusters(text):
        if used + columns > room:
            break
        out.append(piece)
        used += columns
    return "".join(out) + ellipsis


def ljust(text: str, width: int) -> str:
    """``text`` padded with spaces on the right to ``width`` columns."""
    return text + " " * max(0, width - display_width(text))


def rjust(text: str, width: int) -> str:
    """``text`` padded with spaces on the left to ``width`` columns."""
    return " " * max(0, width - display_width(text)) + text
