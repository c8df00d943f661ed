"""Text a member wrote, and text cut to fit: the one place both are made safe to show.

- :func:`neutralize` is the one entry point of every text a member writes that the bot shows
  again to others (an exercise's name from ``/spaye start``, ``/spaye exercise``,
  ``/config exercise`` or the committee's form). It returns the **neutral** form, and that
  form is what is stored: whitespace (newlines and tabs included) collapsed to single
  spaces, markdown escaped with a backslash, and mentions made inert by a zero-width space
  after their ``@`` (``<@123>`` shows as written but is text), so that nothing in it pings even if a
  message's ``allowed_mentions`` were wrong. Renderers show the stored text as it is, never
  escaping it again. :func:`neutralize` is idempotent, so a stored text that goes through it
  again (settings read back, a form prefilled with it) is unchanged. Its length limit counts
  what the member sees (:func:`plain`), and a text over it raises :class:`TooLong`, which
  the commands answer with a refusal naming the limit, never by cutting it.
- :func:`escape` is for names the bot did not choose (display names): markdown escaped,
  mentions made inert, one line. Used where a name meets markdown (titles, fields, lines).
- :func:`code` is for a member's text quoted back in a refusal's code span: one line, no
  backtick to end the span, clipped.
- :func:`clip` cuts a text to a length without cutting a token (a mention, a custom emoji, a
  timestamp, an escape, a grapheme) and ends it with an ellipsis.
"""

from __future__ import annotations

import re
from typing import Final

import regex  # for \X, a grapheme

ELLIPSIS: Final = "…"
ZWSP: Final = "\u200b"

MARKDOWN: Final = frozenset("\\*_~`|>#[]")
"""Characters escaped everywhere. ``-`` and ``+`` only start a list at the start of a line,
so they are escaped there alone (:data:`_LIST_START`)."""
ESCAPED: Final = MARKDOWN | {"-", "+"}
"""What a backslash may precede in a neutral text."""

_LIST_START = re.compile(r"^(\s*)([-+])(?=\s)")
_MENTION = re.compile(r"@(?=everyone|here|[!&]?\d)")
_INERT = re.compile(r"@\u200b(?=everyone|here|[!&]?\d)")

_TOKEN = regex.compile(
    r"<a?:\w+:\d+>"  # a custom emoji
    r"|<(?:@[!&]?|#)\d+>"  # a member, role or channel mention
    r"|<t:-?\d+(?::[tTdDfFR])?>"  # a timestamp
    r"|</[^<>]+:\d+>"  # a command mention
    r"|\\[-+\\*_~`|>#\[\]]"  # an escape
    r"|\X",  # a grapheme
    regex.DOTALL,
)


class TooLong(ValueError):
    """A text longer than its limit (``limit``, as the member counts it)."""

    def __init__(self, limit: int) -> None:
        super().__init__(f"the text is longer than {limit} characters")
        self.limit = limit


def one_line(text: str) -> str:
    """Every run of whitespace (newlines, tabs, …) as one space, none at either end."""
    return " ".join(text.split())


def _escape_markdown(text: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and text[i + 1] in ESCAPED:
            out.append(text[i : i + 2])  # already escaped: kept, so escaping is idempotent
            i += 2
            continue
        out.append("\\" + ch if ch in MARKDOWN else ch)
        i += 1
    return _LIST_START.sub(r"\1\\\2", "".join(out))


def escape(name: str) -> str:
    """A name shown inside markdown: one line, markdown escaped, mentions inert."""
    return _MENTION.sub("@" + ZWSP, _escape_markdown(one_line(name)))


def code(text: str, limit: int) -> str:
    """A member's text quoted back in a code span (a refusal): one line, its backticks as
    quotes (one would end the span), at most ``limit`` characters."""
    return clip(one_line(text).replace("`", "'"), limit)


def plain(text: str) -> str:
    """What a member sees of a neutral text: its escapes and zero-width spaces removed."""
    text = _INERT.sub("@", text)
    return re.sub(r"\\(.)", r"\1", text, flags=re.DOTALL)


def neutralize(text: str, limit: int) -> str:
    """The neutral form of a member's text (see the module docstring).

    Raises :class:`TooLong` when what the member sees of it is longer than ``limit``
    characters, ``ValueError`` when nothing is left of it."""
    neutral = escape(text)
    if not neutral:
        raise ValueError("the text is empty")
    if len(plain(neutral)) > limit:
        raise TooLong(limit)
    return neutral


def clip(text: str, limit: int) -> str:
    """``text`` if it fits in ``limit`` characters, else its longest start that does not cut a
    token (see :data:`_TOKEN`) followed by an ellipsis, ``limit`` characters at most."""
    if len(text) <= limit:
        return text
    if limit < len(ELLIPSIS):
        return ""
    room = limit - len(ELLIPSIS)
    end = 0
    for match in _TOKEN.finditer(text):
        if match.end() > room:
            break
        end = match.end()
    return text[:end].rstrip() + ELLIPSIS
