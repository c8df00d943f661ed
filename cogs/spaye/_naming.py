"""The one entry point of an exercise's name written by a member: ``/spaye start exercise:``,
``/spaye exercise``, the committee's form and ``/config exercise`` all pass it through
:func:`exercise_named` before anything else sees it.

What comes out is the name's neutral form (:func:`bot.text.neutralize`): one line, markdown
escaped, mentions inert, at most :data:`MAX_EXERCISE_NAME` characters as the member counts
them. That form is what the engine and the settings store, and what every message shows as
it is (never escaped again). A name too long is refused, privately and in the member's
language, with the limit; it is never cut.
"""

from __future__ import annotations

from typing import Any

import discord

from bot.engine.spaye.rules import MAX_EXERCISE_NAME
from bot.i18n import Lang, t
from bot.text import TooLong, neutralize, one_line
from bot.ui import say


async def exercise_named(
    interaction: discord.Interaction[Any], raw: str, locale: Lang
) -> str | None:
    """``raw``'s neutral form, or ``None`` once the member was told why it was refused."""
    try:
        return neutralize(raw, MAX_EXERCISE_NAME)
    except TooLong as err:
        length = len(one_line(raw))
        await say(interaction, t("spaye.exercise_too_long", locale, limit=err.limit, length=length))
    except ValueError:
        await say(interaction, t("spaye.bad_exercise_name", locale))
    return None
