"""bot.text: member text neutralised, names escaped, texts clipped without cutting a token."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.text import ELLIPSIS, ESCAPED, TooLong, clip, code, escape, neutralize, plain

ACTIVE_MENTION = re.compile(r"<@[!&]?\d+>|@everyone|@here")
TOKENS = [
    "<@123456789012345678>",
    "<@&42>",
    "<#77>",
    "<:gn_7h:123>",
    "<a:wave:9>",
    "<t:1700000000:R>",
]
GRAPHEMES = ["👍🏽", "👨‍👩‍👧", "🇫🇷", "é", "e\u0301", "1\ufe0f\u20e3"]
pieces = st.sampled_from(TOKENS + GRAPHEMES + ["\\*", "\\", "*", "_", " ", "\n", "# ", "a", "b"])
texts = st.lists(pieces, max_size=30).map("".join)
member_text = st.one_of(texts, st.text(max_size=60))


def test_neutralize_makes_mentions_inert_and_markdown_literal() -> None:
    out = neutralize("<@123456789012345678> **x**\n# boom", 100)
    assert "\n" not in out
    assert not ACTIVE_MENTION.search(out)
    assert out == "<@\u200b123456789012345678\\> \\*\\*x\\*\\* \\# boom"
    assert plain(out) == "<@123456789012345678> **x** # boom"


def test_neutralize_refuses_too_long_and_empty_texts() -> None:
    assert plain(neutralize("*" * 100, 100)) == "*" * 100  # the limit counts what is seen
    with pytest.raises(TooLong) as err:
        neutralize("a" * 101, 100)
    assert err.value.limit == 100
    with pytest.raises(ValueError):
        neutralize(" \n\t ", 100)


def test_escape_shows_names_as_written() -> None:
    assert escape("__x__") == "\\_\\_x\\_\\_"
    assert escape("||spoiler|| `code`") == "\\|\\|spoiler\\|\\| \\`code\\`"
    assert escape("- list") == "\\- list"
    assert escape("push-ups") == "push-ups"


def test_clip_keeps_whole_tokens() -> None:
    assert clip("short", 10) == "short"
    assert clip("hello <@123456> there", 12) == "hello" + ELLIPSIS
    assert clip("ab\\*cd", 4) == "ab" + ELLIPSIS
    assert clip("ok 👨‍👩‍👧", 5) == "ok" + ELLIPSIS


@settings(max_examples=300, deadline=None)
@given(member_text)
def test_neutralize_is_idempotent_and_never_active(text: str) -> None:
    try:
        out = neutralize(text, 1000)
    except ValueError:
        return
    assert neutralize(out, 1000) == out
    assert "\n" not in out and "\r" not in out
    assert not ACTIVE_MENTION.search(out)
    assert escape(out) == out


@settings(max_examples=300, deadline=None)
@given(texts, st.integers(min_value=0, max_value=80))
def test_clip_never_cuts_a_token(text: str, limit: int) -> None:
    out = clip(text, limit)
    assert len(out) <= limit
    if out == text:
        return
    assert out.endswith(ELLIPSIS) or out == ""
    kept = out.removesuffix(ELLIPSIS)
    assert text.startswith(kept)
    # no mention, custom emoji, timestamp or grapheme is cut in half
    trailing = len(kept) - len(kept.rstrip("\\"))
    if trailing % 2:  # a backslash last: it did not escape what followed it
        assert text[len(kept)] not in ESCAPED, kept
    for token in [*TOKENS, *GRAPHEMES]:
        for found in re.finditer(re.escape(token), text):
            assert not found.start() < len(kept) < found.end(), (token, kept)


def test_code_quotes_a_value_inside_a_code_span() -> None:
    assert code("12`:3\n4", 20) == "12':3 4"
    assert code("x" * 30, 20) == "x" * 19 + ELLIPSIS
