"""``/speahx new|abandon|stats``: Speahx on the seated-game kit.

The kit (:mod:`bot.seated`) runs the lobby, the table, the hands, the turn timer, notices,
abandon and stats; this cog says which options ``/speahx new`` takes and how the game looks
(:mod:`cogs.speahx._render`). A hand of any size reaches every legal group: past twenty
moves the kit offers them in selects of 25, paged.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from bot.i18n import Lang, t
from bot.seated import OptionSpec, SeatedCog, SeatedSpec, seated_group
from cogs.speahx._render import SpeahxRenderer

KIND: Final = "speahx"
TIMER_RANGE: Final = (15, 600)
SPEC: Final = SeatedSpec(
    KIND,
    SpeahxRenderer(),
    options=(
        OptionSpec("jokers", "Play with 2 jokers (default: no)", False),
        OptionSpec(
            "turn_seconds",
            "Seconds per turn before the bot plays: 0 (off) or 15 to 600 (default 90)",
            90,
            0,
            600,
            engine=False,
        ),
    ),
)


class SpeahxCog(SeatedCog, name="Speahx"):
    """Speahx for 2 to 14 players."""

    spec = SPEC
    speahx = seated_group(KIND, "Speahx", SPEC.options, "2 to 14")

    def check_options(self, values: Mapping[str, Any], locale: Lang) -> str | None:
        low, high = TIMER_RANGE
        seconds = int(values.get("turn_seconds", 90))
        if seconds and not low <= seconds <= high:
            return t("speahx.bad_turn_seconds", locale, min=low, max=high, value=seconds)
        return None
