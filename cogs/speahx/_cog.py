"""``/speahx new|abandon|stats``: Speahx on the seated-game kit.

The kit (:mod:`bot.seated`) runs the lobby, the table, the hands, the turn timer (and its bounds), notices,
abandon and stats; this cog says which options ``/speahx new`` takes and how the game looks
(:mod:`cogs.speahx._render`). A hand of any size reaches every legal group: past twenty
moves the kit offers them in selects of 25, paged.
"""

from __future__ import annotations

from typing import Final

from bot.seated import OptionSpec, SeatedCog, SeatedSpec, seated_group, turn_option
from cogs.speahx._render import SpeahxRenderer

KIND: Final = "speahx"
SPEC: Final = SeatedSpec(
    KIND,
    SpeahxRenderer(),
    options=(
        OptionSpec("jokers", "Play with 2 jokers (default: no)", False),
        turn_option(90),
    ),
)


class SpeahxCog(SeatedCog, name="Speahx"):
    """Speahx for 2 to 14 players."""

    spec = SPEC
    speahx = seated_group(KIND, "Speahx", SPEC.options, "2 to 14")
